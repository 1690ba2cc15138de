package kernels

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/kernels/opencl"
)

// childFactory runs this test binary as the probe child with env.
func childFactory(t *testing.T, env map[string]string) *cmdutil.Factory {
	t.Helper()
	env[childEnv] = "opencl"
	for _, k := range []string{"PATH", "HOME", "LD_LIBRARY_PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	f, _, _ := cmdutil.NewTest(env, proc.Exec{})
	f.Executable = os.Executable
	return f
}

func needPoCL(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/etc/OpenCL/vendors/pocl.icd"); err != nil {
		testutil.Missing(t, "PoCL ICD not installed (/etc/OpenCL/vendors/pocl.icd); scripts/deps.sh installs it")
	}
	if !opencl.Available() {
		t.Skip("this build has no OpenCL loader support (cgo off)")
	}
}

// TestOpenCLPoCLChild: through a real child process and the real ICD loader,
// PoCL's CPU device builds, runs and verifies the kernel; llama.cpp's backend
// would not use it (not a GPU).
func TestOpenCLPoCLChild(t *testing.T) {
	needPoCL(t)
	f := childFactory(t, map[string]string{})
	stages, rep := ProbeOpenCL(context.Background(), f.Env(), 0)
	if rep == nil || rep.Status != opencl.StatusOK {
		t.Fatalf("report %+v stages %+v", rep, stages)
	}
	var build, run, verify, accept bool
	for _, s := range stages {
		if !strings.Contains(s.Device, "pthread") && s.Stage != StageEnumerate {
			continue
		}
		switch s.Stage {
		case StageBuild:
			build = s.OK
		case StageRun:
			run = s.OK
		case StageVerify:
			verify = s.OK
		case StageAccept:
			accept = true
			if s.OK || s.FailureID != "opencl-unsupported-gpu" || !strings.Contains(s.Detail, "not a GPU") {
				t.Errorf("accept = %+v", s)
			}
		}
	}
	if !build || !run || !verify || !accept {
		t.Errorf("PoCL stages build=%v run=%v verify=%v accept=%v: %+v", build, run, verify, accept, stages)
	}
	var okFinding bool
	for _, fd := range Findings(stages) {
		if fd.ID == "probe.opencl" && fd.Status == OK && strings.Contains(fd.Summary, "OpenCL C") {
			okFinding = true
		}
	}
	if !okFinding {
		t.Errorf("no passing OpenCL finding in %+v", Findings(stages))
	}
}

// TestOpenCLNoPlatform: OCL_ICD_VENDORS pointed at an empty directory makes
// the loader find no platform: the opencl-no-platform finding.
func TestOpenCLNoPlatform(t *testing.T) {
	needPoCL(t)
	f := childFactory(t, map[string]string{"OCL_ICD_VENDORS": t.TempDir()})
	stages, rep := ProbeOpenCL(context.Background(), f.Env(), 0)
	if rep == nil || rep.Status != opencl.StatusNoPlatforms || rep.Code != -1001 {
		t.Fatalf("report %+v", rep)
	}
	fs := Findings(stages)
	if len(fs) != 1 || fs[0].FailureID != "opencl-no-platform" || fs[0].Status != Error || fs[0].Message != "probe.opencl/opencl-no-platform" {
		t.Fatalf("findings %+v", fs)
	}
	if !strings.Contains(fs[0].Fix.Text, "OCL_ICD_VENDORS") {
		t.Errorf("fix %q", fs[0].Fix.Text)
	}
}

// TestOpenCLChildHangs: a child that never answers is killed at the deadline.
func TestOpenCLChildHangs(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, &proc.Replay{Commands: map[string]proc.Recording{"/opt/llamactl __probe opencl": {Hang: true}}})
	f.Executable = func() (string, error) { return "/opt/llamactl", nil }
	stages, _ := ProbeOpenCL(context.Background(), f.Env(), 50_000_000)
	if len(stages) != 1 || !stages[0].TimedOut {
		t.Fatalf("stages %+v", stages)
	}
	if fs := Findings(stages); fs[0].Message != "probe.opencl/timeout" {
		t.Errorf("finding %+v", fs[0])
	}
}

// TestLlamaCppAccepts uses device names and OpenCL C versions recorded on
// real Windows machines (testdata/kernels/*opencl*, *clinfo*).
func TestLlamaCppAccepts(t *testing.T) {
	for _, c := range []struct {
		name, vendor, typ, oclc string
		ok                      bool
		why                     string
	}{
		{"Intel(R) Iris(R) Xe Graphics", "Intel(R) Corporation", "GPU", "OpenCL C 3.0 ", true, "OpenCL C 3.0"},
		{"Intel(R) HD Graphics 620", "Intel(R) Corporation", "GPU", "OpenCL C 1.2 ", false, "older than the required 2.0"},
		{"NVIDIA GeForce GTX 1650 with Max-Q Design", "NVIDIA Corporation", "GPU", "OpenCL C 1.2 ", false, "only Qualcomm Adreno and Intel"},
		{"gfx1100", "Advanced Micro Devices, Inc.", "GPU", "OpenCL C 2.0 ", false, "only Qualcomm Adreno and Intel"},
		{"QUALCOMM Adreno(TM) 750", "QUALCOMM", "GPU", "OpenCL C 3.0 Adreno(TM) 750", true, ""},
		{"pthread-skylake-avx512-AMD EPYC", "AuthenticAMD", "CPU", "OpenCL C 1.2 PoCL", false, "not a GPU"},
		{"Intel(R) Arc(TM) A770 Graphics", "Intel(R) Corporation", "GPU", "garbage", false, "unknown OpenCL C version"},
	} {
		ok, why := LlamaCppAccepts(c.name, c.vendor, c.typ, c.oclc)
		if ok != c.ok || !strings.Contains(why, c.why) {
			t.Errorf("%s: got %v %q, want %v %q", c.name, ok, why, c.ok, c.why)
		}
	}
	// The device names above are the recorded ones.
	for fx, names := range map[string][]string{
		"opencl-platforms-enum-win-exe-gtx1650-iris-xe-hd-graphics.txt": {"NVIDIA GeForce GTX 1650 with Max-Q Design", "Intel(R) Iris(R) Xe Graphics"},
		"clinfo-win-amd-two-platforms-rx7900xtx-igpu.txt":               {"gfx1100", "Advanced Micro Devices, Inc.", "OpenCL C 2.0"},
	} {
		s := testutil.Fixture(t, "kernels", fx)
		for _, n := range names {
			if !strings.Contains(s, n) {
				t.Errorf("%s does not contain %q", fx, n)
			}
		}
	}
}

// FuzzOpenCLStages: the child's report is untrusted (a broken driver can
// write anything into names); turning it into stages and findings never panics.
func FuzzOpenCLStages(f *testing.F) {
	f.Add(`{"schema":1,"status":"ok","loader":"libOpenCL.so.1","platforms":[{"name":"P","devices":[{"name":"Intel(R) Arc","type":"GPU","opencl_c_version":"OpenCL C 3.0","build":{"ok":true},"run":{"ok":true},"verify":{"ok":false,"error":"x"}}]}]}`)
	f.Add(`{"schema":1,"status":"no-platforms","code":-1001}`)
	f.Add(`{"schema":1,"status":"no-icd-loader","error":"{device}"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var rep opencl.Report
		if json.Unmarshal([]byte(doc), &rep) != nil {
			return
		}
		st := openCLStages(rep, StageResult{Kind: "opencl", Stage: StageEnumerate})
		if len(st) == 0 || st[0].Stage != StageEnumerate {
			t.Fatalf("stages %+v", st)
		}
		_ = Findings(st)
	})
}
