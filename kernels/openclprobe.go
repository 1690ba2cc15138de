package kernels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/kernels/opencl"
)

// ChildArgs start the OpenCL probe child: `llamactl __probe opencl`.
var ChildArgs = []string{"__probe", "opencl"}

// ProbeOpenCL runs the OpenCL probe in a child llamactl (a crashing or
// hanging vendor driver cannot take llamactl down) and turns its report into
// stages: enumerate once, then build, run, verify and llama-accepts per device.
func ProbeOpenCL(ctx context.Context, f proc.Env, timeout time.Duration) ([]StageResult, *opencl.Report) {
	fail := func(s StageResult) ([]StageResult, *opencl.Report) { return []StageResult{s}, nil }
	if timeout <= 0 {
		timeout = DefaultTimeouts.OpenCL
	}
	exe, err := f.Executable()
	if err != nil {
		return fail(StageResult{Kind: "opencl", Stage: StageEnumerate, Detail: "cannot find llamactl's own executable to start the probe child: " + err.Error()})
	}
	c := proc.Cmd{Name: exe, Args: ChildArgs, Env: f.Environ(), Timeout: timeout}
	res, err := f.Runner.Run(ctx, c)
	s := StageResult{Kind: "opencl", Stage: StageEnumerate, Command: c.String(), Duration: res.Duration}
	if res.TimedOut || errors.Is(err, proc.ErrTimeout) {
		s.TimedOut, s.Detail = true, fmt.Sprintf("did not finish within %s and was killed", timeout)
		s.Facts = map[string]string{"timeout": timeout.String()}
		return fail(s)
	}
	if err != nil {
		s.Detail = err.Error()
		return fail(s)
	}
	var rep opencl.Report
	if jerr := json.Unmarshal(res.Stdout, &rep); jerr != nil || rep.Schema == 0 {
		s.Detail = fmt.Sprintf("the probe child exited with %d without a report", res.ExitCode)
		s.Output = tail(res.Combined(), maxOutputTail)
		return fail(s)
	}
	return openCLStages(rep, s), &rep
}

// openCLStages is a pure function of the child's report.
func openCLStages(rep opencl.Report, s StageResult) []StageResult {
	switch rep.Status {
	case opencl.StatusOK:
		s.OK = true
		n := 0
		for _, p := range rep.Platforms {
			n += len(p.Devices)
		}
		s.Detail = detail("opencl-ok", map[string]string{
			"platforms": count("platform", len(rep.Platforms)), "devices": count("device", n), "loader": rep.Loader})
	case opencl.StatusNoPlatforms:
		s.FailureID, s.Detail = "opencl-no-platform", rep.Error
	case opencl.StatusNoLoader:
		s.FailureID, s.Detail = "opencl-no-platform", rep.Error
		s.Facts = map[string]string{"detail": rep.Error, "loader": "missing"}
	default:
		s.Detail = rep.Error
	}
	out := []StageResult{s}
	for _, p := range rep.Platforms {
		for _, d := range p.Devices {
			facts := map[string]string{"device": d.Name, "type": d.Type, "opencl_c": d.OpenCLCVersion, "platform": p.Name}
			for _, st := range []struct {
				name string
				step opencl.Step
			}{{StageBuild, d.Build}, {StageRun, d.Run}, {StageVerify, d.Verify}} {
				r := StageResult{Kind: "opencl", Stage: st.name, Device: d.Name, OK: st.step.OK, Skipped: st.step.Skipped, Detail: st.step.Error, Output: tail(st.step.Log, maxOutputTail), Facts: facts}
				if st.step.Skipped {
					r.Detail = "skipped: an earlier stage failed"
				}
				out = append(out, r)
			}
			ok, why := LlamaCppAccepts(d.Name, d.Vendor, d.Type, d.OpenCLCVersion)
			acc := StageResult{Kind: "opencl", Stage: StageAccept, Device: d.Name, OK: ok, Detail: why, Facts: map[string]string{"device": d.Name, "reason": why, "type": d.Type, "opencl_c": d.OpenCLCVersion}}
			if !ok {
				acc.FailureID = "opencl-unsupported-gpu"
			}
			out = append(out, acc)
		}
	}
	return out
}

// LlamaCppAccepts says whether llama.cpp's OpenCL backend would use a
// device (the rule lives in internal/enginefacts).
func LlamaCppAccepts(name, vendor, typ, openCLC string) (bool, string) {
	return enginefacts.OpenCLAccepts(name, vendor, typ, openCLC)
}
