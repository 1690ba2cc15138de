package kernels

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/internal/testutil/faketool"
)

func needNVCC(t *testing.T) string {
	t.Helper()
	p := testutil.Tool(t, "nvcc")
	out, err := exec.Command(p, "--version").Output()
	if err != nil || !strings.Contains(string(out), "release 11.8") {
		t.Skipf("these cases are written for nvcc 11.8; found: %s", out)
	}
	return p
}

// realCases run once and are shared by the subtests: each real nvcc
// compile costs seconds on a 2-core machine.
var realCases = struct {
	once sync.Once
	rep  map[string]CUDAReport
}{}

func runReal(t *testing.T, nvcc string) map[string]CUDAReport {
	realCases.once.Do(func() {
		realCases.rep = map[string]CUDAReport{}
		cases := map[string]Overrides{
			"sm_89 g++-11": {NVCC: nvcc, CCBin: "g++-11", Arch: "sm_89"},
			"sm_100":       {NVCC: nvcc, CCBin: "g++-11", Arch: "sm_100"},
			"g++-12":       {NVCC: nvcc, CCBin: "g++-12", Arch: "sm_89"},
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for name, ov := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				plan, err := PlanCUDA(nil, Choice{}, ov, "linux", nil)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				rep := ProbeCUDA(context.Background(), proc.Exec{}, plan)
				mu.Lock()
				realCases.rep[name] = rep
				mu.Unlock()
			}()
		}
		wg.Wait()
	})
	return realCases.rep
}

func stage(t *testing.T, rep CUDAReport, name string) StageResult {
	t.Helper()
	for _, s := range rep.Stages {
		if s.Stage == name {
			return s
		}
	}
	t.Fatalf("no %s stage in %+v", name, rep.Stages)
	return StageResult{}
}

// TestCUDARealNVCC runs Debian's real nvcc 11.8 (no GPU here).
func TestCUDARealNVCC(t *testing.T) {
	nvcc := needNVCC(t)
	testutil.Need(t, "g++-11", "g++-12")
	reps := runReal(t, nvcc)

	t.Run("sm_89 with g++-11 compiles and links, the run reports cuda-no-device", func(t *testing.T) {
		rep := reps["sm_89 g++-11"]
		if rep.RuntimeVersion != 11080 || rep.DriverVersion == 0 {
			t.Errorf("runtime %d driver %d", rep.RuntimeVersion, rep.DriverVersion)
		}
		if rep.NVCCVersion != "11.8.89" {
			t.Errorf("nvcc version %q", rep.NVCCVersion)
		}
		for _, st := range []string{StageCompile, StageLink} {
			if s := stage(t, rep, st); !s.OK {
				t.Errorf("%s failed: %+v", st, s)
			}
		}
		if c := stage(t, rep, StageCompile).Command; !strings.Contains(c, "-ccbin g++-11") || !strings.Contains(c, "--generate-code=arch=compute_89,code=[sm_89]") {
			t.Errorf("compile command %q does not use the plan's -ccbin/-gencode", c)
		}
		load := stage(t, rep, StageLoad)
		if load.OK || load.FailureID != "cuda-no-device" {
			t.Errorf("load = %+v, want cuda-no-device", load)
		}
		if s := stage(t, rep, StageRun); !s.Skipped {
			t.Errorf("run not skipped after load failed: %+v", s)
		}
		fs := Findings(rep.Stages)
		if len(fs) != 1 || fs[0].FailureID != "cuda-no-device" || fs[0].Status != Warn {
			t.Fatalf("findings %+v", fs)
		}
		if !strings.Contains(fs[0].Summary, "11.8.89") || !strings.Contains(fs[0].Summary, "g++-11") || !strings.Contains(fs[0].Summary, "89-real") {
			t.Errorf("summary %q lacks version/host/arch", fs[0].Summary)
		}
	})
	t.Run("sm_100 is nvcc-arch-too-new, fix CUDA ≥ 12.8", func(t *testing.T) {
		rep := reps["sm_100"]
		c := stage(t, rep, StageCompile)
		if c.OK || c.FailureID != "nvcc-arch-too-new" {
			t.Fatalf("compile = %+v", c)
		}
		fs := Findings(rep.Stages)
		if fs[0].Fix == nil || !strings.Contains(fs[0].Fix.Text, "CUDA ≥ 12.8") || !strings.Contains(fs[0].Fix.Text, "sm_100") {
			t.Errorf("fix %+v does not say CUDA ≥ 12.8 for sm_100", fs[0].Fix)
		}
		if s := stage(t, rep, StageLink); !s.Skipped {
			t.Errorf("link ran after a failed compile")
		}
	})
	t.Run("g++-12 is nvcc-unsupported-gcc, fix names g++-11", func(t *testing.T) {
		rep := reps["g++-12"]
		c := stage(t, rep, StageCompile)
		if c.OK || c.FailureID != "nvcc-unsupported-gcc" {
			t.Fatalf("compile = %+v", c)
		}
		fs := Findings(rep.Stages)
		if fs[0].Fix == nil || !strings.Contains(fs[0].Fix.Text, "g++-11") || !strings.Contains(strings.Join(fs[0].Fix.Commands, "\n"), "--ccbin g++-11") {
			t.Errorf("fix %+v does not name g++-11", fs[0].Fix)
		}
	})
}

// TestStageTimeout: a stand-in nvcc that "links" a probe binary which
// hangs. The load stage is killed at its deadline and reported, and the
// stages after it are skipped.
func TestStageTimeout(t *testing.T) {
	dir := t.TempDir()
	// Compiling (-c) writes an empty object; linking writes a probe program
	// that hangs (a faketool stand-in, so this runs on Windows too).
	fake := faketool.Install(t, dir, "nvcc", faketool.Spec{
		OutFlag: "-o", OutSpec: &faketool.Spec{Hang: true},
		Cases: []faketool.Case{{Arg: "-c", Spec: faketool.Spec{OutFlag: "-o"}}},
	})
	plan, err := PlanCUDA(nil, Choice{}, Overrides{NVCC: fake, Arch: "89-real"}, runtime.GOOS, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan.ToolkitVersion = "11.8.89"
	// Only the load stage has a short deadline: the stages that answer get
	// room, so a loaded machine cannot time them out instead.
	plan.Timeouts = Timeouts{Version: 10 * time.Second, Compile: 10 * time.Second, Link: 10 * time.Second, Load: 500 * time.Millisecond, Run: 10 * time.Second}
	start := time.Now()
	rep := ProbeCUDA(context.Background(), proc.Exec{}, plan)
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("probe took %s with a load stage that hangs for 30s: it was not killed", d)
	}
	load := stage(t, rep, StageLoad)
	if !load.TimedOut || load.OK {
		t.Fatalf("load = %+v, want timed out", load)
	}
	if s := stage(t, rep, StageRun); !s.Skipped {
		t.Errorf("run = %+v, want skipped", s)
	}
	fs := Findings(rep.Stages)
	if fs[0].Status != Error || fs[0].Message != "probe.cuda/timeout" || !strings.Contains(fs[0].Summary, "load") || !strings.Contains(fs[0].Summary, "500ms") {
		t.Errorf("finding %+v", fs[0])
	}
}

// TestProbeFromRecordedOutputs replays recorded real outputs through the
// whole stage logic (a fake only stands in for what cannot run here).
func TestProbeFromRecordedOutputs(t *testing.T) {
	const nvcc = "/usr/bin/nvcc"
	body := func(name string) string {
		out, _, _ := strings.Cut(testutil.FixtureBody(t, "kernels", name), "# exit:")
		return out
	}
	r := &recorder{answers: []proc.Result{
		{Stdout: []byte(body("nvcc-11.8-version.txt"))},
		{}, // compile
		{}, // link
		{Stdout: []byte(body("probe-load-no-device.txt")), ExitCode: 2},
	}}
	plan, _ := PlanCUDA(nil, Choice{}, Overrides{NVCC: nvcc, Arch: "86-real;89-real"}, "linux", nil)
	rep := ProbeCUDA(context.Background(), r, plan)
	if rep.NVCCVersion != "11.8.89" || rep.DriverVersion != 12020 {
		t.Errorf("versions %q %d", rep.NVCCVersion, rep.DriverVersion)
	}
	if got := stage(t, rep, StageLoad); got.FailureID != "cuda-no-device" || !strings.Contains(got.Excerpt, "cudaErrorNoDevice") {
		t.Errorf("load %+v", got)
	}
	if len(r.calls) != 4 || !strings.Contains(r.calls[1], "--generate-code=arch=compute_86,code=[sm_86] --generate-code=arch=compute_89,code=[sm_89] -c") {
		t.Errorf("calls %q", r.calls)
	}
}

// recorder answers commands in order (the probe's temp paths vary per run).
type recorder struct {
	answers []proc.Result
	calls   []string
	envs    [][]string
}

func (r *recorder) Run(_ context.Context, c proc.Cmd) (proc.Result, error) {
	r.calls = append(r.calls, c.String())
	r.envs = append(r.envs, c.Env)
	if len(r.answers) == 0 {
		return proc.Result{ExitCode: -1}, proc.ErrNotFound
	}
	a := r.answers[0]
	r.answers = r.answers[1:]
	return a, nil
}

func (r *recorder) LookPath(string) (string, error) { return "", proc.ErrNotFound }

// TestWindowsMSVCEnvironment: on Windows the probe imports the selected
// vcvarsall (build's replay of real VS 2022 recordings) and runs nvcc, the
// .obj/.exe names and the probe binary with that environment.
func TestWindowsMSVCEnvironment(t *testing.T) {
	const vcvars = `C:\Program Files\Microsoft Visual Studio\2022\Community\VC\Auxiliary\Build\vcvarsall.bat`
	body := func(name string) string { return testutil.FixtureBody(t, "kernels", name) }
	plan, err := PlanCUDA(nil, Choice{VCVarsAll: vcvars}, Overrides{NVCC: `C:\CUDA\v12.4\bin\nvcc.exe`, Arch: "89-real"}, "windows", nil)
	if err != nil {
		t.Fatal(err)
	}
	plan.ToolkitVersion = "12.4.131"
	plan.Env = []string{"Path=C:\\Windows\\system32"}

	r := &recorder{answers: []proc.Result{{Stdout: []byte(body("vcvarsall-x64-ok.txt"))}, {}, {}, {Stdout: []byte("LLAMACTL load ok=0 api=cudaGetDeviceCount(&count) code=35 name=cudaErrorInsufficientDriver msg=\"CUDA driver version is insufficient for CUDA runtime version\"\n"), ExitCode: 2}}}
	rep := ProbeCUDA(context.Background(), r, plan)
	if len(r.envs) < 2 || !hasEnv(r.envs[1], "WindowsSDK_ExecutablePath_x64") {
		t.Fatalf("nvcc did not get the MSVC environment (%d calls)", len(r.envs))
	}
	if !strings.HasSuffix(strings.Fields(r.calls[1])[len(strings.Fields(r.calls[1]))-1], "probe.obj") {
		t.Errorf("compile %q: want a .obj output on Windows", r.calls[1])
	}
	if !strings.HasSuffix(r.calls[3], `probe.exe load`) {
		t.Errorf("load %q", r.calls[3])
	}
	if s := stage(t, rep, StageLoad); s.FailureID != "cuda-driver-too-old" {
		t.Errorf("load %+v", s)
	}

}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// TestTwoDevicesOneUncovered: the run/verify path on GPUs. No GPU exists
// here and no GPU recording of the probe exists yet, so the probe's output
// is written in probe.cu's own printf format with the CUDA runtime's real
// error name and message; the logic under test is the stage/finding logic.
func TestTwoDevicesOneUncovered(t *testing.T) {
	load := "LLAMACTL load runtime_version=11080 built_runtime=11080 driver_version=12060\n" +
		"LLAMACTL device index=0 cc=6.1 mem_mib=8110 name=\"NVIDIA GeForce GTX 1080\"\n" +
		"LLAMACTL device index=1 cc=8.9 mem_mib=24217 name=\"NVIDIA GeForce RTX 4090\"\n" +
		"LLAMACTL load ok=1 device_count=2\n"
	runOK := "LLAMACTL run ok=1 device=1\nLLAMACTL verify ok=1 elements=1048576\nLLAMACTL bandwidth device_gbps=912.4 h2d_gbps=24.1 d2h_gbps=25.3\n"
	runNoImage := "LLAMACTL run ok=0 api=cudaGetLastError() code=209 name=cudaErrorNoKernelImageForDevice msg=\"no kernel image is available for execution on the device\"\n"
	// The uncovered GPU is device 0, so its facts must win over device 1's.
	r := &recorder{answers: []proc.Result{{}, {}, {Stdout: []byte(load)}, {Stdout: []byte(runNoImage), ExitCode: 3}, {Stdout: []byte(runOK)}}}
	plan, _ := PlanCUDA(nil, Choice{}, Overrides{NVCC: "/usr/bin/nvcc", Arch: "89-real"}, "linux", nil)
	plan.ToolkitVersion = "11.8.89"
	rep := ProbeCUDA(context.Background(), r, plan)
	if len(rep.Devices) != 2 || rep.Devices[0].CC != "6.1" || rep.RuntimeVersion != 11080 {
		t.Fatalf("devices %+v runtime %d", rep.Devices, rep.RuntimeVersion)
	}
	if len(rep.Stages) != 7 {
		t.Fatalf("stages %+v", rep.Stages)
	}
	badRun, badVerify, okRun, okVerify := rep.Stages[3], rep.Stages[4], rep.Stages[5], rep.Stages[6]
	if !okRun.OK || okRun.Metrics["device_gbps"] != 912.4 || okRun.Metrics["h2d_gbps"] != 24.1 || !okVerify.OK {
		t.Errorf("RTX 4090: %+v %+v", okRun, okVerify)
	}
	if badRun.OK || badRun.FailureID != "cuda-no-kernel-image" || !badVerify.Skipped {
		t.Errorf("GTX 1080: %+v %+v", badRun, badVerify)
	}
	fs := Findings(rep.Stages)
	if fs[0].FailureID != "cuda-no-kernel-image" || !strings.Contains(fs[0].Summary, "CC 6.1") || !strings.Contains(fs[0].Fix.Text, "61-real") {
		t.Errorf("finding %+v", fs[0])
	}
	snap := ToSnapshot(rep.Stages)
	if snap[5].Metrics["device_gbps"] != 912.4 || snap[3].FailureID != "cuda-no-kernel-image" {
		t.Errorf("snapshot records %+v", snap)
	}
}
