package build

import (
	"context"
	"errors"
	"time"

	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
)

// The source pipeline: the stages that get the tree a build plans from,
// run by the same runner as the build's before the plan (the plan reads
// the tree):
//
//	fetch → verify-source
//
// fetch downloads the release archive into the cache (or keeps the one
// there); verify-source checks its sha256 against the lock's (or the one
// recorded on the first download) and unpacks it. Both are skipped, with
// the reason, for a --source checkout and for a tree already unpacked and
// verified in the cache.

// SourceOptions is where a build's tree comes from.
type SourceOptions struct {
	// Dir is --source: an existing tree, built as is.
	Dir string
	// Fetcher gets Pin (the pinned or --ref release) into its cache.
	Fetcher *engine.Fetcher
	Pin     engine.Pin
}

// Fetched is the source pipeline's outcome: the tree, the engine version
// found in it, and the pipeline's steps (Options.SourceSteps of the build).
type Fetched struct {
	Source engine.Source
	Engine plan.Engine
	Steps  []Step
	// Failed is the stage that failed ("fetch", "verify-source"), if any.
	Failed string
}

// FetchSource runs the source pipeline. The error is an *Error (Blocked:
// no network; Failed: a bad download or archive; Interrupted); the
// returned Fetched holds the steps as far as it got.
func FetchSource(ctx context.Context, deps Deps, o SourceOptions) (*Fetched, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	r := &runner{deps: deps, res: &Result{}}
	s := &sourceRun{runner: r, o: o}
	defer s.close()
	err := r.runStages(ctx, []Stage{fetchStage{s}, verifySourceStage{s}}, 0)
	out := &Fetched{Source: s.src, Steps: r.res.Steps, Failed: r.res.Failed}
	if err != nil {
		return out, asError(err)
	}
	if o.Dir != "" {
		out.Source = engine.Source{Dir: o.Dir}
		out.Engine = engine.DetectVersion(ctx, deps.Runner, o.Dir, engine.DefaultLock())
		return out, nil
	}
	out.Engine = engine.DetectVersion(ctx, deps.Runner, s.src.Dir, engine.DefaultLock())
	out.Engine.SHA256 = s.src.SHA256
	return out, nil
}

// sourceRun is the state the two source stages share: the cache entry,
// locked from fetch's check to the end of the pipeline.
type sourceRun struct {
	*runner
	o       SourceOptions
	entry   *engine.Entry
	openErr error
	src     engine.Source
}

func (s *sourceRun) close() {
	if s.entry != nil {
		s.entry.Close()
	}
}

// sourceError is a source stage's error as a build error: no network
// blocks the build (exit 1 as before); anything else fails it.
func sourceError(err error) error {
	if err == nil {
		return nil
	}
	k := Failed
	if errors.Is(err, engine.ErrOffline) {
		k = Blocked
	}
	return &Error{Kind: k, Message: err.Error(), Err: err}
}

// fetchStage gets the release archive into the cache.
type fetchStage struct{ *sourceRun }

func (fetchStage) Name() string { return "fetch" }

// Skip opens the cache entry (waiting for another llamactl filling it): a
// tree there already verified needs no download.
func (s fetchStage) Skip(ctx context.Context) string {
	if s.o.Dir != "" {
		return plan.Message("step-source-dir", s.o.Dir).Text
	}
	s.entry, s.openErr = s.o.Fetcher.Open(ctx, s.o.Pin)
	if s.openErr == nil && s.entry.Cached != nil {
		s.src = *s.entry.Cached
		return plan.Message("step-fetch-cached", s.entry.Dir()).Text
	}
	return ""
}

func (s fetchStage) Run(ctx context.Context) error {
	if s.openErr != nil {
		return sourceError(s.openErr)
	}
	kept, err := s.entry.Download(ctx)
	if kept != "" {
		s.cur.Detail = plan.Message("step-fetch-kept", kept).Text
	}
	return sourceError(err)
}

// verifySourceStage checks the archive's sha256 and unpacks it.
type verifySourceStage struct{ *sourceRun }

func (verifySourceStage) Name() string { return "verify-source" }

func (s verifySourceStage) Skip(context.Context) string {
	switch {
	case s.o.Dir != "":
		return plan.Message("step-source-dir", s.o.Dir).Text
	case s.entry != nil && s.entry.Cached != nil:
		date := "an unknown date"
		if at := s.entry.VerifiedAt; !at.IsZero() {
			date = at.UTC().Format("2006-01-02 15:04 UTC")
		}
		return plan.Message("step-verify-cached", s.entry.Dir(), date).Text
	}
	return ""
}

func (s verifySourceStage) Run(context.Context) error {
	src, err := s.entry.Verify()
	if err != nil {
		return sourceError(err)
	}
	s.src = src
	s.cur.Detail = "sha256 " + src.SHA256
	return nil
}
