package testutil

import "testing"

// The recordings' expectations read strictly, and Check reports a missing
// finding, an unexpected one and a selection field that differs.
func TestRecordingExpects(t *testing.T) {
	exp := RecordingExpects(t)
	if e, ok := exp["linux-ci-debian-bookworm"]; !ok || len(e.Must) == 0 || e.Selection["backend"] != "cpu" {
		t.Fatalf("linux-ci-debian-bookworm: %+v", e)
	}
	e := RecordingExpect{Must: []string{"a/ok"}, MustNot: []string{"b/bad"}, Selection: map[string]string{"backend": "cuda"}}
	sel := struct {
		Backend string `json:"backend"`
	}{"cuda"}
	r := &recorder{TB: t}
	e.Check(r, []string{"a/ok", "c/other"}, sel)
	if len(r.errs) != 0 {
		t.Errorf("expected no errors: %q", r.errs)
	}
	sel.Backend = "cpu"
	e.Check(r, []string{"b/bad"}, sel)
	if len(r.errs) != 3 {
		t.Errorf("want missing, unexpected and selection errors: %q", r.errs)
	}
}
