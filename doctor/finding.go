// Package doctor turns a machine snapshot into findings (what is wrong and
// the exact commands that fix it) and a selection (which backend, CUDA
// toolkit, architectures and host compiler a build should use). Every check
// is a pure function of a snapshot, so a snapshot recorded on a customer's
// Windows machine gives the same findings when replayed on Linux.
package doctor

import "github.com/llamactl/llamactl/internal/finding"

// Status, Fix and Finding are the shared finding shape (internal/finding):
// a check may return several findings (one per GPU, per toolkit...); they
// share the check's ID. Message is the stable ID of the text in
// data/checks.json ("<check id>/<key>"), Args the values it was filled
// with (i18n.go fills a translation with them).
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

// Worst returns the worst status among findings (Skipped when empty).
func Worst(fs []Finding) Status { return finding.Worst(fs) }

// HasErrors says whether any finding is an error (doctor then exits 1).
func HasErrors(fs []Finding) bool { return Worst(fs) == Error }
