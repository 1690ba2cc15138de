package runcmd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/plan"
)

var update = flag.Bool("update", false, "rewrite the golden outputs in testdata/golden")

// goldenDir is absolute: the golden tests change the current folder.
var goldenDir, _ = filepath.Abs(filepath.Join("testdata", "golden"))

// golden compares got with testdata/golden/name byte for byte (-update
// rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test ./runner/runcmd -run Golden -update writes it)", err)
	}
	if string(want) != got {
		// A change of the memory model (runner/plan coefficients) moves the
		// predicted figures: check the difference is that, then -update.
		t.Errorf("%s differs from the golden output (go test ./runner/runcmd -run Golden -update rewrites it once the change is meant):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// runCommand runs `llamactl run ARGS` through NewCmd with the recorded
// engine's world: the model files are named relative to dir (the current
// folder), so the outputs are the same bytes on every OS.
func runCommand(t *testing.T, r proc.Runner, cache string, host plan.Host, http *fakeHTTP, js bool, args ...string) (string, string, int) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(map[string]string{}, r)
	f.IO.JSON = js
	cmd := NewCmd(f, func(o *Options) error {
		o.EnginePath = "/engine/llama-server"
		o.HostInfo = func(context.Context) (plan.Host, error) { return host, nil }
		o.Cache, o.CacheDir = PlanCache{Dir: cache}, "-"
		o.FreePort = func() (int, error) { return 18080, nil }
		statFor(o)
		if http != nil {
			o.HTTP = http
		}
		return Run(context.Background(), o)
	})
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err != nil {
		fmt.Fprintf(errOut, "error: %v\n", err)
	}
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

// Run's outputs, --json and human, for dry runs of several flag sets, a
// plan that does not fit, a launch that recovers from an out-of-memory
// failure, and the remembered plan it leaves: byte for byte as recorded.
func TestGoldenRunOutputs(t *testing.T) {
	recCPU, recGPU := recordedEngine(t, false), recordedEngine(t, true)
	oomLog := fixture(t, "gpu-out-of-memory-compute-buffer-multi-gpu-llamacpp-pr26297-win.log")
	dir := t.TempDir()
	t.Chdir(dir)
	// The draft first: it has the target's name until it is renamed.
	if err := os.Rename(genModel(t, dir, ggufwrite.Config{Arch: "llama", Layers: 2}), filepath.Join(dir, "draft.gguf")); err != nil {
		t.Fatal(err)
	}
	genModel(t, dir, ggufwrite.Config{Arch: "llama"})
	genModel(t, dir, ggufwrite.Config{Arch: "qwen3moe"})
	const llama, moe = "llama-F16-v1024.gguf", "qwen3moe-F16-v1024.gguf"
	big := plan.Host{AvailableMiB: 16000, PhysicalCores: 4, LogicalCores: 8}
	tiny := plan.Host{AvailableMiB: 1, PhysicalCores: 4, LogicalCores: 8}
	cases := []struct {
		name string
		gpu  bool
		json bool
		host plan.Host
		args []string
	}{
		{"dry-cpu", false, true, big, []string{llama, "--dry-run"}},
		{"dry-cpu", false, false, big, []string{llama, "--dry-run"}},
		{"dry-gpu", true, true, big, []string{llama, "--dry-run"}},
		{"dry-gpu-moe", true, false, big, []string{moe, "--dry-run"}},
		{"dry-gpu-moe", true, true, big, []string{moe, "--dry-run"}},
		{"dry-pinned", true, true, big, []string{llama, "--dry-run", "--ctx", "2048", "--cache-type", "q8_0", "--flash-attn", "on", "--threads", "2",
			"--batch", "512", "--ubatch", "128", "--no-mmap", "--port", "9000", "--host", "0.0.0.0", "--draft", "draft.gguf", "--draft-max", "4", "--", "--jinja"}},
		{"dry-pinned", true, false, big, []string{llama, "--dry-run", "--ngl", "2", "--flash-attn", "off"}},
		{"dry-not-fit", false, true, tiny, []string{llama, "--dry-run"}},
		{"dry-not-fit", false, false, tiny, []string{llama, "--dry-run"}},
		{"dry-forced", false, true, tiny, []string{llama, "--dry-run", "--ctx", "512"}},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s.%s", c.name, map[bool]string{true: "json", false: "txt"}[c.json])
		t.Run(name, func(t *testing.T) {
			r := &proc.Replay{Commands: map[bool]map[string]proc.Recording{false: recCPU, true: recGPU}[c.gpu]}
			out, errOut, code := runCommand(t, r, t.TempDir(), c.host, nil, c.json, c.args...)
			golden(t, name, fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errOut))
		})
	}
	// A launch whose first attempt runs out of memory (a recorded log),
	// then the dry run that reuses the remembered plan.
	for _, js := range []bool{true, false} {
		ext := map[bool]string{true: "json", false: "txt"}[js]
		t.Run("launch-oom."+ext, func(t *testing.T) {
			si := &standIn{Replay: proc.Replay{Commands: recGPU}, oomLog: oomLog}
			cache := t.TempDir()
			out, errOut, code := runCommand(t, si, cache, big, &fakeHTTP{up: si.up}, js, llama, "--prompt", "hello", "--n-predict", "8")
			golden(t, "launch-oom."+ext, fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errOut))
			out, errOut, code = runCommand(t, &proc.Replay{Commands: recGPU}, cache, big, nil, js, llama, "--dry-run")
			golden(t, "dry-cached."+ext, fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, errOut))
		})
	}
}
