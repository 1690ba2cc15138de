package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden compares got with the file golden byte for byte; update rewrites
// the file instead. how is the command that rewrites it (shown when the
// file is missing or differs), and a difference names its first line.
func Golden(t testing.TB, golden, got string, update bool, how string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, how)
	}
	if string(want) != got {
		t.Errorf("%s differs (if meant: %s):\n%s\n--- got\n%s", golden, how, FirstDiff(string(want), got), got)
	}
}

// FirstDiff names the first line where got differs from want ("" when
// they are equal).
func FirstDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	line := func(ls []string, i int) string {
		if i >= len(ls) {
			return "(the end)"
		}
		return fmt.Sprintf("%q", ls[i])
	}
	for i := range max(len(w), len(g)) {
		if a, b := line(w, i), line(g, i); a != b {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i+1, a, b)
		}
	}
	return "" // unreachable: Split keeps every byte but the separators
}
