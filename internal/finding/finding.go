// Package finding is the one shape of what llamactl found: a doctor check's
// result, a probe stage's verdict, a cause named in a failure log, a build's
// diagnosis or a run's note. Every producer speaks the same status
// vocabulary (Status), the same fix (text plus the exact commands) and the
// same fields (Finding); one printer (ui.Findings) renders them all.
//
// The package is a base package: it imports no other llamactl package, so
// every domain package (doctor, kernels, failures, build, matrix, runner)
// can use it. Translation stays with each domain: a Translator turns a
// finding into its language by its message ID and placeholder Args.
package finding

import "time"

// Status is a finding's outcome, worst last: Skipped, Info, OK, Warn, Error.
type Status string

const (
	OK      Status = "ok"
	Warn    Status = "warn"
	Error   Status = "error"
	Skipped Status = "skipped"
	// Info is a note that is neither good nor bad (a patch applied, a
	// runner-up plan); doctor never emits it.
	Info Status = "info"
)

// Rank orders statuses from best to worst for Worst: Skipped 0, Info 0,
// OK 1, Warn 2, Error 3.
func (s Status) Rank() int {
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

// Worst returns the worst status among findings (Skipped when empty).
func Worst(fs []Finding) Status {
	w := Skipped
	for _, f := range fs {
		if f.Status.Rank() > w.Rank() {
			w = f.Status
		}
	}
	return w
}

// Fix is what the user does about a finding: a sentence and the exact
// commands for the user's shell (PowerShell on Windows, bash elsewhere).
type Fix struct {
	Text     string   `json:"text"`
	Commands []string `json:"commands,omitempty"`
}

// Finding is one result. The JSON field order and names are the
// doctor/probe --json schema (docs/json.md); a domain whose --json differs
// (failures, build diagnoses) keeps its own type and converts to this one
// for printing (its Shared method).
type Finding struct {
	// ID is the stable ID of what produced it (a check, probe or failure ID);
	// several findings of one check share it.
	ID string `json:"id"`
	// Message is the stable ID of the text in its domain's catalog
	// ("<check id>/<key>"), so a translation can follow.
	Message string `json:"message"`
	Status  Status `json:"status"`
	// FailureID is the failure knowledge base's ID of what failed (probe
	// findings), empty otherwise.
	FailureID string   `json:"failure_id,omitempty"`
	Summary   string   `json:"summary"`
	Details   []string `json:"details,omitempty"`
	Fix       *Fix     `json:"fix,omitempty"`
	// SkippedBecause says why a Skipped finding did not run.
	SkippedBecause string `json:"skipped_because,omitempty"`
	// Source is the public page (NVIDIA docs, a llama.cpp file, PR or issue)
	// the knowledge behind the finding comes from.
	Source string `json:"source,omitempty"`
	// Facts are the raw values the finding looked at (shown by --verbose).
	Facts map[string]string `json:"facts,omitempty"`
	// Duration is how long the check ran.
	Duration time.Duration `json:"duration_ns,omitempty"`
	// Args are the placeholder name, value pairs the texts were filled with,
	// so the human output can fill a translation with the same values.
	// Never part of --json.
	Args []string `json:"-"`
}

// Translator turns a finding's texts (summary, details, fix) into one
// language by its message ID; English or an unknown ID returns f as is.
// Each domain's catalog implements it; the printer never imports one.
type Translator interface {
	Finding(f Finding) Finding
}

// TranslatorFunc adapts a function to a Translator.
type TranslatorFunc func(Finding) Finding

// Finding calls fn.
func (fn TranslatorFunc) Finding(f Finding) Finding { return fn(f) }

// With is f with the non-empty detail lines appended.
func (f Finding) With(details ...string) Finding {
	for _, d := range details {
		if d != "" {
			f.Details = append(f.Details, d)
		}
	}
	return f
}

// WithFact is f with the raw fact k=v recorded (for --verbose). f's Facts
// map is changed in place when it has one.
func (f Finding) WithFact(k, v string) Finding {
	if f.Facts == nil {
		f.Facts = map[string]string{}
	}
	f.Facts[k] = v
	return f
}
