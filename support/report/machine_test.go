package report_test

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/support/report"
)

// TestThisMachine gathers the real machine running the test and writes a
// redacted zip with its real environment: the self-check must pass and the
// real host name must not be in the bundle.
func TestThisMachine(t *testing.T) {
	f := cmdutil.New()
	// The test binary is not llamactl: running it as the NVML child probe
	// would run this test again.
	f.Executable = func() (string, error) { return "", errors.New("no child probe in tests") }
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := probe.Gather(ctx, probe.System(f.Env()))
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	env["HF_TOKEN"] = "hf_ThisMachineTestTokenAbCdEfGhIjKl"
	p := filepath.Join(t.TempDir(), "machine.zip")
	res, err := report.Write(report.Options{Path: p, Zip: true, Redact: true, Snapshot: s, Env: env, Llamactl: buildinfo.Get(),
		Doctor: map[string]any{"schema": 1, "checks": []any{}}})
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		body, _ := io.ReadAll(rc)
		rc.Close()
		if strings.Contains(string(body), env["HF_TOKEN"]) {
			t.Errorf("%s holds the planted token", zf.Name)
		}
		if u := env["USER"]; len(u) > 2 && u != "root" && strings.Contains(string(body), "/home/"+u) {
			t.Errorf("%s holds the home folder of %s", zf.Name, u)
		}
	}
	if os.Getenv("LLAMACTL_KEEP_REPORT") != "" {
		b, _ := os.ReadFile(p)
		os.WriteFile(os.Getenv("LLAMACTL_KEEP_REPORT"), b, 0o644)
	}
	if len(res.Files) < 2 || !res.Redacted {
		t.Errorf("%+v", res)
	}
}
