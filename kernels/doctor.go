package kernels

import (
	"context"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/machine"
)

// FromSelection takes from doctor's selection exactly what build uses:
// toolkit, architectures, host compiler and MSVC environment.
func FromSelection(sel doctor.Selection) Choice {
	return Choice{
		Backend:           sel.Backend,
		Toolkit:           sel.Toolkit,
		CUDAArchitectures: sel.CUDAArchitectures,
		HostCompiler:      sel.HostCompiler,
		MSVCToolset:       sel.MSVCToolset,
		VCVarsAll:         sel.VCVarsAll,
	}
}

// Probe is what `doctor --probe` calls: every probe for the selection, as
// snapshot records (the CUDA run stage carries the bandwidth metrics).
func Probe(ctx context.Context, f *cmdutil.Factory, snap *machine.Snapshot, sel doctor.Selection) []machine.ProbeResult {
	res, _ := ProbeFindings(ctx, f, snap, sel)
	return res
}

// ProbeFindings is Probe plus the findings, in doctor's Finding type.
func ProbeFindings(ctx context.Context, f *cmdutil.Factory, snap *machine.Snapshot, sel doctor.Selection) ([]machine.ProbeResult, []doctor.Finding) {
	rep, err := Run(ctx, f, snap, FromSelection(sel), Options{})
	if err != nil {
		// Only a selection that names an unusable architecture gets here.
		st := []StageResult{{Kind: "cuda", Stage: StageCompile, Detail: err.Error()}}
		return ToSnapshot(st), DoctorFindings(Findings(st))
	}
	return ToSnapshot(rep.Stages), DoctorFindings(rep.Findings)
}

// DoctorFindings converts probe findings to doctor's type; the failure ID
// goes into Facts["failure_id"].
func DoctorFindings(fs []Finding) []doctor.Finding {
	out := make([]doctor.Finding, 0, len(fs))
	for _, f := range fs {
		d := doctor.Finding{ID: f.ID, Message: f.Message, Status: f.Status, Summary: f.Summary, Details: f.Details}
		if f.Fix != nil {
			fix := *f.Fix
			d.Fix = &fix
		}
		if len(f.Facts) > 0 || f.FailureID != "" {
			d.Facts = map[string]string{}
			for k, v := range f.Facts {
				d.Facts[k] = v
			}
			if f.FailureID != "" {
				d.Facts["failure_id"] = f.FailureID
			}
		}
		out = append(out, d)
	}
	return out
}
