package build

import "github.com/llamactl/llamactl/failures"

// KBDiagnose names the causes in a build log with the shared failure
// knowledge base (the one `llamactl explain` uses).
func KBDiagnose(log string) []Diagnosis {
	var out []Diagnosis
	for _, f := range failures.Default().DiagnoseString(log).Findings {
		out = append(out, Diagnosis{ID: f.ID, Title: f.Title, Cause: f.Cause, Fix: f.Fix, Commands: f.Commands, Patch: f.Patch, Lines: f.Lines})
	}
	return out
}
