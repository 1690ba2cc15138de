package build

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/build/msvcenv"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// windowsMachine answers a Windows build's commands from real recordings:
// vcvarsall's environment, a real LNK1181 line, and llama-cli's --version
// and --list-devices of an RTX 4090 machine (logs from llama.cpp#22778).
// Windows cannot run here, so this replays it.
type windowsMachine struct {
	vcvars     string
	builds     int
	calls      []proc.Cmd
	linkFailed bool
}

func (m *windowsMachine) LookPath(name string) (string, error) { return "", proc.ErrNotFound }

func (m *windowsMachine) Run(ctx context.Context, c proc.Cmd) (proc.Result, error) {
	m.calls = append(m.calls, c)
	out := func(s string, code int) (proc.Result, error) {
		if c.Stdout != nil {
			c.Stdout.Write([]byte(s))
		}
		return proc.Result{Stdout: []byte(s), ExitCode: code}, nil
	}
	switch {
	case c.Name == "cmd.exe":
		return out(m.vcvars, 0)
	case c.Name == "cmake" && len(c.Args) > 0 && c.Args[0] == "--build":
		m.builds++
		if m.builds == 1 {
			m.linkFailed = true
			// the LNK1181 line of testdata/logs/ref-cuda-link-libpath-cublas-caffe-67.log
			return out("[41/42] Linking CXX shared library bin\\ggml-cuda.dll\nError9758 error LNK1181: cannot open input file 'cublas.lib'\n", 1)
		}
		// The successful build leaves its binaries (a changed plan empties bin/ first).
		bin := filepath.Join(c.Args[1], "bin")
		os.MkdirAll(bin, 0o755)
		os.WriteFile(filepath.Join(bin, "llama-cli.exe"), []byte("MZ"), 0o755)
		os.WriteFile(filepath.Join(bin, "ggml-cuda.dll"), []byte("MZ"), 0o644)
		return out("[42/42] Linking CXX executable bin\\llama-cli.exe\n", 0)
	case c.Name == "cmake" && len(c.Args) > 0 && c.Args[0] == "--version":
		return out("cmake version 3.30.1\n", 0)
	case c.Name == "cmake":
		return out("-- The CXX compiler identification is MSVC 19.41.34123.0\n-- Build files have been written to: build\n", 0)
	case strings.HasSuffix(c.Name, "llama-cli.exe") && c.Args[0] == "--version":
		return proc.Result{Stderr: []byte("version: 9049 (2496f9c14)\nbuilt with Clang 19.1.5 for Windows x86_64\n")}, nil
	case strings.HasSuffix(c.Name, "llama-cli.exe") && c.Args[0] == "--list-devices":
		return proc.Result{Stdout: []byte("Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 Laptop GPU (16375 MiB, 15046 MiB free)\n")}, nil
	}
	return proc.Result{ExitCode: -1}, proc.ErrNotFound
}

func TestWindowsCUDABuildHealsLNK1181(t *testing.T) {
	rec, err := os.ReadFile("../testdata/build/vcvars/vcvarsall-x64-ok.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, vcvars, _ := strings.Cut(string(rec), "# ---\n")
	var c struct {
		Snapshot  machine.Snapshot `json:"snapshot"`
		Selection plan.Selection   `json:"selection"`
	}
	b, _ := os.ReadFile("../testdata/build/plans/win-vs2022-17.11-cuda12.4-rtx4090.json")
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	buildDir := filepath.Join(t.TempDir(), "build")
	in := plan.Input{Snapshot: &c.Snapshot, Selection: c.Selection, Backend: "auto", SourceDir: t.TempDir(), BuildDir: buildDir, Jobs: 16,
		Engine: plan.Engine{Ref: "b9049", BuildNumber: 9049, Commit: "2496f9c14", VersionFrom: "lock"}}
	m := &windowsMachine{vcvars: vcvars}
	// Ninja on the build's PATH, as on the recorded machine: where the plan
	// is for this very system (Windows, or wine), the build looks for it.
	ninjaDir := t.TempDir()
	os.WriteFile(filepath.Join(ninjaDir, "ninja.exe"), []byte("MZ"), 0o755)
	base := []string{"Path=C:\\windows\\system32;C:\\windows;" + ninjaDir, "USERPROFILE=C:\\Users\\user"}
	res, err := Run(context.Background(), Deps{Runner: m, Environ: base, Diagnose: KBDiagnose}, in, Options{Heal: true})
	if err != nil {
		t.Fatalf("build: %v\nsteps %+v", err, res.Steps)
	}
	if !m.linkFailed || res.Attempts != 2 || strings.Join(res.Healed, ",") != "cuda-libpath,cuda-no-vmm" {
		t.Fatalf("attempts %d, healed %v", res.Attempts, res.Healed)
	}
	// The retry's configure carries the quoted /LIBPATH and CUDAToolkit_ROOT.
	var configures []proc.Cmd
	for _, c := range m.calls {
		if c.Name == "cmake" && c.Args[0] == "-S" {
			configures = append(configures, c)
		}
	}
	if len(configures) != 2 {
		t.Fatalf("%d configures", len(configures))
	}
	args := strings.Join(configures[1].Args, "\n")
	for _, want := range []string{`-DCMAKE_SHARED_LINKER_FLAGS=/LIBPATH:"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4\lib\x64"`, "-DGGML_CUDA_NO_VMM=ON", `-DCUDAToolkit_ROOT=C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.4`} {
		if !strings.Contains(args, want) {
			t.Errorf("retry configure lacks %s", want)
		}
	}
	// vcvarsall's environment reaches cmake; the base PATH is replaced by its PATH.
	if p := msvcenv.Get(configures[0].Env, "PATH"); !strings.Contains(p, `VC\Tools\MSVC\14.38.33130\bin\HostX64\x64`) {
		t.Errorf("cmake PATH = %.100s", p)
	}
	if msvcenv.Get(configures[0].Env, "USERPROFILE") != `C:\Users\user` {
		t.Error("the caller's environment was not kept")
	}
	if v := res.Verify; v == nil || !v.OK || len(v.Devices) != 1 || !strings.HasPrefix(v.Devices[0], "CUDA0: NVIDIA GeForce RTX 4090") || v.BuildNumber != 9049 {
		t.Errorf("verify = %+v", res.Verify)
	}
	if res.Toolchain["cxx"] != "MSVC 19.41.34123.0" || res.Toolchain["cmake"] != "3.30.1" {
		t.Errorf("toolchain = %v", res.Toolchain)
	}
}

func TestCopyCUDARuntime(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	for _, n := range []string{"cudart64_12.dll", "cublas64_12.dll", "cublasLt64_12.dll", "nvrtc64_120_0.dll", "nvcc.exe"} {
		os.WriteFile(filepath.Join(root, "bin", n), []byte(n), 0o644)
	}
	bin := t.TempDir()
	r := &runner{res: &Result{Plan: plan.Plan{Cache: []plan.CacheArg{{Name: "CMAKE_CUDA_COMPILER", Value: filepath.Join(root, "bin", "nvcc.exe")}}}}}
	r.copyCUDARuntime(bin)
	entries, _ := os.ReadDir(bin)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != "cublas64_12.dll,cublasLt64_12.dll,cudart64_12.dll" {
		t.Errorf("copied %v", got)
	}
}

// CUDA 13 moved its runtime DLLs from <root>\bin to <root>\bin\x64: a CUDA 13
// build must still ship cudart, cublas and cublasLt beside its binaries.
func TestCUDARuntimeDLLsOfCUDA12And13(t *testing.T) {
	layouts := map[string][]string{
		"cuda-12.8": {"bin/nvcc.exe", "bin/cudart64_12.dll", "bin/cublas64_12.dll", "bin/cublasLt64_12.dll", "bin/cufft64_11.dll"},
		"cuda-13.0": {"bin/nvcc.exe", "bin/x64/cudart64_13.dll", "bin/x64/cublas64_13.dll", "bin/x64/cublasLt64_13.dll", "bin/x64/cufft64_12.dll"},
	}
	for name, files := range layouts {
		root := filepath.Join(t.TempDir(), name)
		for _, f := range files {
			p := filepath.Join(root, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, p := range cudaRuntimeDLLs(root) {
			got = append(got, strings.ToLower(filepath.Base(p)))
		}
		sort.Strings(got)
		if len(got) != 3 || !strings.HasPrefix(got[0], "cublas64_") || !strings.HasPrefix(got[1], "cublaslt64_") || !strings.HasPrefix(got[2], "cudart64_") {
			t.Errorf("%s: runtime DLLs %v, want cudart, cublas and cublasLt", name, got)
		}
	}
}
