package failures_test

import (
	"testing"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/patches"
)

// Every patch a failure links to exists, and names that failure among the
// symptoms it fixes.
func TestPatchLinks(t *testing.T) {
	reg := patches.Default()
	linked := 0
	for _, e := range failures.Default().Entries() {
		if e.Patch == "" {
			continue
		}
		linked++
		p, ok := reg.Get(e.Patch)
		if !ok {
			t.Errorf("%s links to patch %q, which does not exist", e.ID, e.Patch)
			continue
		}
		found := false
		for _, s := range p.When.Symptoms {
			found = found || s == e.ID
		}
		if !found {
			t.Errorf("%s links to patch %s, whose symptoms %v do not include it", e.ID, e.Patch, p.When.Symptoms)
		}
	}
	// and every patch symptom is a known failure
	for _, id := range reg.IDs() {
		p, _ := reg.Get(id)
		for _, s := range p.When.Symptoms {
			if _, ok := failures.Default().Entry(s); !ok {
				t.Errorf("patch %s names unknown failure %s", id, s)
			}
		}
	}
	if linked < 6 {
		t.Errorf("only %d failures link a patch", linked)
	}
}
