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

// kbEntry returns the knowledge base's text for a failure llamactl detected
// itself (not by matching the log), with what it saw as the first line.
func kbEntry(id, seen string) Diagnosis {
	e, ok := failures.Default().Entry(id)
	if !ok {
		return Diagnosis{ID: id, Title: id, Cause: seen}
	}
	return Diagnosis{ID: e.ID, Title: e.Title, Cause: seen + ": " + e.Cause, Fix: e.Fix, Commands: e.Commands, Patch: e.Patch}
}
