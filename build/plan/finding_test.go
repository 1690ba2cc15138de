package plan

import (
	"fmt"
	"testing"

	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
)

// A note as a finding (Note.Shared) reads the same through the translator
// as the note itself, for every message in both languages; its Args name
// the placeholders; a note not made from a message keeps its text.
func TestNoteSharedTranslatesLikeNote(t *testing.T) {
	n := 0
	for id, m := range messageTable() {
		a := make([]any, len(m.Args))
		for i := range a {
			a[i] = fmt.Sprintf("v%d", i)
		}
		note := message(id, a...)
		f := note.Shared(finding.Warn)
		if f.ID != id || f.Message != id || f.Status != finding.Warn || f.Summary != note.Text || len(f.Args) != 2*len(m.Args) {
			t.Fatalf("%s: %+v", id, f)
		}
		for i, name := range m.Args {
			if f.Args[2*i] != name {
				t.Errorf("%s: arg %d named %q, want %q", id, i, f.Args[2*i], name)
			}
		}
		for _, l := range []string{lang.EN, lang.ZhCN} {
			tr := NewTranslator(l)
			if got, want := tr.Finding(f).Summary, tr.Note(note); got != want {
				t.Errorf("%s (%s): %q, want %q", id, l, got, want)
			}
		}
		n++
	}
	if n < 10 {
		t.Fatalf("%d messages", n)
	}
	plain := Note{ID: "x", Text: "CMake ignored GGML_FOO"}
	if got := NewTranslator(lang.ZhCN).Finding(plain.Shared(finding.Error)).Summary; got != NewTranslator(lang.ZhCN).Note(plain) {
		t.Errorf("plain note: %q", got)
	}
}
