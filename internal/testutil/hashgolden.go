package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"sort"
	"testing"
)

// HashGolden compares outputs (name -> bytes) with a golden file of their
// sha256s (update rewrites it). It fails on a changed output, on an output
// the golden file lacks and on a golden entry no output has, so a new case
// or a dropped one cannot pass unnoticed.
func HashGolden(t *testing.T, golden string, outputs map[string][]byte, update bool, how string) {
	t.Helper()
	got := map[string]string{}
	for n, b := range outputs {
		sum := sha256.Sum256(b)
		got[n] = hex.EncodeToString(sum[:])
	}
	if update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, how)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inWant:
			t.Errorf("%s: no golden hash (a new case? %s)", n, how)
		case !inGot:
			t.Errorf("%s: in %s but no longer produced", n, golden)
		case w != g:
			t.Errorf("%s: output changed (if meant: %s)", n, how)
		}
	}
}
