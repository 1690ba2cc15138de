package doctor_test

import (
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/testutil"
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
	got := map[string][]byte{}
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
		got[filepath.Base(f)] = b
	}
	testutil.HashGolden(t, golden, got, *updateJSONBytes, "go test ./doctor -run TestFindingsJSONBytesUnchanged -update-json-bytes")
}
