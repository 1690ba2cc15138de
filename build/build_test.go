package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/filelock"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/patches"
)

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, "%s is not installed (scripts/deps.sh installs it): %v", tool, err)
		}
	}
}

// fixtureSource copies the fixture engine into a directory named like a
// release archive, without git metadata.
func fixtureSource(t *testing.T) string {
	t.Helper()
	src := "../testdata/engine"
	dst := filepath.Join(t.TempDir(), "llama.cpp-b9591")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func linuxSnapshot() *machine.Snapshot {
	return &machine.Snapshot{Schema: 1, OS: machine.OSInfo{GOOS: "linux", Arch: "amd64", LogicalCores: 2}}
}

func deps() Deps {
	return Deps{Runner: proc.Exec{}, Environ: os.Environ(), Diagnose: KBDiagnose, Llamactl: "test"}
}

// countingDeps is deps() with the plans counted: each call's symptoms.
func countingDeps(passes *[][]string) Deps {
	d := deps()
	d.Plan = func(in plan.Input) (plan.Plan, error) {
		*passes = append(*passes, slices.Clone(in.Symptoms))
		return plan.Make(in)
	}
	return d
}

func input(t *testing.T, src, backend string, sel plan.Selection) plan.Input {
	eng := engine.DetectVersion(context.Background(), proc.Exec{}, src, engine.DefaultLock())
	return plan.Input{Snapshot: linuxSnapshot(), Selection: sel, Engine: eng, Backend: backend,
		SourceDir: src, BuildDir: filepath.Join(t.TempDir(), "build"), Jobs: 2}
}

func stepStatus(r *Result, name string) string {
	st := ""
	for _, s := range r.Steps {
		if s.Name == name {
			st = s.Status
		}
	}
	return st
}

func TestBuildFixtureCPUThenNoOp(t *testing.T) {
	need(t, "cmake", "ninja", "c++")
	src := fixtureSource(t)
	in := input(t, src, "cpu", plan.Selection{})
	out := filepath.Join(t.TempDir(), "out")
	var progress []int
	d := deps()
	d.Progress = func(done, total int, what string) { progress = append(progress, done) }
	res, err := Run(context.Background(), d, in, Options{OutDir: out})
	if err != nil {
		t.Fatalf("build: %v\nsteps %+v", err, res.Steps)
	}
	if res.NoOp || len(progress) == 0 {
		t.Errorf("first build: no-op %v, %d progress lines", res.NoOp, len(progress))
	}
	// The archive's version reached the binary through LLAMA_BUILD_NUMBER/COMMIT.
	if res.Verify == nil || res.Verify.BuildNumber != 9591 || res.Verify.Commit != "e95dae18d" {
		t.Errorf("verify = %+v", res.Verify)
	}
	var m Manifest
	b, err := os.ReadFile(filepath.Join(out, ManifestName))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if m.Schema != 1 || m.Engine.BuildNumber != 9591 || len(m.Artifacts) < 2 || m.Toolchain["cxx"] == "" || m.Toolchain["cmake"] == "" {
		t.Errorf("manifest = %+v", m)
	}
	if len(m.Patches) != 1 || m.Patches[0].ID != "build-info" {
		t.Errorf("manifest patches = %+v", m.Patches)
	}
	links := 0
	for _, a := range m.Artifacts {
		if a.Link != "" {
			// The SOVERSION links (libggml-base.so.0) travel as links.
			links++
			if got, err := os.Readlink(filepath.Join(out, a.Path)); err != nil || got != a.Link {
				t.Errorf("artifact %s: link in --out is %q (%v), want %q", a.Path, got, err, a.Link)
			}
			continue
		}
		if len(a.SHA256) != 64 {
			t.Errorf("artifact %s sha256 %q", a.Path, a.SHA256)
		}
		if _, err := os.Stat(filepath.Join(out, a.Path)); err != nil {
			t.Errorf("artifact %s not in --out: %v", a.Path, err)
		}
	}
	if runtime.GOOS == "linux" {
		if links == 0 {
			t.Errorf("no SOVERSION links among the artifacts: %+v", m.Artifacts)
		}
		// The copied binaries must not need the build tree (absolute RUNPATH,
		// missing libggml-base.so.0): hide it and run the copy.
		bin := filepath.Join(in.BuildDir, "bin")
		if err := os.Rename(bin, bin+".hidden"); err != nil {
			t.Fatal(err)
		}
		vr, err := (proc.Exec{}).Run(context.Background(), proc.Cmd{Name: filepath.Join(out, "llama-cli"), Args: []string{"--version"}, Timeout: time.Minute})
		if err := os.Rename(bin+".hidden", bin); err != nil {
			t.Fatal(err)
		}
		if _, b, _, ok := ParseVersion(vr.Combined()); err != nil || vr.ExitCode != 0 || !ok || b != 9591 {
			t.Errorf("--out's llama-cli without the build tree: exit %d, %v: %s", vr.ExitCode, err, vr.Combined())
		}
	}

	again, err := Run(context.Background(), deps(), in, Options{OutDir: out})
	if err != nil {
		t.Fatalf("second build: %v", err)
	}
	if !again.NoOp || stepStatus(again, "configure") != "skipped" {
		t.Errorf("second run: no-op %v, configure %s", again.NoOp, stepStatus(again, "configure"))
	}
}

func TestBuildFixtureCUDA(t *testing.T) {
	need(t, "cmake", "ninja", "/usr/bin/nvcc", "g++-11")
	src := fixtureSource(t)
	tk := &machine.CUDAToolkit{Version: "11.8.89", Root: "/usr/lib/nvidia-cuda-toolkit", NVCC: "/usr/bin/nvcc"}
	in := input(t, src, "auto", plan.Selection{Backend: "cuda", CUDA: "11.8.89", Toolkit: tk, CUDAArchitectures: "89-real", HostCompiler: "/usr/bin/g++-11"})
	res, err := Run(context.Background(), deps(), in, Options{})
	if err != nil {
		t.Fatalf("build: %v\nsteps %+v", err, res.Steps)
	}
	log, _ := os.ReadFile(res.LogPath)
	if !strings.Contains(string(log), "The CUDA compiler identification is NVIDIA 11.8") {
		t.Error("build log lacks the CUDA compiler identification")
	}
	rules, _ := os.ReadFile(filepath.Join(in.BuildDir, "build.ninja"))
	more, _ := os.ReadFile(filepath.Join(in.BuildDir, "CMakeFiles", "rules.ninja"))
	rules = append(rules, more...)
	for _, want := range []string{"code=[sm_89]", "-ccbin=/usr/bin/g++-11"} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("build.ninja lacks %q", want)
		}
	}
	// The library really holds sm_89 device code.
	if _, err := exec.LookPath("cuobjdump"); err == nil {
		out, err := exec.Command("cuobjdump", "--list-elf", filepath.Join(res.BinDir, "libggml-cuda.so")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "sm_89.cubin") {
			t.Errorf("cuobjdump: %v %s", err, out)
		}
	}
	v := res.Verify
	if v == nil || !v.OK || v.BackendLib != "libggml-cuda.so" || !strings.Contains(strings.Join(v.LoadedBackend, ","), "CUDA") {
		t.Errorf("verify = %+v", v)
	}
	if res.Toolchain["cuda"] == "" {
		t.Errorf("toolchain = %v", res.Toolchain)
	}
}

func TestBuildHealsDriverLibraryLink(t *testing.T) {
	need(t, "cmake", "ninja", "/usr/bin/nvcc", "g++-11")
	src := fixtureSource(t)
	tk := &machine.CUDAToolkit{Version: "11.8.89", Root: "/usr/lib/nvidia-cuda-toolkit", NVCC: "/usr/bin/nvcc"}
	in := input(t, src, "cuda", plan.Selection{Backend: "cuda", Toolkit: tk, CUDAArchitectures: "89-real", HostCompiler: "/usr/bin/g++-11"})
	// The fixture's switch for "libcuda not linked" (F20).
	in.CMakeArgs = []string{"-DFIXTURE_LINK_DRIVER=OFF"}

	var passes [][]string
	res, err := Run(context.Background(), countingDeps(&passes), in, Options{})
	if kindOf(err) != Failed || res.Failed != "compile" {
		t.Fatalf("without --heal: err %v, failed %q", err, res.Failed)
	}
	// Two plans: the build's, and what --heal would do with the
	// diagnosed failure, which the first could not know.
	if fmt.Sprint(passes) != "[[] [cuda-driver-lib-link]]" {
		t.Errorf("plans made with symptoms %v, want [[] [cuda-driver-lib-link]]", passes)
	}
	if len(res.Diagnoses) == 0 || res.Diagnoses[0].ID != "cuda-driver-lib-link" {
		t.Fatalf("diagnoses = %+v", res.Diagnoses)
	}
	// Without --heal the result says what --heal would change.
	if len(res.WouldHeal) != 1 || res.WouldHeal[0].ID != "cuda-no-vmm" || res.WouldHeal[0].Change != "-DGGML_CUDA_NO_VMM=ON" || len(res.Fixes) != 0 {
		t.Errorf("would heal %+v, fixes %+v", res.WouldHeal, res.Fixes)
	}

	res, err = Run(context.Background(), deps(), in, Options{Heal: true})
	if err != nil {
		t.Fatalf("--heal: %v\nsteps %+v", err, res.Steps)
	}
	if len(res.Healed) != 1 || res.Healed[0] != "cuda-no-vmm" || res.Attempts != 2 {
		t.Errorf("healed %v in %d attempts", res.Healed, res.Attempts)
	}
	if len(res.Fixes) != 1 || res.Fixes[0].ID != "cuda-no-vmm" || res.Fixes[0].Attempt != 1 || res.Fixes[0].Trigger != "cuda-driver-lib-link" {
		t.Errorf("fixes %+v", res.Fixes)
	}
	var m Manifest
	if b, err := os.ReadFile(res.Manifest); err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if len(m.Heal) != 1 || m.Heal[0].ID != "cuda-no-vmm" || m.Attempts != 2 {
		t.Errorf("manifest heal %+v attempts %d", m.Heal, m.Attempts)
	}
	// The log of the successful attempt is diagnosed alone: the first
	// attempt's failure is not reported again.
	if len(res.Diagnoses) != 0 {
		t.Errorf("diagnoses after healing: %+v", res.Diagnoses)
	}
}

func TestBuildRefusesIgnoredBackendOption(t *testing.T) {
	need(t, "cmake", "ninja", "c++")
	src := fixtureSource(t)
	in := input(t, src, "hip", plan.Selection{})
	// An engine from before b4080 spells the HIP switch GGML_HIPBLAS; the
	// fixture (like current llama.cpp) ignores it.
	in.Engine.BuildNumber = 3500
	in.Snapshot.HIP = machine.HIP{Root: "/opt/rocm", GFX: []string{"gfx1100"}}
	res, err := Run(context.Background(), deps(), in, Options{})
	if kindOf(err) != Failed || !strings.Contains(err.Error(), "GGML_HIPBLAS") {
		t.Fatalf("err = %v", err)
	}
	if res.Failed != "configure" || len(res.Diagnoses) == 0 || res.Diagnoses[0].ID != "cmake-flag-ignored" {
		t.Errorf("failed %q, diagnoses %+v", res.Failed, res.Diagnoses)
	}
}

func TestBuildBlockedPlanRunsNothing(t *testing.T) {
	r := &proc.Replay{}
	in := plan.Input{Snapshot: linuxSnapshot(), Backend: "cuda", SourceDir: t.TempDir(), BuildDir: filepath.Join(t.TempDir(), "b")}
	_, err := Run(context.Background(), Deps{Runner: r}, in, Options{})
	var be *Error
	if !errors.As(err, &be) || be.Kind != Blocked || !strings.Contains(be.Message, "no CUDA toolkit") {
		t.Fatalf("err = %v", err)
	}
	if len(r.Calls) != 0 {
		t.Errorf("commands ran: %v", r.Calls)
	}
}

func TestUnusedVariables(t *testing.T) {
	log := "CMake Warning:\n  Manually-specified variables were not used by the project:\n\n    GGML_HIPBLAS\n    LLAMA_BUILD_BORINGSSL\n\n\n-- Build files have been written to: /x\n"
	got := UnusedVariables(log)
	if strings.Join(got, ",") != "GGML_HIPBLAS,LLAMA_BUILD_BORINGSSL" {
		t.Errorf("got %v", got)
	}
	if !isBackendOption("GGML_HIPBLAS") || isBackendOption("LLAMA_BUILD_BORINGSSL") || !isBackendOption("LLAMA_CLBLAST") {
		t.Error("backend option classification wrong")
	}
}

func TestParseVersion(t *testing.T) {
	cases := map[string]struct {
		build  int
		commit string
	}{
		"version: 9049 (2496f9c14)\nbuilt with Clang 19.1.5 for Windows x86_64":                          {9049, "2496f9c14"},
		"version: 0.4.0-dev (build 10825, commit 9e0e22059)\nbuilt with Clang 20.1.8 for Windows x86_64": {10825, "9e0e22059"},
		"version: 0.7.0 (build 11669, commit Debian)":                                                    {11669, "Debian"},
		"version: 0 (unknown)":           {0, "unknown"},
		"version: 4589 (a1b2c3d4-dirty)": {4589, "a1b2c3d4"},
	}
	for in, want := range cases {
		_, b, c, ok := ParseVersion(in)
		if !ok || b != want.build || c != want.commit {
			t.Errorf("ParseVersion(%q) = %d %q %v", in, b, c, ok)
		}
	}
	if _, _, _, ok := ParseVersion("error: invalid argument"); ok {
		t.Error("parsed a version from nothing")
	}
}

// TestVerifyRealEngineBinary runs the verifier's parser on llama.cpp's real
// CPU build (Debian's, build 11669) when the test engine is installed.
func TestVerifyRealEngineBinary(t *testing.T) {
	dir := os.Getenv("LLAMACTL_TEST_ENGINE_DIR")
	if dir == "" {
		dir = "/var/cache/llamactl-deps/engine/bin"
	}
	cli := filepath.Join(dir, "llama-cli")
	if _, err := os.Stat(cli); err != nil {
		testutil.Missing(t, "llama.cpp test engine not installed at %s (scripts/deps.sh)", dir)
	}
	res, err := (proc.Exec{}).Run(context.Background(), proc.Cmd{Name: cli, Args: []string{"--version"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, b, _, ok := ParseVersion(res.Combined()); !ok || b == 0 {
		t.Errorf("real llama-cli --version not parsed: %q", res.Combined())
	}
}

func BenchmarkNoOpRebuild(b *testing.B) {
	if _, err := exec.LookPath("ninja"); err != nil {
		b.Skip("ninja not installed")
	}
	src := b.TempDir() + "/llama.cpp-b9591"
	if err := os.CopyFS(src, os.DirFS("../testdata/engine")); err != nil {
		b.Fatal(err)
	}
	eng := engine.DetectVersion(context.Background(), proc.Exec{}, src, engine.DefaultLock())
	in := plan.Input{Snapshot: linuxSnapshot(), Engine: eng, Backend: "cpu", SourceDir: src, BuildDir: b.TempDir() + "/build", Jobs: 2}
	if _, err := Run(context.Background(), deps(), in, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(context.Background(), deps(), in, Options{})
		if err != nil || !res.NoOp {
			b.Fatalf("no-op rebuild: %v, no-op %v", err, res.NoOp)
		}
	}
}

func TestBuildAppliesSourceDiffOnce(t *testing.T) {
	need(t, "cmake", "ninja", "c++")
	reg, err := patches.ParseFS([]byte(`{"patches":[{"id":"fixture-version-note","title":"note the patch in --version","why":"exercises source diffs end to end",
		"source":"testdata/build/patches/fixture-version-note.diff (ours)","when":{"proactive":true},"changes":{"diff":"fixture-version-note.diff"}}]}`),
		os.DirFS("../testdata/build/patches"))
	if err != nil {
		t.Fatal(err)
	}
	src := fixtureSource(t)
	in := input(t, src, "cpu", plan.Selection{})
	in.Registry = reg
	res, err := Run(context.Background(), deps(), in, Options{})
	if err != nil {
		t.Fatalf("build: %v\n%+v", err, res.Steps)
	}
	if stepStatus(res, "patch") != "ok" || len(res.Plan.Patches) != 1 {
		t.Errorf("patch step %q, plan patches %+v", stepStatus(res, "patch"), res.Plan.Patches)
	}
	out, _ := exec.Command(filepath.Join(res.BinDir, "llama-cli"), "--version").CombinedOutput()
	if !strings.Contains(string(out), "patched by llamactl: fixture-version-note") {
		t.Errorf("the built binary lacks the patch: %s", out)
	}
	again, err := Run(context.Background(), deps(), in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	detail := ""
	for _, s := range again.Steps {
		if s.Name == "patch" {
			detail = s.Detail
		}
	}
	if !strings.Contains(detail, "already applied") || !again.NoOp {
		t.Errorf("second run: patch %q, no-op %v", detail, again.NoOp)
	}
}

func FuzzParseEngineOutput(f *testing.F) {
	f.Add("version: 9049 (2496f9c14)\nbuilt with Clang 19.1.5 for Windows x86_64\n")
	f.Add("version: 0.4.0-dev (build 10825, commit 9e0e22059)\n")
	f.Add("CMake Warning:\n  Manually-specified variables were not used by the project:\n\n    GGML_HIPBLAS\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		if line, b, _, ok := ParseVersion(s); ok && (b < 0 || !strings.Contains(s, line)) {
			t.Fatalf("ParseVersion(%q) = %q %d", s, line, b)
		}
		for _, v := range UnusedVariables(s) {
			if v == "" || !strings.Contains(s, v) {
				t.Fatalf("UnusedVariables invented %q", v)
			}
		}
	})
}

// TestPlanChangeDropsStaleBinaries: a second build in the same build directory
// with another plan (here without llama-server, as a CPU build after a CUDA
// one is without libggml-cuda.so) neither lists nor ships the first plan's
// files, in bin/ or in --out.
func TestPlanChangeDropsStaleBinaries(t *testing.T) {
	need(t, "cmake", "ninja", "c++")
	src := fixtureSource(t)
	in := input(t, src, "cpu", plan.Selection{})
	out := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// Not llamactl's: must survive.
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), deps(), in, Options{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "llama-server")); err != nil {
		t.Fatalf("first build: %v", err)
	}
	// ggml-vulkan's generated shader header does not follow a plan change by itself.
	hdr := filepath.Join(in.BuildDir, "ggml", "src", "ggml-vulkan", "ggml-vulkan-shaders.hpp")
	if err := os.MkdirAll(filepath.Dir(hdr), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hdr, []byte("// stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in.CMakeArgs = []string{"LLAMA_BUILD_SERVER=OFF"}
	res, err := Run(context.Background(), deps(), in, Options{OutDir: out})
	if _, serr := os.Stat(hdr); serr == nil {
		t.Error("the stale ggml-vulkan-shaders.hpp survived a plan change")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Artifacts {
		if a.Path == "llama-server" {
			t.Error("llama-server of the earlier plan is still an artifact")
		}
	}
	for _, dir := range []string{res.BinDir, out} {
		if _, err := os.Stat(filepath.Join(dir, "llama-server")); err == nil {
			t.Errorf("llama-server of the earlier plan is still in %s", dir)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "notes.txt")); err != nil {
		t.Errorf("a file llamactl did not write was removed from --out: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "llama-cli")); err != nil {
		t.Errorf("llama-cli missing from --out: %v", err)
	}
}

// A second build in the same build directory waits (and says so) instead of
// running ninja in the tree the first is compiling and truncating its log.
func TestBuildWaitsForTheBuildDirectoryLock(t *testing.T) {
	src := fixtureSource(t)
	in := input(t, src, "cpu", plan.Selection{Backend: "cpu"})
	if err := os.MkdirAll(in.BuildDir, 0o755); err != nil {
		t.Fatal(err)
	}
	held, err := filelock.TryLock(filepath.Join(in.BuildDir, ".llamactl-build.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	log := filepath.Join(in.BuildDir, "llamactl-build.log")
	if err := os.WriteFile(log, []byte("the first build's log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waited := ""
	d := deps()
	d.Waiting = func(dir string) { waited = dir }
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	_, err = Run(ctx, d, in, Options{})
	var be *Error
	if !errors.As(err, &be) || be.Kind != Interrupted || waited != in.BuildDir {
		t.Errorf("err = %v, waited on %q; want it to wait for %s until stopped", err, waited, in.BuildDir)
	}
	if b, _ := os.ReadFile(log); string(b) != "the first build's log\n" {
		t.Errorf("the waiting build touched the first one's log: %q", b)
	}
}
