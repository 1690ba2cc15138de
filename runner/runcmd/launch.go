package runcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/launch"
	"github.com/llamactl/llamactl/runner/plan"
)

// launchAndVerify starts the engine (retrying out-of-memory failures with
// a smaller plan), compares its memory report with the prediction and
// remembers the plan, then answers --prompt or serves until Ctrl-C.
func (s *session) launchAndVerify(ctx context.Context) error {
	ctx, stop := s.o.Interrupt(ctx)
	defer stop()
	srv, err := s.start(ctx)
	if err != nil {
		return err
	}
	defer srv.Stop()
	rep := srv.Report()
	s.doc.Actual = &rep
	s.doc.URL = s.baseURL()
	compareAndRecord(s.o, &s.doc, rep, s.key, s.req.Calibration)
	switch {
	case s.o.Prompt != "" && s.doc.Plan.Embedding:
		return s.embed(ctx, srv)
	case s.o.Prompt != "":
		return s.complete(ctx, srv)
	}
	return s.serve(ctx, srv)
}

func (s *session) baseURL() string {
	return fmt.Sprintf("http://%s:%d", urlHost(s.o.Host), s.port)
}

// start launches the plan until the server is ready: after an
// out-of-memory failure it launches a smaller plan (recoverOOM), at most
// maxOOMRetries times; any other failure is explained (engineFailure).
func (s *session) start(ctx context.Context) (*launch.Server, error) {
	o, f := s.o, s.o.F
	var logw io.Writer
	if f.IO.Verbose && !f.IO.JSON {
		logw = f.IO.ErrOut
	}
	p := s.doc.Plan
	for attempt := 0; ; attempt++ {
		argv := s.argv(p)
		s.doc.Argv, s.doc.Plan = argv, p
		s.doc.Attempts = append(s.doc.Attempts, Attempt{Argv: argv})
		srv := launch.Start(ctx, launch.Options{Runner: f.Runner, Path: s.rig.eng.Path, Args: argv, Env: s.rig.env, Log: logw, BaseURL: s.baseURL(), HTTP: o.HTTP})
		err := srv.WaitReady(ctx, o.ReadyTimeout)
		if err == nil {
			return srv, nil
		}
		res := srv.Stop()
		if ctx.Err() != nil {
			return nil, cmdutil.Exit(cmdutil.ExitSignal)
		}
		rep := srv.Report()
		if rep.OOM != nil && attempt < maxOOMRetries {
			if np, change, ok := s.recoverOOM(p, rep); ok {
				last := &s.doc.Attempts[len(s.doc.Attempts)-1]
				last.OOM, last.Change = rep.OOM, change
				if !f.IO.JSON {
					ui.NewErrPrinter(f.IO).Line(ui.Warn, o.pt.T("run.oom", "line", rep.OOM.Line), o.pt.T("run.retry", "change", o.pt.Line(change)))
				}
				p = np
				continue
			}
		}
		return nil, engineFailure(o.t, srv.Tail(), res, err)
	}
}

// recoverOOM is the plan to launch after out-of-memory failure rep: a new
// plan for what the failing devices really held (s.learned, margin
// included) when that fits, else plan p reduced by what the failure
// needed (plan.Reduce). It says what changed, or false when nothing is
// left to give.
func (s *session) recoverOOM(p plan.Plan, rep launch.Report) (plan.Plan, string, bool) {
	if dev, got, lim, ok := learnedFree(&s.doc, rep); ok {
		if s.learned == nil {
			s.learned = map[string]uint64{}
		}
		s.learned[dev] = lim
		if r, fits := s.replan(); fits {
			change := plan.T("reduce.replan", "device", dev, "got", fmt.Sprintf("%.0f", got),
				"free", reportedFree(&s.doc, dev), "ngl", r.Plan.NGL, "ctx", r.Plan.Ctx, "kv", r.Plan.CacheK, "ub", r.Plan.UBatch)
			s.doc.Predicted = r.Predicted
			return r.Plan, change, true
		}
	}
	return plan.Reduce(p, &s.mods.model, rep.OOM.Stage, rep.OOM.NeedMiB, s.rig.eng.Caps.CacheTypes)
}

// embed answers --prompt with an embedding model: the vector's size and head.
func (s *session) embed(ctx context.Context, srv *launch.Server) error {
	f := s.o.F
	e, err := srv.Embed(ctx, s.o.Prompt)
	if err != nil {
		return requestFailure(ctx, err)
	}
	s.doc.Embedding = &e
	srv.Stop()
	if f.IO.JSON {
		return ui.WriteJSON(f.IO.Out, s.doc)
	}
	ui.NewPrinter(f.IO).Line(ui.OK, s.o.pt.T("run.embedding", "dims", e.Dimensions, "head", fmt.Sprint(e.Head)))
	return nil
}

// complete answers --prompt: the text and the speed.
func (s *session) complete(ctx context.Context, srv *launch.Server) error {
	o, f := s.o, s.o.F
	c, err := srv.Complete(ctx, o.Prompt, o.NPredict)
	if err != nil {
		return requestFailure(ctx, err)
	}
	s.doc.Completion = &c
	srv.Stop()
	if f.IO.JSON {
		return ui.WriteJSON(f.IO.Out, s.doc)
	}
	fmt.Fprintf(f.IO.Out, "%s%s\n", o.Prompt, c.Content)
	ui.NewPrinter(f.IO).Line(ui.OK, o.pt.T("run.tokens", "n", c.TokensPredicted, "tps", fmt.Sprintf("%.1f", c.TokensPerSecond), "pps", fmt.Sprintf("%.1f", c.PromptPerSecond)))
	return nil
}

// requestFailure is a failed request to the server: Ctrl-C, or the engine.
func requestFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return cmdutil.Exit(cmdutil.ExitSignal)
	}
	return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
}

// serve says where the server listens and waits until Ctrl-C or until the
// server stops by itself (then its exit code, explained).
func (s *session) serve(ctx context.Context, srv *launch.Server) error {
	o, f, t := s.o, s.o.F, s.o.t
	if f.IO.JSON {
		if err := ui.WriteJSON(f.IO.Out, s.doc); err != nil {
			return err
		}
	} else {
		ui.NewPrinter(f.IO).Line(ui.OK, o.pt.T("run.ready", "url", s.baseURL()))
	}
	res, err := srv.Wait(ctx)
	if err != nil && ctx.Err() != nil {
		return cmdutil.Exit(cmdutil.ExitSignal)
	}
	if res.ExitCode == 0 {
		return nil
	}
	why := errors.New(t.T("err.server-exit", "code", res.ExitCode))
	if len(o.RPC) > 0 {
		why = errors.New(t.T("err.server-exit-rpc", "code", res.ExitCode, "workers", strings.Join(o.RPC, ", ")))
	}
	err = engineFailure(t, srv.Tail(), res, why)
	if ee, ok := err.(*cmdutil.ExitError); ok && res.ExitCode > 0 && res.ExitCode < 126 {
		ee.Code = res.ExitCode // a server that ran and then stopped: its own exit code
	}
	return err
}
