package ui

import "testing"

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"Llama 3":                   "Llama 3",
		"evil\x1b[2J\x1b]0;pwn\x07": `evil\x1b[2J\x1b]0;pwn\x07`,
		"a\rb\u009bc":               `a\x0db\u009bc`,
		"bad\xffutf8":               `bad\xffutf8`,
		"line\nnext\ttab":           "line\nnext\ttab",
		"日本語":                       "日本語",
	} {
		if got := Safe(in, false); got != want {
			t.Errorf("Safe(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Safe("a\nb", true); got != `a\x0ab` {
		t.Errorf("one line: %q", got)
	}
}
