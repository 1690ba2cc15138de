package runcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/plan"
)

// validate checks the flags alone, before anything is read or started
// (NewCmd calls it in RunE, before runF or Run): each error is a usage
// error in the chosen language.
func (o *Options) validate() error {
	t := o.t
	if o.FlashAttn != "" && o.FlashAttn != "on" && o.FlashAttn != "off" {
		return cmdutil.UsageErrorf("%s", t.T("err.flash-attn", "value", fmt.Sprintf("%q", o.FlashAttn)))
	}
	if o.CacheType != "" && !plan.KnownCacheType(o.CacheType) {
		return cmdutil.UsageErrorf("%s", t.T("err.cache-type", "value", fmt.Sprintf("%q", o.CacheType)))
	}
	if o.Ctx > plan.MaxCtx {
		return cmdutil.UsageErrorf("%s", t.T("err.ctx", "ctx", o.Ctx, "max", plan.MaxCtx))
	}
	if o.Port < 0 || o.Port > 65535 {
		return cmdutil.UsageErrorf("%s", t.T("err.port", "port", o.Port))
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--batch", o.Batch}, {"--ubatch", o.UBatch}, {"--threads", o.Threads}} {
		if n.v < 0 {
			return cmdutil.UsageErrorf("%s", t.T("err.negative", "flag", n.flag, "value", n.v))
		}
	}
	if o.NGL < -1 {
		return cmdutil.UsageErrorf("%s", t.T("err.ngl", "ngl", o.NGL))
	}
	if o.Batch > 0 && o.UBatch > o.Batch {
		return cmdutil.UsageErrorf("%s", t.T("err.ubatch", "ubatch", o.UBatch, "batch", o.Batch))
	}
	for _, w := range o.RPC {
		if _, port, err := net.SplitHostPort(w); err != nil || port == "" {
			return cmdutil.UsageErrorf("%s", t.T("err.rpc-not-hostport", "value", w))
		}
	}
	return nil
}

// models are the model to run and the draft (--draft), read from their
// GGUF headers.
type models struct {
	file  *gguf.File
	model gguf.Model
	draft *gguf.Model // nil without --draft
}

// readModels reads the model and the draft; a draft whose tokenizer
// differs is a usage error.
func (o *Options) readModels() (models, error) {
	t := o.t
	gf, m, err := openModel(t, o.Model)
	if err != nil {
		return models{}, err
	}
	mods := models{file: gf, model: m}
	if o.Draft == "" {
		return mods, nil
	}
	_, dm, err := openModel(t, o.Draft)
	if err != nil {
		return models{}, err
	}
	if msg := tokenizerMismatch(t, m.Tokenizer, dm.Tokenizer); msg != "" {
		return models{}, cmdutil.UsageErrorf("%s", t.T("err.draft", "draft", o.Draft, "model", o.Model, "why", msg))
	}
	mods.draft = &dm
	return mods, nil
}

// rig is the engine and the machine it runs on: what a plan is sized to.
type rig struct {
	eng  *engine.Engine
	devs []engine.Device
	host plan.Host
	// env is the engine's environment; nil inherits llamactl's.
	env []string
	// nvmlNote says where the devices' free memory came from ("" when the
	// engine's own figures stand).
	nvmlNote string
}

// gatherRig finds and probes the engine, lists its devices (RPC workers
// included, free memory corrected by NVML) and reads the host.
func (o *Options) gatherRig(ctx context.Context) (rig, error) {
	f, t := o.F, o.t
	loc := engine.Locator{Flag: o.EnginePath, Getenv: f.Getenv, ReadFile: o.ReadFile, Stat: o.Stat, CacheDir: o.CacheDir, Runner: f.Runner}
	path, source, err := loc.Find()
	if err != nil {
		return rig{}, cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
	}
	eng, err := engine.Probe(ctx, f.Runner, path, source)
	if err != nil {
		return rig{}, cmdutil.Errorf(cmdutil.ExitEngine, "%s", t.T("err.engine-probe", "path", path, "source", source, "err", err))
	}
	rg := rig{eng: eng}
	if err := o.listDevices(ctx, &rg); err != nil {
		return rig{}, err
	}
	if rg.host, err = o.HostInfo(ctx); err != nil {
		return rig{}, cmdutil.Errorf(cmdutil.ExitInternal, "%s", t.T("err.host-memory", "err", err))
	}
	return rg, nil
}

// listDevices fills rg.devs from the engine (--list-devices, with the RPC
// workers); with CUDA devices, NVML's free memory (llamactl's child probe)
// replaces the engine's when the two agree on the GPUs.
func (o *Options) listDevices(ctx context.Context, rg *rig) error {
	f := o.F
	devs, err := rg.eng.ListDevicesRPC(ctx, f.Runner, o.RPC)
	if te := engine.Texter(nil); errors.As(err, &te) {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%s", te.In(engine.Texts(o.t.Lang())))
	}
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
	}
	rg.devs = devs
	if !hasCUDA(devs) {
		return nil
	}
	self, err := f.Executable()
	if err != nil {
		return nil
	}
	rep, err := engine.NVML(ctx, f.Runner, self)
	if err != nil {
		return nil
	}
	var mg engine.NVMLMerge
	rg.devs, mg = engine.MergeNVML(devs, rep)
	switch {
	case mg.Used:
		rg.nvmlNote = plan.T("reason.nvml")
		rg.env = append(f.Environ(), "CUDA_DEVICE_ORDER=PCI_BUS_ID")
	case mg.NVMLGPUs > 0:
		rg.nvmlNote = plan.T("reason.nvml-mismatch", "nvml", mg.NVMLGPUs, "engine", mg.EngineCUDA)
	}
	return nil
}

// session is one `llamactl run` from its plan on: the inputs, the plan
// and the document that --json prints.
type session struct {
	o    *Options
	mods models
	rig  rig
	req  plan.Request
	key  string // the plan cache's key
	port int    // 0 in a dry run without --port
	doc  Doc
	// learned is each device's free memory as out-of-memory failures
	// proved it (recoverOOM), in MiB, margin added back.
	learned map[string]uint64
}

// request is what the user pinned, as the planner reads it.
func (s *session) request() plan.Request {
	o := s.o
	return plan.Request{Ctx: o.Ctx, NGL: o.NGL, Batch: o.Batch, UBatch: o.UBatch, Threads: o.Threads, CacheType: o.CacheType,
		FlashAttn: o.FlashAttn, Parallel: 1, Draft: s.mods.draft}
}

// cacheKey names the remembered plan: the model, the devices, the engine
// build and every flag that shapes the plan.
func (s *session) cacheKey() string {
	o := s.o
	userFlags := fmt.Sprintf("ctx=%d ngl=%d b=%d ub=%d t=%d ct=%s fa=%s draft=%s mmap=%v rpc=%s", o.Ctx, o.NGL, o.Batch, o.UBatch, o.Threads, o.CacheType, o.FlashAttn, o.Draft, !o.NoMmap, strings.Join(o.RPC, ","))
	return CacheKey(s.mods.file, s.mods.model, s.rig.devs, s.rig.eng.Build, userFlags)
}

// makePlan plans for the memory free now, in one pass of the planner
// that also checks the plan remembered for this model, devices, engine and
// flags: when it still fits as it is, that one is launched unchanged; the
// pass gives the reasons and runner-ups either way. It fills s.doc.
func (s *session) makePlan() error {
	o, rg, m := s.o, &s.rig, &s.mods.model
	s.req, s.key = s.request(), s.cacheKey()
	if o.Retune {
		o.Cache.Forget(s.key)
	}
	req := s.req
	cached, haveCache := o.Cache.Load(s.key)
	if haveCache {
		s.req.Calibration = cached.Calibration
		req.Calibration, req.Remembered = cached.Calibration, &cached.Plan
	}
	res, err := o.MakePlan(m, rg.devs, rg.host, req, rg.eng.Caps)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	var cacheNote string
	if haveCache {
		if res.Kept {
			cacheNote = plan.T("reason.cache-used")
		} else {
			haveCache = false
			cacheNote = plan.T("reason.cache-stale")
		}
	}
	s.doc = Doc{Schema: 1, Engine: EngineDoc{Path: rg.eng.Path, Version: rg.eng.Version, Build: rg.eng.Build, Source: rg.eng.Source},
		Model: modelDoc(o.Model, *m), Plan: res.Plan, Predicted: res.Predicted, Reasons: res.Reasons, Alternatives: res.Alternatives, Fits: res.Fits,
		FromCache: haveCache}
	if cacheNote != "" {
		s.doc.Reasons = append([]string{cacheNote}, s.doc.Reasons...)
	}
	if rg.nvmlNote != "" {
		s.doc.Reasons = append(s.doc.Reasons, rg.nvmlNote)
	}
	return nil
}

// choosePort is --port, else a free port for a launch (a dry run shows
// no port).
func (s *session) choosePort() error {
	s.port = s.o.Port
	if s.port != 0 || s.o.DryRun {
		s.doc.Argv = s.argv(s.doc.Plan)
		return nil
	}
	var err error
	if s.port, err = s.o.FreePort(); err != nil {
		return cmdutil.Errorf(cmdutil.ExitInternal, "%s", s.o.t.T("err.no-port", "err", err))
	}
	s.doc.Argv = s.argv(s.doc.Plan)
	return nil
}

// argv is llama-server's command line for plan p.
func (s *session) argv(p plan.Plan) []string {
	o := s.o
	ao := plan.ArgvOptions{Model: o.Model, Host: o.Host, Port: s.port, Draft: o.Draft, DraftMax: o.DraftMax, Extra: o.Extra, NoMmap: o.NoMmap, RPC: o.RPC}
	if p.Embedding {
		ao.Pooling = s.mods.model.Pooling
	}
	return plan.Argv(p, s.rig.eng.Caps, ao)
}

// show prints the plan (--json: the document, for a dry run) and says
// whether run is done: a dry run, or a plan that does not fit even at the
// smallest context (exit 1 either way, unless --ngl/--ctx force it).
func (s *session) show() (done bool, err error) {
	o, f, doc := s.o, s.o.F, s.doc
	notFit := !doc.Fits && o.NGL < 0 && o.Ctx == 0
	if o.DryRun && f.IO.JSON {
		if err := ui.WriteJSON(f.IO.Out, doc); err != nil || !notFit {
			return true, err
		}
		return true, cmdutil.Exit(cmdutil.ExitFindings)
	}
	if !f.IO.JSON {
		printPlan(f, o, doc)
	}
	if notFit {
		return true, cmdutil.Errorf(cmdutil.ExitFindings, "%s", o.pt.T("run.not-fit", "model", o.Model))
	}
	return o.DryRun, nil
}

// replan plans again with some devices' free memory lowered to what the
// engine could really allocate there (s.learned: an out-of-memory failure
// proved the reported figure wrong); what the user pinned stays.
func (s *session) replan() (plan.Result, bool) {
	ds := slices.Clone(s.rig.devs)
	for i := range ds {
		if v, ok := s.learned[ds[i].ID]; ok {
			ds[i].FreeMiB = v
		}
	}
	r, err := s.o.MakePlan(&s.mods.model, ds, s.rig.host, s.req, s.rig.eng.Caps)
	return r, err == nil && r.Fits
}
