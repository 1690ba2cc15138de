package matrix

import (
	"encoding/json"
	"strings"
	"testing"
)

// expect is what a scenario must show; zero fields are not checked.
type expect struct {
	ok            bool
	recommended   string // exact, or "" to skip
	recMinor      string // "12.9": recommended must be of this minor
	archs         string
	host          string
	toolset       string
	blockers      []string // IDs that must be present, in any order
	noBlockers    bool
	fixHas        []string // substrings some blocker's Fix must hold
	msgHas        []string // substrings some blocker's Message must hold
	reasonHas     []string // substrings some Reason must hold
	acceptable    []string // minors that must be acceptable
	rejected      []string // minors that must not be acceptable
	lastResort    bool     // some blocker offers a last-resort fix
	lastResortHas string
	noLastResort  bool
}

func gpu(n string) GPUQuery { return GPUQuery{Name: n} }
func cc(c string) GPUQuery  { return GPUQuery{CC: c} }

func TestResolveScenarios(t *testing.T) {
	m := Default()
	cases := []struct {
		name string
		q    Query
		want expect
	}{
		// --- MSVC and its STL (Host compilers, pitfalls 1-2)
		{"VS 17.10 + CUDA 12.3: host_config rejects 19.40", Query{OS: "windows", MSVC: "19.40.33811", GPUs: []GPUQuery{gpu("RTX 4090")}, Toolkits: []string{"12.3.107"}},
			expect{blockers: []string{BlockMSVCTooNew}, fixHas: []string{"CUDA ≥ 12.4", "-vcvars_ver=14.39"}, msgHas: []string{"19.40 (VS 2022 17.10) is too new for CUDA 12.3"}, lastResort: true, rejected: []string{"12.3"}}},
		{"VS 17.11 + CUDA 12.4: fits", Query{OS: "windows", MSVC: "19.41.34123", GPUs: []GPUQuery{gpu("RTX 4090")}, Toolkits: []string{"12.4.131"}},
			expect{ok: true, recommended: "12.4.131", archs: "89-real", noBlockers: true}},
		{"VS 17.11 + CUDA 12.3: host_config and STL1002, no bypass", Query{OS: "windows", MSVC: "19.41", Toolkits: []string{"12.3"}},
			expect{blockers: []string{BlockMSVCTooNew}, msgHas: []string{"STL also requires CUDA ≥ 12.4", "does not help"}, noLastResort: true}},
		{"VS 2026 (19.50) + CUDA 13.1: rejected", Query{OS: "windows", MSVC: "19.50.35730", Toolkits: []string{"13.1.115"}},
			expect{blockers: []string{BlockMSVCTooNew}, fixHas: []string{"CUDA ≥ 13.2", "-vcvars_ver=14.44"}, rejected: []string{"13.1", "13.0", "12.9"}, acceptable: []string{"13.2", "13.3"}}},
		{"VS 2026 (19.50) + CUDA 13.0: last resort warns of cudafe++ crashes", Query{OS: "windows", MSVC: "19.50", Toolkits: []string{"13.0"}},
			expect{blockers: []string{BlockMSVCTooNew}, lastResort: true, lastResortHas: "ACCESS_VIOLATION"}},
		{"VS 2026 (19.50) + CUDA 13.2: fits", Query{OS: "windows", MSVC: "19.50", Toolkits: []string{"13.2"}},
			expect{ok: true, recommended: "13.2", noBlockers: true}},
		{"MSVC 19.51 + CUDA 12.9: host_config and STL need 13.2", Query{OS: "windows", MSVC: "19.51.36252", Toolkits: []string{"12.9.86"}},
			expect{blockers: []string{BlockMSVCTooNew}, msgHas: []string{"STL also requires CUDA ≥ 13.2"}, fixHas: []string{"CUDA ≥ 13.2"}}},
		{"MSVC 19.51 + CUDA 13.2: fits", Query{OS: "windows", MSVC: "19.51", Toolkits: []string{"13.2.1"}},
			expect{ok: true, recommended: "13.2.1"}},
		{"MSVC 19.16 (VS 2017) + CUDA 13: too old", Query{OS: "windows", MSVC: "19.16.27048", Toolkits: []string{"13.0"}},
			expect{blockers: []string{BlockMSVCTooOld}, acceptable: []string{"12.9"}, rejected: []string{"13.0", "13.3"}}},
		{"VS 17.11 default + 14.39 toolset installed + CUDA 12.3: use -vcvars_ver", Query{OS: "windows", MSVC: "19.41", AvailableMSVC: []string{"14.39.33519", "14.29.30133"}, Toolkits: []string{"12.3.107"}},
			expect{ok: true, recommended: "12.3.107", toolset: "14.39", reasonHas: []string{"-vcvars_ver=14.39"}}},
		{"toolset directory as --msvc (14.41) + CUDA 12.4", Query{OS: "windows", MSVC: "14.41.34120", Toolkits: []string{"12.4"}},
			expect{ok: true, recommended: "12.4"}},
		{"future MSVC 19.60: no CUDA accepts it", Query{OS: "windows", MSVC: "19.60"},
			expect{blockers: []string{BlockNoToolkitWorks, BlockMSVCTooNew}, fixHas: []string{"no CUDA release in the matrix accepts it yet", "-vcvars_ver=14.51"}}},
		// --- GPU architecture windows (pitfalls 3, 4, 7)
		{"RTX 5090 + CUDA 12.6: too new for 12.6", Query{GPUs: []GPUQuery{gpu("NVIDIA GeForce RTX 5090")}, Toolkits: []string{"12.6.85"}},
			expect{blockers: []string{BlockGPUTooNew}, fixHas: []string{"CUDA ≥ 12.8"}, rejected: []string{"12.6"}, acceptable: []string{"12.8", "12.9"}}},
		{"CC 99.9 (a typo, or a GPU newer than the data): say how to check it", Query{GPUs: []GPUQuery{{CC: "99.9"}}},
			expect{blockers: []string{BlockGPUTooNew}, fixHas: []string{"nvidia-smi --query-gpu=name,compute_cap"}}},
		{"RTX 5070 Ti + CUDA 12.8.93 + driver 576.80 (recorded machine)", Query{OS: "windows", Driver: "576.80", GPUs: []GPUQuery{gpu("NVIDIA GeForce RTX 5070 Ti")}, Toolkits: []string{"12.8.93"}},
			expect{ok: true, recommended: "12.8.93", archs: "120-real", reasonHas: []string{"full feature set", "120a-real"}}},
		{"GTX 1080 Ti + CUDA 13: use 12.x", Query{GPUs: []GPUQuery{gpu("NVIDIA GeForce GTX 1080 Ti")}, Toolkits: []string{"13.0.88"}},
			expect{blockers: []string{BlockGPUTooOld}, fixHas: []string{"use CUDA 12.x"}, recMinor: "12.9", rejected: []string{"13.0", "13.3"}}},
		{"GTX 1080 + nothing installed: 12.9 with a deprecation note", Query{GPUs: []GPUQuery{gpu("GTX 1080")}, Driver: "581.57", OS: "windows"},
			expect{ok: true, recMinor: "12.9", archs: "61-real", reasonHas: []string{"deprecated"}}},
		{"Kepler K80: CUDA 11 only", Query{GPUs: []GPUQuery{gpu("Tesla K80")}},
			expect{ok: true, recMinor: "11.8", archs: "37-real", rejected: []string{"12.0"}}},
		{"CC 3.0: nothing targets it", Query{GPUs: []GPUQuery{cc("3.0")}},
			expect{blockers: []string{BlockNoToolkitWorks, BlockGPUTooOld}, fixHas: []string{"no CUDA release in the matrix targets it"}}},
		{"Jetson Orin (8.7)", Query{GPUs: []GPUQuery{gpu("Jetson Orin")}, OS: "linux", GCC: "11"},
			expect{ok: true, archs: "87-real", rejected: []string{"11.3"}, acceptable: []string{"11.4", "12.6"}}},
		{"Thor (11.0) is sm_101 before CUDA 13", Query{GPUs: []GPUQuery{cc("11.0")}, Toolkits: []string{"12.9"}},
			expect{ok: true, recommended: "12.9", archs: "101-real"}},
		{"Thor (11.0) is sm_110 from CUDA 13", Query{GPUs: []GPUQuery{gpu("Jetson T5000")}, Toolkits: []string{"13.0"}},
			expect{ok: true, recommended: "13.0", archs: "110-real"}},
		{"two GPUs of different CC: 8.6 + 6.1", Query{GPUs: []GPUQuery{gpu("NVIDIA GeForce RTX 3090"), gpu("NVIDIA GeForce GTX 1080")}},
			expect{ok: true, recMinor: "12.9", archs: "61-real;86-real", rejected: []string{"13.0"}}},
		{"two GPUs: RTX 5090 + RTX 3060 need CUDA ≥ 12.8", Query{GPUs: []GPUQuery{gpu("RTX 5090"), gpu("RTX 3060")}, Driver: "566.36", OS: "windows"},
			expect{ok: true, recMinor: "12.9", archs: "86-real;120-real", rejected: []string{"12.6", "13.0"}, reasonHas: []string{"minor-version compatibility"}}},
		{"same GPU twice: one arch", Query{GPUs: []GPUQuery{gpu("RTX 4090"), cc("8.9")}},
			expect{ok: true, archs: "89-real"}},
		{"unknown GPU name", Query{GPUs: []GPUQuery{gpu("NVIDIA GeForce RTX 9090")}},
			expect{blockers: []string{BlockGPUUnknown}, msgHas: []string{"closest:"}, fixHas: []string{"--cc"}}},
		{"ambiguous short form RTX 6000", Query{GPUs: []GPUQuery{gpu("RTX 6000")}},
			expect{blockers: []string{BlockGPUUnknown}, msgHas: []string{"Quadro RTX 6000", "RTX 6000 Ada Generation"}}},
		{"NVML CC wins over the table", Query{GPUs: []GPUQuery{{Name: "NVIDIA GeForce RTX 4090", CC: "8.6"}}},
			expect{ok: true, archs: "86-real", reasonHas: []string{"the driver wins"}}},
		// --- Driver (minor-version compatibility, Table 3)
		{"driver 535 + CUDA 12.4: minor-version compat, real SASS", Query{OS: "linux", Driver: "535.104.05", GPUs: []GPUQuery{gpu("RTX 4090")}, Toolkits: []string{"12.4.131"}},
			expect{ok: true, recommended: "12.4.131", archs: "89-real", reasonHas: []string{"cannot JIT-compile PTX", "550.54.15"}}},
		{"driver 535 + nothing installed: full-feature 12.2 preferred", Query{OS: "linux", Driver: "535.104.05", GPUs: []GPUQuery{gpu("RTX 4090")}},
			expect{ok: true, recommended: "12.2.2", acceptable: []string{"12.9"}, rejected: []string{"13.0"}}},
		{"driver 516.94 + MSVC 19.41, nothing installed: the smallest driver update wins", Query{OS: "windows", Driver: "516.94", MSVC: "19.41", GPUs: []GPUQuery{gpu("RTX 4090")}},
			expect{blockers: []string{BlockNoToolkitWorks, BlockDriverFamily}, msgHas: []string{"cannot run CUDA 12 builds at all"}, fixHas: []string{"≥ 528.33"}}},
		{"driver 516.94 (R515) + CUDA 12.4 on Windows", Query{OS: "windows", Driver: "516.94", MSVC: "19.29", GPUs: []GPUQuery{gpu("RTX 4090")}, Toolkits: []string{"12.4"}},
			expect{blockers: []string{BlockDriverFamily}, msgHas: []string{"driver 516.94 (R515) cannot run CUDA 12 builds at all"}, fixHas: []string{"≥ 528.33", "≥ 551.78", "or build with 11.x"}, recMinor: "11.8"}},
		{"driver 470 + RTX 4090: 11.8 through minor-version compat", Query{OS: "linux", Driver: "470.82.01", GPUs: []GPUQuery{gpu("RTX 4090")}},
			expect{ok: true, recommended: "11.8.0", archs: "89-real", reasonHas: []string{"minor-version compatibility"}}},
		{"driver 440: no CUDA fits", Query{OS: "linux", Driver: "440.100", GPUs: []GPUQuery{gpu("RTX 2080")}},
			expect{blockers: []string{BlockNoToolkitWorks, BlockDriverFamily}, fixHas: []string{"update the driver"}}},
		{"Windows 13.x driver is a branch (Table 3 N/A)", Query{OS: "windows", Driver: "581.57", GPUs: []GPUQuery{gpu("NVIDIA GeForce RTX 3070")}, Toolkits: []string{"13.0"}},
			expect{ok: true, recommended: "13.0", reasonHas: []string{"R580"}}},
		{"recorded Windows box: 560.94 + RTX 4060 + nvcc 12.4.99", Query{OS: "windows", Driver: "560.94", GPUs: []GPUQuery{gpu("NVIDIA GeForce RTX 4060")}, Toolkits: []string{"12.4.99"}},
			expect{ok: true, recommended: "12.4.99", archs: "89-real", reasonHas: []string{"full feature set"}}},
		{"WSL: Windows driver numbers, Linux gcc", Query{OS: "wsl", Driver: "551.61", GCC: "12", GPUs: []GPUQuery{gpu("RTX 4060")}, Toolkits: []string{"12.4.131"}},
			expect{ok: true, recommended: "12.4.131", reasonHas: []string{"WSL", "older than CUDA 12.4's own driver (551.78)", "gcc 12 is accepted"}}},
		// --- gcc / clang (nvcc checks the major only)
		{"gcc 12 + CUDA 11.8: too new", Query{OS: "linux", GCC: "12", Toolkits: []string{"11.8.89"}},
			expect{blockers: []string{BlockGCCTooNew}, fixHas: []string{"g++-11", "CUDA ≥ 12.0"}, lastResort: true}},
		{"gcc 12 + CUDA 11.8 with g++-11 installed (Debian 12)", Query{OS: "linux", GCC: "12.2", AvailableGCC: []int{11, 12}, GPUs: []GPUQuery{cc("7.5")}, Toolkits: []string{"11.8.89"}},
			expect{ok: true, recommended: "11.8.89", host: "g++-11", archs: "75-real", reasonHas: []string{"g++-11 is installed"}}},
		{"gcc 14 + CUDA 12.4: too new", Query{OS: "linux", GCC: "14", Toolkits: []string{"12.4.131"}},
			expect{blockers: []string{BlockGCCTooNew}, msgHas: []string{"gcc 14 is too new for CUDA 12.4"}, fixHas: []string{"g++-13", "CUDA ≥ 12.8"}}},
		{"gcc 13.3 + CUDA 12.6: majors only, fits", Query{OS: "linux", GCC: "13.3", Toolkits: []string{"12.6.85"}},
			expect{ok: true, recommended: "12.6.85"}},
		{"gcc 15 + CUDA 13.1: inferred limit", Query{OS: "linux", GCC: "15", Toolkits: []string{"13.1"}},
			expect{ok: true, recommended: "13.1", reasonHas: []string{"inferred"}}},
		{"clang 18 + CUDA 12.4: too new", Query{OS: "linux", Clang: "18", Toolkits: []string{"12.4"}},
			expect{blockers: []string{BlockClangTooNew}, fixHas: []string{"CUDA ≥ 12.6"}}},
		{"gcc given on Windows is not weighed", Query{OS: "windows", GCC: "14", MSVC: "19.44", Toolkits: []string{"12.8"}},
			expect{ok: true, recommended: "12.8", reasonHas: []string{"not weighed"}}},
		// --- engine, input
		{"engine needs CUDA ≥ 12.4, 12.2 installed", Query{EngineMinCUDA: "12.4", Toolkits: []string{"12.2"}},
			expect{blockers: []string{BlockEngineMinCUDA}, fixHas: []string{"12.4 or newer"}, acceptable: []string{"12.4"}, rejected: []string{"12.3"}}},
		{"nothing given: newest known toolkit", Query{},
			expect{ok: true, recommended: "13.3.1", noBlockers: true}},
		{"unknown installed toolkit", Query{Toolkits: []string{"10.2"}},
			expect{blockers: []string{BlockToolkitUnknown}}},
		{"bad driver string", Query{Driver: "latest"},
			expect{blockers: []string{BlockInvalidQueryArg}}},
	}
	if len(cases) < 25 {
		t.Fatalf("the issue asks for at least 25 scenarios, have %d", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := m.Resolve(c.q)
			checkResolution(t, res, c.want)
			if t.Failed() {
				b, _ := json.MarshalIndent(res, "", "  ")
				t.Logf("resolution: %s", b)
			}
		})
	}
}

func checkResolution(t *testing.T, res Resolution, w expect) {
	t.Helper()
	if res.Schema != 1 {
		t.Errorf("schema = %d", res.Schema)
	}
	if res.OK != w.ok {
		t.Errorf("ok = %v, want %v", res.OK, w.ok)
	}
	if w.recommended != "" && res.CUDA.Recommended != w.recommended {
		t.Errorf("recommended = %q, want %q", res.CUDA.Recommended, w.recommended)
	}
	if w.recMinor != "" && !strings.HasPrefix(res.CUDA.Recommended, w.recMinor+".") && res.CUDA.Recommended != w.recMinor {
		t.Errorf("recommended = %q, want CUDA %s", res.CUDA.Recommended, w.recMinor)
	}
	if w.archs != "" && res.CUDAArchitectures != w.archs {
		t.Errorf("architectures = %q, want %q", res.CUDAArchitectures, w.archs)
	}
	if res.HostCompiler != w.host {
		t.Errorf("host compiler = %q, want %q", res.HostCompiler, w.host)
	}
	if res.MSVCToolset != w.toolset {
		t.Errorf("msvc toolset = %q, want %q", res.MSVCToolset, w.toolset)
	}
	ids := map[string]bool{}
	var fixes, msgs []string
	lastResort := false
	for _, b := range res.Blockers {
		ids[b.ID] = true
		fixes = append(fixes, b.Fix)
		msgs = append(msgs, b.Message)
		if b.LastResortFix != "" {
			lastResort = true
		}
		if b.LastResort != (b.LastResortFix != "") {
			t.Errorf("blocker %s: last_resort=%v but last_resort_fix=%q", b.ID, b.LastResort, b.LastResortFix)
		}
		if b.Fix == "" || b.Message == "" {
			t.Errorf("blocker %s without message or fix", b.ID)
		}
		for _, txt := range []string{b.Message, b.Fix, b.LastResortFix} {
			if strings.ContainsAny(txt, "{}") {
				t.Errorf("unfilled placeholder in %q", txt)
			}
		}
		if strings.Contains(b.Fix, "allow-unsupported") {
			t.Errorf("-allow-unsupported-compiler offered as the default fix: %q", b.Fix)
		}
	}
	for _, id := range w.blockers {
		if !ids[id] {
			t.Errorf("missing blocker %s (have %v)", id, keys(ids))
		}
	}
	if w.noBlockers && len(res.Blockers) > 0 {
		t.Errorf("unexpected blockers: %v", keys(ids))
	}
	if w.ok && len(res.Blockers) > 0 {
		t.Errorf("ok with blockers %v", keys(ids))
	}
	for _, s := range w.fixHas {
		if !anyContains(fixes, s) {
			t.Errorf("no fix mentions %q: %q", s, fixes)
		}
	}
	for _, s := range w.msgHas {
		if !anyContains(msgs, s) {
			t.Errorf("no blocker message mentions %q: %q", s, msgs)
		}
	}
	for _, r := range res.Reasons {
		if strings.ContainsAny(r, "{}") {
			t.Errorf("unfilled placeholder in reason %q", r)
		}
	}
	for _, s := range w.reasonHas {
		if !anyContains(res.Reasons, s) {
			t.Errorf("no reason mentions %q: %q", s, res.Reasons)
		}
	}
	acc := map[string]bool{}
	for _, c := range res.CUDA.Acceptable {
		v, _ := parseVersion(c.Version)
		acc[v.Truncate(2).String()] = true
	}
	for _, v := range w.acceptable {
		if !acc[v] {
			t.Errorf("CUDA %s should be acceptable (have %v)", v, keys(acc))
		}
	}
	for _, v := range w.rejected {
		if acc[v] {
			t.Errorf("CUDA %s should not be acceptable", v)
		}
	}
	if w.lastResortHas != "" {
		found := false
		for _, b := range res.Blockers {
			found = found || strings.Contains(b.LastResortFix, w.lastResortHas)
		}
		if !found {
			t.Errorf("no last-resort fix mentions %q", w.lastResortHas)
		}
	}
	if w.lastResort && !lastResort {
		t.Error("expected a marked last-resort fix")
	}
	if w.noLastResort && lastResort {
		t.Error("a last-resort fix is offered where it cannot work")
	}
	if res.CUDA.Recommended != "" && !res.OK && len(res.Blockers) == 0 {
		t.Error("not ok without a blocker saying why")
	}
}

func anyContains(list []string, s string) bool {
	for _, l := range list {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Recommendation is the newest fitting release; every acceptable version
// must itself resolve cleanly when it is the only one installed.
func TestAcceptableVersionsResolveWhenInstalled(t *testing.T) {
	m := Default()
	q := Query{OS: "windows", MSVC: "19.44", Driver: "576.80", GPUs: []GPUQuery{gpu("RTX 3060"), gpu("RTX 5070")}}
	res := m.Resolve(q)
	if len(res.CUDA.Acceptable) == 0 {
		t.Fatal("nothing acceptable")
	}
	for _, c := range res.CUDA.Acceptable {
		q2 := q
		q2.Toolkits = []string{c.Version}
		r2 := m.Resolve(q2)
		if !r2.OK || r2.CUDA.Recommended != c.Version {
			t.Errorf("acceptable %s does not resolve when installed: %+v", c.Version, r2.Blockers)
		}
	}
	for _, c := range res.Rejected {
		q2 := q
		q2.Toolkits = []string{c.Version}
		if r2 := m.Resolve(q2); r2.OK {
			t.Errorf("rejected %s resolves OK when installed", c.Version)
		}
	}
}

func TestInstalledToolkitPreferredOverNewer(t *testing.T) {
	m := Default()
	res := m.Resolve(Query{GPUs: []GPUQuery{gpu("RTX 4090")}, Toolkits: []string{"12.4.131", "12.6.85"}})
	if res.CUDA.Recommended != "12.6.85" || !res.OK {
		t.Fatalf("want the newest installed 12.6.85, got %q ok=%v", res.CUDA.Recommended, res.OK)
	}
	if !res.CUDA.Acceptable[0].Installed {
		t.Errorf("first acceptable should be the installed one: %+v", res.CUDA.Acceptable[0])
	}
}

func TestResolveIsDeterministic(t *testing.T) {
	m := Default()
	q := Query{OS: "windows", Driver: "516.94", MSVC: "19.40", GPUs: []GPUQuery{gpu("RTX 4090"), gpu("GTX 1080")}, Toolkits: []string{"12.4", "11.8"}}
	a, _ := json.Marshal(m.Resolve(q))
	for i := 0; i < 20; i++ {
		b, _ := json.Marshal(m.Resolve(q))
		if string(a) != string(b) {
			t.Fatal("Resolve output differs between runs")
		}
	}
}

// doctor and build may resolve from several goroutines; run with -race.
func TestResolveConcurrent(t *testing.T) {
	m := Default()
	q := Query{OS: "linux", GCC: "14", Driver: "535.104.05", GPUs: []GPUQuery{gpu("RTX 4090"), cc("6.1")}, Toolkits: []string{"12.4.131"}}
	want, _ := json.Marshal(m.Resolve(q))
	done := make(chan string, 8)
	for i := 0; i < 8; i++ {
		go func() {
			b, _ := json.Marshal(Default().Resolve(q))
			done <- string(b)
		}()
	}
	for i := 0; i < 8; i++ {
		if got := <-done; got != string(want) {
			t.Fatal("concurrent Resolve differs")
		}
	}
}

// The two single-fact rules of rules.json: llama.cpp's 12X -> 12Xa rewrite
// and the cudafe++ crash reports with VS 2026 on CUDA 13.0/13.1.
func TestSingleFactRules(t *testing.T) {
	m := Default()
	for sm, want := range map[int]bool{100: false, 110: false, 119: false, 120: true, 121: true, 129: true, 130: false} {
		if got := m.ArchRewrite.Applies(sm); got != want {
			t.Errorf("ArchRewrite.Applies(%d) = %v, want %v", sm, got, want)
		}
	}
	if m.ArchRewrite.Source == "" || m.CompilerCrash.Source == "" {
		t.Error("a rule without a source")
	}
	crash := func(q Query) bool {
		for _, b := range m.Resolve(q).Blockers {
			if strings.Contains(b.LastResortFix, "cudafe++") {
				return true
			}
		}
		return false
	}
	if !crash(Query{OS: "windows", MSVC: "19.50", Toolkits: []string{"13.0.88"}}) {
		t.Error("VS 2026 + CUDA 13.0: the cudafe++ crash reports are not mentioned")
	}
	if crash(Query{OS: "windows", MSVC: "19.44", Toolkits: []string{"12.3.107"}}) {
		t.Error("VS 2022 17.14 + CUDA 12.3: the VS 2026 crash note does not apply")
	}
}
