package plan

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

var update = flag.Bool("update", false, "rewrite golden files")

const casesDir = "../../testdata/build/plans"

type caseFile struct {
	Input struct {
		Backend   string   `json:"backend"`
		SourceDir string   `json:"source_dir"`
		BuildDir  string   `json:"build_dir"`
		Jobs      int      `json:"jobs"`
		Engine    Engine   `json:"engine"`
		CMakeArgs []string `json:"cmake_args"`
		Portable  string   `json:"portable"`
	} `json:"input"`
	Selection Selection        `json:"selection"`
	Snapshot  machine.Snapshot `json:"snapshot"`
}

func loadCase(t *testing.T, name string) Input {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(casesDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c caseFile
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Input{Snapshot: &c.Snapshot, Selection: c.Selection, Engine: c.Input.Engine, Backend: c.Input.Backend,
		SourceDir: c.Input.SourceDir, BuildDir: c.Input.BuildDir, Jobs: c.Input.Jobs, CMakeArgs: c.Input.CMakeArgs, Portable: c.Input.Portable}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join(casesDir, name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./build/plan -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s: plan differs from golden file (go test ./build/plan -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestGoldenPlans(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Input)
	}{
		{name: "win-vs2022-17.11-cuda12.4-rtx4090"},
		{name: "win-vs2022-17.10-cuda12.3-older-toolset"},
		{name: "win-amd-rx7900xtx-vulkan"},
		{name: "linux-debian-nvcc11.8-gcc12-nogpu"},
		{name: "linux-debian-cpu-local"},
		{name: "linux-debian-cpu-ci-lock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := loadCase(t, c.name)
			p, err := Make(in)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, p.Text())
		})
	}
}

func cacheValue(p Plan, name string) (string, bool) {
	for _, c := range p.Cache {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

func patchIDs(p Plan) []string {
	var ids []string
	for _, ap := range p.Patches {
		ids = append(ids, ap.ID)
	}
	return ids
}

func TestCUDAPlanPinsToolkitAndArchitectures(t *testing.T) {
	p, err := Make(loadCase(t, "win-vs2022-17.11-cuda12.4-rtx4090"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"GGML_CUDA":                "ON",
		"CMAKE_CUDA_COMPILER":      `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\bin\nvcc.exe`,
		"CMAKE_CUDA_ARCHITECTURES": "89-real",
		"GGML_NATIVE":              "OFF",
		"LLAMA_BUILD_NUMBER":       "9591",
		"LLAMA_BUILD_COMMIT":       "e95dae18d",
		"LLAMA_BUILD_BORINGSSL":    "OFF",
	} {
		if got, _ := cacheValue(p, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if p.VCVars == nil || p.VCVars.Toolset != "" || !strings.HasSuffix(p.VCVars.Path, `Enterprise\VC\Auxiliary\Build\vcvarsall.bat`) {
		t.Errorf("vcvars = %+v", p.VCVars)
	}
	if len(p.Blockers) != 0 {
		t.Errorf("blockers: %v", p.Blockers)
	}
}

func TestOldNVCCWithNewMSVCSelectsOlderToolset(t *testing.T) {
	p, err := Make(loadCase(t, "win-vs2022-17.10-cuda12.3-older-toolset"))
	if err != nil {
		t.Fatal(err)
	}
	if p.VCVars == nil || p.VCVars.Toolset != "14.38" {
		t.Fatalf("vcvars = %+v, want toolset 14.38", p.VCVars)
	}
	if ids := patchIDs(p); len(ids) != 1 || ids[0] != "msvc-stl-cuda" {
		t.Errorf("patches = %v", ids)
	}
	if !strings.Contains(p.Script("cmd"), `vcvarsall.bat" x64 -vcvars_ver=14.38`) {
		t.Errorf("cmd script does not select the toolset:\n%s", p.Script("cmd"))
	}
	// The git checkout reports its own version: no build-info patch.
	if _, ok := cacheValue(p, "LLAMA_BUILD_NUMBER"); ok {
		t.Error("build number passed for a git checkout")
	}
}

func TestOldNVCCWithoutOlderToolsetIsBlockedUnlessAllowed(t *testing.T) {
	in := loadCase(t, "win-vs2022-17.10-cuda12.3-older-toolset")
	in.Snapshot.MSVC[0].Toolsets = []string{"14.40.33807"}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blockers) != 1 || !strings.Contains(p.Blockers[0].Text, "--allow-unsupported-compiler") || !strings.Contains(p.Blockers[0].Text, "CUDA 12.4") || p.Blockers[0].ID != "msvc-no-older-toolset" {
		t.Fatalf("blockers = %v", p.Blockers)
	}
	if v, _ := cacheValue(p, "CMAKE_CUDA_FLAGS"); v != "" {
		t.Errorf("unsupported-compiler flags used without being asked: %q", v)
	}

	in.AllowUnsupportedCompiler = true
	p, err = Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blockers) != 0 {
		t.Fatalf("blockers = %v", p.Blockers)
	}
	if v, _ := cacheValue(p, "CMAKE_CUDA_FLAGS"); v != "-D_ALLOW_COMPILER_AND_STL_VERSION_MISMATCH -allow-unsupported-compiler" {
		t.Errorf("CMAKE_CUDA_FLAGS = %q", v)
	}
}

func TestHealSymptomAddsLibpathPatch(t *testing.T) {
	in := loadCase(t, "win-vs2022-17.11-cuda12.4-rtx4090")
	in.Symptoms = []string{"cuda-link-libpath"}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `/LIBPATH:"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\lib\x64"`
	if v, _ := cacheValue(p, "CMAKE_SHARED_LINKER_FLAGS"); v != want {
		t.Errorf("CMAKE_SHARED_LINKER_FLAGS = %q, want %q", v, want)
	}
	if v, _ := cacheValue(p, "CUDAToolkit_ROOT"); v != `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4` {
		t.Errorf("CUDAToolkit_ROOT = %q", v)
	}
	// cmd.exe and PowerShell must hand cmake the quotes literally.
	if !strings.Contains(p.Script("cmd"), `"-DCMAKE_SHARED_LINKER_FLAGS=/LIBPATH:\"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\lib\x64\""`) {
		t.Errorf("cmd quoting:\n%s", p.Script("cmd"))
	}
}

func TestLinuxCUDAUsesOlderHostCompiler(t *testing.T) {
	p, err := Make(loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu"))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cacheValue(p, "CMAKE_CUDA_HOST_COMPILER"); v != "/usr/bin/g++-11" {
		t.Errorf("CMAKE_CUDA_HOST_COMPILER = %q", v)
	}
	if v, _ := cacheValue(p, "CMAKE_CUDA_COMPILER"); v != "/usr/bin/nvcc" {
		t.Errorf("CMAKE_CUDA_COMPILER = %q", v)
	}
	if p.VCVars != nil {
		t.Error("vcvars on linux")
	}
	if !strings.Contains(p.Script("bash"), "cmake -S /home/ci/.cache/llamactl/engine/b9591") {
		t.Errorf("bash script:\n%s", p.Script("bash"))
	}
}

func TestVulkanWithoutGlslcIsBlocked(t *testing.T) {
	in := loadCase(t, "win-amd-rx7900xtx-vulkan")
	in.Snapshot.Vulkan = machine.Vulkan{}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blockers) == 0 || p.Blockers[0].ID != "vulkan-glslc-missing" || !strings.Contains(p.Blockers[0].Text, "LunarG") {
		t.Errorf("blockers = %v", p.Blockers)
	}
}

// SPIRV-Headers block a Vulkan build only from the build options.json says
// (b9198) on, and for an engine of unknown version.
func TestSPIRVHeadersRequiredFromData(t *testing.T) {
	r := OptionTable().Requirements
	if len(r) == 0 || r[0].Source == "" || r[0].From == 0 {
		t.Fatalf("requirements = %+v", r)
	}
	for _, c := range []struct {
		build   int
		blocked bool
	}{{r[0].From - 1, false}, {r[0].From, true}, {0, true}} {
		in := loadCase(t, "win-amd-rx7900xtx-vulkan")
		in.Snapshot.Vulkan = machine.Vulkan{Glslc: `C:\tools\glslc.exe`}
		in.Engine.BuildNumber = c.build
		p, err := Make(in)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, b := range p.Blockers {
			got = got || b.ID == "vulkan-spirv-headers-missing"
		}
		for _, b := range p.Blockers {
			if b.ID == "vulkan-spirv-headers-missing" && !strings.Contains(b.Text, fmt.Sprintf("since b%d", r[0].From)) {
				t.Errorf("blocker text %q", b.Text)
			}
		}
		if got != c.blocked {
			t.Errorf("build %d: SPIRV-Headers blocker %v, want %v (%v)", c.build, got, c.blocked, p.Blockers)
		}
	}
}

func TestUserArgsTranslatedOrRefused(t *testing.T) {
	in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
	in.CMakeArgs = []string{"-DLLAMA_CUBLAS=ON", "CUDA_ARCHITECTURES=86", "-DGGML_CUDA_FA_ALL_QUANTS:BOOL=ON"}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cacheValue(p, "CMAKE_CUDA_ARCHITECTURES"); v != "86" {
		t.Errorf("CUDA_ARCHITECTURES not translated: %q", v)
	}
	if _, ok := cacheValue(p, "LLAMA_CUBLAS"); ok {
		t.Error("LLAMA_CUBLAS passed through")
	}
	if len(p.Translations) != 2 {
		t.Errorf("translations = %+v", p.Translations)
	}
	found := false
	for _, a := range p.Configure.Args {
		if a == "-DGGML_CUDA_FA_ALL_QUANTS:BOOL=ON" {
			found = true
		}
	}
	if !found {
		t.Errorf("typed arg lost: %v", p.Configure.Args)
	}

	in.CMakeArgs = []string{"-DLLAMA_CLBLAST=ON"}
	if _, err := Make(in); err == nil || !strings.Contains(err.Error(), "b3086") {
		t.Errorf("LLAMA_CLBLAST: err = %v", err)
	}
	in.CMakeArgs = []string{"-DLLAMA_CUDA_FORCE_DRAFT_MODEL=ON"}
	if _, err := Make(in); err == nil || !strings.Contains(err.Error(), "never existed") {
		t.Errorf("FORCE_DRAFT: err = %v", err)
	}
	in.CMakeArgs = []string{"-D=1"}
	if _, err := Make(in); err == nil {
		t.Error("bad -D accepted")
	}
}

func TestBackendFlagByBuild(t *testing.T) {
	o := OptionTable()
	cases := []struct {
		backend string
		build   int
		want    string
	}{
		{"cuda", 2000, "LLAMA_CUBLAS"},
		{"cuda", 3000, "LLAMA_CUDA"},
		{"cuda", 9591, "GGML_CUDA"},
		{"hip", 3500, "GGML_HIPBLAS"},
		{"hip", 9591, "GGML_HIP"},
		{"vulkan", 2500, "LLAMA_VULKAN"},
		{"opencl", 9591, "GGML_OPENCL"},
		{"cpu", 9591, ""},
		{"cuda", 0, "GGML_CUDA"},
	}
	for _, c := range cases {
		got, err := o.BackendFlag(c.backend, c.build)
		if err != nil || got != c.want {
			t.Errorf("BackendFlag(%s, %d) = %q, %v; want %q", c.backend, c.build, got, err, c.want)
		}
	}
	if _, err := o.BackendFlag("opencl", 3500); err == nil {
		t.Error("opencl at b3500 should not exist")
	}
	// New spelling on an old engine translates back.
	if got, ok := o.NameAt("GGML_HIP", 3500); !ok || got != "GGML_HIPBLAS" {
		t.Errorf("NameAt(GGML_HIP, 3500) = %q %v", got, ok)
	}
}

func TestUnknownBackend(t *testing.T) {
	in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
	in.Backend = "opengl"
	if _, err := Make(in); err == nil {
		t.Error("unknown backend accepted")
	}
}

func TestOptionTableSourced(t *testing.T) {
	o := OptionTable()
	for _, l := range o.Lineages {
		if l.Source == "" || len(l.Names) == 0 {
			t.Errorf("lineage %s lacks source or names", l.ID)
		}
		last := l.Names[len(l.Names)-1]
		if last.Until != 0 && l.Removed == "" && l.ID != "cuda-archs" {
			t.Errorf("lineage %s ends without a replacement but says no reason", l.ID)
		}
	}
}

func FuzzParseCacheArg(f *testing.F) {
	for _, s := range []string{"-DGGML_CUDA=ON", "X:BOOL=1", "-D=1", "", "-DA=B=C"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCacheArg(s)
		if err != nil {
			return
		}
		back, err := ParseCacheArg(c.String())
		if err != nil || back != c {
			t.Fatalf("round trip %q -> %+v -> %+v (%v)", s, c, back, err)
		}
	})
}

// TestMessagesComplete checks every message ID the planner uses exists in
// data/messages.json with as many %s as its args.
func TestMessagesComplete(t *testing.T) {
	src, err := os.ReadFile("plan.go")
	if err != nil {
		t.Fatal(err)
	}
	src2, _ := os.ReadFile("heal.go")
	src = append(src, src2...)
	re := regexp.MustCompile(`(?:blocker|warn|message)\("([a-z0-9-]+)"[,)]`)
	used := re.FindAllStringSubmatch(string(src), -1)
	if len(used) < 10 {
		t.Fatalf("found only %d message uses", len(used))
	}
	tab := messageTable()
	for _, u := range used {
		if _, ok := tab[u[1]]; !ok {
			t.Errorf("message %q is not in data/messages.json", u[1])
		}
	}
	for id, m := range tab {
		if n := strings.Count(m.Text, "%s"); n != len(m.Args) {
			t.Errorf("%s: %d placeholders, %d args named", id, n, len(m.Args))
		}
	}
}

func TestLauncherAndClangCL(t *testing.T) {
	in := loadCase(t, "win-vs2022-17.11-cuda12.4-rtx4090")
	in.Launcher = `C:\tools\sccache.exe`
	in.Compiler = "clang-cl"
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"CMAKE_C_COMPILER_LAUNCHER", "CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_CUDA_COMPILER_LAUNCHER"} {
		if v, _ := cacheValue(p, name); v != `C:\tools\sccache.exe` {
			t.Errorf("%s = %q", name, v)
		}
	}
	if v, _ := cacheValue(p, "CMAKE_CXX_COMPILER"); v != "clang-cl" || len(p.Blockers) != 0 {
		t.Errorf("clang-cl: %q, blockers %v", v, p.Blockers)
	}
	in.Snapshot.MSVC[0].HasClangCL = false
	if p, _ = Make(in); len(p.Blockers) != 1 || p.Blockers[0].ID != "clang-cl-missing" {
		t.Errorf("clang-cl without the component: blockers %v", p.Blockers)
	}
}

func TestNetworkOptionAskedFor(t *testing.T) {
	in := loadCase(t, "win-vs2022-17.11-cuda12.4-rtx4090")
	in.CMakeArgs = []string{"LLAMA_BUILD_BORINGSSL=ON", "GGML_CUDA_CUB_3DOT2=ON"}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cacheValue(p, "LLAMA_BUILD_BORINGSSL"); v != "ON" {
		t.Errorf("user's ON lost: %q", v)
	}
	n := 0
	for _, w := range p.Warnings {
		if w.ID == "network-option" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("network warnings = %v", p.Warnings)
	}
}

func TestDefaultsFollowEngineBuild(t *testing.T) {
	in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
	in.Engine.BuildNumber = 3500 // llama-cli lived in examples/ then
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cacheValue(p, "LLAMA_BUILD_EXAMPLES"); ok {
		t.Error("examples turned off for an engine whose llama-cli is an example")
	}
	if v, _ := cacheValue(p, "LLAMA_BUILD_TESTS"); v != "OFF" {
		t.Errorf("LLAMA_BUILD_TESTS = %q", v)
	}
	if _, ok := cacheValue(p, "LLAMA_BUILD_BORINGSSL"); ok {
		t.Error("LLAMA_BUILD_BORINGSSL passed to an engine older than b7126")
	}
}

// TestUnknownEngineVersion: a tree that does not tell its version (Debian's
// llama.cpp-0.7.0+dfsg, a "Download ZIP") gets one warning that says how to
// name the build; the user's LLAMA_BUILD_NUMBER then spells the options.
func TestUnknownEngineVersion(t *testing.T) {
	in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
	in.Backend = "cpu"
	in.Engine = Engine{VersionFrom: "unknown"}
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range p.Warnings {
		ids = append(ids, w.ID)
	}
	if !slices.Equal(ids, []string{"engine-build-unknown"}) || !strings.Contains(p.Warnings[0].Text, "LLAMA_BUILD_NUMBER=N") {
		t.Errorf("warnings = %+v", p.Warnings)
	}
	if _, ok := cacheValue(p, "LLAMA_BUILD_NUMBER"); ok {
		t.Error("LLAMA_BUILD_NUMBER passed for an unknown engine")
	}

	in.CMakeArgs = []string{"-DLLAMA_BUILD_NUMBER=3500", "LLAMA_BUILD_COMMIT=Debian"}
	p, err = Make(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Engine.BuildNumber != 3500 || p.Engine.Commit != "Debian" || p.Engine.VersionFrom != "cmake-arg" || len(p.Warnings) != 0 {
		t.Errorf("engine %+v, warnings %+v", p.Engine, p.Warnings)
	}
	// Spelled for b3500: llama-cli was an example then.
	if _, ok := cacheValue(p, "LLAMA_BUILD_EXAMPLES"); ok {
		t.Error("examples turned off for b3500")
	}
	if v, _ := cacheValue(p, "LLAMA_BUILD_NUMBER"); v != "3500" {
		t.Errorf("LLAMA_BUILD_NUMBER = %q", v)
	}
}

// A patch skipped for want of a value says in words what is missing and
// how to supply it, never the raw "{commit}" placeholder.
func TestPatchValueMissingSaysWhat(t *testing.T) {
	in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
	in.Backend = "cpu"
	in.Engine = Engine{BuildNumber: 9591, VersionFrom: "archive-name"} // no commit known
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, w := range p.Warnings {
		if w.ID == "patch-value-missing" {
			text = w.Text
		}
	}
	if text == "" || strings.Contains(text, "{") || !strings.Contains(text, "build-info") || !strings.Contains(text, "LLAMA_BUILD_COMMIT=") {
		t.Errorf("warning = %q (all: %+v)", text, p.Warnings)
	}
}

// The OpenCL plan warns unless a device passes llama.cpp's vendor filter
// (enginefacts): PoCL's CPU device on this machine does not, an Intel GPU
// (clinfo recording, Iris Xe) does, an AMD GPU does not.
func TestOpenCLWarnsWithoutSupportedDevice(t *testing.T) {
	cases := []struct {
		dev  machine.OpenCLDevice
		warn bool
	}{
		{machine.OpenCLDevice{Name: "pthread-skylake-avx512-AMD EPYC", Vendor: "AuthenticAMD", Type: "CPU"}, true},
		{machine.OpenCLDevice{Name: "gfx1100", Vendor: "Advanced Micro Devices, Inc.", Type: "GPU"}, true},
		{machine.OpenCLDevice{Name: "Intel(R) Iris(R) Xe Graphics", Vendor: "Intel(R) Corporation", Type: "GPU"}, false},
	}
	for _, c := range cases {
		in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
		in.Backend = "opencl"
		in.Snapshot.OpenCL = machine.OpenCL{Status: "ok", Platforms: []machine.OpenCLPlatform{{Name: "p", Devices: []machine.OpenCLDevice{c.dev}}}}
		p, err := Make(in)
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(p.Warnings, func(n Note) bool { return n.ID == "opencl-no-supported-device" })
		if warned != c.warn {
			t.Errorf("%s: warned %v, want %v (%v)", c.dev.Name, warned, c.warn, p.Warnings)
		}
	}
}

// GGML_NATIVE (LLAMA_NATIVE before b3240) is llama.cpp's default ON for a
// build that stays on this machine and OFF for binaries that leave it
// (--portable, --lock); the user's --cmake-arg still wins, with a warning.
func TestNativeFollowsPortability(t *testing.T) {
	cases := []struct {
		name      string
		build     int
		portable  string
		args      []string
		option    string // the option the plan sets, "" for none
		value     string
		reason    string // message ID among the reasons, "" for none
		warnNotPt bool
	}{
		{name: "local", build: 9591, reason: "native-on-local"},
		{name: "portable", build: 9591, portable: "--portable", option: "GGML_NATIVE", value: "OFF", reason: "native-off-portable"},
		{name: "lock, unknown engine", build: 0, portable: "building from the lock file ci.toml", option: "GGML_NATIVE", value: "OFF", reason: "native-off-portable"},
		{name: "portable, old engine", build: 3000, portable: "--portable", option: "LLAMA_NATIVE", value: "OFF", reason: "native-off-portable"},
		{name: "portable, user ON", build: 9591, portable: "--portable", args: []string{"GGML_NATIVE=ON"}, option: "GGML_NATIVE", value: "ON", warnNotPt: true},
		{name: "portable, old engine, user ON translated", build: 3000, portable: "--portable", args: []string{"-DGGML_NATIVE=ON"}, option: "LLAMA_NATIVE", value: "ON", warnNotPt: true},
		{name: "local, user OFF", build: 9591, args: []string{"GGML_NATIVE=OFF"}, option: "GGML_NATIVE", value: "OFF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := loadCase(t, "linux-debian-cpu-local")
			in.Engine = Engine{BuildNumber: c.build, Ref: "", VersionFrom: "unknown"}
			if c.build > 0 {
				in.Engine.Ref, in.Engine.VersionFrom = fmt.Sprintf("b%d", c.build), "archive-name"
			}
			in.Portable, in.CMakeArgs = c.portable, c.args
			p, err := Make(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"GGML_NATIVE", "LLAMA_NATIVE"} {
				v, ok := cacheValue(p, n)
				if want := n == c.option; ok != want || (ok && v != c.value) {
					t.Errorf("%s = %q (set %v), want set %v to %q\n%v", n, v, ok, want, c.value, p.Cache)
				}
			}
			for _, id := range []string{"native-on-local", "native-off-portable"} {
				has := slices.Contains(p.Reasons, message(id, c.option, c.portable).Text)
				if id == "native-on-local" {
					has = slices.Contains(p.Reasons, message(id, "GGML_NATIVE").Text)
				}
				if has != (id == c.reason) {
					t.Errorf("reason %s present %v; reasons %q", id, has, p.Reasons)
				}
			}
			warned := slices.ContainsFunc(p.Warnings, func(n Note) bool { return n.ID == "native-on-not-portable" })
			if warned != c.warnNotPt {
				t.Errorf("native-on-not-portable warned %v, want %v: %v", warned, c.warnNotPt, p.Warnings)
			}
		})
	}
}
