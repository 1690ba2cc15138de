package matrix

import (
	"slices"
	"testing"

	ver "github.com/llamactl/llamactl/internal/version"
)

// The per-minor rows are the toolkit table's; STLMinCUDA is the STL1002
// rules (MSVC STL's own check in <yvals_core.h>).
func TestMinorFactsAndSTL(t *testing.T) {
	m := Default()
	rows := m.MinorRows()
	if len(rows) != len(m.Minors()) {
		t.Errorf("%d rows for %d minors", len(rows), len(m.Minors()))
	}
	for _, mv := range m.Minors() {
		tf, _ := m.Toolkit(mv)
		row, ok := m.MinorOf(mv)
		if !ok || !slices.Equal(row.SM, tf.SM) {
			t.Errorf("%s: sm %v, toolkit %v", mv, row.SM, tf.SM)
		}
		if n, _, ok := m.GCCMaxMajor(tf); ok && row.GCCMax != n {
			t.Errorf("%s: gcc max %d, toolkit %d", mv, row.GCCMax, n)
		}
	}
	// host_config.h of 11.5 accepts gcc 11 (Ubuntu 22.04's nvcc 11.5 builds with its gcc 11).
	if row, _ := m.MinorOf("11.5.119"); row.GCCMax != 11 {
		t.Errorf("CUDA 11.5 gcc max = %d, want 11", row.GCCMax)
	}
	// A 13.x minor newer than the table: the newest 13 row stands in; not for 12.
	if row, ok := m.MinorOf("13.99.1"); !ok || ver.Major(row.CUDA) != 13 {
		t.Errorf("MinorOf(13.99.1) = %+v, %v", row, ok)
	}
	if _, ok := m.MinorOf("12.99.1"); ok {
		t.Error("MinorOf(12.99.1) found a row")
	}
	lo, hi := m.CUDARange("8.9")
	first, _, _ := m.TargetRange("8.9")
	if lo != first || lo != "11.8" || hi == "" || ver.Compare(hi, "13.3") < 0 {
		t.Errorf("CUDARange(8.9) = %s..%s", lo, hi)
	}
	// cl 19.40 (VS 2022 17.10): nvcc accepts it from 12.4, the STL from 11.6.
	if got := m.MinCUDAForCL("19.40.33807"); got != "12.4" {
		t.Errorf("MinCUDAForCL(19.40) = %q, want 12.4", got)
	}
	for cl, want := range map[string]string{
		"19.29.30133": "",     // VS 2019: no STL1002 gate
		"19.33.31629": "10.1", // VS 2022 17.3
		"19.40.33807": "11.6", // VS 2022 17.10: STL still accepts CUDA 11.8 (STL#4941)
		"19.41.34123": "12.4", // VS 2022 17.11 (STL#4475)
		"19.44.35207": "12.4", // VS 2022 17.14
		"19.50.35717": "12.4", // MSVC Build Tools 14.50
		"19.51.36014": "13.2", // MSVC Build Tools 14.51
		"19.52.0":     "13.3", // STL main (uncertain in the data)
		"19.60.0":     "13.3", // newer than every rule: the newest rule holds
		"garbage":     "",
	} {
		if got := m.STLMinCUDA(cl); got != want {
			t.Errorf("STLMinCUDA(%s) = %q, want %q", cl, got, want)
		}
	}
}

// Resolve chooses among the installed toolkits: the active one when it
// works, else the newest that does, else the active one with its problems;
// an older g++ or MSVC toolset when the default is too new.
func TestResolveChoosesInstalled(t *testing.T) {
	m := Default()
	ada := []GPUQuery{{Name: "NVIDIA GeForce RTX 4090", CC: "8.9"}}
	gcc := func(major int, path string) Compiler { return Compiler{Path: path, Version: "x", Major: major} }
	for _, c := range []struct {
		name     string
		q        Query
		toolkit  int
		works    bool
		problems []string
		cuda     string
		host     string
		toolset  string
	}{
		{name: "active works",
			q:       Query{OS: "linux", GPUs: ada, Installed: []InstalledToolkit{{Version: "12.4.131", Active: true}, {Version: "12.6.85"}}},
			toolkit: 0, works: true, cuda: "12.4.131"},
		{name: "active cannot target, newer one can",
			q:       Query{OS: "linux", GPUs: ada, Installed: []InstalledToolkit{{Version: "11.7.99", Active: true}, {Version: "12.6.85"}, {Version: "12.4.131"}}},
			toolkit: 1, works: true, cuda: "12.6.85"},
		{name: "driver too old for every toolkit",
			q:       Query{OS: "linux", GPUs: ada, DriverCUDA: "12.2", Installed: []InstalledToolkit{{Version: "12.6.85", Active: true}}},
			toolkit: 0, problems: []string{ProblemDriverTooOld}},
		{name: "glibc 2.41 rejects 12.4 unless the distribution built it",
			q:       Query{OS: "linux", GPUs: ada, GlibcMinCUDA: "13.3", Glibc: "2.41", Installed: []InstalledToolkit{{Version: "12.4.131", Active: true}}},
			toolkit: 0, problems: []string{ProblemGlibc}},
		{name: "distro toolkit",
			q:       Query{OS: "linux", GPUs: ada, GlibcMinCUDA: "13.3", Installed: []InstalledToolkit{{Version: "12.4.131", Active: true, Distro: true}}},
			toolkit: 0, works: true, cuda: "12.4.131"},
		{name: "gcc 14 too new, g++-12 installed",
			q: Query{OS: "linux", GPUs: ada, GCC: "14", DefaultGXX: &Compiler{Path: "/usr/bin/g++", Version: "14.2.0", Major: 14},
				OtherGXX: []Compiler{gcc(12, "/usr/bin/g++-12")}, Installed: []InstalledToolkit{{Version: "12.4.131", Active: true}}},
			toolkit: 0, works: true, cuda: "12.4.131", host: "/usr/bin/g++-12"},
		{name: "gcc 14 too new, nothing older",
			q: Query{OS: "linux", GPUs: ada, GCC: "14", DefaultGXX: &Compiler{Path: "/usr/bin/g++", Version: "14.2.0", Major: 14},
				Installed: []InstalledToolkit{{Version: "12.4.131", Active: true}}},
			toolkit: 0, problems: []string{ProblemGCCTooNew}},
		{name: "cl 19.40 too new for 12.3, toolset 14.39 installed",
			q: Query{OS: "windows", GPUs: ada, MSVC: "19.40.33811", MSVCToolsets: []string{"14.39.33519", "14.40.33807"},
				Installed: []InstalledToolkit{{Version: "12.3.107", Active: true}}},
			toolkit: 0, works: true, cuda: "12.3.107", toolset: "14.39"},
		{name: "nvcc --list-gpu-arch says no",
			q:       Query{OS: "linux", GPUs: ada, Installed: []InstalledToolkit{{Version: "12.4.131", Active: true, GPUArchs: []string{"compute_86"}}}},
			toolkit: 0, problems: []string{ProblemCannotTarget}},
		{name: "nothing installed", q: Query{OS: "linux", GPUs: ada}, toolkit: -1},
	} {
		res := m.Resolve(c.q)
		ch := res.Choice
		var ids []string
		for _, p := range ch.Problems {
			ids = append(ids, p.ID)
		}
		if ch.Toolkit != c.toolkit || ch.Works != c.works || !slices.Equal(ids, c.problems) || ch.HostCompiler != c.host || ch.MSVCToolset != c.toolset {
			t.Errorf("%s: toolkit %d works %v problems %v host %q toolset %q; want %d %v %v %q %q",
				c.name, ch.Toolkit, ch.Works, ids, ch.HostCompiler, ch.MSVCToolset, c.toolkit, c.works, c.problems, c.host, c.toolset)
		}
		if c.cuda != "" && ch.CUDA != c.cuda {
			t.Errorf("%s: CUDA %q, want %q", c.name, ch.CUDA, c.cuda)
		}
		if c.name == "glibc 2.41 rejects 12.4 unless the distribution built it" {
			// Resolve (which knows no glibc) recommends the installed 12.4;
			// the choice falls back to the newest minor the headers accept.
			if res.CUDA.Recommended != "12.4.131" || ver.Compare(ch.CUDA, "13.3") < 0 {
				t.Errorf("%s: Resolve recommends %q, the choice %q; want 12.4.131 and >= 13.3", c.name, res.CUDA.Recommended, ch.CUDA)
			}
		}
		if ch.CUDAArchitectures != "89-real" || len(ch.GPUs) != 1 || ch.GPUs[0].Architecture != "89-real" || ch.GPUs[0].MinCUDA != "11.8" {
			t.Errorf("%s: archs %q GPUs %+v", c.name, ch.CUDAArchitectures, ch.GPUs)
		}
	}
}
