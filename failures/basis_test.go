package failures

import (
	"os"
	"testing"
)

// Each finding says what named it: its entry's own signature, weak signals
// taken together, or the concepts fallback.
func TestFindingBasis(t *testing.T) {
	cf, err := parseConcepts(mustReadConcept(t, "data/concepts/build.json"))
	if err != nil {
		t.Fatal(err)
	}
	combo, err := os.ReadFile("../testdata/logs/ref-msvc-env-missing-ninja-llamacpppython-54.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ log, id, basis, confidence string }{
		{"nvcc fatal   : Cannot find compiler 'cl.exe' in PATH", "msvc-env-missing", BasisSignature, ConfidenceCertain},
		{string(combo), "msvc-env-missing", BasisCombination, ConfidenceProbable},
		{cf.Concepts[0].Examples[0], cf.Concepts[0].ID, BasisConcept, ConfidenceProbable},
	} {
		d := Default().DiagnoseString(c.log + "\n")
		if len(d.Findings) == 0 || d.Findings[0].ID != c.id || d.Findings[0].Basis != c.basis || d.Findings[0].Confidence != c.confidence {
			t.Errorf("%.60q: got %+v, want %s by %s (%s)", c.log, brief(d.Findings), c.id, c.basis, c.confidence)
		}
	}
}

func mustReadConcept(t *testing.T, name string) []byte {
	t.Helper()
	b, err := conceptFS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
