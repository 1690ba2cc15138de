package runcmd

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
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
	// MakePlan is the planner (nil: plan.Make); a test counts its passes.
	MakePlan func(*gguf.Model, []engine.Device, plan.Host, plan.Request, engine.Caps) (plan.Result, error)
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
			if err := o.validate(); err != nil {
				return err
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
	if o.MakePlan == nil {
		o.MakePlan = plan.Make
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 10 * time.Minute // large models load slowly from disk
	}
	if o.NPredict <= 0 {
		o.NPredict = 64
	}
}

// Run plans and (unless --dry-run) launches, in named steps: read the
// model (and the draft), gather the engine, its devices and the host, plan
// (or reuse the remembered plan), show the plan, then launch and verify.
// The flags were checked by NewCmd (Options.validate) before Run.
func Run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	o.defaults()
	if o.t == nil {
		if err := o.chooseLang(); err != nil {
			return err
		}
	}
	mods, err := o.readModels()
	if err != nil {
		return err
	}
	rg, err := o.gatherRig(ctx)
	if err != nil {
		return err
	}
	s := &session{o: o, mods: mods, rig: rg}
	if err := s.makePlan(); err != nil {
		return err
	}
	if err := s.choosePort(); err != nil {
		return err
	}
	if done, err := s.show(); done {
		return err
	}
	return s.launchAndVerify(ctx)
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

// engineFailure explains a failed engine with the failure knowledge base:
// the error, then each finding (in the output language) as the one findings
// printer lays it out, plain, with its cause, fix and commands; without a
// finding, the last lines the engine wrote and how to see the rest.
func engineFailure(t *lang.Catalog, tail string, res interface{ Combined() string }, err error) error {
	log := tail
	if log == "" {
		log = res.Combined()
	}
	kb := failures.Default()
	tr := kb.Translator(t.Lang())
	diag := kb.DiagnoseString(log)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%v\n", err)
	if len(diag.Findings) > 0 {
		fs := make([]finding.Finding, len(diag.Findings))
		for i, fd := range diag.Findings {
			fd = tr.Finding(fd)
			fs[i] = fd.Shared()
			if fd.Cause != "" {
				fs[i].Details = []string{t.T("fail.cause", "text", fd.Cause)}
			}
		}
		p := ui.NewPrinter(&ui.IOStreams{Out: &b, NoColor: true})
		p.Findings(fs, ui.FindingOptions{FixLine: func(text string) string { return t.T("fail.fix", "text", text) }}, false)
	} else {
		lines := strings.Split(strings.TrimSpace(log), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		fmt.Fprintf(&b, "%s\n  %s\n%s", t.T("fail.last-output"), strings.Join(lines, "\n  "), t.T("fail.hint"))
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitEngine, Message: strings.TrimRight(b.String(), "\n")}
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
