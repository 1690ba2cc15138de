package matrix

import "github.com/llamactl/llamactl/internal/finding"

// Shared is b in the shared finding shape (internal/finding), for the one
// printer: an error whose message ID is b.ID, summary b.Message and fix
// b.Fix; an unsupported last resort is kept as Facts["last_resort_fix"]
// for the printer to show after the fix, marked. The matrix's --json keeps
// Blocker itself.
func (b Blocker) Shared() finding.Finding {
	f := finding.Finding{ID: b.ID, Message: b.ID, Status: finding.Error, Summary: b.Message}
	if b.Fix != "" {
		f.Fix = &finding.Fix{Text: b.Fix}
	}
	if b.LastResortFix != "" {
		f.Facts = map[string]string{"last_resort_fix": b.LastResortFix}
	}
	return f
}
