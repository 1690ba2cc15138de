package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/proc"
)

// fakeStage skips with skip, else runs: it takes 2 s of the fake clock,
// sets its detail and returns err.
type fakeStage struct {
	r            *runner
	name, skip   string
	detail       string
	err          error
	ran          *[]string
	clock        *time.Time
	cancelOnRun  context.CancelFunc
	detailOnFail bool
}

func (s fakeStage) Name() string                { return s.name }
func (s fakeStage) Skip(context.Context) string { return s.skip }
func (s fakeStage) Run(context.Context) error {
	*s.ran = append(*s.ran, s.name)
	*s.clock = s.clock.Add(2 * time.Second)
	if s.cancelOnRun != nil {
		s.cancelOnRun()
	}
	if s.err == nil || s.detailOnFail {
		s.r.cur.Detail = s.detail
	}
	return s.err
}

func fakeRunner() (*runner, *time.Time) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := &runner{res: &Result{Plan: plan.Plan{BuildDir: "/b"}}}
	r.deps.Now = func() time.Time { return clock }
	return r, &clock
}

// One runner records every stage: skipped with its reason, ok with its
// detail and time, failed with the error's message when the stage set no
// detail; a failure stops the pipeline and names the stage.
func TestRunStagesRecordsEachStage(t *testing.T) {
	r, clock := fakeRunner()
	var ran []string
	stages := []Stage{
		fakeStage{r: r, name: "configure", skip: "plan unchanged", ran: &ran, clock: clock},
		fakeStage{r: r, name: "compile", detail: "up to date", ran: &ran, clock: clock},
		fakeStage{r: r, name: "verify", err: errorf(Failed, "no llama-cli"), ran: &ran, clock: clock},
		fakeStage{r: r, name: "manifest", ran: &ran, clock: clock},
	}
	err := r.runStages(context.Background(), stages, 1)
	if kindOf(err) != Failed || r.res.Failed != "verify" {
		t.Fatalf("err %v, failed stage %q", err, r.res.Failed)
	}
	want := []Step{
		{Name: "configure", Status: "skipped", Detail: "plan unchanged", Attempt: 1},
		{Name: "compile", Status: "ok", Detail: "up to date", Seconds: 2, Attempt: 1},
		{Name: "verify", Status: "failed", Detail: "no llama-cli", Seconds: 2, Attempt: 1},
	}
	if !reflect.DeepEqual(r.res.Steps, want) {
		t.Errorf("steps\n got %+v\nwant %+v", r.res.Steps, want)
	}
	if !reflect.DeepEqual(ran, []string{"compile", "verify"}) {
		t.Errorf("ran %v", ran)
	}
}

// After Ctrl-C no stage starts, and a stage that fails because it was
// stopped returns the interrupt, not its own error.
func TestRunStagesStopsAtInterrupt(t *testing.T) {
	r, clock := fakeRunner()
	var ran []string
	ctx, cancel := context.WithCancel(context.Background())
	stages := []Stage{
		fakeStage{r: r, name: "compile", err: errorf(Failed, "compile failed (exit 1)"), detail: "killed", detailOnFail: true, ran: &ran, clock: clock, cancelOnRun: cancel},
		fakeStage{r: r, name: "verify", ran: &ran, clock: clock},
	}
	err := r.runStages(ctx, stages, 1)
	if kindOf(err) != Interrupted || r.res.Failed != "compile" || len(r.res.Steps) != 1 || r.res.Steps[0].Detail != "killed" {
		t.Errorf("err %v, failed %q, steps %+v", err, r.res.Failed, r.res.Steps)
	}
	err = r.runStages(ctx, stages[1:], 0)
	if kindOf(err) != Interrupted || !reflect.DeepEqual(ran, []string{"compile"}) {
		t.Errorf("a stage started after the interrupt: %v, ran %v", err, ran)
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal("the context was not cancelled: the check proves nothing")
	}
}

// The pipeline for a plan: what cannot apply is left out.
func TestStageNames(t *testing.T) {
	win := plan.Plan{OS: "windows", Backend: "cuda", VCVars: &plan.VCVars{Path: "vcvarsall.bat"},
		Patches: []plan.AppliedPatch{{ID: "build-info"}, {ID: "x", Diff: "--- a\n+++ b\n"}}}
	cases := []struct {
		p    plan.Plan
		o    Options
		want []string
	}{
		{plan.Plan{OS: "linux", Backend: "cpu"}, Options{}, []string{"plan", "configure", "compile", "verify", "manifest"}},
		{win, Options{}, []string{"plan", "patch", "msvc-environment", "configure", "compile", "cuda-runtime-dlls", "verify", "manifest"}},
		{plan.Plan{OS: "linux", Backend: "cuda"}, Options{StopAfter: "configure"}, []string{"plan", "configure", "manifest"}},
		{plan.Plan{OS: "linux", Backend: "cuda"}, Options{StopAfter: "cuda-object"}, []string{"plan", "configure", "compile", "manifest"}},
	}
	for _, c := range cases {
		if got := StageNames(c.p, c.o); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s/%s %+v: %v, want %v", c.p.OS, c.p.Backend, c.o, got, c.want)
		}
	}
}

// An --out that cannot be written (here a file in the way) is the user's
// folder, not a llamactl failure: BadInput (exit 2), the manifest stage
// failed and named, the folder and the system's reason in the message.
func TestManifestStageOutNotWritable(t *testing.T) {
	r, _ := fakeRunner()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "llama-cli"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "dist")
	if err := os.WriteFile(out, []byte("a file, not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.res.BinDir, r.opts.OutDir = bin, out
	r.deps.Runner = &proc.Replay{}
	err := r.runStages(context.Background(), []Stage{manifestStage{r}}, 0)
	if kindOf(err) != BadInput || r.res.Failed != "manifest" {
		t.Fatalf("err %v (kind %v), failed stage %q", err, kindOf(err), r.res.Failed)
	}
	if msg := err.Error(); !strings.Contains(msg, "--out folder "+out) || !strings.Contains(msg, "llamactl build --out DIR") {
		t.Errorf("message %q", msg)
	}
	if s := r.res.Steps; len(s) != 1 || s[0].Status != "failed" || s[0].Detail != err.Error() {
		t.Errorf("steps %+v", s)
	}
}
