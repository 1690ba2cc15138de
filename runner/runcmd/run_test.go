package runcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/plan"
)

func fixture(t *testing.T, name string) string { return testutil.Fixture(t, "runner", name) }

func genModel(t testing.TB, dir string, cfg ggufwrite.Config) string {
	t.Helper()
	f, err := ggufwrite.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := ggufwrite.Small(cfg)
	p := filepath.Join(dir, fmt.Sprintf("%s-%s-v%d.gguf", c.Arch, c.Type, c.Vocab))
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// recordedEngine answers --version/--help/--list-devices with the outputs
// recorded from llama.cpp build 11669; devices come from a recorded
// Windows CUDA machine when gpu is set (llama.cpp#22778).
func recordedEngine(t *testing.T, gpu bool) map[string]proc.Recording {
	devs := fixture(t, "llama-server-b11669-list-devices-cpu.txt")
	if gpu {
		devs = "Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 Laptop GPU (16375 MiB, 15046 MiB free)\n"
		if !strings.Contains(fixture(t, "gpu-backend-not-loaded-false-warning-regression-llamacpp-22778-win.log"), strings.TrimSpace(strings.Split(devs, "\n")[1])) {
			t.Fatal("device line is not the recorded one")
		}
	}
	return map[string]proc.Recording{
		"/engine/llama-server --version":      {Stderr: fixture(t, "llama-server-b11669-version.txt")},
		"/engine/llama-server --help":         {Stdout: fixture(t, "llama-server-b11669-help.txt")},
		"/engine/llama-server --list-devices": {Stdout: devs},
	}
}

type fakeStat struct{}

func (fakeStat) Name() string       { return "llama-server" }
func (fakeStat) Size() int64        { return 1 }
func (fakeStat) Mode() os.FileMode  { return 0o755 }
func (fakeStat) ModTime() time.Time { return time.Time{} }
func (fakeStat) IsDir() bool        { return false }
func (fakeStat) Sys() any           { return nil }

func testOptions(t *testing.T, r proc.Runner) (*Options, *strings.Builder, *strings.Builder) {
	f, out, errOut := cmdutil.NewTest(map[string]string{}, r)
	o := &Options{F: f, NGL: -1, EnginePath: "/engine/llama-server",
		HostInfo: func(context.Context) (plan.Host, error) {
			return plan.Host{AvailableMiB: 16000, PhysicalCores: 4, LogicalCores: 8}, nil
		},
		Cache:    PlanCache{Dir: t.TempDir()},
		CacheDir: "-",
		FreePort: func() (int, error) { return 18080, nil },
	}
	return o, out, errOut
}

// statFor makes the fake engine path exist for the locator.
func statFor(o *Options) {
	o.Stat = func(p string) (os.FileInfo, error) {
		if p == "/engine/llama-server" {
			return fakeStat{}, nil
		}
		return os.Stat(p)
	}
}

func TestDryRunJSON(t *testing.T) {
	dir := t.TempDir()
	model := genModel(t, dir, ggufwrite.Config{Arch: "llama"})
	for _, gpu := range []bool{false, true} {
		t.Run(fmt.Sprintf("gpu=%v", gpu), func(t *testing.T) {
			r := &proc.Replay{Commands: recordedEngine(t, gpu)}
			o, out, _ := testOptions(t, r)
			o.Stat = func(p string) (os.FileInfo, error) { return os.Stat(p) }
			o.EnginePath = ""
			o.F.Getenv = func(string) string { return "" }
			r.Paths = map[string]string{"llama-server": "/engine/llama-server"}
			o.F.IO.JSON = true
			o.Model, o.DryRun = model, true
			if err := Run(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			var d Doc
			json.Unmarshal([]byte(out.String()), &d)
			if doc["schema"] != float64(1) || d.Engine.Build != 11669 || d.Engine.Source != "PATH" || d.Plan.Ctx != 4096 || len(d.Reasons) == 0 {
				t.Errorf("doc = %s", out)
			}
			if devs, ok := doc["predicted"].(map[string]any)["devices"].([]any); !ok || len(devs) != map[bool]int{false: 0, true: 1}[gpu] {
				t.Errorf("predicted.devices must be an array: %v", doc["predicted"])
			}
			for _, k := range []string{"engine", "model", "plan", "predicted", "argv", "reasons"} {
				if _, ok := doc[k]; !ok {
					t.Errorf("JSON lacks %q", k)
				}
			}
			if gpu {
				if d.Plan.NGL != 5 || len(d.Predicted.Devices) != 1 || d.Predicted.Devices[0].ID != "CUDA0" || d.Predicted.Devices[0].FreeMiB != 15046 || d.Predicted.Devices[0].ModelMiB < 4 {
					t.Errorf("gpu plan = %+v %+v", d.Plan, d.Predicted)
				}
			} else if d.Plan.NGL != 0 || d.Predicted.Host.ModelMiB < 5 || d.Predicted.Host.ContextMiB != 8 {
				t.Errorf("cpu plan = %+v %+v", d.Plan, d.Predicted)
			}
			s := strings.Join(d.Argv, " ")
			if !strings.Contains(s, "--fit off") || !strings.Contains(s, "-fa on") || !strings.Contains(s, "-m "+model) {
				t.Errorf("argv = %s", s)
			}
		})
	}
}

func TestDryRunHuman(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "qwen3moe"})
	r := &proc.Replay{Commands: recordedEngine(t, true)}
	o, out, _ := testOptions(t, r)
	statFor(o)
	o.Model, o.DryRun = model, true
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"-ngl 5", "all 5 layers", "CUDA0", "runner-ups:", "command: llama-server -m "} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

// Bad model files and engines (bad flags: TestNewCmdRejectsBadFlags).
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	model := genModel(t, dir, ggufwrite.Config{Arch: "llama", Layers: 1})
	other := genModel(t, dir, ggufwrite.Config{Arch: "llama", Layers: 1, Vocab: 600})
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a model"), 0o644)
	trunc := filepath.Join(dir, "cut.gguf")
	b, _ := os.ReadFile(model)
	os.WriteFile(trunc, b[:len(b)/2], 0o644)
	cases := []struct {
		name string
		set  func(o *Options)
		code int
		msg  string
	}{
		{"missing", func(o *Options) { o.Model = filepath.Join(dir, "nope.gguf") }, cmdutil.ExitUsage, "does not exist"},
		{"not gguf", func(o *Options) { o.Model = text }, cmdutil.ExitUsage, "not a GGUF file"},
		{"truncated", func(o *Options) { o.Model = trunc }, cmdutil.ExitUsage, "truncated"},
		{"draft vocab mismatch", func(o *Options) { o.Draft = other }, cmdutil.ExitUsage, "vocabulary of 1024 vs 600"},
		{"no engine", func(o *Options) { o.EnginePath = filepath.Join(dir, "none") }, cmdutil.ExitEngine, "no llama.cpp engine"},
		{"engine is not llama-server", func(o *Options) { o.EnginePath = text }, cmdutil.ExitEngine, "llamactl build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, _, _ := testOptions(t, &proc.Replay{Commands: recordedEngine(t, false)})
			statFor(o)
			o.Model, o.DryRun = model, true
			c.set(o)
			err := Run(context.Background(), o)
			if cmdutil.ExitCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %v (code %d), want code %d and %q", err, cmdutil.ExitCode(err), c.code, c.msg)
			}
		})
	}
}

// standIn is an engine that replays a recorded real OOM log on its first
// launch (llama.cpp PR #26297's compute-buffer failure) and then behaves
// like a server that runs until stopped.
type standIn struct {
	proc.Replay
	mu       sync.Mutex
	launches [][]string
	oomLog   string
	running  bool
}

func (s *standIn) up() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

func (s *standIn) Run(ctx context.Context, c proc.Cmd) (proc.Result, error) {
	if !slices.Contains(c.Args, "-m") {
		return s.Replay.Run(ctx, c)
	}
	s.mu.Lock()
	s.launches = append(s.launches, c.Args)
	n := len(s.launches)
	s.mu.Unlock()
	if n == 1 {
		return proc.Result{Stderr: []byte(s.oomLog), ExitCode: 1}, nil
	}
	if c.Stderr != nil {
		fmt.Fprintln(c.Stderr, "load_tensors:   CPU_Mapped model buffer size =     5.51 MiB")
	}
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	<-ctx.Done()
	return proc.Result{ExitCode: -1}, nil
}

// fakeHTTP answers like llama-server while up() says the stand-in runs.
type fakeHTTP struct {
	mu    sync.Mutex
	calls []string
	up    func() bool
}

func (h *fakeHTTP) Do(ctx context.Context, method, url string, body []byte) (int, []byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, method+" "+url)
	if h.up == nil || !h.up() {
		return 0, nil, fmt.Errorf("connection refused")
	}
	if strings.HasSuffix(url, "/completion") {
		return http.StatusOK, []byte(`{"content":" world","tokens_predicted":8,"timings":{"prompt_per_second":100,"predicted_per_second":50}}`), nil
	}
	return http.StatusOK, []byte(`{"status":"ok"}`), nil
}

func TestOOMRetryWithRecordedLog(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	si := &standIn{Replay: proc.Replay{Commands: recordedEngine(t, true)}, oomLog: fixture(t, "gpu-out-of-memory-compute-buffer-multi-gpu-llamacpp-pr26297-win.log")}
	o, out, _ := testOptions(t, si)
	statFor(o)
	h := &fakeHTTP{up: si.up}
	o.HTTP = h
	o.F.IO.JSON = true
	o.Model, o.Prompt, o.NPredict = model, "hello", 8
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(si.launches) != 2 {
		t.Fatalf("launches = %d", len(si.launches))
	}
	ub := func(a []string) string { return a[slices.Index(a, "-ub")+1] }
	if ub(si.launches[0]) != "512" || ub(si.launches[1]) != "256" {
		t.Errorf("ubatch %s then %s, want 512 then 256", ub(si.launches[0]), ub(si.launches[1]))
	}
	var d Doc
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Attempts) != 2 || d.Attempts[0].OOM == nil || d.Attempts[0].OOM.Stage != "compute" || !strings.Contains(d.Attempts[0].Change, "-ub 512 → 256") {
		t.Errorf("attempts = %+v", d.Attempts)
	}
	if d.Completion == nil || d.Completion.TokensPredicted != 8 || d.Plan.UBatch != 256 {
		t.Errorf("doc = %+v", d)
	}
	if !slices.Contains(h.calls, "POST http://127.0.0.1:18080/completion") {
		t.Errorf("http calls = %v", h.calls)
	}
}

// A failure that is not OOM goes through the failure knowledge base and
// returns the engine exit code class.
func TestEngineFailureExplained(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	rec := recordedEngine(t, false)
	r := &exitingEngine{Replay: proc.Replay{Commands: rec}, log: "error: unknown argument: --bogus\n"}
	o, _, _ := testOptions(t, r)
	statFor(o)
	o.HTTP = &fakeHTTP{}
	o.Model, o.Prompt = model, "hi"
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), "unknown argument") {
		t.Errorf("err = %v", err)
	}
}

type exitingEngine struct {
	proc.Replay
	log string
}

func (e *exitingEngine) Run(ctx context.Context, c proc.Cmd) (proc.Result, error) {
	if !slices.Contains(c.Args, "-m") {
		return e.Replay.Run(ctx, c)
	}
	return proc.Result{Stderr: []byte(e.log), ExitCode: 1}, nil
}

// jsonRunOptions: a run of a small generated llama model with --json
// against the recorded engine, whose first (out-of-memory) launch is skipped.
func jsonRunOptions(t *testing.T) (*Options, *strings.Builder) {
	t.Helper()
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	si := &standIn{Replay: proc.Replay{Commands: recordedEngine(t, false)}}
	si.launches = [][]string{nil} // skip the OOM launch
	o, out, _ := testOptions(t, si)
	statFor(o)
	o.HTTP = &fakeHTTP{up: si.up}
	o.F.IO.JSON = true
	o.Model, o.Prompt = model, "hi"
	return o, out
}

func TestPlanCache(t *testing.T) {
	o, out := jsonRunOptions(t)
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(o.Cache.Dir)
	if len(entries) != 1 {
		t.Fatalf("cache has %d entries", len(entries))
	}
	out.Reset()
	o.DryRun, o.Prompt = true, ""
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var d Doc
	json.Unmarshal([]byte(out.String()), &d)
	if !d.FromCache {
		t.Error("second run did not use the remembered plan")
	}
	// A remembered plan that no longer fits is not used.
	p := filepath.Join(o.Cache.Dir, entries[0].Name())
	var cp CachedPlan
	b, _ := os.ReadFile(p)
	json.Unmarshal(b, &cp)
	cp.Plan.Ctx = 1 << 26 // 64 Mi cells of KV: far beyond the 16000 MiB host
	b, _ = json.Marshal(cp)
	os.WriteFile(p, b, 0o644)
	out.Reset()
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	d = Doc{}
	json.Unmarshal([]byte(out.String()), &d)
	if d.FromCache || d.Plan.Ctx != 4096 || !strings.Contains(strings.Join(d.Reasons, " "), "no longer fits") {
		t.Errorf("stale cache: from_cache %v ctx %d reasons %q", d.FromCache, d.Plan.Ctx, d.Reasons)
	}
	out.Reset()
	o.Retune = true
	Run(context.Background(), o)
	d = Doc{}
	json.Unmarshal([]byte(out.String()), &d)
	if d.FromCache {
		t.Error("--retune used the remembered plan")
	}
}

// Each run plans once: a fresh plan, a remembered plan that still fits
// (checked in the same pass that gives the reasons and runner-ups), one
// that no longer fits, and --retune.
func TestOnePlanPerRun(t *testing.T) {
	o, out := jsonRunOptions(t)
	passes := 0
	o.MakePlan = func(m *gguf.Model, devs []engine.Device, host plan.Host, req plan.Request, caps engine.Caps) (plan.Result, error) {
		passes++
		return plan.Make(m, devs, host, req, caps)
	}
	run := func(what string, fromCache bool) {
		t.Helper()
		out.Reset()
		passes = 0
		if err := Run(context.Background(), o); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var d Doc
		if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if passes != 1 || d.FromCache != fromCache {
			t.Errorf("%s: %d planning passes (want 1), from_cache %v (want %v)", what, passes, d.FromCache, fromCache)
		}
	}
	run("fresh launch", false)
	o.DryRun, o.Prompt = true, ""
	run("remembered plan", true)
	entries, _ := os.ReadDir(o.Cache.Dir)
	if len(entries) != 1 {
		t.Fatalf("cache has %d entries", len(entries))
	}
	p := filepath.Join(o.Cache.Dir, entries[0].Name())
	var cp CachedPlan
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	cp.Plan.Ctx = 1 << 26 // far beyond the host's memory
	b, _ = json.Marshal(cp)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	run("stale remembered plan", false)
	o.Retune = true
	run("--retune", false)
}

// With CUDA devices, free memory comes from llamactl's NVML child probe.
func TestDryRunUsesNVML(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	rec := recordedEngine(t, true)
	rec["/bin/llamactl __probe nvml"] = proc.Recording{Stdout: `{"schema":1,"status":"ok","gpus":[{"index":0,"name":"NVIDIA GeForce RTX 4090 Laptop GPU","total_mib":16376,"free_mib":9000}]}`}
	o, out, _ := testOptions(t, &proc.Replay{Commands: rec})
	statFor(o)
	o.F.Executable = func() (string, error) { return "/bin/llamactl", nil }
	o.F.IO.JSON = true
	o.Model, o.DryRun = model, true
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var d Doc
	json.Unmarshal([]byte(out.String()), &d)
	if d.Predicted.Devices[0].FreeMiB != 9000 || !slices.Contains(d.Reasons, "free GPU memory from NVML") {
		t.Errorf("devices %+v reasons %q", d.Predicted.Devices, d.Reasons)
	}
}

// A model that cannot fit is not started (exit 1) unless the user forces it.
func TestDoesNotFitIsNotStarted(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	si := &standIn{Replay: proc.Replay{Commands: recordedEngine(t, false)}}
	o, out, _ := testOptions(t, si)
	statFor(o)
	o.HostInfo = func(context.Context) (plan.Host, error) {
		return plan.Host{AvailableMiB: 100, PhysicalCores: 1, LogicalCores: 1}, nil
	}
	o.HTTP = &fakeHTTP{up: si.up}
	o.Model, o.Prompt = model, "hi"
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings || !strings.Contains(err.Error(), "does not fit") || len(si.launches) != 0 {
		t.Errorf("err = %v, launches %d", err, len(si.launches))
	}
	if !strings.Contains(out.String(), "host needs") {
		t.Errorf("the plan shown does not say why:\n%s", out)
	}
}

// A dry run of a plan that does not fit exits 1 like the launch would
// (docs/run.md), in text and in --json.
func TestDryRunThatDoesNotFitExits1(t *testing.T) {
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama"})
	for _, js := range []bool{false, true} {
		o, out, _ := testOptions(t, &proc.Replay{Commands: recordedEngine(t, false)})
		statFor(o)
		o.HostInfo = func(context.Context) (plan.Host, error) {
			return plan.Host{AvailableMiB: 1, PhysicalCores: 4, LogicalCores: 8}, nil
		}
		o.F.IO.JSON = js
		o.Model, o.DryRun = model, true
		err := Run(context.Background(), o)
		if cmdutil.ExitCode(err) != cmdutil.ExitFindings || out.Len() == 0 {
			t.Errorf("json=%v: exit %d (%v), %d bytes of plan; want exit 1 and the plan", js, cmdutil.ExitCode(err), err, out.Len())
		}
	}
}

// The printed command can be pasted into a shell: a model path with a space
// or a quote is quoted.
func TestDryRunCommandIsShellQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my models")
	os.MkdirAll(dir, 0o755)
	model := genModel(t, dir, ggufwrite.Config{Arch: "llama"})
	odd := filepath.Join(dir, "it's.gguf")
	if err := os.Rename(model, odd); err != nil {
		t.Fatal(err)
	}
	o, out, _ := testOptions(t, &proc.Replay{Commands: recordedEngine(t, false)})
	statFor(o)
	o.Model, o.DryRun = odd, true
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// sh quoting on Unix, PowerShell quoting on Windows (what a user there pastes into).
	want := "-m '" + strings.ReplaceAll(odd, "'", `'\''`) + "'"
	if runtime.GOOS == "windows" {
		want = "-m '" + strings.ReplaceAll(odd, "'", "''") + "'"
	}
	if !strings.Contains(out.String(), "command: llama-server") || !strings.Contains(out.String(), want) {
		t.Errorf("command line not quoted for a shell, want %s in:\n%s", want, out)
	}
}

// A failure the knowledge base knows is shown by the findings printer, in
// the output language: the error, the finding's title, cause, fix and
// every command; one it does not know shows the engine's last lines and
// how to see the rest. Both exit with the engine class.
func TestEngineFailureFindings(t *testing.T) {
	kb := failures.Default()
	const known = "error: invalid argument: --draft-max\n"
	for _, l := range []string{"", "zh-CN"} {
		cat := texts(l)
		err := engineFailure(cat, known, combinedLog(""), errors.New("llama-server exited with status 1"))
		msg := err.Error()
		d := kb.DiagnoseString(known)
		if cmdutil.ExitCode(err) != cmdutil.ExitEngine || len(d.Findings) == 0 || !strings.HasPrefix(msg, "llama-server exited with status 1\n") {
			t.Fatalf("%q: exit %d, %d findings:\n%s", l, cmdutil.ExitCode(err), len(d.Findings), msg)
		}
		fd := kb.Translator(cat.Lang()).Finding(d.Findings[0])
		want := []string{fd.Title, cat.T("fail.cause", "text", fd.Cause), cat.T("fail.fix", "text", fd.Fix)}
		for _, c := range fd.Commands {
			want = append(want, "    "+c)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: message lacks %q:\n%s", l, w, msg)
			}
		}
		if strings.Contains(msg, cat.T("fail.last-output")) || strings.Contains(msg, "\x1b") {
			t.Errorf("%q: explained failure shows the raw tail or colour:\n%s", l, msg)
		}

		err = engineFailure(cat, "", combinedLog("one\ntwo\n"), errors.New("llama-server exited with status 1"))
		msg = err.Error()
		for _, w := range []string{cat.T("fail.last-output"), "\n  one\n  two\n", cat.T("fail.hint")} {
			if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(msg, w) {
				t.Errorf("%q: unexplained failure lacks %q (exit %d):\n%s", l, w, cmdutil.ExitCode(err), msg)
			}
		}
	}
}

type combinedLog string

func (c combinedLog) Combined() string { return string(c) }
