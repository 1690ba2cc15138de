package runcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/launch"
)

// engineDir is the real llama.cpp CPU engine (scripts/deps.sh installs it).
func engineDir(t *testing.T) string { return testutil.EngineDir(t, "llama-server") }

func realOptions(t *testing.T, dir, model string) (*Options, *strings.Builder) {
	f, out, _ := cmdutil.NewTest(map[string]string{}, proc.Exec{})
	f.IO.JSON = true
	return &Options{F: f, NGL: -1, EnginePath: dir, Model: model, Cache: PlanCache{Dir: t.TempDir()}, CacheDir: "-",
		ReadyTimeout: 60 * time.Second, Host: "127.0.0.1"}, out
}

// runReal runs llamactl run against the real engine, bounded in time, and
// decodes its --json document.
func runReal(t *testing.T, o *Options, out *strings.Builder) Doc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	var d Doc
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return d
}

// withinTolerance is the acceptance rule: 5 % or 16 MiB.
func withinTolerance(pred, act float64) bool {
	d := math.Abs(pred - act)
	return d <= 16 || d <= 0.05*act
}

// Each generated architecture: llamactl run starts llama-server, a
// completion returns tokens, and the host memory the engine reports is
// within 5 % or 16 MiB of the prediction (and each class within 2 % or
// 0.1 MiB, a much stricter check on models this small).
func TestIntegrationRunGeneratedModels(t *testing.T) {
	dir := engineDir(t)
	mdir := t.TempDir()
	configs := []ggufwrite.Config{
		{Arch: "llama"}, {Arch: "llama", Type: "Q8_0"}, {Arch: "llama", Type: "Q4_K"},
		{Arch: "qwen2"}, {Arch: "qwen3"}, {Arch: "gemma2"}, {Arch: "gemma3"}, {Arch: "qwen3moe"},
		{Arch: "llama", Ctx: 32768, Vocab: 4096, FF: 1024}, // a larger context and vocabulary
	}
	for _, cfg := range configs {
		c := ggufwrite.Small(cfg)
		t.Run(fmt.Sprintf("%s-%s-ctx%d", c.Arch, c.Type, c.Ctx), func(t *testing.T) {
			model := genModel(t, mdir, cfg)
			o, out := realOptions(t, dir, model)
			o.Prompt, o.NPredict = "Hello world", 8
			d := runReal(t, o, out)
			if d.Completion == nil || d.Completion.TokensPredicted != 8 || d.Completion.TokensPerSecond <= 0 {
				t.Errorf("completion = %+v", d.Completion)
			}
			if d.Actual == nil {
				t.Fatal("no engine report")
			}
			p, a := d.Predicted.Host, d.Actual.Host
			t.Logf("host MiB predicted/engine: model %.2f/%.2f context %.2f/%.2f compute %.2f/%.2f; %.0f tokens/s",
				p.ModelMiB, a.ModelMiB, p.ContextMiB, a.ContextMiB, p.ComputeMiB, a.ComputeMiB, d.Completion.TokensPerSecond)
			if !withinTolerance(p.Total(), a.Total()) {
				t.Errorf("host total predicted %.2f MiB, engine %.2f MiB", p.Total(), a.Total())
			}
			for _, cl := range []struct {
				n    string
				p, a float64
			}{{"model", p.ModelMiB, a.ModelMiB}, {"context", p.ContextMiB, a.ContextMiB}, {"compute", p.ComputeMiB, a.ComputeMiB}} {
				if math.Abs(cl.p-cl.a) > math.Max(0.1, 0.02*cl.a) {
					t.Errorf("%s: predicted %.2f MiB, engine %.2f MiB", cl.n, cl.p, cl.a)
				}
			}
			if uint64(d.Actual.CtxSize) != d.Plan.Ctx {
				t.Errorf("engine n_ctx %d, plan %d", d.Actual.CtxSize, d.Plan.Ctx)
			}
		})
	}
}

// An embedding model (pooling metadata) starts in embedding mode with the
// whole context in one ubatch, and its memory is predicted as well.
func TestIntegrationEmbeddingModel(t *testing.T) {
	dir := engineDir(t)
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama", Pooling: 1, Ctx: 2048})
	o, out := realOptions(t, dir, model)
	o.Prompt = "hello world"
	d := runReal(t, o, out)
	if !slices.Contains(d.Argv, "--embedding") || !slices.Contains(d.Argv, "mean") || d.Plan.UBatch != 2048 {
		t.Errorf("argv %v plan %+v", d.Argv, d.Plan)
	}
	if d.Embedding == nil || d.Embedding.Dimensions != 256 {
		t.Errorf("embedding = %+v", d.Embedding)
	}
	if d.Actual == nil || !withinTolerance(d.Predicted.Host.Total(), d.Actual.Host.Total()) ||
		math.Abs(d.Predicted.Host.ComputeMiB-d.Actual.Host.ComputeMiB) > 0.1 {
		t.Errorf("predicted %+v, engine %+v", d.Predicted.Host, d.Actual)
	}
}

// A model split in parts (gguf-split layout): llamactl reads every part's
// tensors, llama-server loads it from the first part, and memory matches.
func TestIntegrationSplitModel(t *testing.T) {
	dir := engineDir(t)
	mdir := t.TempDir()
	f, err := ggufwrite.Model(ggufwrite.Config{Arch: "llama", Layers: 6})
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i, p := range f.Split(3) {
		path := filepath.Join(mdir, fmt.Sprintf("split-%05d-of-00003.gguf", i+1))
		if err := p.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = path
		}
	}
	o, out := realOptions(t, dir, first)
	o.Prompt, o.NPredict = "Hello", 4
	d := runReal(t, o, out)
	if d.Actual == nil || math.Abs(d.Predicted.Host.ModelMiB-d.Actual.Host.ModelMiB) > 0.1 || d.Completion == nil || d.Completion.TokensPredicted != 4 {
		t.Errorf("predicted %+v, engine %+v, completion %+v", d.Predicted.Host, d.Actual, d.Completion)
	}
}

func TestIntegrationDraftModel(t *testing.T) {
	dir := engineDir(t)
	mdir := t.TempDir()
	target := genModel(t, mdir, ggufwrite.Config{Arch: "llama", Layers: 6})
	draft := genModel(t, mdir, ggufwrite.Config{Arch: "llama", Layers: 1, Type: "Q8_0"})
	o, out := realOptions(t, dir, target)
	o.Draft, o.DraftMax, o.Prompt, o.NPredict = draft, 4, "Hello", 8
	d := runReal(t, o, out)
	if !slices.Contains(d.Argv, "-md") || !slices.Contains(d.Argv, "draft-simple") || !slices.Contains(d.Argv, "--spec-draft-n-max") || d.Completion == nil || d.Completion.TokensPredicted != 8 {
		t.Errorf("argv %v completion %+v", d.Argv, d.Completion)
	}
	if d.Predicted.DraftHostMiB <= 0 {
		t.Errorf("draft memory not budgeted: %+v", d.Predicted)
	}
	// The engine's report sums target and draft buffers.
	if d.Actual == nil || !withinTolerance(d.Predicted.Host.Total(), d.Actual.Host.Total()) {
		t.Errorf("predicted %+v, engine %+v", d.Predicted.Host, d.Actual)
	} else {
		t.Logf("target+draft host MiB predicted/engine: model %.2f/%.2f context %.2f/%.2f compute %.2f/%.2f",
			d.Predicted.Host.ModelMiB, d.Actual.Host.ModelMiB, d.Predicted.Host.ContextMiB, d.Actual.Host.ContextMiB, d.Predicted.Host.ComputeMiB, d.Actual.Host.ComputeMiB)
	}
}

// Ctrl-C while serving: the engine and its process group are gone, and
// run exits with 130.
func TestIntegrationInterruptLeavesNoProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to look for leftover processes")
	}
	dir := engineDir(t)
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	o, _ := realOptions(t, dir, model)
	o.F.IO.JSON = false
	o.Server = true
	port, err := launch.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	o.Port = port
	sig, fire := context.WithCancel(context.Background())
	o.Interrupt = func(ctx context.Context) (context.Context, func()) {
		c, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-sig.Done():
				cancel()
			case <-c.Done():
			}
		}()
		return c, cancel
	}
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), o) }()
	h := launch.NetHTTP{}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, _, err := h.Do(context.Background(), "GET", fmt.Sprintf("http://127.0.0.1:%d/health", port), nil)
		if err == nil && st == 200 {
			break
		}
		if time.Now().After(deadline) {
			fire()
			t.Fatal("server never became healthy")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := enginesFor(model); n == 0 {
		t.Fatal("no engine process found while serving: the check below would prove nothing")
	}
	fire()
	select {
	case err := <-done:
		if cmdutil.ExitCode(err) != cmdutil.ExitSignal {
			t.Errorf("exit code %d (%v), want 130", cmdutil.ExitCode(err), err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after the interrupt")
	}
	for i := 0; i < 20 && enginesFor(model) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if n := enginesFor(model); n > 0 {
		t.Errorf("%d engine processes left after Ctrl-C", n)
	}
}

// enginesFor counts live processes whose command line names model.
func enginesFor(model string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), model) {
			st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if strings.Contains(string(st), ") Z ") {
				continue // a zombie is already dead
			}
			n++
		}
	}
	return n
}
