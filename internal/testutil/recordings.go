package testutil

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// RecordingExpect is what doctor must conclude from one recorded machine
// of testdata/doctor/recordings (testdata/doctor/recordings-expect.json).
type RecordingExpect struct {
	// Backend is doctor's --backend ("" for none).
	Backend string `json:"backend"`
	// Must lists the finding message IDs that must be present (never nil
	// for an asserted machine), MustNot those that must be absent.
	Must    []string `json:"must"`
	MustNot []string `json:"must_not"`
	// Selection fields (by their --json name) must have these values.
	Selection map[string]string `json:"selection"`
}

// RecordingExpects reads testdata/doctor/recordings-expect.json: the
// expectations by recording name. A field it does not know fails the test,
// so a misspelt "must_not" cannot pass silently.
func RecordingExpects(tb testing.TB) map[string]RecordingExpect {
	tb.Helper()
	p := filepath.Join(RepoRoot(tb), "testdata", "doctor", "recordings-expect.json")
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Description string                     `json:"description"`
		Scenarios   map[string]RecordingExpect `json:"scenarios"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		tb.Fatalf("%s: %v", p, err)
	}
	if len(doc.Scenarios) == 0 {
		tb.Fatalf("%s: no scenarios", p)
	}
	return doc.Scenarios
}

// Check reports what doctor concluded against e: messages are the
// findings' message IDs, selection the selection as --json writes it.
func (e RecordingExpect) Check(tb testing.TB, messages []string, selection any) {
	tb.Helper()
	for _, m := range e.Must {
		if !slices.Contains(messages, m) {
			tb.Errorf("missing %s; got %v", m, messages)
		}
	}
	for _, m := range e.MustNot {
		if slices.Contains(messages, m) {
			tb.Errorf("unexpected %s", m)
		}
	}
	sb, err := json.Marshal(selection)
	if err != nil {
		tb.Fatal(err)
	}
	var sm map[string]any
	_ = json.Unmarshal(sb, &sm)
	for k, v := range e.Selection {
		if g, _ := sm[k].(string); g != v {
			tb.Errorf("selection.%s = %q, want %q", k, g, v)
		}
	}
}
