package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/testutil"
)

// The gather engineer's recorded machines (testdata/doctor/recordings),
// taken through the real Gather code, then through the checks: the whole
// pipeline from recorded command output to finding.
func TestRecordingsEndToEnd(t *testing.T) {
	scenarios := testutil.RecordingExpects(t)
	// Every recorded machine is asserted: a recording without expectations
	// runs through nothing and proves nothing.
	dirs, _ := filepath.Glob("../testdata/doctor/recordings/*/scenario.json")
	if len(dirs) == 0 {
		t.Fatal("no recordings under testdata/doctor/recordings")
	}
	for _, d := range dirs {
		if name := filepath.Base(filepath.Dir(d)); scenarios[name].Must == nil {
			t.Errorf("recording %s has no 'must' list in recordings-expect.json", name)
		}
	}
	for name, e := range scenarios {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("../testdata/doctor/recordings", name)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("recording %s is expected but missing: %v", name, err)
			}
			s, err := probe.GatherRecording(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Run(context.Background(), s, Options{Backend: e.Backend}) {
				got = append(got, f.Message)
			}
			e.Check(t, got, SelectFor(s, e.Backend))
		})
	}
}

// Project rule: a fake replays real recorded output, and a constructed
// fixture says so. Every snapshot scenario and recorded machine states its
// provenance at the start of its description, and a recording whose
// command outputs are inline (not a recorded fixture file) says they are
// written by hand.
func TestFixturesStateProvenance(t *testing.T) {
	files, _ := filepath.Glob("../testdata/doctor/snapshots/*.json")
	recs, _ := filepath.Glob("../testdata/doctor/recordings/*/scenario.json")
	if len(files) == 0 || len(recs) == 0 {
		t.Fatal("no fixtures found")
	}
	for _, f := range append(files, recs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Description string `json:"description"`
			Commands    map[string]struct {
				Stdout     string `json:"stdout"`
				Stderr     string `json:"stderr"`
				StdoutFile string `json:"stdout_file"`
			} `json:"commands"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		recorded := strings.HasPrefix(d.Description, "Recorded") || strings.Contains(d.Description, "recorded by TestRecordThisMachine")
		if !recorded && !strings.HasPrefix(d.Description, "Constructed") {
			t.Errorf("%s: the description must start with 'Constructed' or 'Recorded': %.80q", f, d.Description)
		}
		for cmd, c := range d.Commands {
			if !recorded && c.StdoutFile == "" && (c.Stdout != "" || c.Stderr != "") && !strings.Contains(d.Description, "`"+cmd+"`") {
				t.Errorf("%s: the inline output of %q is not named as written by hand", f, cmd)
			}
		}
	}
}
