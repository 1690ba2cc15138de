package failures

import "testing"

// invCase is a log and the one ID it must name, at the given confidence.
type invCase struct {
	log, id  string
	probable bool
}

// checkNamed: each log names exactly its ID at its confidence; a probable
// finding carries its evidence lines; every finding has a fix, commands and
// a source. The table tests of every invariant file share it.
func checkNamed(t *testing.T, cases []invCase) {
	t.Helper()
	for _, c := range cases {
		d := Default().DiagnoseString(c.log + "\n")
		if len(d.Findings) != 1 || d.Findings[0].ID != c.id || (d.Findings[0].Confidence == ConfidenceProbable) != c.probable {
			t.Errorf("%q: got %+v, want %s (probable %v)", c.log, brief(d.Findings), c.id, c.probable)
			continue
		}
		f := d.Findings[0]
		if c.probable && len(f.Evidence) == 0 {
			t.Errorf("%q: probable without evidence", c.log)
		}
		if len(f.Commands) == 0 || f.Fix == "" || f.Source == "" {
			t.Errorf("%q: finding without commands, fix or source: %+v", c.log, f)
		}
	}
}

// nearMiss is a log that must not name id (it may name another).
type nearMiss struct{ log, id string }

func checkNotNamed(t *testing.T, cases []nearMiss) {
	t.Helper()
	for _, c := range cases {
		d := Default().DiagnoseString(c.log + "\n")
		for _, f := range d.Findings {
			if f.ID == c.id {
				t.Errorf("%q: got %+v, want no %s", c.log, brief(d.Findings), c.id)
			}
		}
	}
}
