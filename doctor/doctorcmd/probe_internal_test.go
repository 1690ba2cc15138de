package doctorcmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/machine"
)

// --probe keeps the kernels' failure ID (facts.failure_id) in --json, and
// says which architecture it compiled for when the machine has no NVIDIA
// GPU. The stages are those the real probe gave on the GPU-less CI machine.
func TestProbeFindingsKeepFailureID(t *testing.T) {
	s, err := machine.Load("../../testdata/doctor/snapshots/linux-ci-debian-nvcc11.8-gcc12.json")
	if err != nil {
		t.Fatal(err)
	}
	f, out, _ := cmdutil.NewTest(nil, nil)
	f.IO.JSON = true
	var gotSel doctor.Selection
	o := &Options{F: f, Probe: true,
		Gather: func(context.Context) *machine.Snapshot { return s },
		Kernels: func(_ context.Context, _ *machine.Snapshot, sel doctor.Selection) (kernels.Report, error) {
			gotSel = sel
			st := []kernels.StageResult{
				{Kind: "cuda", Stage: kernels.StageCompile, OK: true},
				{Kind: "cuda", Stage: kernels.StageLink, OK: true},
				{Kind: "cuda", Stage: kernels.StageLoad, FailureID: "cuda-no-device", Detail: "no CUDA-capable device is detected (cudaErrorNoDevice) in cudaGetDeviceCount(&count)",
					Facts: map[string]string{"nvcc_version": "11.8.89", "host": "/usr/bin/g++-11", "archs": "90-real"}},
			}
			return kernels.Report{Stages: st, Findings: kernels.Findings(st)}, nil
		}}
	if err := validateAndRun(context.Background(), o); err != nil {
		t.Fatalf("run: %v", err)
	}
	if gotSel.Toolkit == nil || gotSel.HostCompiler != "/usr/bin/g++-11" {
		t.Errorf("the kernels got selection %+v", gotSel)
	}
	var d struct {
		Checks []struct {
			ID      string            `json:"id"`
			Status  string            `json:"status"`
			Details []string          `json:"details"`
			Facts   map[string]string `json:"facts"`
		} `json:"checks"`
		Snapshot machine.Snapshot `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range d.Checks {
		if c.ID != "probe.cuda" {
			continue
		}
		found = true
		if c.Status != "warn" || c.Facts["failure_id"] != "cuda-no-device" {
			t.Errorf("probe.cuda %s facts %v, want warn with failure_id cuda-no-device", c.Status, c.Facts)
		}
		if len(c.Details) == 0 || !strings.Contains(c.Details[0], "compiled for 90-real") {
			t.Errorf("details %q do not name the fallback architecture", c.Details)
		}
	}
	if !found || len(d.Snapshot.Probes) != 3 || d.Snapshot.Probes[2].FailureID != "cuda-no-device" {
		t.Errorf("probe.cuda found %v, snapshot probes %+v", found, d.Snapshot.Probes)
	}
}

func TestFallbackArch(t *testing.T) {
	cases := []struct {
		tk   machine.CUDAToolkit
		want string
	}{
		{machine.CUDAToolkit{Version: "11.8.89", GPUArchs: []string{"compute_35", "compute_90", "compute_87"}}, "90-real"},
		{machine.CUDAToolkit{Version: "12.4.131"}, "90-real"}, // from the matrix: 12.4 targets up to sm_90
		{machine.CUDAToolkit{Version: "garbage"}, ""},
	}
	for _, c := range cases {
		if got := fallbackArch(&c.tk); got != c.want {
			t.Errorf("fallbackArch(%s %v) = %q, want %q", c.tk.Version, c.tk.GPUArchs, got, c.want)
		}
	}
}

// validateAndRun is what NewCmd's RunE does after parsing: validate, then run.
func validateAndRun(ctx context.Context, o *Options) error {
	if err := o.validate(); err != nil {
		return err
	}
	return run(ctx, o)
}
