package childcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

func TestNVMLPrintsReport(t *testing.T) {
	f, out, _ := cmdutil.NewTest(nil, nil)
	cmd := NewCmd(f)
	cmd.SetArgs([]string{"nvml"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var r nvmlnative.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil || r.Schema != 1 || r.Status == "" {
		t.Errorf("output %q: %v %+v", out.String(), err, r)
	}
}

func TestRecordWritesScenario(t *testing.T) {
	f, _, _ := cmdutil.NewTest(map[string]string{"PATH": "/nonexistent"}, nil)
	dir := filepath.Join(t.TempDir(), "rec")
	cmd := NewCmd(f)
	cmd.SetArgs([]string{"record", dir, "--description", "test"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "scenario.json")); err != nil {
		t.Error(err)
	}
}

func TestUnknownProbeIsUsageError(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	cmd := NewCmd(f)
	cmd.SetArgs([]string{"gpu"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("err = %v", err)
	}
}
