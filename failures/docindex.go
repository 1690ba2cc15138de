package failures

//go:generate go test -run TestSupportDocIndex -update

import (
	"fmt"
	"strings"
)

// Markers around the generated failure index in docs/support.md.
const (
	IndexBegin = "<!-- BEGIN FAILURE INDEX: generated from failures/data/failures.json by `go test ./failures -run TestSupportDocIndex -update`; do not edit by hand -->"
	IndexEnd   = "<!-- END FAILURE INDEX -->"
)

// IndexMarkdown renders one section per failure ID, in ID order, for
// docs/support.md. The section heading is the ID, so docs/support.md#<id>
// links work.
func (kb *KB) IndexMarkdown() string {
	var b strings.Builder
	es := kb.Entries()
	b.WriteString("| ID | title | severity | stage | platforms |\n|---|---|---|---|---|\n")
	for _, e := range es {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", e.ID, e.ID, e.Title, e.Severity, e.Stage, strings.Join(e.Platforms, ", "))
	}
	for _, e := range es {
		fmt.Fprintf(&b, "\n### `%s`\n\n", e.ID)
		meta := []string{e.Severity, e.Stage, strings.Join(e.Platforms, ", ")}
		if e.Role == "wrapper" {
			meta = append(meta, "reported only when no nested cause is found")
		}
		fmt.Fprintf(&b, "**%s** · %s\n\n", e.Title, strings.Join(meta, " · "))
		fmt.Fprintf(&b, "**Cause.** %s\n\n", e.Cause)
		fmt.Fprintf(&b, "**Fix.** %s\n", e.Fix)
		if len(e.Commands) > 0 {
			b.WriteString("\n```\n" + strings.Join(e.Commands, "\n") + "\n```\n")
		}
		if e.Patch != "" {
			fmt.Fprintf(&b, "\nPatch: `llamactl patches show %s`\n", e.Patch)
		}
		if len(e.Signature) > 0 {
			b.WriteString("\nRecognised by (normalized log lines):\n\n")
			for _, s := range e.Signature {
				line := "- `" + strings.ReplaceAll(s.Re, "`", "'") + "`"
				if s.Then != "" {
					line += fmt.Sprintf(" followed within %d lines by `%s`", s.Within, strings.ReplaceAll(s.Then, "`", "'"))
				}
				if s.Unless != "" {
					line += fmt.Sprintf(" unless the line matches `%s`", s.Unless)
				}
				if s.Min != nil {
					line += fmt.Sprintf(" with architecture >= %d", *s.Min)
				}
				if s.Max != nil {
					line += fmt.Sprintf(" with architecture <= %d", *s.Max)
				}
				if s.Severity != "" && s.Severity != e.Severity {
					line += " (" + s.Severity + ")"
				}
				b.WriteString(line + "\n")
			}
		}
		for _, d := range e.Derive {
			fmt.Fprintf(&b, "\nDerived from `%s` when the machine's snapshot shows `%s`.\n", d.From, d.When)
		}
		if len(e.SymptomOf) > 0 {
			fmt.Fprintf(&b, "\nNot reported when its cause is found too: `%s`.\n", strings.Join(e.SymptomOf, "`, `"))
		}
		fmt.Fprintf(&b, "\nSource: %s\n", e.Source)
	}
	return b.String()
}
