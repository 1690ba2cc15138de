package ui

import (
	"bytes"
	"testing"

	"github.com/llamactl/llamactl/internal/finding"
)

func TestFindingLayout(t *testing.T) {
	f := finding.Finding{ID: "x.y", Status: finding.Error, Summary: "broken", Details: []string{"why\nmore"},
		Fix: &finding.Fix{Text: "do this", Commands: []string{"cmd a", "cmd b"}}, Source: "https://example.org/x", Facts: map[string]string{"b": "2", "a": "1"}}
	upper := finding.TranslatorFunc(func(f finding.Finding) finding.Finding { f.Summary = "BROKEN"; return f })
	for _, c := range []struct {
		name string
		o    FindingOptions
		f    finding.Finding
		want string
	}{
		{"default", FindingOptions{}, f, "✗ broken\n    why\n    more\n    → do this\n        cmd a\n        cmd b\n"},
		{"labels", FindingOptions{FixLine: func(s string) string { return "Fix: " + s }, CommandPrefix: "  $ ", Indent: "  ", Translator: upper,
			After: func(finding.Finding) []string { return []string{"after"} }},
			f, "✗ BROKEN\n      why\n    more\n      Fix: do this\n        $ cmd a\n        $ cmd b\n      after\n"},
		{"verbose", FindingOptions{Verbose: true, SourceLabel: "Source: ", Facts: true},
			finding.Finding{ID: "x.y", Status: finding.OK, Summary: "fine", Details: []string{"d"}, Fix: &finding.Fix{Text: "no"}, Source: "s", Facts: map[string]string{"b": "2", "a": "1"}},
			"✓ fine\n    d\n    Source: s\n    [x.y, 0s] a=1 b=2\n"},
		{"ok details", FindingOptions{OKDetails: true}, finding.Finding{Status: finding.OK, Summary: "fine", Details: []string{"d"}, Fix: &finding.Fix{Text: "no"}}, "✓ fine\n    d\n"},
		{"ok hides details and fix", FindingOptions{}, finding.Finding{Status: finding.OK, Summary: "fine", Details: []string{"d"}, Fix: &finding.Fix{Text: "no"}}, "✓ fine\n"},
		{"warn shows fix", FindingOptions{}, finding.Finding{Status: finding.Warn, Summary: "hm", Fix: &finding.Fix{Commands: []string{"c"}}}, "! hm\n        c\n"},
		{"lead", FindingOptions{Lead: "  ", Indent: "- "}, finding.Finding{Status: finding.Warn, Summary: "hm", Details: []string{"d\ne"}}, "  ! hm\n      - d\n      e\n"},
		{"skipped shows fix", FindingOptions{}, finding.Finding{Status: finding.Skipped, Summary: "not run", Fix: &finding.Fix{Text: "pass --x"}}, "- not run\n    → pass --x\n"},
	} {
		var b bytes.Buffer
		newPrinter(&b, false).Finding(c.f, c.o)
		if b.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	newPrinter(&b, false).Findings([]finding.Finding{{Status: finding.Info, Summary: "a"}, {Status: finding.Skipped, Summary: "b"}}, FindingOptions{}, true)
	if b.String() != "i a\n\n- b\n" {
		t.Errorf("Findings: %q", b.String())
	}
}
