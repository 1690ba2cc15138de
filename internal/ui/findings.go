package ui

import (
	"fmt"
	"sort"
	"time"

	"github.com/llamactl/llamactl/internal/finding"
)

// FindingOptions says how Finding lays a finding out. The zero value is
// doctor's layout without its verbose facts line: details under the
// summary, then "→ " and the fix, each command indented by four.
type FindingOptions struct {
	// Translator puts the finding in the output's language (by its message
	// ID) before it is printed; nil prints it as it is.
	Translator finding.Translator
	// Verbose shows details of OK findings, the source and the facts line.
	Verbose bool
	// OKDetails shows an OK finding's details without Verbose too (run's
	// reasons for its plan).
	OKDetails bool
	// Indent goes before every line under the summary ("  " in doctor).
	Indent string
	// Lead goes before every line the finding writes, its mark included
	// (the "  " of a dry-run plan's warnings under their heading).
	Lead string
	// FixLine words the fix text ("fix: {text}"); nil means "→ " and the text.
	FixLine func(text string) string
	// CommandPrefix goes before each command; "" means four spaces.
	CommandPrefix string
	// SourceLabel, when set, shows a verbose "<label>URL" line for a finding
	// with a Source.
	SourceLabel string
	// Facts adds a dim "[id, duration] key=value…" line when Verbose.
	Facts bool
	// After returns lines printed after the fix and its commands (explain's
	// patch and support links, build's --heal advice); nil for none.
	After func(finding.Finding) []string
}

// Finding writes one finding: its status mark and summary, then its details
// (for a finding that is not OK, or with Verbose), its fix and commands
// (for a finding that is not OK), the After lines, and with Verbose its
// source and facts.
func (p *Printer) Finding(f finding.Finding, o FindingOptions) {
	if o.Translator != nil {
		f = o.Translator.Finding(f)
	}
	var lines []string
	if f.Status != finding.OK || o.Verbose || o.OKDetails {
		lines = append(lines, f.Details...)
	}
	if f.Fix != nil && f.Status != finding.OK {
		cmd := o.CommandPrefix
		if cmd == "" {
			cmd = "    "
		}
		if f.Fix.Text != "" {
			if o.FixLine != nil {
				lines = append(lines, o.FixLine(f.Fix.Text))
			} else {
				lines = append(lines, "→ "+f.Fix.Text)
			}
		}
		for _, c := range f.Fix.Commands {
			lines = append(lines, cmd+c)
		}
	}
	if o.After != nil {
		lines = append(lines, o.After(f)...)
	}
	if o.Verbose && o.SourceLabel != "" && f.Source != "" {
		lines = append(lines, o.SourceLabel+f.Source)
	}
	if o.Verbose && o.Facts {
		line := fmt.Sprintf("[%s, %s]", f.ID, f.Duration.Round(time.Microsecond))
		keys := make([]string, 0, len(f.Facts))
		for k := range f.Facts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			line += fmt.Sprintf(" %s=%s", k, f.Facts[k])
		}
		lines = append(lines, p.Dim(line))
	}
	for i := range lines {
		lines[i] = o.Indent + lines[i]
	}
	p.line(o.Lead, f.Status, f.Summary, lines)
}

// Findings writes findings one after another (Finding), with a blank line
// between two when blank is set.
func (p *Printer) Findings(fs []finding.Finding, o FindingOptions, blank bool) {
	for i, f := range fs {
		if blank && i > 0 {
			p.Println()
		}
		p.Finding(f, o)
	}
}
