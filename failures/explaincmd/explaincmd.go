// Package explaincmd is `llamactl explain [FILE|-]`: it reads a build or run
// log (streaming, whatever its size) and names the cause and the fix of each
// failure it recognises, or says that it recognises none and shows the first
// lines that look like errors.
package explaincmd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/safefile"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/launch"
)

// Schema versions the --json document (docs/support.md).
const Schema = 1

// Options are the parsed flags and the injected world.
type Options struct {
	IO       *ui.IOStreams
	File     string // "" or "-" is stdin
	Snapshot string // --snapshot FILE
	Here     bool   // --here: gather this machine's snapshot for the facts
	// Gather returns this machine's snapshot (probe.Gather in production).
	Gather func(ctx context.Context) *machine.Snapshot
	// Open opens the log file (os.Open in production).
	Open func(name string) (io.ReadCloser, error)
	// StdinIsTerminal says there is nothing piped in.
	StdinIsTerminal func() bool
	KB              *failures.KB
	// Lang is --lang; lang is the language of the human output (RunE).
	Lang string
	lang string
	// Model is --model FILE.gguf: when nothing in the knowledge base named a
	// cause, the user's own model is asked to choose one of the catalog's
	// IDs from the lines that look like errors (always a probable finding).
	// Engine is --engine: the llama-server that runs it.
	Model, Engine string
	// Ask puts the question to the model (a llama-server started for it,
	// engineAsk, in production).
	Ask func(ctx context.Context, q failures.ModelQuestion) (string, error)
}

// ModelDoc says in --json what the model was asked and answered.
type ModelDoc struct {
	Path   string `json:"path"`
	Asked  bool   `json:"asked"`
	Answer string `json:"answer,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Doc is the --json document.
type Doc struct {
	Schema          int                `json:"schema"`
	Input           string             `json:"input"`
	Lines           int                `json:"lines"`
	Findings        []failures.Finding `json:"findings"`
	UnmatchedErrors []failures.LogLine `json:"unmatched_errors"`
	// FactsFrom says where machine facts came from: "snapshot FILE", "this
	// machine", "the report's snapshot", or "" (only what the log says).
	FactsFrom string `json:"facts_from,omitempty"`
	// Builds is set when the input is a support report: each build's log
	// tail explained again (findings/unmatched_errors above stay empty).
	Builds []BuildDiagnosis `json:"builds,omitempty"`
	// Model is set with --model.
	Model *ModelDoc `json:"model,omitempty"`
}

// NewCmd builds the command; runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF ...func(*Options) error) *cobra.Command {
	opts := &Options{
		IO: f.IO,
		Gather: func(ctx context.Context) *machine.Snapshot {
			return probe.Gather(ctx, probe.System(f.Env()))
		},
		Open: func(name string) (io.ReadCloser, error) { return safefile.Open(name, safefile.Log) },
		StdinIsTerminal: func() bool {
			file, ok := f.IO.In.(*os.File)
			return ok && term.IsTerminal(int(file.Fd()))
		},
	}
	cmd := &cobra.Command{
		Use:   "explain [FILE|-]",
		Short: "Name the cause and the fix of a failed llama.cpp build or run from its log",
		Long: `Read a build or run log (a file, or standard input with - or a pipe) and name
each failure llamactl knows: its stable ID, the cause in plain words, the fix and
the exact commands, with the line numbers it was seen on. Logs of any size are
read as a stream.

When nothing matches, explain says so and lists the first lines that look like
errors; it never guesses.

With --snapshot FILE (a snapshot, doctor --json output or report.json of the
machine the log comes from) or --here (this machine), the findings also say
which facts of that machine explain them.

A support report (report.json or the zip of llamactl doctor --report) is
explained build by build with this llamactl's knowledge and the report's own
snapshot.

With --model FILE.gguf, when nothing matched, your own language model (run by
llama-server: --engine, or the last llamactl build, or PATH) is asked which of
llamactl's causes the error lines show, with its answer held to the catalog's IDs
or "none". Its finding is always "probably" and says the model named it; llamactl
does not measure how right your model is.

Examples:
  llamactl explain build.log
  cmake --build build 2>&1 | llamactl explain
  llamactl explain --snapshot report.json issue-1234.log --json
  llamactl explain llamactl-report.zip
  llamactl explain build.log --model qwen2.5-7b-instruct-q4_k_m.gguf`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if opts.Here && opts.Snapshot != "" {
				return cmdutil.UsageErrorf("--here and --snapshot both name the machine: give one")
			}
			l, err := f.ChooseLang(opts.Lang, "llamactl explain build.log --lang zh-CN")
			if err != nil {
				return err
			}
			opts.lang = l
			t := texts(l)
			if opts.Engine != "" && opts.Model == "" {
				return cmdutil.UsageErrorf("%s", t.T("engine-without-model"))
			}
			if opts.Model != "" {
				st, err := os.Stat(opts.Model)
				if err == nil && st.IsDir() {
					err = errors.New(t.T("model-is-folder"))
				}
				if err != nil {
					var pe *os.PathError
					if errors.As(err, &pe) {
						err = pe.Err
					}
					return cmdutil.UsageErrorf("%s", t.T("model-missing", "file", opts.Model, "err", err))
				}
				if opts.Ask == nil {
					opts.Ask = engineAsk(f, opts.Model, opts.Engine)
				}
			}
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Snapshot, "snapshot", "", "add facts from the machine in `FILE` (snapshot, doctor --json or report.json)")
	cmd.Flags().BoolVar(&opts.Here, "here", false, "the log comes from this machine: gather its facts (a few seconds)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "when nothing matched, ask your own model `FILE.gguf` which known cause the error lines show (probable only)")
	cmd.Flags().StringVar(&opts.Engine, "engine", "", "with --model: the llama-server binary or its `DIR` (default: last 'llamactl build', then PATH)")
	cmdutil.AddLangFlag(cmd, &opts.Lang)
	return cmd
}

// Run reads the log and prints the diagnosis. Exit 1 when an error-level
// failure was recognised (docs/exit-codes.md).
func Run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	kb := o.KB
	if kb == nil {
		kb = failures.Default()
	}
	tr, t := kb.Translator(o.lang), texts(o.lang)
	var s *machine.Snapshot
	factsFrom := ""
	if o.Snapshot != "" {
		var err error
		if s, err = machine.Load(o.Snapshot); err != nil {
			return cmdutil.UsageError(err)
		}
		factsFrom = "snapshot " + o.Snapshot
	}

	if o.File != "" && o.File != "-" {
		doc, err := readReport(o.File)
		if err != nil {
			return err
		}
		if doc != nil {
			if o.Model != "" {
				return cmdutil.UsageErrorf("%s", t.T("model-report", "file", o.File))
			}
			if o.Here {
				gctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				s, factsFrom = o.Gather(gctx), "this machine"
				cancel()
			}
			return runReport(o, kb, tr, doc, s, factsFrom)
		}
	}

	in, name, closeIn, err := open(o, t)
	if err != nil {
		return err
	}
	in, serr := failures.Sniff(in)
	if serr != nil {
		closeIn()
		return refuse(tr, t, name, serr)
	}
	d, rerr := kb.Diagnose(in)
	closeIn()
	if rerr != nil {
		return cmdutil.Errorf(cmdutil.ExitUsage, "%s", t.T("read-failed", "file", name, "n", d.Lines, "err", rerr))
	}
	if o.Here && len(d.Findings) > 0 {
		gctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		s = o.Gather(gctx)
		cancel()
		factsFrom = "this machine"
	}
	d = kb.WithSnapshot(d, s)
	md, modelErr := askModel(ctx, o, kb, &d)

	if o.IO.JSON {
		doc := Doc{Schema: Schema, Input: name, Lines: d.Lines, Findings: d.Findings, UnmatchedErrors: d.UnmatchedErrors, FactsFrom: factsFrom, Model: md}
		if err := ui.WriteJSON(o.IO.Out, doc); err != nil {
			return err
		}
	} else {
		render(o.IO, tr, t, name, d)
		renderModel(o.IO, t, md)
	}
	if modelErr != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%s", t.T("model-failed", "model", o.Model, "err", modelErr))
	}
	for _, f := range d.Findings {
		if f.Severity == failures.SeverityError {
			return cmdutil.Exit(cmdutil.ExitFindings)
		}
	}
	return nil
}

func open(o *Options, t *lang.Catalog) (io.Reader, string, func(), error) {
	if o.File == "" || o.File == "-" {
		if o.File == "" && o.StdinIsTerminal != nil && o.StdinIsTerminal() {
			return nil, "", nil, cmdutil.UsageErrorf("%s", t.T("no-log"))
		}
		return o.IO.In, "stdin", func() {}, nil
	}
	st, err := os.Stat(o.File)
	if err == nil && st.IsDir() {
		return nil, "", nil, cmdutil.UsageErrorf("%s", t.T("is-folder", "file", o.File, "example", strings.TrimRight(o.File, `/\`)+string(os.PathSeparator)+"build.log"))
	}
	rc, err := o.Open(o.File)
	if err != nil {
		var fe *safefile.Error
		if errors.As(err, &fe) {
			return nil, "", nil, cmdutil.UsageErrorf("%v\nPass the log file of the failed build or run, or pipe it: cmake --build build 2>&1 | llamactl explain", err)
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, "", nil, cmdutil.UsageErrorf("%s", t.T("cannot-read-log", "file", o.File, "err", err))
	}
	return rc, o.File, func() { rc.Close() }, nil
}

// refuse turns what failures.Sniff found into a usage error: nothing to
// explain in an empty log, and a binary file is not a log (its strings
// would "match" failures).
func refuse(tr *failures.Translator, t *lang.Catalog, name string, err error) error {
	key := ""
	switch {
	case errors.Is(err, failures.ErrEmpty):
		key = "empty_log"
	case errors.Is(err, failures.ErrBinary):
		key = "binary_input"
	default:
		return cmdutil.UsageErrorf("%s", t.T("cannot-read", "file", name, "err", err))
	}
	return cmdutil.UsageErrorf("%s", strings.ReplaceAll(tr.Message(key), "{input}", name))
}

func render(io *ui.IOStreams, kb *failures.Translator, t *lang.Catalog, name string, d failures.Diagnosis) {
	p := ui.NewPrinter(io)
	if len(d.Findings) == 0 {
		p.Line(ui.Skip, fmt.Sprintf("%s (%s, %s)", kb.Message("no_match"), name, lineCount(t, d.Lines)))
		if len(d.UnmatchedErrors) > 0 {
			var ls []string
			for _, l := range d.UnmatchedErrors {
				ls = append(ls, fmt.Sprintf("%5d  %s", l.Line, l.Text))
			}
			p.Line(ui.Info, kb.Message("first_errors"), ls...)
		}
		p.Line(ui.Info, kb.Message("no_match_next"), "  $ llamactl doctor", "  $ llamactl doctor --report llamactl-report.zip")
		return
	}
	fs := make([]finding.Finding, len(d.Findings))
	for i, f := range d.Findings {
		fs[i] = explained(p, kb, t, kb.Finding(f))
	}
	p.Findings(fs, ui.FindingOptions{
		Verbose:       io.Verbose,
		FixLine:       func(text string) string { return kb.Message("label_fix") + ": " + text },
		CommandPrefix: "  $ ",
		After: func(f finding.Finding) []string {
			var out []string
			if patch := f.Facts["patch"]; patch != "" {
				out = append(out, kb.Message("label_patch")+": llamactl patches show "+patch)
			}
			if io.Verbose {
				out = append(out, kb.Message("label_source")+": "+f.Source)
			}
			return append(out, kb.Message("label_more")+": docs/support.md#"+f.ID)
		},
	}, true)
}

// explained is a (translated) finding of the log as explain shows it: the
// ID, title and lines as the summary; the excerpt, a "probably" note, the
// cause and the facts that explain it as details; the fix and commands;
// the patch (Facts["patch"]) and links after them.
func explained(p *ui.Printer, kb *failures.Translator, t *lang.Catalog, f failures.Finding) finding.Finding {
	sf := f.Shared()
	var det []string
	if f.Excerpt != "" {
		var ex []string
		for _, l := range strings.Split(f.Excerpt, "\n") {
			ex = append(ex, "> "+l)
		}
		det = append(det, strings.Join(ex, "\n"))
	}
	title := f.Title
	if f.Confidence == failures.ConfidenceProbable {
		title = kb.Message("probably") + ": " + title
		if f.Basis == failures.BasisModel {
			det = append(det, t.T("model-note"))
		} else if len(f.Lines) > 1 {
			det = append(det, kb.Message("probable_note"))
		} else {
			det = append(det, kb.Message("probable_note_one"))
		}
	}
	det = append(det, kb.Message("label_why")+": "+f.Cause)
	if fs := kb.FactSentenceFor(f.ID, f.Facts); fs != "" {
		det = append(det, fs)
	}
	sf.Details = det
	sf.Summary = fmt.Sprintf("%s  %s (%s %s)", p.Bold(f.ID), title, kb.Message("line"), lineList(t, f.Lines))
	sf.Fix = &finding.Fix{Text: f.Fix, Commands: f.Commands}
	if f.Patch != "" {
		sf.Facts = map[string]string{"patch": f.Patch}
	}
	return sf
}

func lineList(t *lang.Catalog, ls []int) string {
	var s []string
	for i, l := range ls {
		if i == 5 {
			s = append(s, t.T("more", "n", len(ls)-5))
			break
		}
		s = append(s, fmt.Sprint(l))
	}
	return strings.Join(s, ", ")
}

// lineCount says "1 line" / "N lines": an empty log then reads "0 lines".
func lineCount(t *lang.Catalog, n int) string {
	if n == 1 {
		return t.T("lines.one")
	}
	return t.T("lines.other", "n", n)
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// texts is explain's own sentences (data/text.en.json) in l.
func texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

// askModel asks the user's model (--model) when nothing in the knowledge
// base named a cause and some lines look like errors; its answer becomes a
// probable finding of d. The error is the engine's or the model's.
func askModel(ctx context.Context, o *Options, kb *failures.KB, d *failures.Diagnosis) (*ModelDoc, error) {
	if o.Model == "" || o.Ask == nil {
		return nil, nil
	}
	md := &ModelDoc{Path: o.Model}
	q, ok := kb.ModelQuestion(*d)
	if !ok {
		return md, nil
	}
	md.Asked = true
	ans, err := o.Ask(ctx, q)
	if err == nil {
		var f failures.Finding
		var named bool
		if f, named, err = kb.ModelFinding(q, ans); named {
			d.Findings = append(d.Findings, f)
		}
		md.Answer = strings.TrimSpace(ans)
	}
	if err != nil {
		md.Error = err.Error()
	}
	return md, err
}

// renderModel says what the model was asked when it named nothing.
func renderModel(io *ui.IOStreams, t *lang.Catalog, md *ModelDoc) {
	if md == nil || md.Error != "" {
		return
	}
	p := ui.NewPrinter(io)
	switch {
	case !md.Asked:
		p.Line(ui.Info, t.T("model-not-asked"))
	case md.Answer == "none":
		p.Line(ui.Info, t.T("model-none", "model", filepath.Base(md.Path)))
	}
}

// engineAsk starts llama-server (--engine, else the last llamactl build,
// else PATH) with the model on a free loopback port, asks the question with
// the answer held to its grammar, and stops the server (its whole process
// group) whatever happened.
func engineAsk(f *cmdutil.Factory, model, enginePath string) func(ctx context.Context, q failures.ModelQuestion) (string, error) {
	return func(ctx context.Context, q failures.ModelQuestion) (string, error) {
		// Ctrl-C or a TERM cancels the question and stops the engine, which
		// runs in a process group of its own and would outlive llamactl
		ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer cancel()
		ask, stop, err := startModel(ctx, f, model, enginePath, modelMaxRun)
		if err != nil {
			return "", err
		}
		defer stop()
		return ask(ctx, q)
	}
}

// startModel starts the engine with the model and waits until it answers;
// ask puts one question, stop ends the engine. Questions may follow each
// other on one engine (the corpus harness asks hundreds).
func startModel(ctx context.Context, f *cmdutil.Factory, model, enginePath string, maxRun time.Duration) (ask func(context.Context, failures.ModelQuestion) (string, error), stop func(), err error) {
	loc := engine.Locator{Flag: enginePath, Getenv: f.Getenv, ReadFile: os.ReadFile, Stat: os.Stat,
		CacheDir: paths.CacheDir(runtime.GOOS, f.Getenv), Runner: f.Runner}
	path, _, err := loc.Find()
	if err != nil {
		return nil, nil, err
	}
	port, err := launch.FreePort()
	if err != nil {
		return nil, nil, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	s := launch.Start(ctx, launch.Options{
		Runner: f.Runner, Path: path, BaseURL: base, HTTP: launch.NetHTTP{}, MaxRun: maxRun,
		Args: []string{"-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "-c", "8192", "-np", "1"},
	})
	stop = func() { s.Stop() }
	if err := s.WaitReady(ctx, modelReady); err != nil {
		stop()
		return nil, nil, fmt.Errorf("%s: %w\n%s", path, err, s.TailLines(8))
	}
	return func(ctx context.Context, q failures.ModelQuestion) (string, error) {
		return s.Answer(ctx, q.Prompt, q.Grammar, modelAnswerTokens)
	}, stop, nil
}

// Bounds of one question: the model's load, the engine's whole life, the
// answer's length (the longest ID is a few tokens).
const (
	modelReady        = 10 * time.Minute
	modelMaxRun       = 15 * time.Minute
	modelAnswerTokens = 128
)
