package doctorcmd_test

import (
	"flag"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
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
	got := map[string][]byte{}
	for _, f := range files {
		for _, verbose := range []bool{false, true} {
			args := []string{"doctor", "--replay", snaps + filepath.Base(f)} // the same path text on every OS
			name := filepath.Base(f)
			if verbose {
				args = append(args, "--verbose")
				name += " --verbose"
			}
			_, out, _ := execute(t, args...)
			got[name] = []byte(timings.ReplaceAllString(out, "T"))
		}
	}
	testutil.HashGolden(t, golden, got, *updateHumanBytes, "go test ./doctor/doctorcmd -run TestHumanReportBytesUnchanged -update-human-bytes")
}
