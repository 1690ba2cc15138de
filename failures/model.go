package failures

import (
	"errors"
	"fmt"
	"strings"
)

// BasisModel: the user's own language model chose the ID from the
// catalog, reading the log's unmatched error lines (explain --model). Such
// a finding is always probable.
const BasisModel = "model"

// maxModelLine is how much of one log line the model is shown.
const maxModelLine = 300

// ModelQuestion is what a language model is asked when nothing in the
// knowledge base named a cause: the catalog's IDs and titles, the lines of
// the log that look like errors, and a grammar that holds its answer to one
// of those IDs or "none".
type ModelQuestion struct {
	Prompt  string
	Grammar string
	Lines   []LogLine
}

// ErrModelAnswer: the model answered something that is neither an ID of the
// catalog nor "none" (an engine that ignored the grammar).
var ErrModelAnswer = errors.New("the model's answer is not an ID of the catalog")

// ModelQuestion builds the question for a diagnosis; false when there is
// nothing to ask: a finding was already made, or no line looks like an
// error.
func (kb *KB) ModelQuestion(d Diagnosis) (ModelQuestion, bool) {
	if len(d.Findings) > 0 || len(d.UnmatchedErrors) == 0 {
		return ModelQuestion{}, false
	}
	var b strings.Builder
	b.WriteString("You are a support engineer for llama.cpp and the programs built on it (CUDA, ROCm, Vulkan, OpenCL and CPU builds; CMake, MSVC, nvcc, pip; Windows, Linux, macOS).\n")
	b.WriteString("These are the causes of failure you may name, one per line as ID: what it means.\n")
	ids := make([]string, 0, len(kb.entries))
	for _, e := range kb.entries {
		fmt.Fprintf(&b, "%s: %s\n", e.ID, e.Title)
		ids = append(ids, `"`+e.ID+`"`)
	}
	b.WriteString("\nThese are the lines of a failed build or run log that look like errors (line number, text):\n")
	for _, l := range d.UnmatchedErrors {
		fmt.Fprintf(&b, "%d: %s\n", l.Line, cut(oneLine(l.Text), maxModelLine))
	}
	b.WriteString("\nIf these lines state or clearly show one of the causes above, answer with its ID. If they do not, or you are not sure, answer none.\nAnswer: ")
	return ModelQuestion{
		Prompt:  b.String(),
		Grammar: "root ::= \"none\" | " + strings.Join(ids, " | ") + "\n",
		Lines:   append([]LogLine(nil), d.UnmatchedErrors...),
	}, true
}

// ModelFinding turns the model's answer into a finding: none for "none",
// a probable finding of the ID with the lines it was shown as evidence, or
// ErrModelAnswer for anything else.
func (kb *KB) ModelFinding(q ModelQuestion, answer string) (Finding, bool, error) {
	a := strings.TrimSpace(answer)
	if a == "none" {
		return Finding{}, false, nil
	}
	ei, ok := kb.byID[a]
	if !ok {
		return Finding{}, false, fmt.Errorf("%w: %.80q", ErrModelAnswer, a)
	}
	e := kb.entries[ei]
	h := &hit{entry: ei, sev: e.Severity, probable: true, basis: BasisModel}
	for _, l := range q.Lines {
		h.lines = append(h.lines, l.Line)
		h.evidence = append(h.evidence, l.Text)
	}
	if len(q.Lines) > 0 {
		h.first, h.excerpt = q.Lines[0].Line, strings.Join(h.evidence, "\n")
	}
	return kb.finding(e, h), true, nil
}

// oneLine keeps a line on one line of the prompt.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
