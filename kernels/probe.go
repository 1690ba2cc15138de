// Package kernels holds llamactl's probe kernels (a CUDA vector add with
// device and bandwidth checks, an OpenCL vector add) and runs them with
// exactly the toolchain a build would use: the selected nvcc, host compiler
// and -gencode targets, each stage (compile, link, load, run, verify) under
// its own timeout, every failure named with a stable failure ID
// and turned into a finding with a fix.
package kernels

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/kernels/opencl"
	"github.com/llamactl/llamactl/machine"
)

// ReportSchema versions the `llamactl probe --json` document.
const ReportSchema = 1

// Options choose which probes run and how.
type Options struct {
	Overrides
	SkipCUDA   bool
	SkipOpenCL bool
	GOOS       string    // default runtime.GOOS
	Timeouts   *Timeouts // default DefaultTimeouts
}

// Report is every probe's result, and what `llamactl probe --json` prints.
type Report struct {
	Schema int `json:"schema"`
	// CUDA is absent when the CUDA probe did not run (see Stages for why).
	CUDA     *CUDAReport    `json:"cuda,omitempty"`
	OpenCL   *opencl.Report `json:"opencl,omitempty"`
	Stages   []StageResult  `json:"stages"`
	Findings []Finding      `json:"findings"`
}

// InputError is a probe request that cannot be planned from what the user
// gave (a bad override); commands report it as a usage error (exit 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// Run runs the probes for a snapshot and a choice (doctor's selection).
func Run(ctx context.Context, f proc.Env, snap *machine.Snapshot, ch Choice, o Options) (Report, error) {
	rep := Report{Schema: ReportSchema}
	goos := o.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	t := DefaultTimeouts
	if o.Timeouts != nil {
		t = *o.Timeouts
	}
	if !o.SkipCUDA {
		plan, err := PlanCUDA(snap, ch, o.Overrides, goos, f.Runner.LookPath)
		plan.Timeouts = t
		var skip *ErrSkip
		switch {
		case err == nil:
			cr := ProbeCUDA(ctx, f.Runner, plan)
			rep.CUDA = &cr
			rep.Stages = append(rep.Stages, cr.Stages...)
		case asSkip(err, &skip):
			rep.Stages = append(rep.Stages, StageResult{Kind: "cuda", Stage: StageCompile, Skipped: true, Detail: skip.Reason, Facts: map[string]string{"skip": skip.Key}})
		default:
			return rep, &InputError{Err: err}
		}
	}
	if !o.SkipOpenCL {
		st, orep := ProbeOpenCL(ctx, f, t.OpenCL)
		rep.OpenCL = orep
		rep.Stages = append(rep.Stages, st...)
	}
	rep.Findings = Findings(rep.Stages)
	return rep, nil
}

func asSkip(err error, target **ErrSkip) bool {
	s, ok := err.(*ErrSkip)
	if ok {
		*target = s
	}
	return ok
}

// ToSnapshot converts stage results to the snapshot's probe records.
func ToSnapshot(stages []StageResult) []machine.ProbeResult {
	out := make([]machine.ProbeResult, 0, len(stages))
	for _, s := range stages {
		d := s.Detail
		if s.Device != "" {
			d = s.Device + ": " + d
		}
		if s.Excerpt != "" {
			d += " — " + s.Excerpt
		}
		out = append(out, machine.ProbeResult{Kind: s.Kind, Stage: s.Stage, OK: s.OK, FailureID: s.FailureID, Detail: d, Duration: s.Duration, Metrics: s.Metrics})
	}
	return out
}

// Status, Fix and Finding are the shared finding shape (internal/finding),
// doctor's too, so doctor shows probe results with its own findings:
// ID is probe.cuda, probe.opencl or probe.opencl.llama, Message the key in
// data/messages.json, FailureID the knowledge base's ID of what failed.
type (
	Status  = finding.Status
	Fix     = finding.Fix
	Finding = finding.Finding
)

const (
	OK      = finding.OK
	Warn    = finding.Warn
	Error   = finding.Error
	Skipped = finding.Skipped
)

func newFinding(id, key string, st Status, failureID string, facts map[string]string, details []string) Finding {
	m := render(key, facts)
	f := Finding{ID: id, Message: key, Status: st, FailureID: failureID, Summary: m.Summary, Details: details, Facts: facts}
	if m.Fix != "" {
		f.Fix = &Fix{Text: m.Fix, Commands: m.Commands}
	}
	return f
}

// Findings turns stage results into findings: one for the CUDA probe, one
// for OpenCL enumeration, and per OpenCL device one for the kernel and one
// for llama.cpp's acceptance.
func Findings(stages []StageResult) []Finding {
	var out []Finding
	var cuda []StageResult
	for _, s := range stages {
		if s.Kind == "cuda" {
			cuda = append(cuda, s)
		}
	}
	if len(cuda) > 0 {
		out = append(out, cudaFinding(cuda))
	}
	out = append(out, openCLFindings(stages)...)
	return out
}

func stageLines(ss []StageResult) []string {
	var d []string
	for _, s := range ss {
		mark := "✓"
		switch {
		case s.Skipped:
			mark = "-"
		case !s.OK:
			mark = "✗"
		}
		line := fmt.Sprintf("%s %s", mark, s.Stage)
		if s.Detail != "" {
			line += ": " + s.Detail
		}
		if s.Duration > 0 {
			line += fmt.Sprintf(" (%s)", s.Duration.Round(10*time.Millisecond))
		}
		d = append(d, line)
		if s.Excerpt != "" {
			d = append(d, "    "+s.Excerpt)
		}
	}
	return d
}

func cudaFinding(ss []StageResult) Finding {
	facts := map[string]string{}
	for _, s := range ss {
		for k, v := range s.Facts {
			facts[k] = v
		}
	}
	details := stageLines(ss)
	if len(ss) == 1 && ss[0].Skipped {
		key := facts["skip"]
		if key == "" {
			key = "skipped-no-nvcc"
		}
		return newFinding("probe.cuda", "probe.cuda/"+key, Skipped, "", facts, nil)
	}
	var failed *StageResult
	for i := range ss {
		if !ss[i].OK && !ss[i].Skipped {
			failed = &ss[i]
			break
		}
	}
	if failed != nil {
		for k, v := range failed.Facts { // the failing device's facts win
			facts[k] = v
		}
	}
	switch {
	case failed == nil:
		return newFinding("probe.cuda", "probe.cuda/ok", OK, "", facts, details)
	case failed.TimedOut:
		facts["stage"] = failed.Stage
		return newFinding("probe.cuda", "probe.cuda/timeout", Error, "", facts, details)
	case failed.Stage == StageLoad && failed.FailureID == "cuda-no-device":
		// Compile and link passed: the toolchain is proven, only a device is missing.
		return newFinding("probe.cuda", "probe.cuda/compiled-no-device", Warn, failed.FailureID, facts, details)
	case failed.Stage == StageVerify:
		return newFinding("probe.cuda", "probe.cuda/verify-failed", Error, "", facts, details)
	case failed.FailureID != "":
		if _, ok := loadTables().messages["probe.cuda/"+failed.FailureID]; ok {
			return newFinding("probe.cuda", "probe.cuda/"+failed.FailureID, Error, failed.FailureID, facts, details)
		}
		if e, ok := failures.Default().Entry(failed.FailureID); ok {
			// A failure the knowledge base knows but the probe has no text for.
			facts["stage"], facts["kb_title"] = failed.Stage, e.Title
			f := newFinding("probe.cuda", "probe.cuda/known", Error, failed.FailureID, facts, details)
			f.Fix = &Fix{Text: e.Fix, Commands: e.Commands}
			return f
		}
		fallthrough
	default:
		facts["stage"] = failed.Stage
		if failed.Output != "" {
			details = append(details, failed.Output)
		}
		return newFinding("probe.cuda", "probe.cuda/failed", Error, failed.FailureID, facts, details)
	}
}

func openCLFindings(stages []StageResult) []Finding {
	var out []Finding
	byDevice := map[string][]StageResult{}
	var devices []string
	for _, s := range stages {
		if s.Kind != "opencl" {
			continue
		}
		switch {
		case s.Stage == StageEnumerate:
			if s.OK {
				continue
			}
			facts := map[string]string{"detail": s.Detail}
			for k, v := range s.Facts {
				facts[k] = v
			}
			key := "probe.opencl/failed"
			switch {
			case s.TimedOut:
				key = "probe.opencl/timeout"
			case facts["loader"] == "missing":
				key = "probe.opencl/no-icd-loader"
			case s.FailureID == "opencl-no-platform":
				key = "probe.opencl/opencl-no-platform"
			}
			out = append(out, newFinding("probe.opencl", key, Error, s.FailureID, facts, compact([]string{s.Detail, s.Output})))
		case s.Stage == StageAccept:
			if s.OK {
				out = append(out, newFinding("probe.opencl.llama", "probe.opencl/llama-accepts", OK, "", s.Facts, []string{s.Detail}))
			} else {
				out = append(out, newFinding("probe.opencl.llama", "probe.opencl/opencl-unsupported-gpu", Warn, s.FailureID, s.Facts, nil))
			}
		default:
			if _, seen := byDevice[s.Device]; !seen {
				devices = append(devices, s.Device)
			}
			byDevice[s.Device] = append(byDevice[s.Device], s)
		}
	}
	for _, dev := range devices {
		ss := byDevice[dev]
		facts := ss[0].Facts
		key, st := "probe.opencl/ok", OK
		for _, s := range ss {
			if !s.OK && !s.Skipped {
				key, st = "probe.opencl/"+s.Stage+"-failed", Error
				break
			}
		}
		details := stageLines(ss)
		for _, s := range ss {
			if s.Output != "" {
				details = append(details, "build log:", s.Output)
			}
		}
		out = append(out, newFinding("probe.opencl", key, st, "", facts, details))
	}
	return out
}

func compact(ss []string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
