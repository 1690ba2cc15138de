package build

import (
	"encoding/json"

	"github.com/llamactl/llamactl/failures"
)

// Diagnosis is one cause the knowledge base found in a failed build's log:
// the knowledge base's own finding (failures.Finding; Shared gives the
// shared shape for printing) and what --heal does about it. Its --json is
// build's (docs/build.md): id, title, cause, fix, commands, patch, lines,
// advice; the finding's other fields (severity, excerpt, source...) are not
// part of it.
type Diagnosis struct {
	failures.Finding
	// Advice says what --heal does about it: without --heal the change it
	// would make (and the user's option it overrides), with --heal why it
	// could not help.
	Advice []string
}

// diagnosisJSON is build's --json of a diagnosis.
type diagnosisJSON struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Cause    string   `json:"cause"`
	Fix      string   `json:"fix"`
	Commands []string `json:"commands,omitempty"`
	Patch    string   `json:"patch,omitempty"`
	Lines    []int    `json:"lines,omitempty"`
	Advice   []string `json:"advice,omitempty"`
}

// MarshalJSON writes build's schema of a diagnosis.
func (d Diagnosis) MarshalJSON() ([]byte, error) {
	return json.Marshal(diagnosisJSON{ID: d.ID, Title: d.Title, Cause: d.Cause, Fix: d.Fix, Commands: d.Commands, Patch: d.Patch, Lines: d.Lines, Advice: d.Advice})
}

// UnmarshalJSON reads build's schema of a diagnosis.
func (d *Diagnosis) UnmarshalJSON(b []byte) error {
	var j diagnosisJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = Diagnosis{Finding: failures.Finding{ID: j.ID, Title: j.Title, Cause: j.Cause, Fix: j.Fix, Commands: j.Commands, Patch: j.Patch, Lines: j.Lines}, Advice: j.Advice}
	return nil
}

// KBDiagnose names the causes in a build log with the shared failure
// knowledge base (the one `llamactl explain` uses).
func KBDiagnose(log string) []Diagnosis {
	var out []Diagnosis
	for _, f := range failures.Default().DiagnoseString(log).Findings {
		out = append(out, Diagnosis{Finding: f})
	}
	return out
}

// kbEntry returns the knowledge base's text for a failure llamactl detected
// itself (not by matching the log), with what it saw as the first line.
func kbEntry(id, seen string) Diagnosis {
	e, ok := failures.Default().Entry(id)
	if !ok {
		return Diagnosis{Finding: failures.Finding{ID: id, Title: id, Cause: seen}}
	}
	return Diagnosis{Finding: failures.Finding{ID: e.ID, Title: e.Title, Severity: e.Severity, Cause: seen + ": " + e.Cause, Fix: e.Fix, Commands: e.Commands, Patch: e.Patch, Source: e.Source}}
}
