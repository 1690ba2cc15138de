// Package buildcmd is `llamactl build`: get the pinned llama.cpp (or use
// --source), plan the CMake + Ninja build for this machine, run it, verify
// the binaries and write a manifest. --dry-run prints the plan only.
package buildcmd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/safefile"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/patches"
)

// Options holds the injected world and the parsed flags.
type Options struct {
	F      *cmdutil.Factory
	Gather func(ctx context.Context) *machine.Snapshot
	HTTP   engine.Doer

	Backend, Ref, Source, BuildDir, OutDir string
	Compiler, MSVCToolset, CUDAArch        string
	LockPath, SnapshotPath, CacheDir       string
	CMakeArgs                              []string
	// Targets limits the compile to these CMake targets (--target);
	// "rpc-server" names the tree's RPC worker whatever it is called there.
	Targets []string
	// StopAfter ends the build early (--stop-after configure|cuda-object).
	StopAfter                             string
	Jobs                                  int
	DryRun, Heal, AllowUnsupported, Check bool
	// Portable builds binaries for other machines (always so with --lock).
	Portable bool
	// RPC adds GGML_RPC=ON and the RPC worker (--rpc).
	RPC bool
	// Interrupt returns a context cancelled on Ctrl-C / SIGTERM; cancelling
	// it kills cmake's process group (ninja and the compilers with it).
	Interrupt func(context.Context) (context.Context, func())
	// Lang is --lang: the language of the human output (zh-CN, en).
	Lang string
	// MakePlan replaces plan.Make (nil: plan.Make); a test counts the plans.
	MakePlan func(plan.Input) (plan.Plan, error)

	// Set by validate: t and pt render the human output in --lang; lock is
	// --lock's file, snap --snapshot's machine, pin the release to fetch.
	t    *lang.Catalog
	pt   *plan.Translator
	lock *build.LockFile
	snap *machine.Snapshot
	pin  engine.Pin
}

// Doc is the --json document of `llamactl build` (schema 1, docs/build.md).
type Doc struct {
	Schema    int               `json:"schema"`
	DryRun    bool              `json:"dry_run"`
	CheckOnly bool              `json:"check_only,omitempty"`
	Source    *engine.Source    `json:"source,omitempty"`
	Selection *plan.Selection   `json:"selection,omitempty"`
	Plan      *plan.Plan        `json:"plan,omitempty"`
	Scripts   map[string]string `json:"scripts,omitempty"`
	Result    *build.Result     `json:"result,omitempty"`
	Lock      *build.LockCheck  `json:"lock,omitempty"`
	Error     *DocError         `json:"error,omitempty"`
}

// DocError is the failure in JSON form.
type DocError struct {
	Code    int    `json:"exit_code"`
	Message string `json:"message"`
}

// NewCmd is NewCmdBuild for the root command.
func NewCmd(f *cmdutil.Factory, runF ...func(*Options) error) *cobra.Command {
	var r func(*Options) error
	if len(runF) > 0 {
		r = runF[0]
	}
	return NewCmdBuild(f, r)
}

// NewCmdBuild builds `llamactl build`: the flags land in Options, RunE
// validates them all (validate), then runs the build, or runF when given
// (a test captures the validated Options with it; nothing runs).
func NewCmdBuild(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{F: f}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Download the pinned llama.cpp and compile it with the right flags",
		Long: `Build llama.cpp for this machine with CMake + Ninja.

llamactl downloads the pinned llama.cpp release (sha256-verified, cached), plans the
CMake options from "llamactl doctor"'s selection (backend, CUDA toolkit, architectures,
host compiler, MSVC toolset), applies known fixes, compiles, verifies the binaries and
writes manifest.json. A second run with an unchanged plan does nothing.

Examples:
  llamactl build --dry-run                 show the plan and the commands for bash, PowerShell and cmd
  llamactl build --out dist                build and copy the binaries + manifest.json to dist
  llamactl build --source ~/src/llama.cpp  build an existing checkout as is
  llamactl build --backend vulkan --heal   build Vulkan; on a known failure apply the fix and retry
  llamactl build --portable --out dist     binaries for other machines (CPU code not tuned to this one)
  llamactl build --lock llamactl.lock.toml --check   CI: fail if this machine no longer satisfies the lock`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := validate(opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(c.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Backend, "backend", "auto", "cuda, vulkan, hip, opencl, cpu or auto (doctor's selection)")
	fl.StringVar(&opts.Ref, "ref", "", "llama.cpp release tag to build instead of the pinned one (bNNNN or vX.Y.Z)")
	fl.StringVar(&opts.Source, "source", "", "build this llama.cpp tree as is instead of downloading")
	fl.StringVar(&opts.BuildDir, "build-dir", "", "CMake build directory (default: in the cache, or DIR/build-llamactl with --source)")
	fl.StringVar(&opts.OutDir, "out", "", "copy the binaries and manifest.json into this directory")
	fl.IntVarP(&opts.Jobs, "jobs", "j", 0, "parallel compile jobs (default: logical cores, capped by available memory)")
	fl.StringArrayVar(&opts.CMakeArgs, "cmake-arg", nil, "extra CMake option NAME=VALUE or -DNAME=VALUE (old spellings are translated); repeatable")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the plan and the exact commands, run nothing")
	fl.BoolVar(&opts.Heal, "heal", false, "on a recognised failure apply its fix (a patch, fewer jobs, a fresh cache, another host compiler...) and retry (at most twice)")
	fl.BoolVar(&opts.AllowUnsupported, "allow-unsupported-compiler", false, "last resort: let nvcc accept an MSVC it does not support")
	fl.StringVar(&opts.Compiler, "compiler", "", "Windows: clang-cl to build the host code with clang-cl instead of cl")
	fl.StringVar(&opts.MSVCToolset, "msvc-toolset", "", "Windows: MSVC toolset for vcvarsall -vcvars_ver (e.g. 14.39)")
	fl.StringVar(&opts.CUDAArch, "cuda-arch", "", "CMAKE_CUDA_ARCHITECTURES to build (default: doctor's selection, e.g. 89-real)")
	fl.StringVar(&opts.LockPath, "lock", "", "CI lock file (TOML or JSON): engine ref + sha256, backend, CUDA constraint, architectures, flags")
	fl.BoolVar(&opts.Check, "check", false, "with --lock: only check that this machine still satisfies the lock (exit 6 if not)")
	fl.BoolVar(&opts.Portable, "portable", false, "binaries for other machines: CPU code not tuned to this one (GGML_NATIVE=OFF; always so with --lock)")
	fl.BoolVar(&opts.RPC, "rpc", false, "also build llama.cpp's RPC backend and worker (GGML_RPC=ON; see llamactl rpc serve)")
	fl.StringSliceVar(&opts.Targets, "target", nil, "compile only these CMake targets and what they need: llama-server,rpc-server or repeated --target (default: all)")
	fl.StringVar(&opts.StopAfter, "stop-after", "", "end the build early: configure, or cuda-object (configure and compile the first CUDA object: checks nvcc, host compiler and architectures in seconds); no verification")
	fl.StringVar(&opts.SnapshotPath, "snapshot", "", "plan for a recorded machine (doctor --json snapshot) instead of this one")
	cmdutil.AddLangFlag(cmd, &opts.Lang)
	return cmd
}

// portable says why the binaries must run on other machines, or "": a
// build from a lock file is CI's, whose binaries are shipped elsewhere.
func portable(o *Options) string {
	switch {
	case o.LockPath != "":
		return plan.Message("portable-lock", filepath.Base(o.LockPath)).Text
	case o.Portable:
		return "--portable"
	}
	return ""
}

func cacheDir(o *Options) string {
	if o.CacheDir != "" {
		return o.CacheDir
	}
	return paths.CacheDir(runtime.GOOS, o.F.Getenv)
}

// machineOf is the machine to build for: the --snapshot validate read, or
// this one, gathered now.
func machineOf(ctx context.Context, o *Options) *machine.Snapshot {
	switch {
	case o.snap != nil:
		return o.snap
	case o.Gather != nil:
		return o.Gather(ctx)
	}
	return probe.Gather(ctx, probe.System(o.F.Env()))
}

// fileProblem says in words why an input file could not be read.
func fileProblem(t *lang.Catalog, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t.T("file.no-such-file")
	case errors.Is(err, fs.ErrPermission):
		return t.T("file.permission-denied")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error() // the path is already named
	}
	return err.Error()
}

// lockError explains an unreadable or invalid --lock file and how to get
// a good one.
func lockError(t *lang.Catalog, path string, err error) error {
	var fe *safefile.Error
	if errors.As(err, &fe) {
		return cmdutil.UsageErrorf("%s", t.T("err.lock-unsafe", "err", err))
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return cmdutil.UsageErrorf("%s", t.T("err.lock-file", "path", path, "problem", fileProblem(t, err)))
	}
	return cmdutil.UsageErrorf("%s", t.T("err.lock-invalid", "err", err, "path", path))
}

// selection is doctor's selection, the planner's input, with --cuda-arch
// and --msvc-toolset applied. build --json keeps its documented fields:
// doctor's matrix resolution, per-GPU view and requested backend are
// doctor --json's.
func selection(o *Options, s *machine.Snapshot) plan.Selection {
	req := o.Backend
	if req == "auto" {
		req = ""
	}
	d := doctor.SelectFor(s, req)
	d.Resolution, d.GPUs, d.Requested = nil, nil, ""
	if o.CUDAArch != "" {
		d.CUDAArchitectures = o.CUDAArch
	}
	if o.MSVCToolset != "" {
		d.MSVCToolset = o.MSVCToolset
	}
	return d
}

var (
	safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	archRE   = regexp.MustCompile(`^(native|all|all-major|[0-9]{2,3}[af]?(-real|-virtual)?(;[0-9]{2,3}[af]?(-real|-virtual)?)*)$`)
)

// run sequences the domain calls of a validated build and renders the
// result: the machine and doctor's selection, the engine's tree (--lock
// checked, the release fetched), the plan's input, then the dry run's plan
// or the build's pipeline (package build).
func run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	snap := machineOf(ctx, o)
	sel := selection(o, snap)
	doc := &Doc{Schema: 1, DryRun: o.DryRun, CheckOnly: o.Check, Selection: &sel}
	fetcher := newFetcher(o)
	if o.lock != nil {
		lc := build.CheckLock(o.lock, o.LockPath, snap, sel, o.pin.Ref, fetcher.RecordedHash(o.pin.Ref))
		doc.Lock = lc
		if !lc.Satisfied {
			return finish(o, doc, cmdutil.Errorf(cmdutil.ExitCheck, "%s", o.t.T("err.lock-unsatisfied", "path", o.LockPath, "problems", strings.Join(lc.Problems, "\n  "))))
		}
		if o.Check {
			return finish(o, doc, nil)
		}
	}
	var fetched *build.Fetched
	var src engine.Source
	var eng plan.Engine
	if o.DryRun {
		src, eng = engineTree(ctx, o)
	} else {
		var err error
		if fetched, err = fetch(ctx, o, fetcher); err != nil {
			doc.Result = &build.Result{Steps: fetched.Steps, Failed: fetched.Failed}
			return finish(o, doc, exitError(err, o.pt))
		}
		src, eng = fetched.Source, fetched.Engine
	}
	doc.Source = &src
	in := input(ctx, o, snap, sel, src, eng)
	d, endProgress := deps(o)
	defer endProgress()
	if o.DryRun {
		return finish(o, doc, dryRun(ctx, o, d, in, doc))
	}
	return finish(o, doc, buildNow(ctx, o, d, in, doc, fetched.Steps))
}

// newFetcher downloads into the cache, saying when another llamactl is
// downloading the same release.
func newFetcher(o *Options) *engine.Fetcher {
	cache := cacheDir(o)
	fetcher := &engine.Fetcher{HTTP: o.HTTP, CacheDir: cache}
	if fetcher.HTTP == nil {
		fetcher.HTTP = &http.Client{Timeout: 0}
	}
	fetcher.Waiting = func() {
		fmt.Fprintf(o.F.IO.ErrOut, "%s\n", o.t.T("wait.download", "dir", cache))
	}
	return fetcher
}

// engineTree is the tree to build before any download: --source as is,
// or where the pinned (or --ref) release is unpacked.
func engineTree(ctx context.Context, o *Options) (engine.Source, plan.Engine) {
	if o.Source != "" {
		abs := sourceDir(o)
		return engine.Source{Dir: abs}, engine.DetectVersion(ctx, o.F.Runner, abs, engine.DefaultLock())
	}
	pin := o.pin
	src := engine.Source{Dir: filepath.Join(cacheDir(o), "engine", pin.Ref), Ref: pin.Ref, URL: pin.URL}
	return src, plan.Engine{Ref: pin.Ref, BuildNumber: pin.BuildNumber, Commit: pin.Commit, VersionFrom: "lock"}
}

// fetch runs the source pipeline (build.FetchSource: fetch and
// verify-source, skipped for --source and a verified cached tree), with a
// progress bar for the download.
func fetch(ctx context.Context, o *Options, fetcher *engine.Fetcher) (*build.Fetched, error) {
	d := build.Deps{Runner: o.F.Runner, Now: o.F.Now}
	if o.Source != "" {
		return build.FetchSource(ctx, d, build.SourceOptions{Dir: sourceDir(o)})
	}
	// A live bar (bytes, rate) in a terminal, a line every 2 s in CI.
	dl := ui.NewProgress(o.F.IO, o.t.T("downloading-label", "ref", o.pin.Ref), ui.Bytes)
	fetcher.Progress = func(done, total int64) { dl.Update(done, total, "") }
	fetched, err := build.FetchSource(ctx, d, build.SourceOptions{Fetcher: fetcher, Pin: o.pin})
	dl.Done()
	return fetched, err
}

// sourceDir is --source, absolute.
func sourceDir(o *Options) string {
	abs, _ := filepath.Abs(o.Source)
	return abs
}

// buildDir is --build-dir, else DIR/build-llamactl for --source, else a
// folder per release and backend in the cache; absolute on this machine.
func buildDir(o *Options, snap *machine.Snapshot, sel plan.Selection, src engine.Source) string {
	dir := o.BuildDir
	if dir == "" {
		if o.Source != "" {
			dir = filepath.Join(src.Dir, "build-llamactl")
		} else {
			backend := sel.Backend
			if o.Backend != "auto" {
				backend = o.Backend
			}
			dir = filepath.Join(cacheDir(o), "build", safeName.ReplaceAllString(o.pin.Ref+"-"+backend, "_"))
		}
	}
	if snap.OS.GOOS == runtime.GOOS {
		// Absolute, so the log, bin_dir and manifest paths it reports (and
		// last-build.json) hold from any folder.
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	return dir
}

// input is the planner's input: the machine, the selection, the tree and
// the options; build.Prepare adds what the tree and the tools say.
func input(ctx context.Context, o *Options, snap *machine.Snapshot, sel plan.Selection, src engine.Source, eng plan.Engine) plan.Input {
	in := plan.Input{Snapshot: snap, Selection: sel, Engine: eng, Backend: o.Backend, SourceDir: src.Dir, BuildDir: buildDir(o, snap, sel, src),
		CMakeArgs: o.CMakeArgs, Jobs: o.Jobs, Compiler: o.Compiler, AllowUnsupportedCompiler: o.AllowUnsupported,
		Portable: portable(o), RPC: o.RPC, Heal: o.Heal, CUDAArchFlag: o.CUDAArch, CacheDir: cacheDir(o)}
	return build.Prepare(ctx, o.F.Runner, in, o.Targets)
}

// dryRun plans once (build.Plan) and puts the plan and its scripts in the
// document; blockers exit 1.
func dryRun(ctx context.Context, o *Options, d build.Deps, in plan.Input, doc *Doc) error {
	here := in.Snapshot.OS.GOOS == runtime.GOOS && o.SnapshotPath == ""
	p, err := build.Plan(ctx, d, in, here)
	if err != nil {
		return cmdutil.UsageErrorf("%v", err)
	}
	doc.Plan = &p
	doc.Scripts = map[string]string{}
	for _, sh := range plan.Shells {
		doc.Scripts[sh] = p.Script(sh)
	}
	if len(p.Blockers) > 0 {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}

// deps is the build's outside world: the runner, the knowledge base, and
// (for a person, not --json) a line per stage and Ninja's progress bar,
// which end ends.
func deps(o *Options) (d build.Deps, end func()) {
	f, t := o.F, o.t
	d = build.Deps{Runner: f.Runner, Now: f.Now, Environ: f.Environ(), Diagnose: build.KBDiagnose, Llamactl: buildinfo.Get().Version,
		Plan: o.MakePlan,
		Waiting: func(dir string) {
			fmt.Fprintf(f.IO.ErrOut, "%s\n", t.T("wait.build", "dir", dir))
		}}
	if f.IO.JSON {
		return d, func() {}
	}
	ep := ui.NewErrPrinter(f.IO)
	var comp *ui.Progress
	d.Stage = func(name string) {
		if comp != nil { // the compile bar ends before the next stage prints
			comp.Done()
			comp = nil
		}
		ep.Printf("%s %s\n", ep.Mark(ui.Info), t.Line(name))
	}
	// Ninja's [n/m]: a live bar with the time left in a terminal; in
	// CI a line about every 10 % (every step with --verbose).
	d.Progress = func(done, total int, what string) {
		if comp == nil {
			comp = ui.NewProgress(f.IO, "  "+t.T("stage.compile"), ui.Steps)
		}
		comp.Update(int64(done), int64(total), what)
	}
	return d, func() {
		if comp != nil {
			comp.Done()
		}
	}
}

// buildNow runs the build (build.Run) until it ends or Ctrl-C, records
// where its binaries are for `llamactl run`, and fills the document.
func buildNow(ctx context.Context, o *Options, d build.Deps, in plan.Input, doc *Doc, sourceSteps []build.Step) error {
	if o.Interrupt == nil {
		o.Interrupt = func(ctx context.Context) (context.Context, func()) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}
	}
	// Without this, Ctrl-C would end llamactl and leave ninja (in its own
	// process group, so the terminal's SIGINT misses it) compiling on.
	ctx, stop := o.Interrupt(ctx)
	defer stop()
	res, err := build.Run(ctx, d, in, build.Options{Heal: o.Heal, OutDir: o.OutDir, StopAfter: o.StopAfter, SourceSteps: sourceSteps})
	err = exitError(err, o.pt)
	doc.Result = res
	if res == nil {
		return err
	}
	if err == nil {
		recordLastBuild(o, res)
	}
	if res.Plan.Backend != "" {
		p := res.Plan
		doc.Plan = &p
	}
	for i, dg := range res.Diagnoses {
		res.Diagnoses[i].Advice = healAdvice(o.t, res, dg.ID)
	}
	return err
}

// recordLastBuild leaves a record so `llamactl run` finds these binaries
// next (the --out copy when there is one).
func recordLastBuild(o *Options, res *build.Result) {
	bin := res.BinDir
	if res.OutDir != "" {
		bin = res.OutDir
	}
	if abs, aerr := filepath.Abs(bin); aerr == nil {
		bin = abs
	}
	if werr := paths.WriteLastBuild(cacheDir(o), paths.LastBuild{BinDir: bin, Manifest: res.Manifest}); werr != nil {
		fmt.Fprintf(o.F.IO.ErrOut, "%s\n", o.t.T("warn.last-build", "err", werr))
	}
}

// exitError maps build's error kinds to exit codes (docs/exit-codes.md).
// exitError is err with its exit code; a message filled from one of the
// plan's messages is shown in pt's language (nil: English).
func exitError(err error, pt *plan.Translator) error {
	var be *build.Error
	if !errors.As(err, &be) {
		return err
	}
	code := cmdutil.ExitInternal
	switch be.Kind {
	case build.BadInput:
		code = cmdutil.ExitUsage
	case build.Blocked:
		code = cmdutil.ExitFindings
	case build.Failed:
		code = cmdutil.ExitBuild
	case build.Interrupted:
		code = cmdutil.ExitSignal
	}
	msg := be.Message
	if pt != nil {
		msg = pt.Line(msg)
	}
	return &cmdutil.ExitError{Code: code, Message: msg, Err: err}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// finish prints the document (JSON or text) and returns err.
func finish(o *Options, doc *Doc, err error) error {
	f := o.F
	if err != nil {
		var ee *cmdutil.ExitError
		if errors.As(err, &ee) {
			doc.Error = &DocError{Code: ee.Code, Message: ee.Message}
		} else {
			doc.Error = &DocError{Code: cmdutil.ExitInternal, Message: err.Error()}
		}
	}
	if f.IO.JSON {
		if werr := ui.WriteJSON(f.IO.Out, doc); werr != nil {
			return werr
		}
		if err != nil {
			return cmdutil.Exit(cmdutil.ExitCode(err))
		}
		return nil
	}
	printText(f, o, doc)
	if doc.Lock != nil && !doc.Lock.Satisfied && cmdutil.ExitCode(err) == cmdutil.ExitCheck {
		return cmdutil.Exit(cmdutil.ExitCheck) // printText listed the problems; once is enough
	}
	return err
}

// planText writes a dry-run plan through the printer: its text as it is,
// its warnings and blockers as findings (the one finding printer), indented
// under their headings.
type planText struct {
	pr *ui.Printer
	pt *plan.Translator
}

func (w planText) Printf(format string, a ...any) { w.pr.Printf(format, a...) }

func (w planText) Notes(fs []finding.Finding) {
	w.pr.Findings(fs, ui.FindingOptions{Translator: w.pt, Lead: "  "}, false)
}

func printText(f *cmdutil.Factory, o *Options, doc *Doc) {
	t, pt := o.t, o.pt
	if t == nil {
		t, pt = texts(""), plan.NewTranslator("")
	}
	pr := ui.NewPrinter(f.IO)
	if doc.Lock != nil {
		if doc.Lock.Satisfied {
			pr.Line(ui.OK, t.T("lock.satisfied", "path", doc.Lock.Path))
		} else {
			pr.Line(ui.Err, t.T("lock.unsatisfied", "path", doc.Lock.Path), doc.Lock.Problems...)
		}
	}
	if doc.DryRun && doc.Plan != nil {
		doc.Plan.WriteText(pt, planText{pr, pt})
		if doc.Source != nil && doc.Source.URL != "" {
			pr.Printf("\n%s\n", t.T("dry-run-source", "url", doc.Source.URL, "dir", doc.Source.Dir))
		}
		return
	}
	r := doc.Result
	if r == nil {
		return
	}
	for _, w := range r.Plan.Warnings {
		pr.Finding(w.Shared(finding.Warn), ui.FindingOptions{Translator: pt})
	}
	for _, fx := range r.Fixes {
		when := t.T("fix-when.before")
		if fx.Attempt > 0 {
			when = t.T("fix-when.after", "attempt", fx.Attempt, "trigger", fx.Trigger)
		}
		pr.Line(ui.Warn, pt.Line(fx.Text), when)
	}
	for _, s := range r.Steps {
		st := ui.OK
		switch s.Status {
		case "failed":
			st = ui.Err
		case "skipped":
			st = ui.Skip
		}
		text := t.Line(s.Name)
		if s.Detail != "" && (s.Status != "failed" || doc.Error == nil || s.Detail != doc.Error.Message) {
			text += ": " + detailLine(pt, s.Detail)
		}
		if f.IO.Verbose {
			text += fmt.Sprintf(" (%.1fs)", s.Seconds)
		}
		pr.Line(st, text)
	}
	for _, id := range r.Healed {
		if id == plan.VulkanHeadersID {
			pr.Line(ui.Warn, t.T("healed-vulkan-headers", "id", id))
			continue
		}
		if _, ok := patches.Default().Get(id); !ok {
			continue // a planner fix (fewer-jobs, no-launcher...): its line is above
		}
		pr.Line(ui.Warn, t.T("healed", "id", id))
	}
	printDiagnoses(pr, t, r)
	if len(r.Diagnoses) == 0 && r.FirstError != nil {
		pr.Line(ui.Err, t.T("first-error", "error", r.FirstError.String()), t.T("first-error-where", "line", fmt.Sprint(r.FirstError.LogLine), "log", r.LogPath))
	}
	if r.Failed == "" && r.Verify != nil {
		p := r.Plan
		if r.NoOp {
			pr.Line(ui.OK, t.T("up-to-date"))
		}
		ref := p.Engine.Ref
		if ref == "" {
			ref = t.T("source-tree")
		}
		pr.Line(ui.OK, t.T("built", "ref", ref, "version", r.Verify.VersionLine, "backend", p.Backend))
		for _, ap := range p.Patches {
			title, _ := pt.Patch(ap)
			pr.Line(ui.Info, t.T("patch", "id", ap.ID, "title", title))
		}
		bin := r.BinDir
		if r.OutDir != "" {
			bin = r.OutDir // what the user asked for and will ship, not the build folder
		}
		pr.Printf("\n%s\n", t.T("result", "bin", bin, "manifest", r.Manifest, "log", r.LogPath))
	} else if r.Failed == "" && r.StoppedAfter != "" {
		pr.Line(ui.OK, t.T("stopped-after."+r.StoppedAfter))
		pr.Printf("\n%s\n", t.T("stopped-after.files", "manifest", r.Manifest, "log", r.LogPath))
	} else if r.LogPath != "" {
		pr.Printf("\n%s\n", t.T("log", "log", r.LogPath))
	}
}

// printDiagnoses prints a failed build's diagnoses (each an error) with
// the one finding printer: "<id>: <title>", the cause, the fix and its
// commands, then what --heal does about it.
func printDiagnoses(pr *ui.Printer, t *lang.Catalog, r *build.Result) {
	ft := failures.Default().Translator(t.Lang())
	for _, d := range r.Diagnoses {
		d = diagnosisIn(ft, d)
		f := d.Shared()
		f.Status = finding.Error // it failed the build, whatever its severity
		f.Summary = d.ID + ": " + d.Title
		f.Details = []string{t.T("cause", "text", d.Cause)}
		pr.Finding(f, ui.FindingOptions{
			FixLine:       func(text string) string { return t.T("fix", "text", text) },
			CommandPrefix: "  ",
			After: func(finding.Finding) []string {
				after := d.Advice
				if d.ID == plan.VulkanHeadersFailure && len(r.Healed) == 0 {
					after = append(after[:len(after):len(after)], t.T("knows-vulkan-headers"))
				}
				return after
			},
		})
	}
}

// detailLine translates a step's detail: one message, or several joined
// with "; " (verify's notes), each of which may hold "; " itself. From the
// left, the shortest run of parts that is one message is translated (the
// whole line first could match one message whose value swallowed the
// others); a part no message made stays.
func detailLine(pt *plan.Translator, s string) string {
	if !strings.Contains(s, "; ") {
		return pt.Line(s)
	}
	parts := strings.Split(s, "; ")
	var out []string
	for i := 0; i < len(parts); {
		j, tr := i+1, parts[i]
		for k := i + 1; k <= len(parts); k++ {
			if p := strings.Join(parts[i:k], "; "); pt.Line(p) != p {
				j, tr = k, pt.Line(p)
				break
			}
		}
		out = append(out, tr)
		i = j
	}
	sep := "; "
	if pt.Lang() != lang.EN {
		sep = "；"
	}
	return strings.Join(out, sep)
}

// healAdvice says what --heal does about a diagnosed failure: without
// --heal, the exact change it would make (naming the user's option it
// overrides); with --heal, why it could not help, never "rerun with
// --heal".
func healAdvice(t *lang.Catalog, r *build.Result, id string) []string {
	if !r.Heal {
		var out []string
		for _, fx := range r.WouldHeal {
			if fx.Trigger != id && !contains(healers(id), fx.ID) {
				continue
			}
			line := t.T("advice.would-change", "change", fx.Change)
			if fx.ID == "fewer-jobs" {
				// The user's -j is a value to lower, not an option to drop.
				out = append(out, t.T("advice.fewer-jobs", "jobs", plan.FewerJobsTo(fx.Change), "change", fx.Change))
				continue
			}
			if fx.Option != "" {
				line = t.T("advice.your-option", "option", fx.Option, "change", fx.Change)
			}
			out = append(out, line)
		}
		if len(out) == 0 && id == plan.OOMFailure && r.Plan.Jobs <= 1 {
			out = append(out, t.T("advice.one-job-oom"))
		}
		if len(out) == 0 {
			if ids := healers(id); len(ids) > 0 {
				out = append(out, t.T("knows-fix", "ids", strings.Join(ids, ", ")))
			}
		}
		return out
	}
	if id == plan.OOMFailure {
		// Fewer jobs can still help after the retries --heal allows, until one.
		if j := r.Plan.Jobs; j > 1 {
			return []string{t.T("advice.fewer-jobs-left", "jobs", j, "next", max(1, j/2))}
		}
		return []string{t.T("advice.one-job-oom")}
	}
	var applied []string
	for _, fx := range r.Fixes {
		applied = append(applied, fx.ID)
	}
	for _, p := range r.Plan.Patches {
		if contains(healers(id), p.ID) {
			applied = append(applied, "patch "+p.ID)
		}
	}
	if len(applied) > 0 {
		return []string{t.T("advice.already-applied", "fixes", strings.Join(applied, ", "))}
	}
	return []string{t.T("advice.no-fix")}
}

// healers lists the registry patches --heal applies for a failure ID.
func healers(id string) []string { return patches.Default().Healers(id) }

// diagnosisIn is d with the knowledge base's texts of its ID in ft's
// language; a cause llamactl prefixed with what it saw keeps the prefix.
func diagnosisIn(ft *failures.Translator, d build.Diagnosis) build.Diagnosis {
	e, ok := failures.Default().Entry(d.ID)
	if !ok {
		return d
	}
	tr := ft.Finding(failures.Finding{ID: e.ID, Title: e.Title, Cause: e.Cause, Fix: e.Fix})
	if d.Title == e.Title {
		d.Title = tr.Title
	}
	if d.Fix == e.Fix {
		d.Fix = tr.Fix
	}
	if strings.HasSuffix(d.Cause, e.Cause) {
		d.Cause = strings.TrimSuffix(d.Cause, e.Cause) + tr.Cause
	}
	return d
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// texts is build's own sentences (data/text.en.json) in l.
func texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

// systemGGML says whether the user asked llama.cpp to use an installed ggml.
func systemGGML(args []string) bool {
	for _, a := range args {
		c, err := plan.ParseCacheArg(a)
		if err == nil && c.Name == "LLAMA_USE_SYSTEM_GGML" {
			switch strings.ToUpper(c.Value) {
			case "ON", "1", "TRUE", "YES", "Y":
				return true
			}
		}
	}
	return false
}
