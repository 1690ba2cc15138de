package explaincmd_test

import (
	"encoding/json"
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
	if code := cli.Execute(f, []string{"explain", "/nonexistent.log"}); code != cmdutil.ExitUsage || errOut.String() == "" {
		t.Errorf("missing file exit %d: %q", code, errOut)
	}
}
