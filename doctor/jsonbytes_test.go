package doctor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/machine"
)

var updateJSONBytes = flag.Bool("update-json-bytes", false, "rewrite testdata/finding/doctor-findings.sha256.json")

// The findings of every recorded snapshot marshal to the same bytes as
// before doctor.Finding became the shared shape (internal/finding): the
// golden file holds the sha256 of each snapshot's findings as doctor --json
// prints them (durations zeroed), taken from the code before the change.
func TestFindingsJSONBytesUnchanged(t *testing.T) {
	golden := filepath.Join("..", "testdata", "finding", "doctor-findings.sha256.json")
	files, err := filepath.Glob(filepath.Join("..", "testdata", "doctor", "snapshots", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshots: %v", err)
	}
	got := map[string]string{}
	for _, f := range files {
		s, err := machine.Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fs := doctor.Run(context.Background(), s, doctor.Options{})
		for i := range fs {
			fs[i].Duration = 0
		}
		b, err := json.MarshalIndent(fs, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		got[filepath.Base(f)] = hex.EncodeToString(sum[:])
	}
	if *updateJSONBytes {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	var bad []string
	for _, n := range names {
		if w, ok := want[n]; ok && w != got[n] {
			bad = append(bad, n)
		}
	}
	if len(bad) > 0 {
		t.Errorf("doctor's findings JSON changed for %s", strings.Join(bad, ", "))
	}
	if len(want) < len(files)/2 {
		t.Errorf("golden file covers %d of %d snapshots", len(want), len(files))
	}
}
