package kernels

import (
	"github.com/llamactl/llamactl/doctor"
)

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
