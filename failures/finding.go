package failures

import "github.com/llamactl/llamactl/internal/finding"

// Shared is f in the shared finding shape (internal/finding), for the one
// printer: ID, message ID and failure ID are the failure's ID, the status
// is error (warn for a warning-severity failure), the summary its title,
// the detail its cause, then its fix and commands and its public source.
// explain's --json keeps this package's own Finding (fix a string, facts a
// list): Shared is for rendering only.
func (f Finding) Shared() finding.Finding {
	st := finding.Error
	if f.Severity == SeverityWarning {
		st = finding.Warn
	}
	out := finding.Finding{ID: f.ID, Message: f.ID, Status: st, FailureID: f.ID, Summary: f.Title, Source: f.Source}
	if f.Cause != "" {
		out.Details = []string{f.Cause}
	}
	if f.Fix != "" || len(f.Commands) > 0 {
		out.Fix = &finding.Fix{Text: f.Fix, Commands: f.Commands}
	}
	return out
}
