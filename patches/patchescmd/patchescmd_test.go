package patchescmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(nil, nil)
	cmd := NewCmd(f)
	cmd.PersistentFlags().BoolVar(&f.IO.JSON, "json", false, "")
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

func TestListShowsEveryPatch(t *testing.T) {
	out, _, code := run(t, "list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, id := range []string{"cuda-stream-t", "cuda-libpath", "msvc-stl-cuda", "nvcc-host-gcc", "cuda-no-vmm", "build-info"} {
		if !strings.Contains(out, id) {
			t.Errorf("list lacks %s:\n%s", id, out)
		}
	}
}

func TestListJSON(t *testing.T) {
	out, _, code := run(t, "list", "--json")
	var doc ListDoc
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Schema != 1 || len(doc.Patches) != 6 {
		t.Fatalf("exit %d, doc %+v from %s", code, doc, out)
	}
}

func TestShow(t *testing.T) {
	out, _, code := run(t, "show", "msvc-stl-cuda")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"STL1002", "below 14.40", "--allow-unsupported-compiler", "-allow-unsupported-compiler", "host_config.h"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
}

func TestShowUnknown(t *testing.T) {
	_, _, code := run(t, "show", "no-such-patch")
	if code != cmdutil.ExitUsage {
		t.Fatalf("exit %d, want %d", code, cmdutil.ExitUsage)
	}
}

// list and show explain themselves, and every example in their help runs.
func TestHelpExamplesRun(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	for _, c := range NewCmd(f).Commands() {
		if strings.TrimSpace(c.Long) == "" || strings.TrimSpace(c.Example) == "" {
			t.Errorf("patches %s: no Long text or Example", c.Name())
		}
		n := 0
		for _, line := range strings.Split(c.Example, "\n") {
			line, _, _ = strings.Cut(line, "|") // the shell part after a pipe is not ours
			fields := strings.Fields(line)
			if len(fields) < 3 || fields[0] != "llamactl" || fields[1] != "patches" {
				t.Errorf("patches %s: example %q is not a llamactl patches command", c.Name(), line)
				continue
			}
			n++
			out, errOut, code := run(t, fields[2:]...)
			if code != 0 || out == "" {
				t.Errorf("example %q: exit %d, stderr %q", line, code, errOut)
			}
		}
		if n == 0 {
			t.Errorf("patches %s: no example", c.Name())
		}
	}
}
