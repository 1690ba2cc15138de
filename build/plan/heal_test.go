package plan

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/machine"
)

// healCase is the recorded Debian machine (nvcc 11.8, default g++ 12,
// g++-11 installed, no GPU) with the facts the heal rules read.
func healInput(t *testing.T) Input {
	t.Helper()
	in := loadCase(t, "linux-debian-nvcc11.8-gcc12-nogpu")
	in.Backend = "cuda"
	in.Snapshot.Compilers = append(in.Snapshot.Compilers, machine.Compiler{Kind: "g++", Path: "/usr/bin/g++-12", Version: "12.2.0", Major: 12})
	in.Snapshot.Toolkits[0].GPUArchs = []string{"compute_50", "compute_52", "compute_60", "compute_61", "compute_70", "compute_75", "compute_80", "compute_86", "compute_87", "compute_89", "compute_90"}
	in.Selection.Toolkit = &in.Snapshot.Toolkits[0]
	in.Ninja = NinjaFacts{Checked: true, OnPath: "/usr/bin/ninja"}
	return in
}

func blockerIDs(p Plan) []string {
	var out []string
	for _, b := range p.Blockers {
		out = append(out, b.ID)
	}
	return out
}

func mustPlan(t *testing.T, in Input) Plan {
	t.Helper()
	p, err := Make(in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func onlyFix(t *testing.T, p Plan, id string) Fix {
	t.Helper()
	if len(p.Blockers) > 0 || len(p.Fixes) != 1 || p.Fixes[0].ID != id {
		t.Fatalf("want the single fix %s, got fixes %+v blockers %v", id, p.Fixes, p.Blockers)
	}
	return p.Fixes[0]
}

func TestHealHostCompilerRejected(t *testing.T) {
	in := healInput(t)
	in.CMakeArgs = []string{"CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12"}
	p := mustPlan(t, in)
	if ids := blockerIDs(p); !slices.Equal(ids, []string{"cuda-host-compiler-rejected"}) {
		t.Fatalf("blockers %v", ids)
	}
	for _, want := range []string{"--cmake-arg CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12", "up to 11", "/usr/bin/g++-11", "--heal"} {
		if !strings.Contains(p.Blockers[0].Text, want) {
			t.Errorf("blocker lacks %q: %s", want, p.Blockers[0].Text)
		}
	}
	in.Heal = true
	p = mustPlan(t, in)
	f := onlyFix(t, p, "host-compiler")
	if v, _ := cacheValue(p, "CMAKE_CUDA_HOST_COMPILER"); v != "/usr/bin/g++-11" || f.Option != "--cmake-arg CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12" {
		t.Errorf("host compiler %q, fix %+v", v, f)
	}
	// g++-11, which nvcc accepts, is left alone.
	in.CMakeArgs = []string{"CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-11"}
	if p = mustPlan(t, in); len(p.Fixes) != 0 || len(p.Blockers) != 0 {
		t.Errorf("an accepted compiler was changed: %+v %v", p.Fixes, p.Blockers)
	}
	// A compiler the snapshot does not know: only the log can tell.
	in.CMakeArgs = []string{"CMAKE_CUDA_HOST_COMPILER=/opt/gcc-13/bin/g++"}
	if p = mustPlan(t, in); len(p.Fixes) != 0 {
		t.Errorf("fixed without evidence: %+v", p.Fixes)
	}
	in.Symptoms = []string{"nvcc-unsupported-gcc"}
	onlyFix(t, mustPlan(t, in), "host-compiler")
}

func TestHealCUDAArchTooNew(t *testing.T) {
	in := healInput(t)
	in.Selection.CUDAArchitectures, in.CUDAArchFlag = "120-real", "120-real"
	p := mustPlan(t, in)
	if ids := blockerIDs(p); !slices.Equal(ids, []string{"cuda-arch-unsupported"}) {
		t.Fatalf("blockers %v", ids)
	}
	for _, want := range []string{"--cuda-arch 120-real", "CUDA 12.8", "--cuda-arch 89-virtual", "--backend vulkan", "minutes"} {
		if !strings.Contains(p.Blockers[0].Text, want) {
			t.Errorf("blocker lacks %q: %s", want, p.Blockers[0].Text)
		}
	}
	in.Heal = true
	p = mustPlan(t, in)
	onlyFix(t, p, "cuda-arch-ptx")
	if v, _ := cacheValue(p, "CMAKE_CUDA_ARCHITECTURES"); v != "89-virtual" {
		t.Errorf("architectures %q", v)
	}
	// What nvcc 11.8 builds passes untouched; a list keeps its good part.
	in.Selection.CUDAArchitectures = "86-real;89-real"
	if p = mustPlan(t, in); len(p.Fixes)+len(p.Blockers) != 0 {
		t.Errorf("%+v %v", p.Fixes, p.Blockers)
	}
	// nvcc 11.8 lists compute_90, but llama.cpp's sm_90 code needs CUDA 12
	// (measured on the real tree: cuda-toolkit-too-old).
	in.Heal = false
	in.Selection.CUDAArchitectures = "90-virtual"
	if p = mustPlan(t, in); len(p.Blockers) != 1 || !strings.Contains(p.Blockers[0].Text, "install CUDA 12.0") || !strings.Contains(p.Blockers[0].Text, "--cuda-arch 89-virtual") {
		t.Errorf("90-virtual with CUDA 11.8: %v", p.Blockers)
	}
	in.Heal = true
	in.Selection.CUDAArchitectures = "86-real;100-real"
	if p = mustPlan(t, in); onlyFix(t, p, "cuda-arch-ptx").Change != "-DCMAKE_CUDA_ARCHITECTURES=86-real;89-virtual" {
		t.Errorf("change %q", p.Fixes[0].Change)
	}
}

func TestHealNativeWithoutGPU(t *testing.T) {
	in := healInput(t)
	in.Selection.CUDAArchitectures, in.CUDAArchFlag = "native", "native"
	p := mustPlan(t, in)
	if ids := blockerIDs(p); !slices.Equal(ids, []string{"cuda-arch-native-no-gpu"}) || !strings.Contains(p.Blockers[0].Text, "--cuda-arch native") {
		t.Fatalf("blockers %v", p.Blockers)
	}
	in.Heal = true
	p = mustPlan(t, in)
	onlyFix(t, p, "cuda-arch-native")
	if v, _ := cacheValue(p, "CMAKE_CUDA_ARCHITECTURES"); v != "61-virtual;89-real" {
		t.Errorf("architectures %q", v)
	}
	// With a GPU, native is what the user wants.
	in.Snapshot.NVIDIA.GPUs = []machine.GPU{{Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9"}}
	if p = mustPlan(t, in); len(p.Fixes)+len(p.Blockers) != 0 {
		t.Errorf("%+v %v", p.Fixes, p.Blockers)
	}
}

func TestHealForeignBuildFolder(t *testing.T) {
	cases := map[string]struct {
		cache map[string]string
		want  string
	}{
		"generator":     {map[string]string{"CMAKE_GENERATOR": "Unix Makefiles"}, "Unix Makefiles"},
		"source":        {map[string]string{"CMAKE_HOME_DIRECTORY": "/elsewhere/llama.cpp"}, "/elsewhere/llama.cpp"},
		"compiler":      {map[string]string{"CMAKE_CXX_COMPILER": "/usr/bin/x86_64-linux-gnu-g++-11"}, "g++-11"},
		"stale cublas":  {map[string]string{"LLAMA_CUBLAS": "ON"}, "LLAMA_CUBLAS=ON"},
		"stale native":  {map[string]string{"LLAMA_NATIVE": "OFF"}, "LLAMA_NATIVE=OFF"},
		"other backend": {map[string]string{"GGML_VULKAN": "ON"}, "vulkan backend"},
		"moved":         {map[string]string{"CMAKE_CACHEFILE_DIR": "/old/build"}, "/old/build"},
	}
	for name, c := range cases {
		in := healInput(t)
		in.Backend = "cpu"
		in.SourceDir, in.BuildDir = "/src/llama.cpp", "/src/llama.cpp/build"
		cache := map[string]string{"CMAKE_GENERATOR": "Ninja", "CMAKE_HOME_DIRECTORY": "/src/llama.cpp", "CMAKE_CXX_COMPILER": "/usr/bin/x86_64-linux-gnu-g++-12"}
		for k, v := range c.cache {
			cache[k] = v
		}
		in.Folder = &Folder{Cache: cache, Compilers: map[string]string{"CMAKE_CXX_COMPILER": "/usr/bin/x86_64-linux-gnu-g++-12"}}
		p := mustPlan(t, in)
		if ids := blockerIDs(p); !slices.Equal(ids, []string{"build-folder-conflict"}) || !strings.Contains(p.Blockers[0].Text, c.want) {
			t.Errorf("%s: blockers %v", name, p.Blockers)
			continue
		}
		in.Heal = true
		p = mustPlan(t, in)
		if f := onlyFix(t, p, "fresh-cache"); !p.FreshCache || !strings.Contains(f.Text, c.want) {
			t.Errorf("%s: fresh cache %v, fix %+v", name, p.FreshCache, f)
		}
		// The same cache in llamactl's own folder is llamactl's to manage.
		in.Heal = false
		in.Folder.Ours = true
		if p = mustPlan(t, in); len(p.Blockers)+len(p.Fixes) != 0 {
			t.Errorf("%s: own folder: %v %+v", name, p.Blockers, p.Fixes)
		}
	}
	// A foreign folder that agrees with the plan is used as it is.
	in := healInput(t)
	in.Backend = "cpu"
	in.SourceDir, in.BuildDir = "/src/llama.cpp", "/src/llama.cpp/build"
	in.Folder = &Folder{Cache: map[string]string{"CMAKE_GENERATOR": "Ninja", "CMAKE_HOME_DIRECTORY": "/src/llama.cpp", "GGML_CUDA": "OFF"}}
	if p := mustPlan(t, in); len(p.Blockers)+len(p.Fixes) != 0 {
		t.Errorf("agreeing folder: %v %+v", p.Blockers, p.Fixes)
	}
	// CMake's own refusal, seen in the log, starts it anew too.
	in.Heal, in.Folder, in.Symptoms = true, nil, []string{"cmake-cache-mismatch"}
	if p := mustPlan(t, in); !p.FreshCache {
		t.Errorf("cmake-cache-mismatch: %+v", p.Fixes)
	}
}

func TestHealNinjaOffPath(t *testing.T) {
	in := healInput(t)
	in.Backend = "cpu"
	in.Ninja = NinjaFacts{Checked: true, Elsewhere: []string{"/home/u/.local/bin/ninja"}}
	p := mustPlan(t, in)
	if ids := blockerIDs(p); !slices.Equal(ids, []string{"ninja-not-on-path"}) || !strings.Contains(p.Blockers[0].Text, `export PATH="/home/u/.local/bin:$PATH"`) {
		t.Fatalf("blockers %v", p.Blockers)
	}
	in.Heal = true
	p = mustPlan(t, in)
	onlyFix(t, p, "ninja-path")
	if v, _ := cacheValue(p, "CMAKE_MAKE_PROGRAM"); v != "/home/u/.local/bin/ninja" {
		t.Errorf("CMAKE_MAKE_PROGRAM %q", v)
	}
	in.Ninja = NinjaFacts{Checked: true}
	if ids := blockerIDs(mustPlan(t, in)); !slices.Equal(ids, []string{"ninja-missing"}) {
		t.Errorf("no ninja anywhere: %v", ids)
	}
}

// On Windows, Visual Studio's Ninja is on PATH once vcvarsall's environment
// is imported, which every Windows build does.
func TestNinjaFromVisualStudio(t *testing.T) {
	in := loadCase(t, "win-vs2022-17.11-cuda12.4-rtx4090")
	vs := in.Snapshot.MSVC[0].Path + `\Common7\IDE\CommonExtensions\Microsoft\CMake\Ninja\ninja.exe`
	in.Ninja = NinjaFacts{Checked: true, Elsewhere: []string{vs}}
	if p := mustPlan(t, in); len(p.Blockers)+len(p.Fixes) != 0 {
		t.Errorf("%v %+v", p.Blockers, p.Fixes)
	}
	in.Ninja = NinjaFacts{Checked: true, Elsewhere: []string{`C:\Users\u\AppData\Local\Programs\Python\Python312\Scripts\ninja.exe`}}
	if p := mustPlan(t, in); len(p.Blockers) != 1 || !strings.Contains(p.Blockers[0].Text, `$env:Path = "C:\Users\u\AppData\Local\Programs\Python\Python312\Scripts;" + $env:Path`) {
		t.Errorf("%v", p.Blockers)
	}
}

// --target builds exactly the targets asked for: verification runs
// llama-server when llama-cli was left out (build.verify), so nothing is
// added behind the user's back.
func TestTargetsAreExactlyThoseAsked(t *testing.T) {
	in := healInput(t)
	in.Backend = "cpu"
	in.Targets = []string{"llama-server"}
	p := mustPlan(t, in)
	if got := strings.Join(p.Build.Args, " "); !strings.HasSuffix(got, "--target llama-server") || strings.Contains(got, "llama-cli") {
		t.Errorf("build args %q", got)
	}
}

func TestEngineUnknownBuildFromGit(t *testing.T) {
	in := healInput(t)
	in.Backend = "cpu"
	in.Engine = Engine{Commit: "de3ff815e", HasGit: true, CommitCount: 1, VersionFrom: "git-commit"}
	p := mustPlan(t, in)
	i := slices.IndexFunc(p.Warnings, func(n Note) bool { return n.ID == "engine-build-unknown-git" })
	if i < 0 || !strings.Contains(p.Warnings[i].Text, "de3ff815e") || slices.ContainsFunc(p.Warnings, func(n Note) bool { return n.ID == "engine-build-unknown" }) {
		t.Errorf("warnings %v", p.Warnings)
	}
	// A git checkout is not given the build-info patch: llama.cpp reads git itself.
	if slices.ContainsFunc(p.Patches, func(a AppliedPatch) bool { return a.ID == "build-info" }) {
		t.Errorf("build-info patch on a git checkout")
	}
}

// The heal rules' refusals (with their choices) and fixes read in Chinese
// with --lang zh-CN: every blocker and fix line, the values that are
// themselves messages (nvcc's limit, each choice) included.
func TestHealTextInChinese(t *testing.T) {
	zh := NewTranslator("zh-CN")
	host := healInput(t)
	host.CMakeArgs = []string{"CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12"}
	arch := healInput(t)
	arch.Selection.CUDAArchitectures, arch.CUDAArchFlag = "120-real", "120-real"
	ninja := healInput(t)
	ninja.Backend = "cpu"
	ninja.Ninja = NinjaFacts{Checked: true, Elsewhere: []string{"/home/u/.local/bin/ninja"}}
	for name, in := range map[string]Input{"host compiler": host, "cuda arch": arch, "ninja": ninja} {
		p := mustPlan(t, in)
		if len(p.Blockers) != 1 {
			t.Fatalf("%s: blockers %v", name, p.Blockers)
		}
		got := zh.Note(p.Blockers[0])
		if w := testutil.EnglishLeft(got); w != "" || !strings.Contains(got, "请选择") {
			t.Errorf("%s: blocker not Chinese (%q):\n%s", name, w, got)
		}
		in.Heal = true
		p = mustPlan(t, in)
		txt := p.TextIn(zh)
		if len(p.Fixes) != 1 || !strings.Contains(txt, "已修复（--heal）：") {
			t.Fatalf("%s: fixes %+v:\n%s", name, p.Fixes, txt)
		}
		if got := zh.Line(p.Fixes[0].Text); !strings.HasPrefix(got, "--heal：") || testutil.EnglishLeft(got) != "" {
			t.Errorf("%s: fix not Chinese: %q", name, got)
		}
		if !strings.Contains(p.Text(), "Healed (--heal):\n") || !strings.Contains(p.Text(), p.Fixes[0].Text) {
			t.Errorf("%s: English text:\n%s", name, p.Text())
		}
	}
}

// --heal changes only what would block: a plan without blockers is the
// same plan with --heal, as long as no new failure ID (symptom) comes in.
// The build relies on it: after a failure the log did not diagnose, what
// --heal would change is nothing, without planning again (build's
// wouldHeal).
func TestHealOnlyUnblocks(t *testing.T) {
	var ins []Input
	for _, name := range []string{"linux-debian-cpu-ci-lock", "linux-debian-cpu-local", "linux-debian-nvcc11.8-gcc12-nogpu",
		"win-amd-rx7900xtx-vulkan", "win-vs2022-17.10-cuda12.3-older-toolset", "win-vs2022-17.11-cuda12.4-rtx4090"} {
		for _, b := range Backends {
			in := loadCase(t, name)
			in.Backend = b
			ins = append(ins, in)
		}
	}
	// The heal rules' facts, each on the side that does not block.
	base := healInput(t)
	ins = append(ins, base)
	withArchs := healInput(t)
	withArchs.CUDAArchFlag, withArchs.CMakeArgs = "89-real", []string{"-DCMAKE_CUDA_ARCHITECTURES=89-real"}
	withCompiler := healInput(t)
	withCompiler.CMakeArgs = []string{"-DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-11"}
	ours := healInput(t)
	ours.Folder = &Folder{Ours: true, Cache: map[string]string{"CMAKE_GENERATOR": "Ninja"}}
	ins = append(ins, withArchs, withCompiler, ours)

	clean, blocked := 0, 0
	for i, in := range ins {
		in.Heal = false
		p, err := Make(in)
		if err != nil {
			continue
		}
		if len(p.Blockers) > 0 {
			blocked++
			continue
		}
		clean++
		in.Heal = true
		h, err := Make(in)
		if err != nil {
			t.Fatalf("case %d (%s): %v with --heal only", i, in.Backend, err)
		}
		if !reflect.DeepEqual(p, h) {
			t.Errorf("case %d (%s): --heal changed a plan without blockers:\n fixes %+v\n patches %+v\n vs %+v", i, in.Backend, h.Fixes, h.Patches, p.Patches)
		}
	}
	if clean < 10 || blocked == 0 {
		t.Errorf("%d plans without blockers, %d with: the cases prove little", clean, blocked)
	}
	t.Logf("%d plans without blockers compared, %d blocked", clean, blocked)
}
