package matrix

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llamactl/llamactl/internal/recorded"
)

func TestLookupGPUNamesAndShortForms(t *testing.T) {
	m := Default()
	cases := []struct {
		q, cc, name, match string
	}{
		// NVML / nvidia-smi names from the issue
		{"NVIDIA GeForce RTX 4090", "8.9", "NVIDIA GeForce RTX 4090", MatchExact},
		{"NVIDIA GeForce RTX 4060 Laptop GPU", "8.9", "NVIDIA GeForce RTX 4060 Laptop GPU", MatchExact},
		{"Tesla V100-SXM2-32GB", "7.0", "Tesla V100-SXM2-32GB", MatchExact},
		{"NVIDIA H200", "9.0", "NVIDIA H200", MatchExact},
		{"  nvidia geforce rtx 4090 ", "8.9", "NVIDIA GeForce RTX 4090", MatchExact},
		// short forms
		{"RTX 4090", "8.9", "NVIDIA GeForce RTX 4090", MatchNormalized},
		{"4090", "8.9", "NVIDIA GeForce RTX 4090", MatchShortForm},
		{"rtx 3060 laptop", "8.6", "NVIDIA GeForce RTX 3060 Laptop GPU", MatchNormalized},
		{"rtx4070ti", "8.9", "NVIDIA GeForce RTX 4070 Ti", MatchNormalized},
		{"GTX 1080 Ti", "6.1", "NVIDIA GeForce GTX 1080 Ti", MatchNormalized},
		{"A100", "8.0", "", MatchShortForm},
		{"V100", "7.0", "", MatchShortForm},
		{"H100", "9.0", "", MatchShortForm},
		{"T4", "7.5", "Tesla T4", MatchNormalized},
		{"Jetson Orin", "8.7", "Orin", MatchShortForm},
		{"Jetson AGX Orin", "8.7", "Orin", MatchExact},
		{"Orin", "8.7", "Orin", MatchExact},
		{"Jetson Nano", "5.3", "NVIDIA Tegra X1", MatchExact},
		{"DGX Spark", "12.1", "NVIDIA GB10", MatchExact},
		{"B200", "10.0", "NVIDIA B200", MatchNormalized},
		{"RTX 5090", "12.0", "NVIDIA GeForce RTX 5090", MatchNormalized},
		{"GTX TITAN X", "5.2", "NVIDIA GeForce GTX TITAN X", MatchNormalized},
		// nvidia-smi's table truncates long names
		{"NVIDIA GeForce RTX 4080 ...", "8.9", "", MatchShortForm},
		{"NVIDIA GeForce RTX 3050 ...", "8.6", "", MatchShortForm},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			l := m.LookupGPU(c.q)
			if !l.Found || l.ComputeCapability != c.cc || l.Match != c.match {
				t.Fatalf("LookupGPU(%q) = %+v, want %s via %s", c.q, l, c.cc, c.match)
			}
			if c.name != "" && l.Name != c.name {
				t.Errorf("name = %q, want %q", l.Name, c.name)
			}
			if l.Query != c.q || l.Source == "" || l.Arch == "" {
				t.Errorf("query/source/arch missing: %+v", l)
			}
		})
	}
}

// Names that could mean GPUs of different CCs, and names not in the table,
// are unknown with the closest names: never a guess.
func TestLookupGPUUnknownAndAmbiguous(t *testing.T) {
	m := Default()
	cases := []struct {
		q       string
		closest []string
	}{
		{"RTX 6000", []string{"Quadro RTX 6000", "NVIDIA RTX 6000 Ada Generation", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"}},
		{"TITAN X", []string{"NVIDIA GeForce GTX TITAN X", "NVIDIA TITAN X (Pascal)"}},
		{"NVIDIA GeForce RTX 9090", []string{"NVIDIA GeForce RTX 4090"}},
		{"GTX 1060 3GB", []string{"NVIDIA GeForce GTX 1060 6GB"}},
		{"Radeon RX 7900 XTX", nil},
		{"rtx", nil},
		{"blackwell", nil},
		{"", nil},
		{"!!!", nil},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			l := m.LookupGPU(c.q)
			if l.Found || l.ComputeCapability != "" {
				t.Fatalf("LookupGPU(%q) = %+v, want not found", c.q, l)
			}
			for _, want := range c.closest {
				found := false
				for _, got := range l.Closest {
					if got == want {
						found = true
					}
				}
				if !found {
					t.Errorf("closest %v lacks %q", l.Closest, want)
				}
			}
		})
	}
}

// Every GPU name in the recorded nvidia-smi outputs (tables, -L lists, CSV)
// is found, and where the output carries compute_cap, the table agrees.
func TestLookupGPURecordedNvidiaSMI(t *testing.T) {
	m := Default()
	dir := "../testdata/matrix/nvidia-smi/"
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?m)^\|\s+\d+\s+(NVIDIA .+?)\s{2,}(?:WDDM|TCC|Off|On)\s+\|`)
	list := regexp.MustCompile(`(?m)^GPU \d+: (.+?) \(UUID`)
	names := 0
	for _, f := range files {
		b, err := os.ReadFile(dir + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		body := recorded.Body(string(b))
		for _, re := range []*regexp.Regexp{table, list} {
			for _, mm := range re.FindAllStringSubmatch(body, -1) {
				names++
				if l := m.LookupGPU(mm[1]); !l.Found {
					t.Errorf("%s: %q not found (closest %v)", f.Name(), mm[1], l.Closest)
				}
			}
		}
		// CSV with a header line naming compute_cap and name.
		lines := strings.Split(body, "\n")
		for i, line := range lines {
			cols := splitCSV(line)
			ci, ni := index(cols, "compute_cap"), index(cols, "name")
			if ci < 0 || ni < 0 {
				continue
			}
			for _, row := range lines[i+1:] {
				vals := splitCSV(row)
				if len(vals) != len(cols) {
					break
				}
				names++
				l := m.LookupGPU(vals[ni])
				if !l.Found || l.ComputeCapability != vals[ci] {
					t.Errorf("%s: %q: table says %+v, nvidia-smi says CC %s", f.Name(), vals[ni], l, vals[ci])
				}
			}
		}
	}
	t.Logf("%d GPU names read", names)
	if names < 10 {
		t.Errorf("only %d GPU names read from the fixtures", names)
	}
}

func splitCSV(line string) []string {
	parts := strings.Split(strings.TrimRight(line, "\r"), ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func index(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func TestParseCC(t *testing.T) {
	good := map[string]string{"8.9": "8.9", "89": "8.9", "sm_89": "8.9", "compute_75": "7.5", "12.0": "12.0", "120": "12.0", "121-real": "12.1", " 8.6 ": "8.6"}
	for in, want := range good {
		if _, got, ok := parseCC(in); !ok || got != want {
			t.Errorf("parseCC(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "8", "8.", ".9", "8.10", "abc", "8.9.1", "-8.9", "1234", "0.5"} {
		if _, got, ok := parseCC(in); ok {
			t.Errorf("parseCC(%q) = %q, want rejected", in, got)
		}
	}
}

func TestMSCVerFromRecordedCLBanners(t *testing.T) {
	// cl.exe banners are localized (zh-CN puts the version after the
	// translated product name); the 19.xx.yyyyy token is the stable part.
	re := regexp.MustCompile(`\b(19\.\d\d)\.\d{5}\b`)
	dir := "../testdata/matrix/cl/"
	files, _ := os.ReadDir(dir)
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(dir + f.Name())
		for _, mm := range re.FindAllStringSubmatch(recorded.Body(string(b)), -1) {
			n++
			msc, ok := mscVer(mm[0])
			if !ok || clVersion(msc) != mm[1] {
				t.Errorf("%s: mscVer(%q) = %d %v", f.Name(), mm[0], msc, ok)
			}
		}
	}
	if n < 13 {
		t.Errorf("only %d cl versions in the fixtures", n)
	}
	for in, want := range map[string]int{"19.41": 1941, "1941": 1941, "19.50.35730": 1950, "19.00": 1900} {
		if got, ok := mscVer(in); !ok || got != want {
			t.Errorf("mscVer(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "19", "x.y", "19.100", "5.1"} {
		if got, ok := mscVer(in); ok {
			t.Errorf("mscVer(%q) = %d, want rejected", in, got)
		}
	}
}

func TestParseVersionAndBranch(t *testing.T) {
	a, _ := parseVersion("535.104.05")
	b, _ := parseVersion("535.54.03")
	if !b.Less(a) {
		t.Error("535.54.03 should be older than 535.104.05")
	}
	if v, ok := parseVersion("V12.4.131"); !ok || v.String() != "12.4.131" {
		t.Errorf("V12.4.131 -> %v %v", v, ok)
	}
	for _, bad := range []string{"", "1..2", "a.b", "1.2.3.4.5", "-1.2", "1234567.1"} {
		if _, ok := parseVersion(bad); ok {
			t.Errorf("parseVersion(%q) accepted", bad)
		}
	}
	for d, want := range map[string]int{"516.94": 515, "528.33": 525, "551.78": 550, "580.95.05": 580, "472.50": 470} {
		v, _ := parseVersion(d)
		if branch(v) != want {
			t.Errorf("branch(%s) = %d, want %d", d, branch(v), want)
		}
	}
}

// Fuzz targets: names, versions and CCs come from users and tool output.
func FuzzLookupGPU(f *testing.F) {
	for _, s := range []string{"NVIDIA GeForce RTX 4090", "4090", "rtx 3060 laptop", "RTX 6000", "NVIDIA GeForce RTX 4080 ...", "", "Tesla V100-SXM2-32GB", "\xff\xfe", "ＲＴＸ　４０９０"} {
		f.Add(s)
	}
	m := Default()
	f.Fuzz(func(t *testing.T, s string) {
		l := m.LookupGPU(s)
		if l.Found {
			if _, _, ok := parseCC(l.ComputeCapability); !ok || l.Name == "" {
				t.Fatalf("found without a valid CC/name: %+v", l)
			}
		} else if l.ComputeCapability != "" {
			t.Fatalf("not found but has CC: %+v", l)
		}
		if l.Query != s {
			t.Fatalf("query not echoed")
		}
	})
}

func FuzzResolveInputs(f *testing.F) {
	f.Add("560.94", "19.41", "12", "12.4.131", "8.9", "windows")
	f.Add("", "", "", "", "", "")
	f.Add("516.94", "1940", "14.1", "13", "sm_120", "linux")
	f.Add("9999999.1", "19.999", "0", "v", "99.9", "mac")
	m := Default()
	f.Fuzz(func(t *testing.T, driver, msvc, gcc, toolkit, ccs, os string) {
		if !utf8.ValidString(ccs) {
			return
		}
		res := m.Resolve(Query{Driver: driver, MSVC: msvc, GCC: gcc, OS: os, Toolkits: []string{toolkit}, GPUs: []GPUQuery{{CC: ccs}}})
		if res.OK && len(res.Blockers) > 0 {
			t.Fatalf("ok with blockers: %+v", res.Blockers)
		}
		if res.OK && res.CUDA.Recommended == "" {
			t.Fatal("ok without a recommendation")
		}
		for _, b := range res.Blockers {
			if b.ID == "" || b.Message == "" || b.Fix == "" {
				t.Fatalf("incomplete blocker %+v", b)
			}
		}
	})
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"12.4.131", "V12.4", "535.104.05", "19.41.34123", "", "..", "1.2.3.4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseVersion(s)
		if !ok {
			return
		}
		w, ok2 := parseVersion(v.String())
		if !ok2 || w.Compare(v) != 0 {
			t.Fatalf("%q -> %v does not round-trip", s, v)
		}
		parseCC(s)
		mscVer(s)
	})
}
