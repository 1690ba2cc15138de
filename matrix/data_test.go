package matrix

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/recorded"
)

// The consistency rules of the embedded data (issue 2, part 3).

func TestDataVersionIsADate(t *testing.T) {
	m := Default()
	if _, err := time.Parse("2006-01-02", m.DataVersion); err != nil {
		t.Fatalf("data_version %q is not YYYY-MM-DD: %v", m.DataVersion, err)
	}
}

func TestToolkitsSortedAndUnique(t *testing.T) {
	m := Default()
	for i := 1; i < len(m.Toolkits); i++ {
		a, b := m.Toolkits[i-1], m.Toolkits[i]
		if !a.v.Less(b.v) {
			t.Errorf("toolkits not strictly sorted: %s then %s", a.Version, b.Version)
		}
	}
}

func TestToolkitRowsAreWellFormed(t *testing.T) {
	m := Default()
	for _, tk := range m.Toolkits {
		if tk.Source == "" || len(tk.SourceRefs) == 0 {
			t.Errorf("%s: no source", tk.Version)
		}
		for _, ref := range tk.SourceRefs {
			if _, ok := m.Sources[ref]; !ok {
				t.Errorf("%s: source_ref %q not in sources.json", tk.Version, ref)
			}
		}
		if !sort.IntsAreSorted(tk.SM) || len(tk.SM) == 0 {
			t.Errorf("%s: sm list empty or not sorted: %v", tk.Version, tk.SM)
		}
		for _, d := range tk.DeprecatedSM {
			if !tk.HasSM(d) {
				t.Errorf("%s: deprecated sm_%d is not a target", tk.Version, d)
			}
		}
		if (tk.MSCVerMin == nil) != (tk.MSCVerMaxExclusive == nil) {
			t.Errorf("%s: MSVC range half given", tk.Version)
		}
		if tk.MSCVerMin != nil && *tk.MSCVerMin >= *tk.MSCVerMaxExclusive {
			t.Errorf("%s: MSVC range [%d,%d) empty", tk.Version, *tk.MSCVerMin, *tk.MSCVerMaxExclusive)
		}
		for _, d := range []string{tk.DriverLinux, tk.DriverWindows} {
			if v, ok := parseVersion(d); d != "" && (!ok || v.Major() < 400) {
				t.Errorf("%s: driver %q is not a driver version", tk.Version, d)
			}
		}
		if tk.Uncertain != (len(tk.UncertainFields) > 0) {
			t.Errorf("%s: uncertain=%v but uncertain_fields=%v", tk.Version, tk.Uncertain, tk.UncertainFields)
		}
		if m.Family(tk.Major()) == nil {
			t.Errorf("%s: no minor-version-compatibility family for CUDA %d", tk.Version, tk.Major())
		}
	}
}

// Drivers only grow along the releases of one OS: a smaller driver for a
// newer toolkit is a typo.
func TestToolkitDriversMonotonic(t *testing.T) {
	m := Default()
	var lastL, lastW version
	for _, tk := range m.Toolkits {
		if v, ok := parseVersion(tk.DriverLinux); ok {
			if !lastL.IsZero() && v.Less(lastL) {
				t.Errorf("%s: Linux driver %s below an older release's %s", tk.Version, v, lastL)
			}
			lastL = v
		}
		if v, ok := parseVersion(tk.DriverWindows); ok {
			if !lastW.IsZero() && v.Less(lastW) {
				t.Errorf("%s: Windows driver %s below an older release's %s", tk.Version, v, lastW)
			}
			lastW = v
		}
	}
}

func TestEveryGPUCCIsATarget(t *testing.T) {
	m := Default()
	for _, g := range m.GPUs {
		sm, cc, ok := parseCC(g.CC)
		if !ok || cc != g.CC {
			t.Errorf("%s: CC %q is not X.Y", g.Name, g.CC)
			continue
		}
		found := false
		for i := range m.Toolkits {
			if m.Toolkits[i].HasSM(target(&m.Toolkits[i], sm)) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: CC %s is in no toolkit's target list", g.Name, g.CC)
		}
	}
}

func TestGPUNamesUniqueSortedSourced(t *testing.T) {
	m := Default()
	seen := map[string]string{}
	for i, g := range m.GPUs {
		for _, n := range append([]string{g.Name}, g.Aliases...) {
			k := strings.Join(normalize(n), " ")
			if prev, ok := seen[k]; ok {
				t.Errorf("name %q of %s collides with %s", n, g.Name, prev)
			}
			seen[k] = g.Name
		}
		if g.Source == "" || g.Arch == "" {
			t.Errorf("%s: missing source or arch", g.Name)
		}
		for _, ref := range g.SourceRefs {
			if _, ok := m.Sources[ref]; !ok {
				t.Errorf("%s: source_ref %q not in sources.json", g.Name, ref)
			}
		}
		if i > 0 {
			p := m.GPUs[i-1]
			ps, _, _ := parseCC(p.CC)
			gs, _, _ := parseCC(g.CC)
			if ps < gs || ps == gs && strings.ToLower(p.Name) > strings.ToLower(g.Name) {
				t.Errorf("gpus.json not sorted (CC desc, name): %s (%s) before %s (%s)", p.Name, p.CC, g.Name, g.CC)
			}
		}
	}
}

func TestRulesSortedAndDisjoint(t *testing.T) {
	m := Default()
	for i, s := range m.STL {
		if s.MSCVerMin > s.MSCVerMax {
			t.Errorf("STL %s: empty range", s.Release)
		}
		if i > 0 && m.STL[i-1].MSCVerMax >= s.MSCVerMin {
			t.Errorf("STL rules overlap or unsorted at %s", s.Release)
		}
		if _, ok := parseVersion(s.RequiresCUDA); !ok || s.Source == "" {
			t.Errorf("STL %s: bad requires_cuda %q or no source", s.Release, s.RequiresCUDA)
		}
	}
	for i, v := range m.VisualStudio {
		if i > 0 && m.VisualStudio[i-1].MSCVerMax >= v.MSCVerMin {
			t.Errorf("visual_studio rows overlap or unsorted at %s", v.Name)
		}
	}
	for i, f := range m.Families {
		if i > 0 && m.Families[i-1].Major >= f.Major {
			t.Errorf("families unsorted at %d", f.Major)
		}
		if _, ok := parseVersion(f.DriverLinux); !ok {
			t.Errorf("family %d: bad driver", f.Major)
		}
	}
}

// One fact a line: every toolkit and GPU row is a single line of its file,
// so a review diff shows exactly the facts that changed.
func TestDataFilesOneFactPerLine(t *testing.T) {
	for file, prefix := range map[string]string{"data/toolkits.json": `{"version":`, "data/gpus.json": `{"name":`} {
		b, err := dataFS.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var rows []json.RawMessage
		key := "toolkits"
		if strings.Contains(file, "gpus") {
			key = "gpus"
		}
		if err := json.Unmarshal(doc[key], &rows); err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), prefix) {
				n++
				var one map[string]any
				if err := json.Unmarshal([]byte(strings.TrimSuffix(sc.Text(), ",")), &one); err != nil {
					t.Errorf("%s: a row line is not one complete JSON object: %v", file, err)
				}
			}
		}
		if n != len(rows) {
			t.Errorf("%s: %d rows but %d row lines: keep one row a line", file, len(rows), n)
		}
	}
}

// Reference comparison: every toolkit and GPU row of the research file
// (copied to testdata/matrix/cuda-matrix.reference.json) answers the same
// through the public API. Deliberate corrections are listed here.
type refFile struct {
	CUDA []struct {
		Version    string  `json:"version"`
		DriverL    string  `json:"min_driver_linux"`
		DriverW    string  `json:"min_driver_windows"`
		SM         []int   `json:"sm_list"`
		Deprecated []int   `json:"deprecated_sm"`
		GCCEnf     *int    `json:"gcc_max_enforced_major"`
		GCCMax     *string `json:"gcc_max"`
		MSC        *struct {
			Min int `json:"min_inclusive"`
			Max int `json:"max_exclusive"`
		} `json:"msvc_msc_ver_accepted"`
		Uncertain bool `json:"uncertain"`
	} `json:"cuda_versions"`
	GPUs []struct {
		Name      string   `json:"name"`
		CC        string   `json:"compute_capability"`
		Arch      string   `json:"arch_name"`
		Aliases   []string `json:"aliases"`
		Uncertain bool     `json:"uncertain"`
	} `json:"gpus"`
}

func loadReference(t testing.TB) refFile {
	b, err := os.ReadFile("../testdata/matrix/cuda-matrix.reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r refFile
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEveryReferenceToolkitRow(t *testing.T) {
	m := Default()
	ref := loadReference(t)
	if len(ref.CUDA) != len(m.Toolkits) {
		t.Errorf("reference has %d toolkit rows, data %d", len(ref.CUDA), len(m.Toolkits))
	}
	for _, rt := range ref.CUDA {
		t.Run(rt.Version, func(t *testing.T) {
			tk, ok := m.Toolkit(rt.Version)
			if !ok || tk.Version != rt.Version {
				t.Fatalf("Toolkit(%q) = %v, %v", rt.Version, tk, ok)
			}
			if tk.DriverLinux != rt.DriverL || tk.DriverWindows != rt.DriverW {
				t.Errorf("drivers %q/%q, reference %q/%q", tk.DriverLinux, tk.DriverWindows, rt.DriverL, rt.DriverW)
			}
			if !equalInts(tk.SM, rt.SM) || !equalInts(tk.DeprecatedSM, rt.Deprecated) {
				t.Errorf("sm %v deprecated %v, reference %v %v", tk.SM, tk.DeprecatedSM, rt.SM, rt.Deprecated)
			}
			if (rt.MSC == nil) != (tk.MSCVerMin == nil) || rt.MSC != nil && (*tk.MSCVerMin != rt.MSC.Min || *tk.MSCVerMaxExclusive != rt.MSC.Max) {
				t.Errorf("MSVC range differs from the reference")
			}
			if (rt.GCCEnf == nil) != (tk.GCCMaxEnforced == nil) || rt.GCCEnf != nil && *rt.GCCEnf != *tk.GCCMaxEnforced {
				t.Errorf("gcc enforced max differs from the reference")
			}
			if (rt.GCCMax == nil) != (tk.GCCMax == nil) || rt.GCCMax != nil && *rt.GCCMax != *tk.GCCMax {
				t.Errorf("documented gcc max differs from the reference")
			}
			if tk.Uncertain != rt.Uncertain {
				t.Errorf("uncertain flag lost")
			}
		})
	}
}

func TestEveryReferenceGPURow(t *testing.T) {
	m := Default()
	ref := loadReference(t)
	for _, rg := range ref.GPUs {
		t.Run(rg.Name, func(t *testing.T) {
			for _, n := range append([]string{rg.Name}, rg.Aliases...) {
				l := m.LookupGPU(n)
				if !l.Found || l.ComputeCapability != rg.CC || l.Arch != rg.Arch || l.Match != MatchExact {
					t.Errorf("LookupGPU(%q) = %+v, want exact %s %s", n, l, rg.CC, rg.Arch)
				}
				if l.Uncertain != rg.Uncertain {
					t.Errorf("uncertain flag lost for %q", n)
				}
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Independent of the JSON: facts from NVIDIA's CUDA Toolkit release notes,
// one row per CUDA minor the matrix resolves with.
func TestToolkitFactsPerMinor(t *testing.T) {
	m := Default()
	cases := []struct {
		v          string
		linux, win string // Table 3, newest update of the minor
		lo, hi     int    // oldest and newest real target
		gcc        int    // max gcc major, 0 = unknown
		clMax      string // newest cl.exe accepted
	}{
		{"11.0", "450.51.06", "451.82", 35, 80, 9, "19.29"},
		{"11.1", "455.32", "456.81", 35, 86, 10, "19.29"},
		{"11.2", "460.32.03", "461.33", 35, 86, 10, "19.29"},
		{"11.3", "465.19.01", "465.89", 35, 86, 10, "19.29"},
		{"11.4", "470.82.01", "472.50", 35, 87, 11, "19.29"},
		{"11.5", "495.29.05", "496.13", 35, 87, 11, "19.29"},
		{"11.6", "510.47.03", "511.65", 35, 87, 11, "19.39"},
		{"11.7", "515.48.07", "516.31", 35, 87, 11, "19.39"},
		{"11.8", "520.61.05", "520.06", 35, 90, 11, "19.39"},
		{"12.0", "525.85.12", "528.33", 50, 90, 12, "19.39"},
		{"12.1", "530.30.02", "531.14", 50, 90, 12, "19.39"},
		{"12.2", "535.104.05", "537.13", 50, 90, 12, "19.39"},
		{"12.3", "545.23.08", "546.12", 50, 90, 12, "19.39"},
		{"12.4", "550.54.15", "551.78", 50, 90, 13, "19.49"},
		{"12.5", "555.42.06", "555.85", 50, 90, 13, "19.49"},
		{"12.6", "560.35.05", "561.17", 50, 90, 13, "19.49"},
		{"12.8", "570.124.06", "572.61", 50, 120, 14, "19.49"},
		{"12.9", "575.57.08", "576.57", 50, 121, 14, "19.49"},
		{"13.0", "580.95.05", "", 75, 121, 15, "19.49"},
		{"13.1", "590.48.01", "", 75, 121, 15, "19.49"},
		{"13.2", "595.58.03", "", 75, 121, 15, "19.59"},
		{"13.3", "610.43.02", "", 75, 121, 15, "19.59"},
	}
	for _, c := range cases {
		t.Run(c.v, func(t *testing.T) {
			tk, ok := m.Toolkit(c.v)
			if !ok {
				t.Fatal("unknown")
			}
			if tk.DriverLinux != c.linux || tk.DriverWindows != c.win {
				t.Errorf("driver %s/%s, want %s/%s", tk.DriverLinux, tk.DriverWindows, c.linux, c.win)
			}
			if tk.SM[0] != c.lo || tk.SM[len(tk.SM)-1] != c.hi {
				t.Errorf("targets sm_%d..sm_%d, want sm_%d..sm_%d", tk.SM[0], tk.SM[len(tk.SM)-1], c.lo, c.hi)
			}
			if g, _, ok := m.GCCMaxMajor(tk); c.gcc != 0 && (!ok || g != c.gcc) {
				t.Errorf("gcc max %d (%v), want %d", g, ok, c.gcc)
			}
			if got := clVersion(*tk.MSCVerMaxExclusive - 1); got != c.clMax {
				t.Errorf("newest cl %s, want %s", got, c.clMax)
			}
		})
	}
	// 12.7 was never released; 13.4/13.5 have no driver table in the sources.
	if _, ok := m.Toolkit("12.7"); ok {
		t.Error("CUDA 12.7 must not exist")
	}
	_, skipped := m.minors()
	if strings.Join(skipped, ",") != "13.4,13.5" {
		t.Errorf("minors without driver facts = %v, want 13.4,13.5", skipped)
	}
}

// Installed toolkits report nvcc build numbers; the recorded nvcc outputs
// must map to their release minor.
func TestToolkitFromRecordedNVCC(t *testing.T) {
	m := Default()
	re := regexp.MustCompile(`release (\d+\.\d+), V(\d+\.\d+\.\d+)`)
	files, _ := os.ReadDir("../testdata/matrix/nvcc")
	n := 0
	for _, f := range files {
		b, err := os.ReadFile("../testdata/matrix/nvcc/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, mm := range re.FindAllStringSubmatch(recorded.Body(string(b)), -1) {
			n++
			tk, ok := m.Toolkit("V" + mm[2])
			if !ok || tk.MinorVersion() != mm[1] {
				t.Errorf("%s: Toolkit(V%s) = %v, want CUDA %s", f.Name(), mm[2], tk, mm[1])
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d nvcc versions found in the fixtures", n)
	}
}

func TestTargetRange(t *testing.T) {
	m := Default()
	for cc, want := range map[string][2]string{
		"6.1": {"11.0", "12.9"}, "8.9": {"11.8", "13.3"}, "12.0": {"12.8", "13.3"}, "12.1": {"12.9", "13.3"},
		"3.7": {"11.0", "11.8"}, "11.0": {"12.8", "13.3"}, "8.7": {"11.4", "13.3"}, "8.8": {"13.0", "13.3"},
	} {
		first, last, ok := m.TargetRange(cc)
		if !ok || first != want[0] || last != want[1] {
			t.Errorf("TargetRange(%s) = %s..%s %v, want %s..%s", cc, first, last, ok, want[0], want[1])
		}
	}
	if _, _, ok := m.TargetRange("3.0"); ok {
		t.Error("CC 3.0 has no toolkit in the matrix")
	}
	if _, _, ok := m.TargetRange("x"); ok {
		t.Error("bad CC accepted")
	}
}
