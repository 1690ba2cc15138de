package explaincmd

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/machine"
)

// A report zip whose report.json is larger than llamactl reads (64 MiB) is
// refused with that reason, by explain and by doctor --replay, instead of
// being cut off and then explained as a plain log or called invalid JSON.
func TestOversizedReportZipIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "llamactl-report.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("report.json")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`{"schema": 1, "kind": "llamactl-report", "builds": [], "pad": "`))
	chunk := []byte(strings.Repeat(" ", 1<<20))
	for i := 0; i < 65; i++ {
		w.Write(chunk)
	}
	w.Write([]byte(`"}`))
	zw.Close()
	f.Close()

	o, _ := testOpts(t, p)
	err = Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("explain: %v; want a usage error saying it is larger than 64 MiB", err)
	}
	_, err = machine.Load(p)
	var le *machine.LoadError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("doctor --replay: %v; want a usage error saying it is larger than 64 MiB", err)
	}
}
