package doctorcmd_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/doctorcmd"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// captured runs `llamactl doctor ARGS` with a runF that only keeps the
// Options: nothing is gathered, read or written.
func captured(t *testing.T, args ...string) (*doctorcmd.Options, *cmdutil.Factory, error) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(nil, nil)
	var got *doctorcmd.Options
	cmd := doctorcmd.NewCmd(f, func(o *doctorcmd.Options) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err != nil && got != nil {
		t.Errorf("%q: runF ran although RunE failed: %v", args, err)
	}
	if out.Len() > 0 || errOut.Len() > 0 {
		t.Errorf("%q: printed %q %q before running", args, out, errOut)
	}
	return got, f, err
}

// The flags land in Options, checked and normalised (backend in lower
// case, check IDs trimmed); nothing runs (runF replaces the run function).
func TestNewCmdOptions(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "machine.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args  []string
		check func(o *doctorcmd.Options) bool
	}{
		{[]string{"--replay", "m.json", "--backend", " OpenCL ", "--check", "cuda.select", "--check", " host.os"}, func(o *doctorcmd.Options) bool {
			return o.Replay == "m.json" && o.Backend == "opencl" && o.CheckGiven && reflect.DeepEqual(o.Checks, []string{"cuda.select", "host.os"}) && !o.Probe
		}},
		{nil, func(o *doctorcmd.Options) bool { // the defaults
			return o.Backend == "" && !o.CheckGiven && o.Checks == nil && o.Replay == "" && o.Report == "" && !o.Probe && o.RPC == nil
		}},
		{[]string{"--probe", "--backend", "cuda", "--rpc", "10.0.0.2:50052,10.0.0.3:50052"}, func(o *doctorcmd.Options) bool {
			return o.Probe && o.Backend == "cuda" && reflect.DeepEqual(o.RPC, []string{"10.0.0.2:50052", "10.0.0.3:50052"})
		}},
		{[]string{"--report", "r.zip", "--zip", "--no-redact", "--lang", "zh-CN"}, func(o *doctorcmd.Options) bool {
			return o.Report == "r.zip" && o.Zip && o.NoRedact && o.Lang == "zh-CN"
		}},
		{[]string{"--snapshot", existing, "--force"}, func(o *doctorcmd.Options) bool { return o.SnapshotOut == existing && o.Force }},
		// --list-checks lists whatever else is given, as before.
		{[]string{"--list-checks", "--backend", "metal"}, func(o *doctorcmd.Options) bool { return o.ListChecks }},
	}
	for _, c := range cases {
		o, f, err := captured(t, c.args...)
		if err != nil || o == nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if o.F != f || !c.check(o) {
			t.Errorf("%q: options = %+v", c.args, o)
		}
	}
}

// Bad flags and bad combinations are usage errors (exit 2) in RunE, before
// runF: nothing is gathered or read, and an existing --snapshot FILE is
// kept.
func TestNewCmdRejectsBadFlags(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "machine.json")
	if err := os.WriteFile(existing, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "metal"}, "unknown backend"},
		{[]string{"--probe", "--replay", "m.json"}, "cannot be combined with --replay"},
		{[]string{"--zip"}, "go with --report PATH"},
		{[]string{"--no-redact", "--replay", "m.json"}, "go with --report PATH"},
		{[]string{"--check="}, "--check needs a check ID"},
		{[]string{"--check", "cuda.select", "--check", " "}, "empty check ID"},
		{[]string{"--check", "nope.nope"}, "--list-checks"},
		{[]string{"--force"}, "--force goes with --snapshot"},
		{[]string{"--snapshot", existing}, "already exists"},
		{[]string{"--lang", "xx"}, "zh-CN"},
		{[]string{"--lang", "xx", "--list-checks"}, "zh-CN"},
	}
	for _, c := range cases {
		o, _, err := captured(t, c.args...)
		if o != nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: runF ran %v, err = %v (exit %d); want exit 2 and %q", c.args, o != nil, err, cmdutil.ExitCode(err), c.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "{}" {
		t.Errorf("the existing snapshot was changed: %q", b)
	}
}
