// Package doctor turns a machine snapshot into findings (what is wrong and
// the exact commands that fix it) and a selection (which backend, CUDA
// toolkit, architectures and host compiler a build should use). Every check
// is a pure function of a snapshot, so a snapshot recorded on a customer's
// Windows machine gives the same findings when replayed on Linux.
package doctor

import "time"

// Status is a finding's outcome.
type Status string

const (
	OK      Status = "ok"
	Warn    Status = "warn"
	Error   Status = "error"
	Skipped Status = "skipped"
)

// rank orders statuses from best to worst (for the worst-of summary).
func (s Status) rank() int {
	switch s {
	case Error:
		return 3
	case Warn:
		return 2
	case OK:
		return 1
	}
	return 0
}

// Fix is what the user does about a finding: a sentence and the exact
// commands for the user's shell (PowerShell on Windows, bash elsewhere).
type Fix struct {
	Text     string   `json:"text"`
	Commands []string `json:"commands,omitempty"`
}

// Finding is one result of one check. A check may return several findings
// (one per GPU, per toolkit...); they share the check's ID.
type Finding struct {
	ID string `json:"id"`
	// Message is the stable ID of the text in data/checks.json
	// ("<check id>/<key>"), so translations can follow.
	Message        string   `json:"message"`
	Status         Status   `json:"status"`
	Summary        string   `json:"summary"`
	Details        []string `json:"details,omitempty"`
	Fix            *Fix     `json:"fix,omitempty"`
	SkippedBecause string   `json:"skipped_because,omitempty"`
	// Facts are the raw values the check looked at (shown by --verbose).
	Facts map[string]string `json:"facts,omitempty"`
	// Duration is how long the check ran (set by Run).
	Duration time.Duration `json:"duration_ns,omitempty"`
	// args are the placeholder values the texts were filled with, so the
	// human output can fill a translation with the same values (i18n.go).
	args vars
}

// Worst returns the worst status among findings (Skipped when empty).
func Worst(fs []Finding) Status {
	w := Skipped
	for _, f := range fs {
		if f.Status.rank() > w.rank() {
			w = f.Status
		}
	}
	return w
}

// HasErrors says whether any finding is an error (doctor then exits 1).
func HasErrors(fs []Finding) bool { return Worst(fs) == Error }
