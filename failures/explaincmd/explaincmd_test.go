package explaincmd

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/machine"
)

const logs = "../../testdata/logs/"

func testOpts(t *testing.T, file string) (*Options, *strings.Builder) {
	t.Helper()
	ios, _, _, _ := ui.Test()
	out := &strings.Builder{}
	ios.Out = out
	return &Options{
		IO: ios, File: file,
		Open:            func(n string) (io.ReadCloser, error) { return os.Open(n) },
		StdinIsTerminal: func() bool { return false },
		Gather: func(context.Context) *machine.Snapshot {
			t.Fatal("gathered this machine without --here")
			return nil
		},
	}, out
}

func TestHumanOutput(t *testing.T) {
	o, out := testOpts(t, logs+"sample-win-cmake-test-nested-msvc.log")
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings {
		t.Fatalf("exit %v", err)
	}
	s := out.String()
	for _, want := range []string{"✗ nvcc-unsupported-msvc  nvcc does not accept this MSVC version (line 33)",
		"> C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.2\\include\\crt/host_config.h(164): fatal error C1189",
		"Why: nvcc's host_config.h only accepts", "Fix: Install a newer CUDA", "  $ llamactl doctor", "More: docs/support.md#nvcc-unsupported-msvc",
		"The log shows nvcc 12.2.140, which is why."} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "cuda-compiler-test-failed") {
		t.Error("the wrapper is reported next to its nested cause")
	}
}

// A cause inferred from weak signals says "probably" and shows its evidence.
func TestProbableFinding(t *testing.T) {
	o, out := testOpts(t, logs+"ref-msvc-env-missing-ninja-llamacpppython-54.log")
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings {
		t.Fatalf("exit %v", err)
	}
	s := out.String()
	for _, want := range []string{"msvc-env-missing  probably: the Visual Studio C++ build environment",
		"> No CMAKE_C_COMPILER could be found.", "> -- Trying 'Ninja (Visual Studio 17 2022 x64 v143)' generator",
		"Inferred from these lines taken together"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	o, out = testOpts(t, logs+"ref-msvc-env-missing-ninja-llamacpppython-54.log")
	o.IO.JSON = true
	_ = Run(context.Background(), o)
	if !strings.Contains(out.String(), `"confidence": "probable"`) || !strings.Contains(out.String(), `"evidence": [`) {
		t.Errorf("json lacks confidence/evidence:\n%s", out.String())
	}
}

// A probable finding from one line says so: "these lines taken together"
// would describe evidence it does not have.
func TestProbableFindingOneLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pip.log")
	if err := os.WriteFile(p, []byte("  Preparing metadata (setup.py) ... error\n      UserWarning: mamba_ssm was requested, but nvcc was not found.  Are you sure your environment has nvcc available?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, out := testOpts(t, p)
	_ = Run(context.Background(), o)
	s := out.String()
	if !strings.Contains(s, "probably: ") || !strings.Contains(s, "Inferred from this line: it points at the cause") || strings.Contains(s, "taken together") {
		t.Errorf("one-line probable finding:\n%s", s)
	}
}

func TestJSONWithSnapshot(t *testing.T) {
	o, out := testOpts(t, logs+"ref-nvcc-unsupported-msvc-llamacpppython-1586.log")
	o.IO.JSON = true
	o.Snapshot = logs + "snapshots/win-cuda122-msvc1940.json"
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings {
		t.Fatalf("exit %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc["schema"] != float64(1) || doc["facts_from"] != "snapshot "+o.Snapshot {
		t.Errorf("doc %v", doc)
	}
	fs := doc["findings"].([]any)
	f := fs[0].(map[string]any)
	for _, k := range []string{"id", "title", "cause", "fix", "patch", "lines", "excerpt", "severity", "commands", "source", "facts"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding lacks %q: %v", k, f)
		}
	}
	if f["id"] != "nvcc-unsupported-msvc" || !strings.Contains(strings.Join(toStrings(f["facts"]), ";"), "your MSVC is 19.40.33811") {
		t.Errorf("finding %v", f)
	}
	if u, ok := doc["unmatched_errors"].([]any); !ok || len(u) != 0 {
		t.Errorf("unmatched_errors must be an empty list: %v", doc["unmatched_errors"])
	}
}

func toStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func TestStdinNothingMatched(t *testing.T) {
	o, out := testOpts(t, "-")
	o.IO.In = strings.NewReader("[1/3] Building CXX object a.o\nsrc/a.cpp:3:1: error: expected unqualified-id\nninja: build stopped: subcommand failed.\n")
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("nothing matched must exit 0: %v", err)
	}
	s := out.String()
	if !strings.Contains(s, "No known failure matched this log. (stdin, 3 lines)") || !strings.Contains(s, "    2  src/a.cpp:3:1: error: expected unqualified-id") {
		t.Errorf("%s", s)
	}
	// and the next step: the whole log, then doctor and its report
	next := strings.Index(s, "Next: pass the whole log")
	if next < strings.Index(s, "expected unqualified-id") || !strings.Contains(s[next:], "$ llamactl doctor\n") || !strings.Contains(s[next:], "$ llamactl doctor --report llamactl-report.zip\n") {
		t.Errorf("no next step after the error lines: %s", s)
	}
}

func TestWarningOnlyExitsZero(t *testing.T) {
	o, out := testOpts(t, logs+"here-nvcc118-sm35-deprecated.log")
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("warnings only: %v", err)
	}
	if !strings.Contains(out.String(), "! nvcc-arch-deprecated-warning") {
		t.Errorf("%s", out)
	}
}

func TestHereGathers(t *testing.T) {
	o, out := testOpts(t, logs+"ref-wsl-linux-driver-shadowing-genesis-114.log")
	o.Here = true
	b, _ := os.ReadFile(logs + "snapshots/wsl2-linux-driver.json")
	o.Gather = func(context.Context) *machine.Snapshot {
		var s machine.Snapshot
		json.Unmarshal(b, &s)
		return &s
	}
	Run(context.Background(), o)
	if !strings.Contains(out.String(), "wsl-linux-driver-shadowing") {
		t.Errorf("%s", out)
	}
}

func TestBadInput(t *testing.T) {
	cases := map[string]func(o *Options){
		"missing file":  func(o *Options) { o.File = "/nonexistent/build.log" },
		"folder":        func(o *Options) { o.File = logs },
		"terminal":      func(o *Options) { o.File = ""; o.StdinIsTerminal = func() bool { return true } },
		"bad snapshot":  func(o *Options) { o.Snapshot = logs + "EXPECTED" },
		"snapshot gone": func(o *Options) { o.Snapshot = "/nonexistent.json" },
	}
	for name, mod := range cases {
		o, _ := testOpts(t, logs+"here-nvcc118-sm100.log")
		mod(o)
		err := Run(context.Background(), o)
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || err.Error() == "" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestFlags(t *testing.T) {
	f, _, _ := cmdutil.NewTest(nil, nil)
	var got *Options
	cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--snapshot", "s.json", "x.log"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.File != "x.log" || got.Snapshot != "s.json" || got.Here {
		t.Errorf("%+v", got)
	}
	cmd = NewCmd(f, func(o *Options) error { return nil })
	cmd.SetArgs([]string{"--here", "--snapshot", "s.json"})
	if err := cmd.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("--here with --snapshot: %v", err)
	}
	cmd = NewCmd(f, func(o *Options) error { return nil })
	cmd.SetArgs([]string{"a", "b"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err == nil {
		t.Error("two files accepted")
	}
}
