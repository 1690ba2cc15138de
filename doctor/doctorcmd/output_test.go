package doctorcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

// --report with --json says where the bundle went (absolute path and the
// files in it); so does --snapshot; the human output names the path too.
func TestReportPathInJSONAndHuman(t *testing.T) {
	dir := t.TempDir()
	zp := filepath.Join(dir, "bundle.zip")
	sp := filepath.Join(dir, "machine.json")
	code, out, errOut := execute(t, "doctor", "--replay", snaps+"win-dll-conda-cudart-stray-ggml.json", "--report", zp, "--zip", "--snapshot", sp, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d := decode(t, out)
	if d.Report == nil || d.Report.Path != zp || !d.Report.Redacted {
		t.Fatalf("report field %+v, want path %s", d.Report, zp)
	}
	if len(d.Report.Files) < 2 || d.Report.Files[0] != "report.json" || d.Report.Files[1] != "report.md" {
		t.Errorf("report files %v", d.Report.Files)
	}
	if _, err := os.Stat(d.Report.Path); err != nil {
		t.Errorf("the path in the document was not written: %v", err)
	}
	if d.SnapshotFile != sp {
		t.Errorf("snapshot_file %q, want %q", d.SnapshotFile, sp)
	}

	// A relative folder comes back absolute, in JSON and in the human text.
	t.Chdir(dir)
	code, out, _ = execute(t, "doctor", "--replay", filepath.Join(wd(t), snaps, "win-dll-conda-cudart-stray-ggml.json"), "--report", "rel", "--json")
	if d := decode(t, out); code != 0 || d.Report == nil || d.Report.Path != filepath.Join(dir, "rel") {
		t.Errorf("relative report: exit %d, %+v", code, d.Report)
	}
	_, human, _ := execute(t, "doctor", "--replay", filepath.Join(wd(t), snaps, "win-dll-conda-cudart-stray-ggml.json"), "--report", "rel2")
	if !strings.Contains(human, "Support report written to "+filepath.Join(dir, "rel2")) {
		t.Errorf("human output does not name the absolute path:\n%s", human)
	}
	// Without --report the field is absent.
	_, out, _ = execute(t, "doctor", "--replay", filepath.Join(wd(t), snaps, "win-dll-conda-cudart-stray-ggml.json"), "--json")
	if strings.Contains(out, `"report":`) || strings.Contains(out, `"snapshot_file":`) {
		t.Error("report/snapshot_file present without --report/--snapshot")
	}
}

var startDir, _ = os.Getwd()

// wd is the package folder (tests may chdir away from it).
func wd(t *testing.T) string { return startDir }

// An output path that cannot be written is the user's input: exit 2, the
// cause, and a next command; nothing on stdout even with --json.
func TestUnwritableOutputIsUsageError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := snaps + "linux-opencl-no-icd.json"
	cases := map[string][]string{
		"proc folder":      {"--report", "/proc/nope"},
		"proc zip json":    {"--report", "/proc/nope.zip", "--zip", "--json"},
		"under a file":     {"--report", filepath.Join(file, "bundle")},
		"snapshot in proc": {"--snapshot", "/proc/nope/machine.json", "--json"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := execute(t, append([]string{"doctor", "--replay", snap}, args...)...)
			if code != cmdutil.ExitUsage {
				t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			for _, want := range []string{"could not write", "Choose a folder you can write to", "llamactl doctor --"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q: %q", want, errOut)
				}
			}
		})
	}
}

// An empty or blank --check is a usage error, not "run everything".
func TestEmptyCheckIsUsageError(t *testing.T) {
	snap := snaps + "linux-opencl-no-icd.json"
	for _, arg := range [][]string{{"--check", ""}, {"--check="}, {"--check", "path.tools,,wsl.detect"}, {"--check", " "}, {"--check", "nope"}} {
		code, out, errOut := execute(t, append([]string{"doctor", "--replay", snap, "--json"}, arg...)...)
		if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "llamactl doctor --list-checks") {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want 2 and --list-checks", arg, code, len(out), errOut)
		}
	}
	// A padded valid ID still works.
	if code, out, _ := execute(t, "doctor", "--replay", snap, "--check", " wsl.detect", "--json"); code != 0 || len(decode(t, out).Checks) != 1 {
		t.Errorf("padded ID: exit %d", code)
	}
}
