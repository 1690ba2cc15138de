package build

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/llamactl/llamactl/build/plan"
)

// A build is a pipeline of stages, one after the other, like goreleaser's
// pipes: each has a name (its step in Result.Steps and --json), can say
// why it does not run this time, and runs. One runner (runStage) times
// every stage, records it as ok, skipped (with the reason) or failed,
// and stops at Ctrl-C.
//
// The order, for one build (source.go's FetchSource, then stages):
//
//	fetch → verify-source → plan → patch → msvc-environment → configure → compile → cuda-runtime-dlls → verify → manifest
//
// fetch and verify-source get the tree the plan reads (skipped for
// --source and a verified cached tree); the command passes their steps to
// Run (Options.SourceSteps). The plan comes once (Run, Deps.MakePlan): a
// blocked plan runs nothing. patch, msvc-environment, configure and compile are one attempt;
// after a failed configure or compile, --heal re-plans and runs the
// attempt again (at most Options.MaxHeal times).
type Stage interface {
	// Name is the stage's step name ("configure").
	Name() string
	// Skip says why the stage does not run this time, or "" to run it.
	Skip(ctx context.Context) string
	// Run does the work; it fills the stage's step (runner.cur) with its
	// detail, command and exit code, and returns an *Error on failure.
	Run(ctx context.Context) error
}

// stages is the pipeline of a build with plan p: attempt's stages, then
// the finishing ones. A stage that cannot apply to this plan is left out
// (no patch with a diff, no MSVC environment off Windows, no compile with
// --stop-after configure); one in the list that does not run records why.
func (r *runner) stages(p plan.Plan) (attempt, finish []Stage) {
	if slices.ContainsFunc(p.Patches, func(ap plan.AppliedPatch) bool { return ap.Diff != "" }) {
		attempt = append(attempt, patchStage{r})
	}
	if p.VCVars != nil {
		attempt = append(attempt, msvcStage{r})
	}
	attempt = append(attempt, configureStage{r})
	switch r.opts.StopAfter {
	case "configure":
	case "cuda-object":
		attempt = append(attempt, cudaObjectStage{r})
	default:
		attempt = append(attempt, compileStage{r})
	}
	if r.opts.StopAfter != "" {
		return attempt, []Stage{earlyManifestStage{r}}
	}
	if p.OS == "windows" && p.Backend == "cuda" {
		finish = append(finish, cudaRuntimeStage{r})
	}
	return attempt, append(finish, verifyStage{r}, manifestStage{r})
}

// StageNames are the names of the stages a build with plan p and options
// o runs, in order (docs/build.md; "plan" first).
func StageNames(p plan.Plan, o Options) []string {
	r := &runner{opts: o}
	a, f := r.stages(p)
	names := []string{"plan"}
	for _, s := range append(a, f...) {
		names = append(names, s.Name())
	}
	return names
}

// runStages runs stages in order until one fails; attempt numbers their
// steps (0: not part of a configure/compile attempt).
func (r *runner) runStages(ctx context.Context, stages []Stage, attempt int) error {
	for _, s := range stages {
		if err := r.runStage(ctx, s, attempt); err != nil {
			return err
		}
	}
	return nil
}

// runStage runs one stage and records its step: skipped with the reason,
// ok, or failed (Result.Failed names it). After Ctrl-C no stage starts,
// and a stage that fails then fails because it was stopped: the error is
// the interrupt, not the stage's.
func (r *runner) runStage(ctx context.Context, s Stage, attempt int) error {
	name := s.Name()
	if ctx.Err() != nil {
		r.res.Failed = name
		return interrupted(r.res.Plan.BuildDir)
	}
	start := r.deps.Now()
	r.cur = &Step{Name: name, Attempt: attempt}
	defer func() { r.cur = nil }()
	if why := s.Skip(ctx); why != "" {
		r.cur.Status, r.cur.Detail = "skipped", why
		r.record(start)
		return nil
	}
	err := s.Run(ctx)
	if err == nil {
		r.cur.Status = "ok"
		r.record(start)
		return nil
	}
	r.cur.Status = "failed"
	if r.cur.Detail == "" {
		var be *Error
		if errors.As(err, &be) {
			r.cur.Detail = be.Message
		} else {
			r.cur.Detail = err.Error()
		}
	}
	r.record(start)
	r.res.Failed = name
	if ctx.Err() != nil {
		return interrupted(r.res.Plan.BuildDir)
	}
	return err
}

// record appends the current step, timed from start.
func (r *runner) record(start time.Time) {
	s := *r.cur
	s.Seconds = roundSeconds(r.deps.Now().Sub(start))
	r.res.Steps = append(r.res.Steps, s)
}
