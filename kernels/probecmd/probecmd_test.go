package probecmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/doctor/probe/childcmd"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/kernels/opencl"
	"github.com/llamactl/llamactl/machine"
)

func newOpts(t *testing.T, runner proc.Runner, snap *machine.Snapshot) (*Options, *strings.Builder) {
	t.Helper()
	f, out, _ := cmdutil.NewTest(map[string]string{}, runner)
	f.Executable = func() (string, error) { return "/opt/llamactl", nil }
	return &Options{F: f,
		Gather: func(context.Context) *machine.Snapshot { return snap },
		Select: doctor.Select,
	}, out
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct{ only, arch string }{{"rocm", ""}, {"", "native"}, {"", "sm_8x"}} {
		o, _ := newOpts(t, &proc.Replay{}, &machine.Snapshot{})
		o.Only, o.Overrides.Arch = c.only, c.arch
		if code := cmdutil.ExitCode(run(context.Background(), o)); code != cmdutil.ExitUsage {
			t.Errorf("%+v: exit %d, want %d", c, code, cmdutil.ExitUsage)
		}
	}
}

// TestJSONHangingChild: --json prints the versioned document; a hanging
// OpenCL child is killed and the run exits 1 with the timeout finding.
func TestJSONHangingChild(t *testing.T) {
	r := &proc.Replay{Commands: map[string]proc.Recording{"/opt/llamactl __probe opencl": {Hang: true}}}
	o, out := newOpts(t, r, &machine.Snapshot{})
	o.F.IO.JSON = true
	o.Only = "opencl"
	tm := kernels.DefaultTimeouts
	tm.OpenCL = 100 * time.Millisecond
	o.Timeouts = &tm
	err := run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings {
		t.Errorf("exit %d", cmdutil.ExitCode(err))
	}
	var doc kernels.Report
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Schema != 1 || len(doc.Findings) != 1 || doc.Findings[0].Message != "probe.opencl/timeout" || doc.CUDA != nil {
		t.Errorf("doc %+v", doc)
	}
}

// TestCUDAUsesSelection: with a recorded-style snapshot (nvcc 11.8, g++ 12
// default plus g++-11, an RTX 4090), the probe compiles with exactly the
// host compiler and architectures doctor selected, with the real nvcc.
func TestCUDAUsesSelection(t *testing.T) {
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		testutil.Missing(t, "nvcc not installed (scripts/deps.sh installs nvidia-cuda-toolkit)")
	}
	if _, err := exec.LookPath("g++-11"); err != nil {
		testutil.Missing(t, "g++-11 not installed")
	}
	snap := &machine.Snapshot{Schema: 1,
		OS:       machine.OSInfo{GOOS: "linux", Arch: "amd64"},
		NVIDIA:   machine.NVIDIA{NVMLStatus: "ok", DriverVersion: "560.35.03", CUDADriverAPI: "12.6", GPUs: []machine.GPU{{Index: 0, Name: "NVIDIA GeForce RTX 4090", ComputeCapability: "8.9", TotalMiB: 24564}}},
		Toolkits: []machine.CUDAToolkit{{Version: "11.8.89", Root: "/usr/lib/nvidia-cuda-toolkit", NVCC: nvcc, Found: []string{"debian"}}},
		Compilers: []machine.Compiler{
			{Kind: "g++", Path: "/usr/bin/g++", Version: "12.2.0", Major: 12},
			{Kind: "g++", Path: "/usr/bin/g++-11", Version: "11.3.0", Major: 11},
		},
	}
	sel := doctor.Select(snap)
	if sel.CUDAArchitectures == "" {
		// An RTX 4090 (8.9) with nvcc 11.8 must get a target; skipping here
		// would hide exactly the regression this test is for.
		t.Fatalf("doctor selected no architectures for an RTX 4090 with CUDA 11.8: %+v", sel)
	}
	o, out := newOpts(t, proc.Exec{}, snap)
	o.Only = "cuda"
	o.F.IO.Verbose = true
	_ = run(context.Background(), o)
	text := out.String()
	archs, _ := kernels.ParseArchList(sel.CUDAArchitectures)
	for _, a := range archs {
		if !strings.Contains(text, a.Gencode()) {
			t.Errorf("output lacks the selected %s:\n%s", a.Gencode(), text)
		}
	}
	if sel.HostCompiler != "" && !strings.Contains(text, "-ccbin "+sel.HostCompiler) {
		t.Errorf("output lacks -ccbin %s:\n%s", sel.HostCompiler, text)
	}
	if !strings.Contains(text, "✓ compile") || !strings.Contains(text, "✓ link") || !strings.Contains(text, "cuda-no-device") {
		t.Errorf("want compile+link ok and cuda-no-device:\n%s", text)
	}
	if _, err := os.Stat(strings.Fields(text[strings.Index(text, " -o ")+4:])[0]); err == nil {
		t.Errorf("the probe's temp files were not removed")
	}
}

// TestOpenCLChildCommand: the hidden `__probe` command answers `opencl`
// with the report and still refuses unknown kinds.
func TestOpenCLChildCommand(t *testing.T) {
	f, out, _ := cmdutil.NewTest(nil, &proc.Replay{})
	c := WithOpenCLChild(f, childcmd.NewCmd(f))
	c.SetArgs([]string{"bogus"})
	c.SilenceErrors, c.SilenceUsage = true, true
	if err := c.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "opencl") {
		t.Errorf("bogus kind: %v", err)
	}
	if _, err := os.Stat("/etc/OpenCL/vendors/pocl.icd"); err != nil || !opencl.Available() {
		testutil.Missing(t, "PoCL ICD not installed or no cgo; scripts/deps.sh installs it")
	}
	c.SetArgs([]string{"opencl"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	var rep opencl.Report
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil || rep.Schema != 1 || rep.Status != opencl.StatusOK || len(rep.Platforms) == 0 {
		t.Errorf("report %+v (%v)", rep, err)
	}
}
