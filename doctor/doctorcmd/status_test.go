package doctorcmd

import (
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/ui"
)

// mark converts by spelling; this keeps doctor's status words and the
// output layer's the same.
func TestStatusWordsMatchUI(t *testing.T) {
	for d, u := range map[doctor.Status]ui.Status{doctor.OK: ui.OK, doctor.Warn: ui.Warn, doctor.Error: ui.Err, doctor.Skipped: ui.Skip} {
		if mark(d) != u {
			t.Errorf("doctor %q renders as %q, want %q", d, mark(d), u)
		}
	}
}
