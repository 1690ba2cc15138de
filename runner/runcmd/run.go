package runcmd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/shellquote"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/launch"
	"github.com/llamactl/llamactl/runner/plan"
)

// maxOOMRetries: relaunches after an out-of-memory failure.
const maxOOMRetries = 2

// Options are `llamactl run`'s inputs; the world is injected for tests.
type Options struct {
	F *cmdutil.Factory

	Model      string
	EnginePath string
	DryRun     bool
	Server     bool
	Host       string
	Port       int
	Ctx        uint64
	NGL        int
	Batch      int
	UBatch     int
	Threads    int
	CacheType  string
	FlashAttn  string
	Draft      string
	DraftMax   int
	Prompt     string
	NPredict   int
	Retune     bool
	NoMmap     bool
	Extra      []string
	// Lang is --lang: the language of the human output (zh-CN, en).
	Lang string
	// RPC are llama.cpp RPC workers (host:port) to offload layers to.
	RPC []string

	ReadyTimeout time.Duration
	// t and pt are run's and the plan's sentences in that language.
	t, pt *lang.Catalog

	// World.
	HostInfo func(context.Context) (plan.Host, error)
	HTTP     launch.HTTP
	Cache    PlanCache
	Stat     func(string) (os.FileInfo, error)
	ReadFile func(string) ([]byte, error)
	CacheDir string
	// Interrupt returns a context cancelled on Ctrl-C / SIGTERM.
	Interrupt func(context.Context) (context.Context, func())
	FreePort  func() (int, error)
}

// NewCmd builds `llamactl run`; runF, when given, replaces Run (a test
// captures the parsed Options with it).
func NewCmd(f *cmdutil.Factory, runF ...func(*Options) error) *cobra.Command {
	o := &Options{F: f, NGL: -1}
	cmd := &cobra.Command{
		Use:   "run MODEL.gguf [-- ENGINE ARGS...]",
		Short: "Size a GGUF model to this machine and start llama.cpp",
		Long: `Read the model, measure what memory is free, choose -ngl, context, batch, threads, flash
attention and KV cache type for speed within memory, start llama-server with explicit values,
and check the engine's own memory report against the prediction.

  llamactl run model.gguf --dry-run            show the plan and the command, start nothing
  llamactl run model.gguf --prompt "Hello"     start, answer one prompt, stop
  llamactl run model.gguf --server --port 8080 serve until Ctrl-C
  llamactl run model.gguf --ctx 32768 -- --jinja   pin the context, pass extra engine flags

Anything you pin (--ctx, --ngl, --cache-type, ...) is kept; the rest is chosen around it.
See docs/run.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Model = args[0]
			if err := o.chooseLang(); err != nil {
				return err
			}
			if n := cmd.ArgsLenAtDash(); n >= 0 {
				if n != 1 {
					return cmdutil.UsageErrorf("%s", o.t.T("err.one-model"))
				}
				o.Extra = args[1:]
			} else if len(args) > 1 {
				return cmdutil.UsageErrorf("%s", o.t.T("err.one-model-n", "n", len(args)))
			}
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](o)
			}
			return Run(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.EnginePath, "engine", "", "llama-server binary or its directory (default: last 'llamactl build', then PATH)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the plan and the engine command; start nothing")
	fl.BoolVar(&o.Server, "server", false, "keep the server running until Ctrl-C")
	fl.StringVar(&o.Host, "host", "127.0.0.1", "address the server listens on")
	fl.IntVar(&o.Port, "port", 0, "server port (default: a free port)")
	fl.Uint64Var(&o.Ctx, "ctx", 0, "context size (default: the largest that fits, up to the trained context)")
	fl.IntVar(&o.NGL, "ngl", -1, "layers on the GPU; -1 lets llamactl choose")
	fl.IntVar(&o.Batch, "batch", 0, "logical batch size -b (default 2048)")
	fl.IntVar(&o.UBatch, "ubatch", 0, "physical batch size -ub (default 512)")
	fl.IntVar(&o.Threads, "threads", 0, "CPU threads (default: physical cores)")
	fl.StringVar(&o.CacheType, "cache-type", "", "KV cache type: f16, q8_0, q4_0... (default: f16, q8_0 when it keeps layers on the GPU)")
	fl.StringVar(&o.FlashAttn, "flash-attn", "", "on or off (default: on when the engine supports it)")
	fl.StringVar(&o.Draft, "draft", "", "draft model for speculative decoding (its vocabulary must match)")
	fl.IntVar(&o.DraftMax, "draft-max", 0, "tokens to draft per step (passed as this engine names it)")
	fl.StringVar(&o.Prompt, "prompt", "", "answer this prompt once, print the text and tokens/s, then stop")
	fl.IntVar(&o.NPredict, "n-predict", 64, "tokens to generate for --prompt")
	fl.BoolVar(&o.Retune, "retune", false, "forget the remembered plan for this model, devices and engine, and plan again")
	fl.BoolVar(&o.NoMmap, "no-mmap", false, "load weights into RAM instead of mapping the file")
	cmdutil.AddLangFlag(cmd, &o.Lang)
	fl.StringSliceVar(&o.RPC, "rpc", nil, "RPC workers HOST:PORT[,...] (llamactl rpc serve) to split the layers over, by their free memory")
	return cmd
}

// chooseLang sets the texts of the human output from --lang and the
// environment; --json output stays English.
func (o *Options) chooseLang() error {
	l, err := o.F.ChooseLang(o.Lang, "llamactl run model.gguf --dry-run --lang zh-CN")
	if err != nil {
		return err
	}
	if o.F.IO.JSON {
		l = lang.EN
	}
	o.t, o.pt = texts(l), plan.Texts(l)
	return nil
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// texts is run's and gguf's own sentences (data/text.en.json) in l.
func texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

// Doc is `llamactl run --json` (schema 1, docs/run.md).
type Doc struct {
	Schema       int                `json:"schema"`
	Engine       EngineDoc          `json:"engine"`
	Model        ModelDoc           `json:"model"`
	Plan         plan.Plan          `json:"plan"`
	Predicted    plan.Prediction    `json:"predicted"`
	Argv         []string           `json:"argv"`
	Reasons      []string           `json:"reasons"`
	Alternatives []plan.Alternative `json:"alternatives,omitempty"`
	FromCache    bool               `json:"from_cache"`
	Fits         bool               `json:"fits"`
	Attempts     []Attempt          `json:"attempts,omitempty"`
	Actual       *launch.Report     `json:"actual,omitempty"`
	Completion   *launch.Completion `json:"completion,omitempty"`
	Embedding    *launch.Embedding  `json:"embedding,omitempty"`
	URL          string             `json:"url,omitempty"`
}

// EngineDoc identifies the engine.
type EngineDoc struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Build   int    `json:"build"`
	Source  string `json:"source"`
}

// ModelDoc summarises the model.
type ModelDoc struct {
	Path          string  `json:"path"`
	Architecture  string  `json:"architecture"`
	Name          string  `json:"name,omitempty"`
	FileType      string  `json:"file_type,omitempty"`
	Layers        int     `json:"layers"`
	ContextLength uint64  `json:"context_length"`
	SizeMiB       float64 `json:"size_mib"`
	VocabSize     uint64  `json:"vocab_size"`
	Embedding     bool    `json:"embedding_model"`
	Experts       uint64  `json:"expert_count,omitempty"`
}

// Attempt is one launch; OOM retries add more.
type Attempt struct {
	Argv   []string    `json:"argv"`
	OOM    *launch.OOM `json:"oom,omitempty"`
	Change string      `json:"change,omitempty"`
}

func (o *Options) defaults() {
	f := o.F
	if o.HostInfo == nil {
		o.HostInfo = SystemHost
	}
	if o.HTTP == nil {
		o.HTTP = launch.NetHTTP{}
	}
	if o.Stat == nil {
		o.Stat = os.Stat
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.CacheDir == "" {
		o.CacheDir = paths.CacheDir(runtime.GOOS, f.Getenv)
	}
	if o.Cache.Dir == "" && o.CacheDir != "-" && f.Getenv("LLAMACTL_NO_CACHE") == "" {
		o.Cache.Dir = filepath.Join(o.CacheDir, "plans")
	}
	if o.Interrupt == nil {
		o.Interrupt = func(ctx context.Context) (context.Context, func()) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}
	}
	if o.FreePort == nil {
		o.FreePort = launch.FreePort
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 10 * time.Minute // large models load slowly from disk
	}
	if o.NPredict <= 0 {
		o.NPredict = 64
	}
}

// Run plans and (unless --dry-run) launches.
func Run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	o.defaults()
	f := o.F
	if o.t == nil {
		if err := o.chooseLang(); err != nil {
			return err
		}
	}
	t, pt := o.t, o.pt
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
	gf, m, err := openModel(t, o.Model)
	if err != nil {
		return err
	}
	var draft *gguf.Model
	if o.Draft != "" {
		_, dm, err := openModel(t, o.Draft)
		if err != nil {
			return err
		}
		if msg := tokenizerMismatch(t, m.Tokenizer, dm.Tokenizer); msg != "" {
			return cmdutil.UsageErrorf("%s", t.T("err.draft", "draft", o.Draft, "model", o.Model, "why", msg))
		}
		draft = &dm
	}

	loc := engine.Locator{Flag: o.EnginePath, Getenv: f.Getenv, ReadFile: o.ReadFile, Stat: o.Stat, CacheDir: o.CacheDir, Runner: f.Runner}
	path, source, err := loc.Find()
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
	}
	eng, err := engine.Probe(ctx, f.Runner, path, source)
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%s", t.T("err.engine-probe", "path", path, "source", source, "err", err))
	}
	for _, w := range o.RPC {
		if _, port, err := net.SplitHostPort(w); err != nil || port == "" {
			return cmdutil.UsageErrorf("%s", t.T("err.rpc-not-hostport", "value", w))
		}
	}
	edevs, err := eng.ListDevicesRPC(ctx, f.Runner, o.RPC)
	if te := engine.Texter(nil); errors.As(err, &te) {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%s", te.In(engine.Texts(t.Lang())))
	}
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
	}
	var nvmlNote string
	var env []string // nil: the engine inherits llamactl's environment
	if hasCUDA(edevs) {
		if self, err := f.Executable(); err == nil {
			if rep, err := engine.NVML(ctx, f.Runner, self); err == nil {
				var mg engine.NVMLMerge
				edevs, mg = engine.MergeNVML(edevs, rep)
				switch {
				case mg.Used:
					nvmlNote = plan.T("reason.nvml")
					env = append(f.Environ(), "CUDA_DEVICE_ORDER=PCI_BUS_ID")
				case mg.NVMLGPUs > 0:
					nvmlNote = plan.T("reason.nvml-mismatch", "nvml", mg.NVMLGPUs, "engine", mg.EngineCUDA)
				}
			}
		}
	}
	var devs []plan.Device
	for _, d := range edevs {
		devs = append(devs, plan.Device{ID: d.ID, Name: d.Name, TotalMiB: d.TotalMiB, FreeMiB: d.FreeMiB})
	}
	host, err := o.HostInfo(ctx)
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitInternal, "%s", t.T("err.host-memory", "err", err))
	}
	caps := plan.Caps{FlashAttn: eng.Caps.Flags["-fa"] || eng.Caps.Flags["--flash-attn"], CacheTypes: eng.Caps.CacheTypes, CPUMoE: eng.Caps.CPUMoE,
		NoOpOffload: eng.Caps.Flags["--no-op-offload"]}
	req := plan.Request{Ctx: o.Ctx, NGL: o.NGL, Batch: o.Batch, UBatch: o.UBatch, Threads: o.Threads, CacheType: o.CacheType,
		FlashAttn: o.FlashAttn, Parallel: 1, Draft: draft}

	userFlags := fmt.Sprintf("ctx=%d ngl=%d b=%d ub=%d t=%d ct=%s fa=%s draft=%s mmap=%v rpc=%s", o.Ctx, o.NGL, o.Batch, o.UBatch, o.Threads, o.CacheType, o.FlashAttn, o.Draft, !o.NoMmap, strings.Join(o.RPC, ","))
	key := CacheKey(gf, m, devs, eng.Build, userFlags)
	if o.Retune {
		o.Cache.Forget(key)
	}
	cached, haveCache := o.Cache.Load(key)
	if haveCache {
		req.Calibration = cached.Calibration
	}
	res, err := plan.Make(&m, devs, host, req, caps)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	var cacheNote string
	if haveCache {
		// The remembered plan, checked against the memory free now.
		pinned := req
		cp := cached.Plan
		pinned.NGL, pinned.Ctx, pinned.Batch, pinned.UBatch = cp.NGL, cp.Ctx, cp.Batch, cp.UBatch
		pinned.Threads, pinned.CacheType, pinned.FlashAttn = cp.Threads, cp.CacheK, cp.FlashAttn
		if r, err := plan.Make(&m, devs, host, pinned, caps); err == nil && r.Fits {
			r.Plan.NCPUMoE, r.Plan.TensorSplit, r.Plan.ThreadsBatch = cp.NCPUMoE, cp.TensorSplit, cp.ThreadsBatch
			res.Plan, res.Predicted = r.Plan, r.Predicted
			cacheNote = plan.T("reason.cache-used")
		} else {
			haveCache = false
			cacheNote = plan.T("reason.cache-stale")
		}
	}
	doc := Doc{Schema: 1, Engine: EngineDoc{Path: eng.Path, Version: eng.Version, Build: eng.Build, Source: eng.Source},
		Model: modelDoc(o.Model, m), Plan: res.Plan, Predicted: res.Predicted, Reasons: res.Reasons, Alternatives: res.Alternatives, Fits: res.Fits,
		FromCache: haveCache}
	if cacheNote != "" {
		doc.Reasons = append([]string{cacheNote}, doc.Reasons...)
	}
	if nvmlNote != "" {
		doc.Reasons = append(doc.Reasons, nvmlNote)
	}
	port := o.Port
	if port == 0 && !o.DryRun {
		if port, err = o.FreePort(); err != nil {
			return cmdutil.Errorf(cmdutil.ExitInternal, "%s", t.T("err.no-port", "err", err))
		}
	}
	argvFor := func(p plan.Plan) []string {
		ao := plan.ArgvOptions{Model: o.Model, Host: o.Host, Port: port, Draft: o.Draft, DraftMax: o.DraftMax, Extra: o.Extra, NoMmap: o.NoMmap, RPC: o.RPC}
		if p.Embedding {
			ao.Pooling = m.Pooling
		}
		return plan.Argv(p, eng.Caps, ao)
	}
	doc.Argv = argvFor(doc.Plan)

	// A plan that does not fit even at the smallest context is exit 1, a
	// dry run's as a launch's, unless --ngl/--ctx force it.
	notFit := !doc.Fits && o.NGL < 0 && o.Ctx == 0
	if o.DryRun {
		if f.IO.JSON {
			if err := ui.WriteJSON(f.IO.Out, doc); err != nil || !notFit {
				return err
			}
			return cmdutil.Exit(cmdutil.ExitFindings)
		}
		printPlan(f, o, doc)
		if notFit {
			return cmdutil.Errorf(cmdutil.ExitFindings, "%s", pt.T("run.not-fit", "model", o.Model))
		}
		return nil
	}
	if notFit {
		if !f.IO.JSON {
			printPlan(f, o, doc)
		}
		return cmdutil.Errorf(cmdutil.ExitFindings, "%s", pt.T("run.not-fit", "model", o.Model))
	}
	if !f.IO.JSON {
		printPlan(f, o, doc)
	}
	// replan plans again with some devices' free memory lowered to what
	// the engine could really allocate there (an out-of-memory failure
	// proved the reported figure wrong); what the user pinned stays.
	replan := func(learned map[string]uint64) (plan.Result, bool) {
		ds := slices.Clone(devs)
		for i := range ds {
			if v, ok := learned[ds[i].ID]; ok {
				ds[i].FreeMiB = v
			}
		}
		r, err := plan.Make(&m, ds, host, req, caps)
		return r, err == nil && r.Fits
	}
	return launchAndVerify(ctx, o, eng, &m, &doc, argvFor, key, req.Calibration, env, replan)
}

// learnedFree reads a failed launch's report: the device that ran out of
// memory, how much the engine had allocated there before it failed (a
// lower bound of what the device really holds), and the free figure to
// plan with so that a new plan uses no more than that (the margin added
// back, since the planner keeps it free).
func learnedFree(doc *Doc, rep launch.Report) (dev string, gotMiB float64, planFree uint64, ok bool) {
	if rep.OOM == nil || rep.OOM.Device == "" {
		return "", 0, 0, false
	}
	dev = rep.OOM.Device
	for _, d := range doc.Predicted.Devices {
		if d.ID != dev {
			continue
		}
		got := rep.Devices[dev].Total()
		b := plan.Coef().Backend(dev)
		margin := math.Max(b.MarginMiB, b.MarginFraction*float64(d.FreeMiB))
		lim := uint64(math.Floor(got + margin + b.OverheadMiB))
		if lim >= d.FreeMiB {
			return "", 0, 0, false // nothing learned: the engine got what was reported
		}
		return dev, got, lim, true
	}
	return "", 0, 0, false
}

// ActualOf is what the engine reported for predicted device d: RPC
// workers' buffers are named by endpoint, the others by device ID.
func ActualOf(rep launch.Report, d plan.DeviceMem) launch.Usage {
	if strings.HasPrefix(d.ID, "RPC") {
		return rep.Devices[launch.RPCDeviceKey(d.Name)]
	}
	return rep.Devices[d.ID]
}

func reportedFree(doc *Doc, dev string) uint64 {
	for _, d := range doc.Predicted.Devices {
		if d.ID == dev {
			return d.FreeMiB
		}
	}
	return 0
}

func hasCUDA(ds []engine.Device) bool {
	for _, d := range ds {
		if strings.HasPrefix(d.ID, "CUDA") {
			return true
		}
	}
	return false
}

func modelDoc(path string, m gguf.Model) ModelDoc {
	return ModelDoc{Path: path, Architecture: m.Architecture, Name: m.Name, FileType: m.FileType, Layers: m.Layers,
		ContextLength: m.ContextLength, SizeMiB: round2(float64(m.Weights.Total) / (1 << 20)), VocabSize: m.Tokenizer.VocabSize,
		Embedding: m.Embedding, Experts: m.ExpertCount}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// tokenizerMismatch compares what speculative decoding needs identical.
func tokenizerMismatch(t *lang.Catalog, a, b gguf.Tokenizer) string {
	switch {
	case a.Model != b.Model:
		return t.T("draft.tokenizer", "a", fmt.Sprintf("%q", a.Model), "b", fmt.Sprintf("%q", b.Model))
	case a.VocabSize != b.VocabSize:
		return t.T("draft.vocab", "a", a.VocabSize, "b", b.VocabSize)
	case a.TokensHash != b.TokensHash:
		return t.T("draft.tokens")
	}
	return ""
}

func launchAndVerify(ctx context.Context, o *Options, eng *engine.Engine, m *gguf.Model, doc *Doc, argvFor func(plan.Plan) []string, key string, cal plan.Calibration, env []string,
	replan func(map[string]uint64) (plan.Result, bool)) error {
	f := o.F
	t, pt := o.t, o.pt
	errp := ui.NewErrPrinter(f.IO)
	ctx, stop := o.Interrupt(ctx)
	defer stop()
	var logw io.Writer
	if f.IO.Verbose && !f.IO.JSON {
		logw = f.IO.ErrOut
	}
	baseURL := fmt.Sprintf("http://%s:%d", urlHost(o.Host), portOf(doc.Argv))
	p := doc.Plan
	var srv *launch.Server
	var learned map[string]uint64
	for attempt := 0; ; attempt++ {
		argv := argvFor(p)
		doc.Argv = argv
		doc.Plan = p
		doc.Attempts = append(doc.Attempts, Attempt{Argv: argv})
		srv = launch.Start(ctx, launch.Options{Runner: f.Runner, Path: eng.Path, Args: argv, Env: env, Log: logw, BaseURL: baseURL, HTTP: o.HTTP})
		err := srv.WaitReady(ctx, o.ReadyTimeout)
		if err == nil {
			break
		}
		res := srv.Stop()
		if ctx.Err() != nil {
			return cmdutil.Exit(cmdutil.ExitSignal)
		}
		rep := srv.Report()
		if rep.OOM != nil && attempt < maxOOMRetries {
			np, change, ok := p, "", false
			if dev, got, lim, okDev := learnedFree(doc, rep); okDev && replan != nil {
				// The device held what the engine allocated before the
				// failure: plan again for that much, margin included.
				if learned == nil {
					learned = map[string]uint64{}
				}
				learned[dev] = lim
				if r, fits := replan(learned); fits {
					np, ok = r.Plan, true
					change = plan.T("reduce.replan", "device", dev, "got", fmt.Sprintf("%.0f", got),
						"free", reportedFree(doc, dev), "ngl", r.Plan.NGL, "ctx", r.Plan.Ctx, "kv", r.Plan.CacheK, "ub", r.Plan.UBatch)
					doc.Predicted = r.Predicted
				}
			}
			if !ok {
				np, change, ok = plan.Reduce(p, m, rep.OOM.Stage, rep.OOM.NeedMiB, eng.Caps.CacheTypes)
			}
			if ok {
				doc.Attempts[len(doc.Attempts)-1].OOM = rep.OOM
				doc.Attempts[len(doc.Attempts)-1].Change = change
				if !f.IO.JSON {
					errp.Line(ui.Warn, pt.T("run.oom", "line", rep.OOM.Line), pt.T("run.retry", "change", pt.Line(change)))
				}
				p = np
				continue
			}
		}
		return engineFailure(t, srv.Tail(), res, err)
	}
	defer srv.Stop()
	rep := srv.Report()
	doc.Actual = &rep
	doc.URL = baseURL
	compareAndRecord(o, doc, rep, key, cal)

	if o.Prompt != "" && doc.Plan.Embedding {
		e, err := srv.Embed(ctx, o.Prompt)
		if err != nil {
			if ctx.Err() != nil {
				return cmdutil.Exit(cmdutil.ExitSignal)
			}
			return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
		}
		doc.Embedding = &e
		srv.Stop()
		if f.IO.JSON {
			return ui.WriteJSON(f.IO.Out, doc)
		}
		ui.NewPrinter(f.IO).Line(ui.OK, pt.T("run.embedding", "dims", e.Dimensions, "head", fmt.Sprint(e.Head)))
		return nil
	}
	if o.Prompt != "" {
		c, err := srv.Complete(ctx, o.Prompt, o.NPredict)
		if err != nil {
			if ctx.Err() != nil {
				return cmdutil.Exit(cmdutil.ExitSignal)
			}
			return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
		}
		doc.Completion = &c
		srv.Stop()
		if f.IO.JSON {
			return ui.WriteJSON(f.IO.Out, doc)
		}
		fmt.Fprintf(f.IO.Out, "%s%s\n", o.Prompt, c.Content)
		ui.NewPrinter(f.IO).Line(ui.OK, pt.T("run.tokens", "n", c.TokensPredicted, "tps", fmt.Sprintf("%.1f", c.TokensPerSecond), "pps", fmt.Sprintf("%.1f", c.PromptPerSecond)))
		return nil
	}
	if f.IO.JSON {
		if err := ui.WriteJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		ui.NewPrinter(f.IO).Line(ui.OK, pt.T("run.ready", "url", baseURL))
	}
	res, err := srv.Wait(ctx)
	if err != nil && ctx.Err() != nil {
		return cmdutil.Exit(cmdutil.ExitSignal)
	}
	if res.ExitCode != 0 {
		why := errors.New(t.T("err.server-exit", "code", res.ExitCode))
		if len(o.RPC) > 0 {
			why = errors.New(t.T("err.server-exit-rpc", "code", res.ExitCode, "workers", strings.Join(o.RPC, ", ")))
		}
		err := engineFailure(t, srv.Tail(), res, why)
		if ee, ok := err.(*cmdutil.ExitError); ok && res.ExitCode > 0 && res.ExitCode < 126 {
			ee.Code = res.ExitCode // a server that ran and then stopped: its own exit code
		}
		return err
	}
	return nil
}

// engineFailure explains a failed engine with the failure knowledge base.
func engineFailure(t *lang.Catalog, tail string, res interface{ Combined() string }, err error) error {
	log := tail
	if log == "" {
		log = res.Combined()
	}
	kb := failures.Default()
	tr := kb.Translator(t.Lang())
	diag := kb.DiagnoseString(log)
	var b strings.Builder
	fmt.Fprintf(&b, "%v", err)
	for _, fd := range diag.Findings {
		fd = tr.Finding(fd)
		fmt.Fprintf(&b, "\n  %s\n  %s", t.T("fail.cause", "text", fd.Cause), t.T("fail.fix", "text", fd.Fix))
		for _, c := range fd.Commands {
			fmt.Fprintf(&b, "\n    %s", c)
		}
	}
	if len(diag.Findings) == 0 {
		lines := strings.Split(strings.TrimSpace(log), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		fmt.Fprintf(&b, "\n%s\n  %s\n%s", t.T("fail.last-output"), strings.Join(lines, "\n  "), t.T("fail.hint"))
	}
	code := cmdutil.ExitEngine
	return &cmdutil.ExitError{Code: code, Message: b.String()}
}

// compareAndRecord shows predicted vs reported memory (--verbose) and
// keeps the plan and the calibration for the next run.
func compareAndRecord(o *Options, doc *Doc, rep launch.Report, key string, cal plan.Calibration) {
	f := o.F
	pred := doc.Predicted.Host
	if doc.Actual != nil && f.IO.Verbose && !f.IO.JSON {
		p := ui.NewErrPrinter(f.IO)
		t, pt := o.t, o.pt
		rows := [][]string{{t.T("table.host"), mi(pred.ModelMiB, rep.Host.ModelMiB), mi(pred.ContextMiB, rep.Host.ContextMiB), mi(pred.ComputeMiB, rep.Host.ComputeMiB)}}
		for _, d := range doc.Predicted.Devices {
			a := ActualOf(rep, d)
			rows = append(rows, []string{d.ID, mi(d.ModelMiB, a.ModelMiB), mi(d.ContextMiB, a.ContextMiB), mi(d.ComputeMiB, a.ComputeMiB)})
		}
		p.Heading(pt.T("run.memory-heading"))
		p.Table([]string{"", t.T("table.model"), t.T("table.context"), t.T("table.compute")}, rows)
	}
	// Calibrate the classes the analytic model is least sure of.
	newCal := cal
	predComp, actComp := pred.ComputeMiB, rep.Host.ComputeMiB
	for _, d := range doc.Predicted.Devices {
		predComp += d.ComputeMiB
		actComp += ActualOf(rep, d).ComputeMiB
	}
	if predComp > 0 && actComp > 0 {
		base := 1.0
		if cal.Compute > 0 {
			base = cal.Compute
		}
		newCal.Compute = base * actComp / predComp
	}
	_ = o.Cache.Save(CachedPlan{Key: key, Plan: doc.Plan, Calibration: newCal, Saved: f.Now().UTC()})
}

func mi(pred, act float64) string { return fmt.Sprintf("%.1f / %.1f", pred, act) }

func urlHost(h string) string {
	if h == "" || h == "0.0.0.0" {
		return "127.0.0.1"
	}
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		return "[" + h + "]"
	}
	return h
}

func portOf(argv []string) int {
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "--port" {
			var p int
			fmt.Sscan(argv[i+1], &p)
			return p
		}
	}
	return 0
}

// printPlan is the human plan: the choice, why, and the runner-ups.
func printPlan(f *cmdutil.Factory, o *Options, d Doc) {
	t, pt := o.t, o.pt
	p := ui.NewPrinter(f.IO)
	pl := d.Plan
	p.Heading(ui.Safe(t.T("plan.heading", "file", filepath.Base(d.Model.Path), "arch", d.Model.Architecture, "layers", d.Model.Layers, "size", fmt.Sprintf("%.0f", d.Model.SizeMiB)), true))
	status := finding.OK
	if !d.Fits {
		status = finding.Error
	}
	reasons := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		reasons[i] = pt.Line(r)
	}
	// The plan and why: its reasons are its notes, shown whether it fits or not.
	p.Finding(finding.Finding{ID: "run.plan", Status: status, Summary: fmt.Sprintf("-ngl %d  -c %d  -b %d  -ub %d  -t %d  -fa %s  KV %s/%s", pl.NGL, pl.Ctx, pl.Batch, pl.UBatch, pl.Threads, pl.FlashAttn, pl.CacheK, pl.CacheV),
		Details: reasons}, ui.FindingOptions{OKDetails: true})
	rows := [][]string{{t.T("table.host"), f1(d.Predicted.Host.ModelMiB), f1(d.Predicted.Host.ContextMiB), f1(d.Predicted.Host.ComputeMiB), fmt.Sprintf("%d", d.Predicted.HostFreeMiB)}}
	for _, dv := range d.Predicted.Devices {
		rows = append(rows, []string{ui.Safe(dv.ID+" "+dv.Name, true), f1(dv.ModelMiB), f1(dv.ContextMiB), f1(dv.ComputeMiB), fmt.Sprintf("%d", dv.FreeMiB)})
	}
	p.Table([]string{t.T("table.predicted"), t.T("table.model"), t.T("table.context"), t.T("table.compute"), t.T("table.free")}, rows)
	if len(d.Alternatives) > 0 {
		p.Println(pt.T("run.runner-ups"))
		for _, a := range d.Alternatives {
			tot := a.Predicted.Host.Total()
			for _, dv := range a.Predicted.Devices {
				tot += dv.Total()
			}
			st := finding.Skipped
			if !a.Fits {
				st = finding.Error
			}
			p.Finding(finding.Finding{ID: "run.runner-up", Status: st, Summary: fmt.Sprintf("-ngl %d -c %d KV %s: %.0f MiB: %s", a.Plan.NGL, a.Plan.Ctx, a.Plan.CacheK, tot, pt.Line(a.Why))}, ui.FindingOptions{})
		}
	}
	p.Println(ui.Safe(t.T("engine", "path", d.Engine.Path, "version", d.Engine.Version), true))
	// Quoted for this machine's shell, so it can be pasted and run as is.
	p.Println(ui.Safe(t.T("command", "command", shellquote.Line(runtime.GOOS, filepath.Base(d.Engine.Path), d.Argv...)), true))
}

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }
