package explaincmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/support/report"
)

// writeReport writes a real support bundle (through support/report) whose
// cache holds one failed build, and returns the report's path.
func writeReport(t *testing.T, zipped bool) string {
	t.Helper()
	home := t.TempDir()
	bd := filepath.Join(home, ".cache", "llamactl", "builds", "b1")
	os.MkdirAll(bd, 0o755)
	log, err := os.ReadFile(logs + "sample-win-cmake-test-nested-msvc.log")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bd, "llamactl-build.log"), log, 0o644)
	b, _ := os.ReadFile(logs + "snapshots/win-cuda122-msvc1940.json")
	var s machine.Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "bundle")
	if zipped {
		out += ".zip"
	}
	if _, err := report.Write(report.Options{Path: out, Redact: true, Snapshot: &s, Env: map[string]string{"HOME": home}}); err != nil {
		t.Fatal(err)
	}
	if !zipped {
		out = filepath.Join(out, "report.json")
	}
	return out
}

func TestExplainReport(t *testing.T) {
	for _, zipped := range []bool{false, true} {
		o, out := testOpts(t, writeReport(t, zipped))
		err := Run(context.Background(), o)
		if cmdutil.ExitCode(err) != cmdutil.ExitFindings {
			t.Fatalf("zip=%v: exit %v\n%s", zipped, err, out)
		}
		s := out.String()
		for _, want := range []string{"Build 1 of ", "✗ nvcc-unsupported-msvc", "Your nvcc is 12.2.140 and your MSVC is 19.40.33811", "Machine facts from the report's snapshot."} {
			if !strings.Contains(s, want) {
				t.Errorf("zip=%v: output lacks %q:\n%s", zipped, want, s)
			}
		}
	}
}

func TestExplainReportJSON(t *testing.T) {
	o, out := testOpts(t, writeReport(t, true))
	o.IO.JSON = true
	Run(context.Background(), o)
	var doc Doc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Builds) != 1 || doc.Builds[0].Findings[0].ID != "nvcc-unsupported-msvc" || doc.FactsFrom != "the report's snapshot" || len(doc.Findings) != 0 {
		t.Errorf("%+v", doc)
	}
}

// Other JSON files are logs like any other text.
func TestOtherJSONIsALog(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(p, []byte(`{"msg": "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected"}`+"\n"), 0o644)
	o, out := testOpts(t, p)
	Run(context.Background(), o)
	if !strings.Contains(out.String(), "cuda-no-device") {
		t.Errorf("%s", out)
	}
}

func TestBrokenZip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.zip")
	os.WriteFile(p, []byte("PK\x03\x04garbage"), 0o644)
	o, _ := testOpts(t, p)
	if err := Run(context.Background(), o); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("%v", err)
	}
}
