package doctorcmd_test

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

const snaps = "../../testdata/doctor/snapshots/"

func execute(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(nil, nil)
	code := cli.Execute(f, args)
	return code, out.String(), errOut.String()
}

func decode(t *testing.T, s string) doctorcmd.Doc {
	t.Helper()
	var d doctorcmd.Doc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("not a JSON document: %v\n%s", err, s)
	}
	return d
}

// Replaying a customer's Windows snapshot on Linux gives its diagnosis,
// exit 1 for errors, and the documented JSON shape.
func TestReplayWindowsSnapshotJSON(t *testing.T) {
	code, out, _ := execute(t, "doctor", "--replay", snaps+"win-vs2022-17.11-cuda12.3-rtx4060.json", "--json")
	if code != cmdutil.ExitFindings {
		t.Fatalf("exit %d, want 1", code)
	}
	d := decode(t, out)
	if d.Schema != 1 || d.Snapshot == nil || d.Snapshot.OS.GOOS != "windows" {
		t.Fatalf("schema %d, snapshot %+v", d.Schema, d.Snapshot)
	}
	found := false
	for _, c := range d.Checks {
		if c.Message == "msvc.cl-version/msvc-too-new" && c.Status == "error" && c.Fix != nil && len(c.Fix.Commands) > 0 {
			found = strings.Contains(c.Fix.Commands[0], "winget")
		}
	}
	if !found {
		t.Errorf("no msvc.cl-version error with a PowerShell fix in %+v", d.Checks)
	}
	if d.Selection.Backend != "cuda" || d.Selection.CUDAArchitectures != "89-real" || d.Summary.Error == 0 {
		t.Errorf("selection %+v summary %+v", d.Selection, d.Summary)
	}
	// The raw document has the keys the issue names.
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"schema", "checks", "selection", "snapshot"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in the document", k)
		}
	}
	c0 := raw["checks"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "status", "summary"} {
		if _, ok := c0[k]; !ok {
			t.Errorf("check without %q: %v", k, c0)
		}
	}
}

func TestHumanOutput(t *testing.T) {
	code, out, _ := execute(t, "doctor", "--replay", snaps+"linux-debian-nvcc11.8-gcc12-without-gxx11.json")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"✗ nvcc host compiler (gcc)", "sudo apt-get install g++-11", "CUDA toolkit", "Selection", "backend", "Fix the errors above"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "skipped,") {
		t.Errorf("skipped checks shown without --verbose:\n%s", out)
	}
	_, vout, _ := execute(t, "doctor", "--replay", snaps+"linux-debian-nvcc11.8-gcc12-without-gxx11.json", "--verbose")
	if !strings.Contains(vout, "skipped,") || !strings.Contains(vout, "[cuda.host-compiler,") || !strings.Contains(vout, "cuda 11.8.89") {
		t.Errorf("--verbose lacks skipped checks or durations:\n%s", vout)
	}
}

func TestWarningsOnlyExitZero(t *testing.T) {
	code, out, _ := execute(t, "doctor", "--replay", snaps+"linux-ci-debian-nvcc11.8-gcc12.json")
	if code != 0 || !strings.Contains(out, "/usr/bin/g++-11") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

func TestCheckOneAndList(t *testing.T) {
	code, out, _ := execute(t, "doctor", "--replay", snaps+"win-buildtools-no-devenv-git-link.json", "--check", "path.tools", "--json")
	d := decode(t, out)
	if code != 1 || len(d.Checks) != 1 || d.Checks[0].Message != "path.tools/gnu-link" {
		t.Fatalf("exit %d checks %+v", code, d.Checks)
	}
	code, out, _ = execute(t, "doctor", "--list-checks")
	if code != 0 || !strings.Contains(out, "msvc.cl-version") || !strings.Contains(out, "wsl.libcuda") {
		t.Fatalf("list: %d\n%s", code, out)
	}
	code, out, _ = execute(t, "doctor", "--list-checks", "--json")
	var l doctorcmd.ListDoc
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 || l.Schema != 1 || len(l.Checks) < 50 {
		t.Fatalf("list json: %v %d %d", err, code, len(l.Checks))
	}
}

// An AMD user asking for OpenCL is told why not and gets Vulkan.
func TestBackendOpenCLOnAMD(t *testing.T) {
	code, out, _ := execute(t, "doctor", "--replay", snaps+"win-amd-rx7900xtx-asks-opencl.json", "--backend", "opencl")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"only Qualcomm Adreno and Intel GPUs", "winget install --id KhronosGroup.VulkanSDK", "vulkan"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"not json":      {[]string{"--replay", write("a.json", "\x00\xffgarbage")}, "invalid JSON"},
		"no os":         {[]string{"--replay", write("b.json", `{"schema":1}`)}, "not a llamactl snapshot"},
		"newer schema":  {[]string{"--replay", write("c.json", `{"schema":99,"os":{"goos":"linux"}}`)}, "update llamactl"},
		"wrong types":   {[]string{"--replay", write("d.json", `{"schema":1,"os":{"goos":5}}`)}, "not a valid snapshot"},
		"missing file":  {[]string{"--replay", filepath.Join(dir, "nope.json")}, "cannot read"},
		"bad zip":       {[]string{"--replay", write("e.zip", "PK\x03\x04broken")}, "not a valid zip"},
		"unknown check": {[]string{"--check", "nope.nope", "--replay", snaps + "linux-opencl-no-icd.json"}, "--list-checks"},
		"bad backend":   {[]string{"--backend", "metal"}, "unknown backend"},
		"probe+replay":  {[]string{"--probe", "--replay", snaps + "linux-opencl-no-icd.json"}, "cannot be combined"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code, _, errOut := execute(t, append([]string{"doctor"}, c.args...)...)
			if code != cmdutil.ExitUsage || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.want)
			}
			// An unusable --replay file names the next command.
			if slices.Contains([]string{"not json", "no os", "wrong types", "missing file", "bad zip"}, name) && !strings.Contains(errOut, "llamactl doctor --snapshot") {
				t.Errorf("stderr %q names no next command", errOut)
			}
		})
	}
}

// A support report (doctor --json document or a zip holding report.json)
// replays like the bare snapshot.
func TestReplayReportAndZip(t *testing.T) {
	_, doc, _ := execute(t, "doctor", "--replay", snaps+"win-three-toolkits-path-order.json", "--json")
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	if err := os.WriteFile(rep, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	zp := filepath.Join(dir, "report.zip")
	zf, _ := os.Create(zp)
	zw := zip.NewWriter(zf)
	w, _ := zw.Create("llamactl-report/report.json")
	_, _ = w.Write([]byte(doc))
	_ = zw.Close()
	_ = zf.Close()
	want := decode(t, doc)
	for _, p := range []string{rep, zp} {
		code, out, errOut := execute(t, "doctor", "--replay", p, "--json")
		if code != 1 {
			t.Fatalf("%s: exit %d %s", p, code, errOut)
		}
		got := decode(t, out)
		if len(got.Checks) != len(want.Checks) || got.Selection.CUDA != want.Selection.CUDA {
			t.Errorf("%s: replay differs", p)
		}
		for i := range got.Checks {
			if got.Checks[i].Message != want.Checks[i].Message {
				t.Errorf("%s: check %d: %s vs %s", p, i, got.Checks[i].Message, want.Checks[i].Message)
			}
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// --report writes a redacted bundle that --replay reads back to the same findings.
func TestReportRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bundle")
	code, out, errOut := execute(t, "doctor", "--replay", snaps+"win-dll-conda-cudart-stray-ggml.json", "--report", dir)
	if code != 0 || !strings.Contains(out, "Support report written to") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, n := range []string{"report.json", "report.md"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	_, a, _ := execute(t, "doctor", "--replay", snaps+"win-dll-conda-cudart-stray-ggml.json", "--json")
	_, b, _ := execute(t, "doctor", "--replay", dir, "--json")
	da, db := decode(t, a), decode(t, b)
	if len(da.Checks) != len(db.Checks) || da.Selection.Backend != db.Selection.Backend {
		t.Fatalf("replayed report differs: %d vs %d checks", len(da.Checks), len(db.Checks))
	}
	for i := range da.Checks {
		if da.Checks[i].Message != db.Checks[i].Message {
			t.Errorf("check %d: %s vs %s", i, da.Checks[i].Message, db.Checks[i].Message)
		}
	}
	if code, _, errOut := execute(t, "doctor", "--zip"); code != 2 || !strings.Contains(errOut, "--report") {
		t.Errorf("--zip without --report: %d %s", code, errOut)
	}
}

// --snapshot writes the facts; replaying them gives the same diagnosis.
func TestSnapshotFlagRoundTrip(t *testing.T) {
	out := filepath.Join(t.TempDir(), "machine.json")
	code, human, _ := execute(t, "doctor", "--replay", snaps+"win-cuda13-bin-x64-not-on-path.json", "--snapshot", out)
	if code != 1 || !strings.Contains(human, "llamactl doctor --replay "+out) {
		t.Fatalf("exit %d\n%s", code, human)
	}
	_, a, _ := execute(t, "doctor", "--replay", snaps+"win-cuda13-bin-x64-not-on-path.json", "--json")
	_, b, _ := execute(t, "doctor", "--replay", out, "--json")
	da, db := decode(t, a), decode(t, b)
	if len(da.Checks) != len(db.Checks) {
		t.Fatalf("%d vs %d checks", len(da.Checks), len(db.Checks))
	}
	for i := range da.Checks {
		if da.Checks[i].Message != db.Checks[i].Message || da.Checks[i].Summary != db.Checks[i].Summary {
			t.Errorf("check %d differs: %s vs %s", i, da.Checks[i].Message, db.Checks[i].Message)
		}
	}
}
