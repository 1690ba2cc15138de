package explaincmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// Through the real root command: registration, global --json, exit codes.
func TestThroughRoot(t *testing.T) {
	f, out, errOut := cmdutil.NewTest(nil, nil)
	code := cli.Execute(f, []string{"explain", "--json", "../../testdata/logs/here-nvcc118-sm100.log"})
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var doc struct {
		Schema   int `json:"schema"`
		Findings []struct {
			ID    string `json:"id"`
			Lines []int  `json:"lines"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != 1 || len(doc.Findings) != 1 || doc.Findings[0].ID != "nvcc-arch-too-new" || doc.Findings[0].Lines[0] != 6 {
		t.Errorf("%+v", doc)
	}

	f, out, _ = cmdutil.NewTest(nil, nil)
	if code := cli.Execute(f, []string{"explain", "../../testdata/logs/ok-here-cuda-build-with-warning.log"}); code != cmdutil.ExitOK {
		t.Errorf("negative log exit %d: %s", code, out)
	}
	f, _, errOut = cmdutil.NewTest(nil, nil)
	if code := cli.Execute(f, []string{"explain", "/nonexistent.log"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "| llamactl explain") {
		t.Errorf("missing file exit %d, no next command: %q", code, errOut)
	}

	// An empty log says "0 lines", a one-line log "1 line" (not "1 lines").
	dir := t.TempDir()
	for name, want := range map[string]string{"": "empty.log, 0 lines)", "x\n": "empty.log, 1 line)"} {
		path := filepath.Join(dir, "empty.log")
		if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		f, out, _ = cmdutil.NewTest(nil, nil)
		if code := cli.Execute(f, []string{"explain", path}); code != cmdutil.ExitOK || !strings.Contains(out.String(), want) {
			t.Errorf("exit %d, want %q in %q", code, want, out)
		}
	}
}
