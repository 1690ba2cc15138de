package doctorcmd_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
)

var updateHumanBytes = flag.Bool("update-human-bytes", false, "rewrite testdata/finding/doctor-human.sha256.json")

// timings are the only words of the English report that change run to run.
var timings = regexp.MustCompile(`\d+(\.\d+)? ?(ns|µs|ms|s)\b`)

// The English report (plain and --verbose) of every recorded snapshot is
// byte for byte what it was before doctor's findings went through the one
// printer (ui.Printer.Finding): the golden file holds each output's sha256,
// taken from the code before the change (timings masked).
func TestHumanReportBytesUnchanged(t *testing.T) {
	golden := filepath.Join("..", "..", "testdata", "finding", "doctor-human.sha256.json")
	files, err := filepath.Glob(snaps + "*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshots: %v", err)
	}
	got := map[string]string{}
	for _, f := range files {
		for _, verbose := range []bool{false, true} {
			args := []string{"doctor", "--replay", snaps + filepath.Base(f)} // the same path text on every OS
			name := filepath.Base(f)
			if verbose {
				args = append(args, "--verbose")
				name += " --verbose"
			}
			_, out, _ := execute(t, args...)
			sum := sha256.Sum256([]byte(timings.ReplaceAllString(out, "T")))
			got[name] = hex.EncodeToString(sum[:])
		}
	}
	if *updateHumanBytes {
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
	for _, n := range names {
		if w, ok := want[n]; ok && w != got[n] {
			t.Errorf("doctor's English report changed: %s", n)
		}
	}
	if len(want) < len(got)/2 {
		t.Errorf("golden file covers %d of %d reports", len(want), len(got))
	}
}
