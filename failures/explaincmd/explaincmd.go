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
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/safefile"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/machine"
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

Examples:
  llamactl explain build.log
  cmake --build build 2>&1 | llamactl explain
  llamactl explain --snapshot report.json issue-1234.log --json
  llamactl explain llamactl-report.zip`,
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
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Snapshot, "snapshot", "", "add facts from the machine in `FILE` (snapshot, doctor --json or report.json)")
	cmd.Flags().BoolVar(&opts.Here, "here", false, "the log comes from this machine: gather its facts (a few seconds)")
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

	if o.IO.JSON {
		doc := Doc{Schema: Schema, Input: name, Lines: d.Lines, Findings: d.Findings, UnmatchedErrors: d.UnmatchedErrors, FactsFrom: factsFrom}
		if err := ui.WriteJSON(o.IO.Out, doc); err != nil {
			return err
		}
	} else {
		render(o.IO, tr, t, name, d)
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
		if len(f.Lines) > 1 {
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
