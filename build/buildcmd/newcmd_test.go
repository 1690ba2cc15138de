package buildcmd

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
)

// execute is what RunE does: validate the options, then run.
func execute(ctx context.Context, o *Options) error {
	if err := validate(o); err != nil {
		return err
	}
	return run(ctx, o)
}

// noRun is a runner that counts the programs a command tried to start.
type noRun struct{ calls []string }

func (n *noRun) Run(_ context.Context, c proc.Cmd) (proc.Result, error) {
	n.calls = append(n.calls, c.String())
	return proc.Result{}, proc.ErrNotFound
}

func (n *noRun) LookPath(name string) (string, error) {
	n.calls = append(n.calls, "lookpath "+name)
	return "", proc.ErrNotFound
}

// parse runs `llamactl build ARGS` with runF capturing the validated
// Options: the options (nil when runF was not reached), the programs
// started and what the command returned.
func parse(t *testing.T, args ...string) (*Options, []string, error) {
	t.Helper()
	r := &noRun{}
	f, _, _ := cmdutil.NewTest(nil, r)
	var got *Options
	cmd := NewCmdBuild(f, func(o *Options) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	err := cmd.Execute()
	return got, r.calls, err
}

// The flags land in Options, validated: a lock file's values stand in for
// flags not given, --snapshot's machine is read, --source is checked;
// nothing runs (runF replaces the run function).
func TestNewCmdBuildOptions(t *testing.T) {
	lock := writeLock(t, "[engine]\nref = \"b9591\"\nsha256 = \"abababababababababababababababababababababababababababababababab\"\n[build]\nbackend = \"vulkan\"\narchitectures = \"89-real\"\ncmake_args = [\"GGML_AVX2=OFF\"]\n")
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS("../../testdata/engine")); err != nil {
		t.Fatal(err)
	}
	win := filepath.Join(plans, "win-vs2022-17.10-cuda12.3-older-toolset.json")
	cases := []struct {
		args  []string
		check func(*Options) bool
	}{
		{[]string{"--backend", "vulkan", "--dry-run", "--cmake-arg", "GGML_AVX2=OFF", "-j", "3", "--out", "dist"}, func(o *Options) bool {
			return o.Backend == "vulkan" && o.DryRun && o.Jobs == 3 && o.OutDir == "dist" && reflect.DeepEqual(o.CMakeArgs, []string{"GGML_AVX2=OFF"}) && o.pin.Ref != ""
		}},
		{[]string{"--lock", lock, "--cmake-arg", "GGML_NATIVE=ON"}, func(o *Options) bool {
			return o.Ref == "b9591" && o.Backend == "vulkan" && o.CUDAArch == "89-real" && o.pin.SHA256 == "abababababababababababababababababababababababababababababababab" && o.lock != nil &&
				reflect.DeepEqual(o.CMakeArgs, []string{"GGML_AVX2=OFF", "GGML_NATIVE=ON"})
		}},
		{[]string{"--lock", lock, "--check", "--backend", "cpu"}, func(o *Options) bool { return o.Check && o.Backend == "cpu" }},
		{[]string{"--snapshot", win, "--msvc-toolset", "14.39", "--compiler", "clang-cl", "--backend", "cuda", "--cuda-arch", "86-real;89-virtual"}, func(o *Options) bool {
			return o.snap != nil && o.snap.OS.GOOS == "windows" && o.MSVCToolset == "14.39" && o.Compiler == "clang-cl" && o.CUDAArch == "86-real;89-virtual"
		}},
		{[]string{"--source", src, "--rpc", "--target", "llama-server,rpc-server", "--stop-after", "configure", "--heal"}, func(o *Options) bool {
			return o.Source == src && o.RPC && o.Heal && o.StopAfter == "configure" && reflect.DeepEqual(o.Targets, []string{"llama-server", "rpc-server"})
		}},
		{[]string{"--ref", "b9591", "--portable", "--lang", "zh-CN"}, func(o *Options) bool {
			return o.Ref == "b9591" && o.Portable && o.t.Lang() == "zh-CN"
		}},
	}
	for _, c := range cases {
		got, calls, err := parse(t, c.args...)
		if err != nil || got == nil || !c.check(got) {
			t.Errorf("%v: err %v, options %+v", c.args, err, got)
		}
		if len(calls) > 0 {
			t.Errorf("%v: validation started %v", c.args, calls)
		}
	}
}

// Bad flags and bad combinations fail in RunE, with exit 2, before
// anything runs: runF is never reached and no program starts.
func TestNewCmdBuildRefusesBeforeRunning(t *testing.T) {
	linux := filepath.Join(plans, "linux-debian-cpu-local.json")
	for _, args := range [][]string{
		{"--backend", "metal"},
		{"--check"},
		{"--source", ".", "--ref", "b1"},
		{"--source", "/nonexistent/llama.cpp"},
		{"--compiler", "gcc"},
		{"--cuda-arch", "sm_89"},
		{"--stop-after", "link"},
		{"-j", "-1"},
		{"--target", "rpc-server"},
		{"--ref", "master"},
		{"--lock", "missing.toml"},
		{"--snapshot", "missing.json"},
		{"--snapshot", linux, "--msvc-toolset", "14.39"},
		{"--snapshot", linux, "--compiler", "clang-cl"},
		{"--lang", "xx"},
	} {
		got, calls, err := parse(t, args...)
		if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d (%v), want %d", args, code, err, cmdutil.ExitUsage)
		}
		if got != nil || len(calls) > 0 {
			t.Errorf("%v: ran before refusing (runF reached %v, programs %v)", args, got != nil, calls)
		}
	}
}

// countPlans counts plan.Make's calls through Options.MakePlan.
func countPlans(o *Options) *int {
	n := new(int)
	o.MakePlan = func(in plan.Input) (plan.Plan, error) {
		*n++
		return plan.Make(in)
	}
	return n
}

// A dry run plans once, and so does a build its plan blocks.
func TestOnePlanPerBuild(t *testing.T) {
	o, _, _ := newOpts(t, nil, nil)
	o.DryRun, o.Backend = true, "cuda"
	o.SnapshotPath = filepath.Join(plans, "win-vs2022-17.10-cuda12.3-older-toolset.json")
	n := countPlans(o)
	if err := execute(context.Background(), o); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if *n != 1 {
		t.Errorf("the dry run made %d plans, want 1", *n)
	}

	// HIP on a machine without the HIP SDK: blocked before anything runs.
	src := filepath.Join(t.TempDir(), "llama.cpp-b9591")
	if err := os.CopyFS(src, os.DirFS("../../testdata/engine")); err != nil {
		t.Fatal(err)
	}
	o, _, _ = newOpts(t, nil, &noRun{})
	o.Source, o.Backend = src, "hip"
	o.SnapshotPath = filepath.Join(plans, "linux-debian-cpu-local.json")
	o.F.IO.JSON = true
	n = countPlans(o)
	if code := cmdutil.ExitCode(execute(context.Background(), o)); code != cmdutil.ExitFindings {
		t.Errorf("blocked build: exit %d, want %d", code, cmdutil.ExitFindings)
	}
	if *n != 1 {
		t.Errorf("the blocked build made %d plans, want 1", *n)
	}
}
