package explaincmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/failures/explaincmd"
	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// The flags: --engine only with --model, and --model must be a file.
func TestModelFlags(t *testing.T) {
	f, _, errOut := cmdutil.NewTest(nil, nil)
	if code := cli.Execute(f, []string{"explain", "--engine", "/x/llama-server", "../../testdata/logs/here-nvcc118-sm100.log"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "give --model FILE.gguf too") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	f, _, errOut = cmdutil.NewTest(nil, nil)
	missing := filepath.Join(t.TempDir(), "nope.gguf")
	if code := cli.Execute(f, []string{"explain", "--model", missing, "../../testdata/logs/here-nvcc118-sm100.log"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "--model "+missing+": ") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	dir := t.TempDir()
	f, _, errOut = cmdutil.NewTest(nil, nil)
	if code := cli.Execute(f, []string{"explain", "--model", dir, "../../testdata/logs/here-nvcc118-sm100.log"}); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), "is a folder") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	// a model file and an engine that is not there: the engine error, after the diagnosis
	m := filepath.Join(dir, "m.gguf")
	if err := os.WriteFile(m, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := cmdutil.NewTest(nil, nil)
	f.IO.In = strings.NewReader(explaincmd.UnknownLog)
	if code := cli.Execute(f, []string{"explain", "--model", m, "--engine", filepath.Join(dir, "no-such-dir"), "-"}); code != cmdutil.ExitEngine || !strings.Contains(errOut.String(), "no llama.cpp engine found") {
		t.Errorf("exit %d: %s / %s", code, out, errOut)
	}
}
