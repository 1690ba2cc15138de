package testutil

import (
	"path/filepath"
	"strings"
	"testing"
)

// Golden passes on the same bytes only, names the first differing line,
// and writes the file under update.
func TestGolden(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g", "out.txt")
	r := &recorder{TB: t}
	Golden(r, p, "a\nb\n", false, "go test -update")
	// (recorder's Fatalf goes on, so the comparison with "" errs too)
	if len(r.errs) == 0 || !strings.Contains(r.errs[0], "go test -update writes it") {
		t.Fatalf("missing golden: %q", r.errs)
	}
	Golden(t, p, "a\nb\n", true, "")
	for _, c := range []struct {
		got  string
		errs int
		line string
	}{
		{"a\nb\n", 0, ""},
		{"a\nc\n", 1, "line 2:"},
		{"a\nb\nc\n", 1, "line 3:"},
		{"a\nb", 1, "line 3:\n want \"\"\n  got (the end)"},
		{"a\r\nb\r\n", 1, "line 1:"},
	} {
		r := &recorder{TB: t}
		Golden(r, p, c.got, false, "go test -update")
		if len(r.errs) != c.errs || c.errs > 0 && !strings.Contains(r.errs[0], c.line) {
			t.Errorf("%q: errors %q, want %d naming %q", c.got, r.errs, c.errs, c.line)
		}
	}
}
