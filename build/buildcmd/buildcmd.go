// Package buildcmd is `llamactl build`: get the pinned llama.cpp (or use
// --source), plan the CMake + Ninja build for this machine, run it, verify
// the binaries and write a manifest. --dry-run prints the plan only.
package buildcmd

import (
	"context"
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
	"time"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/patches"
	"github.com/llamactl/llamactl/runner/launch"
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
	Targets                                []string
	StopAfter                              string
	Jobs                                   int
	DryRun, Heal, AllowUnsupported, Check  bool
	// Portable builds binaries for other machines (always so with --lock).
	Portable bool
	// Interrupt returns a context cancelled on Ctrl-C / SIGTERM; cancelling
	// it kills cmake's process group (ninja and the compilers with it).
	Interrupt func(context.Context) (context.Context, func())
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
	Lock      *LockCheck        `json:"lock,omitempty"`
	Error     *DocError         `json:"error,omitempty"`
}

// DocError is the failure in JSON form.
type DocError struct {
	Code    int    `json:"exit_code"`
	Message string `json:"message"`
}

// LockCheck is the outcome of checking the machine against --lock.
type LockCheck struct {
	Path      string   `json:"path"`
	Satisfied bool     `json:"satisfied"`
	Problems  []string `json:"problems,omitempty"`
}

// NewCmd builds `llamactl build`; runF, when given, replaces the run
// function (a test captures the parsed Options with it).
func NewCmd(f *cmdutil.Factory, runF ...func(*Options) error) *cobra.Command {
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
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](opts)
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
	fl.IntVarP(&opts.Jobs, "jobs", "j", 0, "parallel compile jobs (default: logical cores)")
	fl.StringArrayVar(&opts.CMakeArgs, "cmake-arg", nil, "extra CMake option NAME=VALUE or -DNAME=VALUE (old spellings are translated); repeatable")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the plan and the exact commands, run nothing")
	fl.BoolVar(&opts.Heal, "heal", false, "on a recognised failure apply the matching patch and retry (at most twice)")
	fl.BoolVar(&opts.AllowUnsupported, "allow-unsupported-compiler", false, "last resort: let nvcc accept an MSVC it does not support")
	fl.StringVar(&opts.Compiler, "compiler", "", "Windows: clang-cl to build the host code with clang-cl instead of cl")
	fl.StringVar(&opts.MSVCToolset, "msvc-toolset", "", "Windows: MSVC toolset for vcvarsall -vcvars_ver (e.g. 14.39)")
	fl.StringVar(&opts.CUDAArch, "cuda-arch", "", "CMAKE_CUDA_ARCHITECTURES to build (default: doctor's selection, e.g. 89-real)")
	fl.StringVar(&opts.LockPath, "lock", "", "CI lock file (TOML or JSON): engine ref + sha256, backend, CUDA constraint, architectures, flags")
	fl.BoolVar(&opts.Check, "check", false, "with --lock: only check that this machine still satisfies the lock (exit 6 if not)")
	fl.BoolVar(&opts.Portable, "portable", false, "binaries for other machines: CPU code not tuned to this one (GGML_NATIVE=OFF; always so with --lock)")
	fl.StringArrayVar(&opts.Targets, "target", nil, "compile only this CMake target and what it needs (e.g. llama-server; llama-cli is always built: the verification runs it); repeatable")
	fl.StringVar(&opts.StopAfter, "stop-after", "", "end the build early: configure, or cuda-object (configure and compile the first CUDA object: checks nvcc, host compiler and architectures in seconds); no verification")
	fl.StringVar(&opts.SnapshotPath, "snapshot", "", "plan for a recorded machine (doctor --json snapshot) instead of this one")
	return cmd
}

// portable says why the binaries must run on other machines, or "": a
// build from a lock file is CI's, whose binaries are shipped elsewhere.
func portable(o *Options) string {
	switch {
	case o.LockPath != "":
		return "building from the lock file " + filepath.Base(o.LockPath) + " (CI)"
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

func loadSnapshot(ctx context.Context, o *Options) (*machine.Snapshot, error) {
	if o.SnapshotPath != "" {
		s, err := machine.Load(o.SnapshotPath)
		if err != nil {
			return nil, cmdutil.UsageErrorf("--snapshot: %v", err)
		}
		return s, nil
	}
	if o.Gather != nil {
		return o.Gather(ctx), nil
	}
	return probe.Gather(ctx, probe.System(o.F.Env())), nil
}

// fileProblem says in words why an input file could not be read.
func fileProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error() // the path is already named
	}
	return err.Error()
}

// lockError explains an unreadable or invalid --lock file and how to get
// a good one.
func lockError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || isDirErr(err) {
		return cmdutil.UsageErrorf("--lock %s: %s. Write a lock file as docs/ci.md shows ([engine] ref, [build] backend...) and rerun: llamactl build --lock %s --check", path, fileProblem(err), path)
	}
	return cmdutil.UsageErrorf("--lock: %v. Fix the file (keys and format: docs/ci.md) and rerun: llamactl build --lock %s --check", err, path)
}

func isDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory")
}

// selection is doctor's selection, the planner's input. build --json keeps
// its documented fields: doctor's matrix resolution, per-GPU view and
// requested backend are doctor --json's.
func selection(s *machine.Snapshot, backend string) plan.Selection {
	d := doctor.SelectFor(s, backend)
	d.Resolution, d.GPUs, d.Requested = nil, nil, ""
	return d
}

var (
	safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	archRE   = regexp.MustCompile(`^(native|all|all-major|[0-9]{2,3}[af]?(-real|-virtual)?(;[0-9]{2,3}[af]?(-real|-virtual)?)*)$`)
)

func run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	f := o.F
	if !contains(plan.Backends, o.Backend) {
		return cmdutil.UsageErrorf("--backend %q: choose one of %s", o.Backend, strings.Join(plan.Backends, ", "))
	}
	if o.Check && o.LockPath == "" {
		return cmdutil.UsageErrorf("--check needs --lock FILE (the lock to check the machine against)")
	}
	if o.Source != "" && o.Ref != "" {
		return cmdutil.UsageErrorf("--source and --ref exclude each other: --source builds the tree as it is")
	}
	if o.Compiler != "" && o.Compiler != "clang-cl" {
		return cmdutil.UsageErrorf("--compiler %q: only clang-cl can be chosen (the default is MSVC cl)", o.Compiler)
	}
	if o.CUDAArch != "" && !archRE.MatchString(o.CUDAArch) {
		return cmdutil.UsageErrorf("--cuda-arch %q is not a CMAKE_CUDA_ARCHITECTURES list: use compute capabilities without the dot, e.g. 89-real or 86-real;89-real (llamactl matrix gpu NAME tells a GPU's)", o.CUDAArch)
	}
	if o.StopAfter != "" && !contains(build.StopStages, o.StopAfter) {
		return cmdutil.UsageErrorf("--stop-after %q: choose one of %s", o.StopAfter, strings.Join(build.StopStages, ", "))
	}
	if o.Jobs < 0 {
		return cmdutil.UsageErrorf("--jobs must be positive")
	}
	var lock *LockFile
	if o.LockPath != "" {
		l, err := ReadLockFile(o.LockPath)
		if err != nil {
			return lockError(o.LockPath, err)
		}
		lock = l
		if o.Ref == "" && o.Source == "" {
			o.Ref = l.Engine.Ref
		}
		if o.Backend == "auto" {
			o.Backend = l.Build.Backend
		}
		if o.CUDAArch == "" {
			o.CUDAArch = l.Build.Architectures
		}
		o.CMakeArgs = append(append([]string{}, l.Build.CMakeArgs...), o.CMakeArgs...)
	}

	snap, err := loadSnapshot(ctx, o)
	if err != nil {
		return err
	}
	// The MSVC flags mean nothing elsewhere; accepting them silently would
	// let a user believe they changed the build.
	if snap.OS.GOOS != "windows" {
		for _, fl := range []struct{ name, val string }{{"--msvc-toolset", o.MSVCToolset}, {"--compiler", o.Compiler}} {
			if fl.val != "" {
				return cmdutil.UsageErrorf("%s %s applies to Windows builds only (MSVC); this machine is %s, where the host compiler is the system gcc/g++: drop the flag, or plan for a Windows machine with --snapshot FILE", fl.name, fl.val, snap.OS.GOOS)
			}
		}
	}
	req := o.Backend
	if req == "auto" {
		req = ""
	}
	sel := selection(snap, req)
	if o.CUDAArch != "" {
		sel.CUDAArchitectures = o.CUDAArch
	}
	if o.MSVCToolset != "" {
		sel.MSVCToolset = o.MSVCToolset
	}

	doc := Doc{Schema: 1, DryRun: o.DryRun, CheckOnly: o.Check, Selection: &sel}
	cache := cacheDir(o)
	fetcher := &engine.Fetcher{HTTP: o.HTTP, CacheDir: cache}
	if fetcher.HTTP == nil {
		fetcher.HTTP = &http.Client{Timeout: 0}
	}

	// The engine: a tree given with --source, or the pinned (or --ref) release.
	var src engine.Source
	var eng plan.Engine
	pin, perr := engine.DefaultLock().Pin(o.Ref)
	if perr != nil {
		return cmdutil.UsageErrorf("--ref: %v", perr)
	}
	if lock != nil && lock.Engine.SHA256 != "" {
		pin.SHA256 = lock.Engine.SHA256
	}
	// A mirror for machines that cannot reach GitHub (CI caches, proxies).
	if m := f.Getenv("LLAMACTL_ENGINE_MIRROR"); m != "" {
		pin.URL = strings.ReplaceAll(m, "{ref}", pin.Ref)
	}
	if o.Source != "" {
		info, err := os.Stat(o.Source)
		if err != nil || !info.IsDir() {
			return cmdutil.UsageErrorf("--source %s is not a folder: point it at a llama.cpp checkout (git clone https://github.com/ggml-org/llama.cpp), or drop --source and llamactl downloads the pinned release", o.Source)
		}
		if _, err := os.Stat(filepath.Join(o.Source, "CMakeLists.txt")); err != nil {
			return cmdutil.UsageErrorf("--source %s has no CMakeLists.txt: point it at the root of a llama.cpp checkout", o.Source)
		}
		abs, _ := filepath.Abs(o.Source)
		if sub := engine.MissingGGML(abs); sub != "" && !systemGGML(o.CMakeArgs) {
			return cmdutil.UsageErrorf("--source %s has no %s/ directory, which its CMakeLists.txt builds: the tree is incomplete "+
				"(Debian's llama.cpp source package, +dfsg, leaves ggml out). Put ggml's source there "+
				"(upstream's layout: apt-get source ggml, then move the unpacked ggml-* directory to %s), "+
				"or build against an installed ggml with --cmake-arg LLAMA_USE_SYSTEM_GGML=ON (the installed libggml-dev then decides the backends)",
				o.Source, sub, filepath.Join(o.Source, strings.SplitN(sub, "/", 2)[0]))
		}
		src = engine.Source{Dir: abs}
		eng = engine.DetectVersion(ctx, f.Runner, abs, engine.DefaultLock())
	} else {
		src = engine.Source{Dir: filepath.Join(cache, "engine", pin.Ref), Ref: pin.Ref, URL: pin.URL}
		eng = plan.Engine{Ref: pin.Ref, BuildNumber: pin.BuildNumber, Commit: pin.Commit, VersionFrom: "lock"}
	}

	if lock != nil {
		lc := checkLock(o, lock, snap, sel, fetcher, pin)
		doc.Lock = lc
		if !lc.Satisfied {
			return finish(o, &doc, cmdutil.Errorf(cmdutil.ExitCheck, "this machine no longer satisfies %s:\n  %s", o.LockPath, strings.Join(lc.Problems, "\n  ")))
		}
		if o.Check {
			return finish(o, &doc, nil)
		}
	}

	if !o.DryRun && o.Source == "" {
		pr := ui.NewErrPrinter(f.IO)
		last := time.Time{}
		fetcher.Progress = func(done, total int64) {
			if f.IO.JSON || time.Since(last) < 500*time.Millisecond && done != total {
				return
			}
			last = time.Now()
			if total > 0 {
				pr.Printf("downloading %s: %s / %s (%d%%)\n", pin.Ref, mib(done), mib(total), done*100/total)
			} else {
				pr.Printf("downloading %s: %s\n", pin.Ref, mib(done))
			}
		}
		s, err := fetcher.Fetch(ctx, pin)
		if err != nil {
			code := cmdutil.ExitBuild
			if errors.Is(err, engine.ErrOffline) {
				code = cmdutil.ExitFindings
			}
			return finish(o, &doc, cmdutil.Errorf(code, "%v", err))
		}
		src = s
		eng = engine.DetectVersion(ctx, f.Runner, s.Dir, engine.DefaultLock())
		eng.SHA256 = s.SHA256
	}
	doc.Source = &src

	buildDir := o.BuildDir
	if buildDir == "" {
		if o.Source != "" {
			buildDir = filepath.Join(src.Dir, "build-llamactl")
		} else {
			backend := sel.Backend
			if o.Backend != "auto" {
				backend = o.Backend
			}
			buildDir = filepath.Join(cache, "build", safeName.ReplaceAllString(pin.Ref+"-"+backend, "_"))
		}
	}
	if snap.OS.GOOS == runtime.GOOS {
		// Absolute, so the log, bin_dir and manifest paths it reports (and
		// last-build.json) hold from any folder.
		if abs, err := filepath.Abs(buildDir); err == nil {
			buildDir = abs
		}
	}
	in := plan.Input{Snapshot: snap, Selection: sel, Engine: eng, Backend: o.Backend, SourceDir: src.Dir, BuildDir: buildDir,
		CMakeArgs: o.CMakeArgs, Jobs: o.Jobs, Compiler: o.Compiler, AllowUnsupportedCompiler: o.AllowUnsupported,
		Launcher: launcher(f.Runner), Portable: portable(o), Heal: o.Heal, CUDAArchFlag: o.CUDAArch, Targets: o.Targets}

	if o.DryRun {
		if snap.OS.GOOS == runtime.GOOS && o.SnapshotPath == "" {
			build.Inspect(ctx, f.Runner, f.Environ(), &in)
		}
		p, err := plan.Make(in)
		if err != nil {
			return finish(o, &doc, cmdutil.UsageErrorf("%v", err))
		}
		doc.Plan = &p
		doc.Scripts = map[string]string{}
		for _, sh := range plan.Shells {
			doc.Scripts[sh] = p.Script(sh)
		}
		var ferr error
		if len(p.Blockers) > 0 {
			ferr = cmdutil.Exit(cmdutil.ExitFindings)
		}
		return finish(o, &doc, ferr)
	}

	d := build.Deps{Runner: f.Runner, Now: f.Now, Environ: f.Environ(), Diagnose: build.KBDiagnose, Llamactl: buildinfo.Get().Version}
	if !f.IO.JSON {
		ep := ui.NewErrPrinter(f.IO)
		d.Stage = func(name string) { ep.Printf("%s %s\n", ep.Mark(ui.Info), name) }
		step := 0
		d.Progress = func(done, total int, what string) {
			// Every line with --verbose, else about every 10%.
			if f.IO.Verbose || total <= 20 || done == total || done*10/total != step {
				step = done * 10 / max(total, 1)
				ep.Printf("  [%d/%d] %s\n", done, total, what)
			}
		}
	}
	if o.Interrupt == nil {
		o.Interrupt = func(ctx context.Context) (context.Context, func()) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}
	}
	// Without this, Ctrl-C would end llamactl and leave ninja (in its own
	// process group, so the terminal's SIGINT misses it) compiling on.
	ctx, stop := o.Interrupt(ctx)
	defer stop()
	defer launch.GuardChildren()() // Windows: the compilers die with llamactl
	res, err := build.Run(ctx, d, in, build.Options{Heal: o.Heal, OutDir: o.OutDir, StopAfter: o.StopAfter})
	err = exitError(err)
	doc.Result = res
	if err == nil && res != nil {
		// Leave a record so `llamactl run` finds these binaries next.
		bin := res.BinDir
		if res.OutDir != "" {
			bin = res.OutDir
		}
		if abs, aerr := filepath.Abs(bin); aerr == nil {
			bin = abs
		}
		if werr := paths.WriteLastBuild(cacheDir(o), paths.LastBuild{BinDir: bin, Manifest: res.Manifest}); werr != nil {
			fmt.Fprintf(f.IO.ErrOut, "llamactl: warning: could not record the last build for 'llamactl run': %v\n", werr)
		}
	}
	if res != nil && res.Plan.Backend != "" {
		p := res.Plan
		doc.Plan = &p
	}
	if res != nil {
		for i, dg := range res.Diagnoses {
			res.Diagnoses[i].Advice = healAdvice(res, dg.ID)
		}
	}
	return finish(o, &doc, err)
}

// exitError maps build's error kinds to exit codes (docs/exit-codes.md).
func exitError(err error) error {
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
	return &cmdutil.ExitError{Code: code, Message: be.Message, Err: err}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// launcher returns ccache or sccache when installed.
func launcher(r proc.Runner) string {
	for _, name := range []string{"ccache", "sccache"} {
		if p, err := r.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func checkLock(o *Options, l *LockFile, s *machine.Snapshot, sel plan.Selection, fetcher *engine.Fetcher, pin engine.Pin) *LockCheck {
	lc := &LockCheck{Path: o.LockPath}
	problem := func(format string, a ...any) { lc.Problems = append(lc.Problems, fmt.Sprintf(format, a...)) }
	switch l.Build.Backend {
	case "cuda":
		if sel.Toolkit == nil {
			problem("the lock builds CUDA but no CUDA toolkit is installed (llamactl doctor says which to install)")
		} else if l.Build.CUDA != "" {
			if ok, _ := SatisfiesCUDA(sel.Toolkit.Version, l.Build.CUDA); !ok {
				problem("CUDA %s (%s) does not satisfy the lock's cuda = %q: install a matching toolkit or update the lock", sel.Toolkit.Version, sel.Toolkit.NVCC, l.Build.CUDA)
			}
		}
		if sel.Toolkit != nil && len(sel.Toolkit.GPUArchs) > 0 {
			for _, a := range strings.Split(l.Build.Architectures, ";") {
				num := strings.TrimRight(strings.Split(strings.TrimSpace(a), "-")[0], "af")
				if num == "" || num == "native" {
					continue
				}
				if !contains(sel.Toolkit.GPUArchs, "compute_"+num) {
					problem("nvcc %s cannot build architecture %s (nvcc --list-gpu-arch lacks compute_%s)", sel.Toolkit.Version, a, num)
				}
			}
		}
	case "vulkan":
		if s.Vulkan.Glslc == "" {
			problem("the lock builds Vulkan but glslc is missing (install the Vulkan SDK / glslc)")
		}
	case "hip":
		if s.HIP.Root == "" {
			problem("the lock builds HIP but no HIP SDK / ROCm was found")
		}
	}
	if want := strings.ToLower(l.Engine.SHA256); want != "" {
		if got := fetcher.RecordedHash(pin.Ref); got != "" && got != want {
			problem("the cached %s archive has sha256 %s, the lock says %s", pin.Ref, got, want)
		}
	}
	lc.Satisfied = len(lc.Problems) == 0
	return lc
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
	printText(f, doc)
	if doc.Lock != nil && !doc.Lock.Satisfied && cmdutil.ExitCode(err) == cmdutil.ExitCheck {
		return cmdutil.Exit(cmdutil.ExitCheck) // printText listed the problems; once is enough
	}
	return err
}

func printText(f *cmdutil.Factory, doc *Doc) {
	pr := ui.NewPrinter(f.IO)
	if doc.Lock != nil {
		if doc.Lock.Satisfied {
			pr.Line(ui.OK, "this machine satisfies "+doc.Lock.Path)
		} else {
			pr.Line(ui.Err, "this machine no longer satisfies "+doc.Lock.Path, doc.Lock.Problems...)
		}
	}
	if doc.DryRun && doc.Plan != nil {
		pr.Printf("%s", doc.Plan.Text())
		if doc.Source != nil && doc.Source.URL != "" {
			pr.Printf("\nThe source is downloaded on the first real build from %s into %s.\n", doc.Source.URL, doc.Source.Dir)
		}
		return
	}
	r := doc.Result
	if r == nil {
		return
	}
	for _, w := range r.Plan.Warnings {
		pr.Line(ui.Warn, w.Text)
	}
	for _, fx := range r.Fixes {
		when := "before configure"
		if fx.Attempt > 0 {
			when = fmt.Sprintf("after attempt %d failed (%s), then retried", fx.Attempt, fx.Trigger)
		}
		pr.Line(ui.Warn, fx.Text, "("+when+")")
	}
	for _, s := range r.Steps {
		st := ui.OK
		switch s.Status {
		case "failed":
			st = ui.Err
		case "skipped":
			st = ui.Skip
		}
		text := s.Name
		if s.Detail != "" {
			text += ": " + s.Detail
		}
		if f.IO.Verbose {
			text += fmt.Sprintf(" (%.1fs)", s.Seconds)
		}
		pr.Line(st, text)
	}
	for _, d := range r.Diagnoses {
		details := []string{"Cause: " + d.Cause, "Fix: " + d.Fix}
		for _, c := range d.Commands {
			details = append(details, "  "+c)
		}
		details = append(details, d.Advice...)
		pr.Line(ui.Err, d.ID+": "+d.Title, details...)
	}
	if r.Failed == "" && r.Verify != nil {
		p := r.Plan
		if r.NoOp {
			pr.Line(ui.OK, "up to date: nothing to rebuild")
		}
		pr.Line(ui.OK, fmt.Sprintf("llama.cpp %s (%s) built for %s", orDash(p.Engine.Ref), r.Verify.VersionLine, p.Backend))
		for _, ap := range p.Patches {
			pr.Line(ui.Info, "patch "+ap.ID+": "+ap.Title)
		}
		bin := r.BinDir
		if r.OutDir != "" {
			bin = r.OutDir // what the user asked for and will ship, not the build folder
		}
		pr.Printf("\nBinaries: %s\nManifest: %s\nLog:      %s\n", bin, r.Manifest, r.LogPath)
	} else if r.Failed == "" && r.StoppedAfter != "" {
		pr.Line(ui.OK, fmt.Sprintf("stopped after %s as asked (--stop-after): %s; nothing was verified", r.StoppedAfter,
			map[string]string{"configure": "configured", "cuda-object": "configured and compiled the first CUDA object"}[r.StoppedAfter]))
		pr.Printf("\nManifest: %s\nLog:      %s\n", r.Manifest, r.LogPath)
	} else if r.LogPath != "" {
		pr.Printf("\nLog: %s\n", r.LogPath)
	}
}

// healAdvice says what --heal does about a diagnosed failure: without
// --heal, the exact change it would make (naming the user's option it
// overrides); with --heal, why it could not help, never "rerun with
// --heal".
func healAdvice(r *build.Result, id string) []string {
	if !r.Heal {
		var out []string
		for _, fx := range r.WouldHeal {
			if fx.Trigger != id && !contains(healers(id), fx.ID) {
				continue
			}
			line := "llamactl build --heal would change: " + fx.Change
			if fx.Option != "" {
				line = "this comes from your " + fx.Option + "; drop or correct it, or rerun with --heal, which overrides it: " + fx.Change
			}
			out = append(out, line)
		}
		if len(out) == 0 {
			if ids := healers(id); len(ids) > 0 {
				out = append(out, fmt.Sprintf("llamactl knows a fix (patch %s): rerun with --heal", strings.Join(ids, ", ")))
			}
		}
		return out
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
		return []string{fmt.Sprintf("--heal was given and could not fix this: its fixes for it (%s) were already in this build, so another attempt would fail the same way", strings.Join(applied, ", "))}
	}
	return []string{"--heal was given, but llamactl knows no automatic fix for this: follow the fix above"}
}

// healers lists the registry patches --heal applies for a failure ID.
func healers(id string) []string { return patches.Default().Healers(id) }

func orDash(s string) string {
	if s == "" {
		return "source tree"
	}
	return s
}

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
