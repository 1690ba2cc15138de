package doctor

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// The per-toolkit facts are the matrix's: no copy in gates.json to drift.
func TestToolkitFactsComeFromTheMatrix(t *testing.T) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(gatesJSON, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["toolkits"]; ok {
		t.Error("gates.json has its own toolkit table again; the matrix is the source")
	}
	m := matrix.Default()
	if len(g().Toolkits) != len(m.Minors()) {
		t.Errorf("%d rows for %d matrix minors", len(g().Toolkits), len(m.Minors()))
	}
	for _, mv := range m.Minors() {
		tf, _ := m.Toolkit(mv)
		row, ok := toolkitFacts(mv)
		if !ok || !slices.Equal(row.SM, tf.SM) {
			t.Errorf("%s: sm %v, matrix %v", mv, row.SM, tf.SM)
		}
		if n, _, ok := m.GCCMaxMajor(tf); ok && row.GCCMax != n {
			t.Errorf("%s: gcc max %d, matrix %d", mv, row.GCCMax, n)
		}
	}
	// The removed copy said gcc 10 for CUDA 11.5; host_config.h of 11.5
	// accepts gcc 11 (Ubuntu 22.04's own nvcc 11.5 builds with its gcc 11).
	if row, _ := toolkitFacts("11.5.119"); row.GCCMax != 11 {
		t.Errorf("CUDA 11.5 gcc max = %d, want 11", row.GCCMax)
	}
	s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux"},
		Tools:     map[string][]machine.ToolHit{"nvcc": {{Path: "/usr/bin/nvcc"}}},
		Toolkits:  []machine.CUDAToolkit{{Version: "11.5.119", Root: "/usr/lib/nvidia-cuda-toolkit", NVCC: "/usr/bin/nvcc", Found: []string{"debian", "PATH"}}},
		Compilers: []machine.Compiler{{Kind: "g++", Path: "/usr/bin/g++", Version: "11.4.0", Major: 11}}}
	if fs := checkHostCompiler(s); len(fs) != 1 || fs[0].Message != "cuda.host-compiler/ok" {
		t.Errorf("nvcc 11.5 with g++ 11: %+v", fs)
	}
	lo, hi := cudaRangeFor("8.9")
	first, _, _ := m.TargetRange("8.9")
	if lo != first || lo != "11.8" || hi == "" || version.Compare(hi, "13.3") < 0 {
		t.Errorf("cudaRangeFor(8.9) = %s..%s", lo, hi)
	}
}

// Driver floors and the STL1002 gate come from the matrix's rules.json; the
// expected values are those of NVIDIA's CUDA Toolkit release notes (minor
// version compatibility) and the MSVC STL's own check (STL1002 in <yvals_core.h>).
func TestDriverFloorAndSTLComeFromTheMatrix(t *testing.T) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(gatesJSON, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"driver_floor", "msvc_stl"} {
		if _, ok := raw[k]; ok {
			t.Errorf("gates.json has its own %s again; matrix/data/rules.json is the source", k)
		}
	}
	for major, want := range map[int]string{11: "450", 12: "525", 13: "580", 10: "", 14: ""} {
		if got := driverFloor(major); got != want {
			t.Errorf("driverFloor(%d) = %q, want %q", major, got, want)
		}
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
		if got := stlMinCUDA(cl); got != want {
			t.Errorf("stlMinCUDA(%s) = %q, want %q", cl, got, want)
		}
	}
}

// The CUDA runtime DLL names and folder per major are data (gates.json),
// with CUDA 11's cudart64_110.dll and CUDA 13's bin\x64.
func TestRuntimeDLLsFromData(t *testing.T) {
	for _, c := range []struct {
		major int
		first string
		dir   string
	}{
		{10, "", ""},
		{11, "cudart64_110.dll", "bin"},
		{12, "cudart64_12.dll", "bin"},
		{13, "cudart64_13.dll", `bin\x64`},
		{14, "cudart64_14.dll", `bin\x64`}, // newer than the table: the newest layout
	} {
		dlls, dir := runtimeDLLs(c.major)
		first := ""
		if len(dlls) > 0 {
			first = dlls[0]
		}
		if first != c.first || dir != c.dir || (c.first != "" && len(dlls) != 3) {
			t.Errorf("runtimeDLLs(%d) = %v %q, want %s... %q", c.major, dlls, dir, c.first, c.dir)
		}
	}
}

// The heuristic thresholds are data; their edges behave as documented.
func TestThresholdsFromData(t *testing.T) {
	th := g().Thresholds
	if th.DiskFullMiB == 0 || th.DiskLowMiB <= th.DiskFullMiB || th.VRAMLowMiB == 0 || th.VRAMLowFraction <= 0 || th.WindowsPathLong == 0 {
		t.Fatalf("gates.json thresholds missing or inconsistent: %+v", th)
	}
	for free, want := range map[uint64]string{th.DiskFullMiB - 1: "host.disk/full", th.DiskFullMiB: "host.disk/low", th.DiskLowMiB: "host.disk/ok"} {
		s := &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux", DiskFreeMiB: free}}
		if fs := checkHostDisk(s); len(fs) != 1 || fs[0].Message != want {
			t.Errorf("disk free %d MiB: %+v, want %s", free, fs, want)
		}
	}
	gpu := func(free uint64) *machine.Snapshot {
		return &machine.Snapshot{OS: machine.OSInfo{GOOS: "linux"}, NVIDIA: machine.NVIDIA{NVMLStatus: "ok", DriverVersion: "560.35.03",
			GPUs: []machine.GPU{{Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9", TotalMiB: 24564, FreeMiB: free}}}}
	}
	for free, want := range map[uint64]string{th.VRAMLowMiB - 1: "nv.vram/low", 24564 / 5: "nv.vram/low", 24564 / 2: "nv.vram/ok"} {
		if fs := checkVRAM(gpu(free)); len(fs) != 1 || fs[0].Message != want {
			t.Errorf("VRAM free %d MiB: %+v, want %s", free, fs, want)
		}
	}
}
