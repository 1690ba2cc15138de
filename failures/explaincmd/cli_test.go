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

	// A one-line log says "1 line" (not "1 lines").
	dir := t.TempDir()
	path := filepath.Join(dir, "one.log")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, _ = cmdutil.NewTest(nil, nil)
	if code := cli.Execute(f, []string{"explain", path}); code != cmdutil.ExitOK || !strings.Contains(out.String(), "one.log, 1 line)") {
		t.Errorf("exit %d, want \"1 line\" in %q", code, out)
	}
}

// A binary file (this test binary: it holds the DLL names failures look
// for) and an empty log are refused with exit 2, a message from
// failures/data and nothing on stdout, with and without --json.
func TestBinaryAndEmptyInput(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.log")
	blank := filepath.Join(dir, "blank.log")
	utf16 := filepath.Join(dir, "ps.log")
	for p, b := range map[string]string{empty: "", blank: "\r\n\r\n", utf16: "\xff\xfee\x00r\x00r\x00o\x00r\x00\n\x00"} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		args []string
		in   string
		want string
	}{
		{[]string{exe}, "", "is not a text log"},
		{[]string{"-"}, "\x7fELF\x02\x01\x01\x00\x00\x00", "stdin is not a text log"},
		{[]string{empty}, "", "empty.log is empty: there is nothing to explain"},
		{[]string{blank}, "", "blank.log is empty"},
		{[]string{"-"}, "", "stdin is empty"},
	}
	for _, c := range cases {
		for _, js := range []bool{false, true} {
			args := append([]string{"explain"}, c.args...)
			if js {
				args = append(args, "--json")
			}
			f, out, errOut := cmdutil.NewTest(nil, nil)
			f.IO.In = strings.NewReader(c.in)
			code := cli.Execute(f, args)
			if code != cmdutil.ExitUsage || out.Len() != 0 || !strings.Contains(errOut.String(), c.want) || !strings.Contains(errOut.String(), "llamactl explain") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q and a next command", args, code, out, errOut, c.want)
			}
		}
	}
	// A UTF-16 log with its BOM is a log.
	f, _, errOut := cmdutil.NewTest(nil, nil)
	if code := cli.Execute(f, []string{"explain", utf16}); code != cmdutil.ExitOK {
		t.Errorf("UTF-16 log: exit %d %q", code, errOut)
	}
}
