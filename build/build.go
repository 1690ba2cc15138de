// Package build runs a plan: it applies source patches, imports the MSVC
// environment on Windows, configures with CMake, compiles with Ninja while
// reporting progress, diagnoses failures with the knowledge base (and with
// --heal applies the matching patch and retries), verifies the binaries and
// writes a manifest. Every command goes through proc.Runner.
package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/msvcenv"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/filelock"
	"github.com/llamactl/llamactl/internal/proc"
)

// Deps is the outside world the executor uses.
type Deps struct {
	Runner  proc.Runner
	Now     func() time.Time
	Environ []string
	// Diagnose names the causes in a build log (the failures knowledge base).
	Diagnose func(log string) []Diagnosis
	// Progress receives Ninja's [n/m] steps as they happen.
	Progress func(done, total int, what string)
	// Stage is told when a stage starts (for a live status line).
	Stage func(name string)
	// Plan makes the plan (nil: plan.Make); a test counts the calls.
	Plan func(plan.Input) (plan.Plan, error)
	// Waiting is told, once, that another llamactl is building in the same
	// build directory and this build waits for it to finish.
	Waiting  func(buildDir string)
	Llamactl string // llamactl's version, for the manifest
}

// Options are the executor's switches.
type Options struct {
	Heal   bool
	OutDir string
	// MaxHeal bounds --heal retries (the issue says at most twice).
	MaxHeal          int
	ConfigureTimeout time.Duration
	BuildTimeout     time.Duration
	// StopAfter ends the build early: "configure", or "cuda-object" (configure,
	// then compile the first CUDA object only: proof that nvcc, its host
	// compiler and the architectures work, without the hour-long CUDA build).
	// No verification then; the manifest records where it stopped.
	StopAfter string
	// SourceSteps are the source pipeline's steps (FetchSource): the
	// build's steps start with them.
	SourceSteps []Step
}

// StopStages are the values Options.StopAfter accepts.
var StopStages = []string{"configure", "cuda-object"}

// Step is one stage's outcome.
type Step struct {
	Name     string  `json:"name"`
	Status   string  `json:"status"` // ok, skipped, failed
	Detail   string  `json:"detail,omitempty"`
	Seconds  float64 `json:"seconds"`
	Attempt  int     `json:"attempt,omitempty"`
	Command  string  `json:"command,omitempty"`
	ExitCode int     `json:"exit_code,omitempty"`
}

// Artifact is one built file, or a link to one: llama.cpp's shared libraries
// carry a SOVERSION, so a Linux build has libllama.so.0 -> libllama.so.0.7.0,
// and the binaries load the link's name (their DT_NEEDED), not the file's.
type Artifact struct {
	Path   string `json:"path"` // relative to the bin (or out) directory
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Link   string `json:"link,omitempty"` // a symbolic link's target, a name in the same directory
}

// Verification is what running the built binaries showed.
type Verification struct {
	VersionLine   string   `json:"version_line,omitempty"`
	BuildNumber   int      `json:"build_number,omitempty"`
	Commit        string   `json:"commit,omitempty"`
	LoadedBackend []string `json:"loaded_backends,omitempty"`
	Devices       []string `json:"devices,omitempty"`
	BackendLib    string   `json:"backend_library,omitempty"`
	// Tool is the binary verified (llama-cli, else llama-server for a
	// --target llama-server build).
	Tool string `json:"tool,omitempty"`
	// BackendInBuild: the backend's library was built and loads (a
	// load_backend line, a listed device, or a linked library the binary ran
	// with). DeviceUsable: the backend lists a device on this machine, a
	// separate fact (a GPU-less CI runner builds GPU backends for others).
	BackendInBuild bool `json:"backend_in_build"`
	DeviceUsable   bool `json:"device_usable"`
	// DeviceEnv is the environment the device was listed with, when it
	// needed one (GGML_VK_VISIBLE_DEVICES=0 for a software Vulkan device).
	DeviceEnv string `json:"device_env,omitempty"`
	// RPCWorker is the RPC worker binary's name in the bin directory
	// (ggml-rpc-server, rpc-server in older trees) of a --rpc build.
	RPCWorker string   `json:"rpc_worker,omitempty"`
	OK        bool     `json:"ok"`
	Notes     []string `json:"notes,omitempty"`
}

// Result is everything one build did.
type Result struct {
	Plan      plan.Plan   `json:"plan"`
	Steps     []Step      `json:"steps"`
	NoOp      bool        `json:"no_op"`
	LogPath   string      `json:"log"`
	Diagnoses []Diagnosis `json:"diagnoses,omitempty"`
	Healed    []string    `json:"healed,omitempty"`
	Attempts  int         `json:"attempts"`
	// Heal is whether --heal was given; Fixes what it changed, in order
	// (attempt 0: before CMake ran); WouldHeal what it would change, when
	// the build failed without --heal.
	Heal      bool       `json:"heal"`
	Fixes     []plan.Fix `json:"fixes,omitempty"`
	WouldHeal []plan.Fix `json:"would_heal,omitempty"`
	// StoppedAfter is Options.StopAfter when the build stopped there.
	StoppedAfter string            `json:"stopped_after,omitempty"`
	EnvChanges   []msvcenv.Change  `json:"env_changes,omitempty"`
	Toolchain    map[string]string `json:"toolchain,omitempty"`
	Verify       *Verification     `json:"verify,omitempty"`
	Artifacts    []Artifact        `json:"artifacts,omitempty"`
	BinDir       string            `json:"bin_dir,omitempty"`
	OutDir       string            `json:"out_dir,omitempty"` // absolute; --out, where the binaries were copied
	Manifest     string            `json:"manifest,omitempty"`
	Failed       string            `json:"failed_stage,omitempty"`
	// FirstError is the failed build log's first compiler error, when the
	// knowledge base recognised nothing: every failure names a cause.
	FirstError *CompilerError `json:"first_error,omitempty"`
}

type runner struct {
	deps Deps
	opts Options
	in   plan.Input
	res  *Result
	log  *os.File
	env  []string
	// logStart is where the current attempt's part of the log begins.
	logStart int64
	// cur is the running stage's step (runStage records it).
	cur *Step
}

// MakePlan is the plan for in: Deps.Plan, else plan.Make.
func (d Deps) MakePlan(in plan.Input) (plan.Plan, error) {
	if d.Plan != nil {
		return d.Plan(in)
	}
	return plan.Make(in)
}

// Plan is what a build of in would do, as --dry-run shows it: the build
// folder's facts gathered once (Inspect) when here says the build would
// run on this machine, then one plan. Run starts the same way.
func Plan(ctx context.Context, deps Deps, in plan.Input, here bool) (plan.Plan, error) {
	if here {
		Inspect(ctx, deps.Runner, deps.Environ, &in)
	}
	return deps.MakePlan(in)
}

// Run plans and executes a build. The returned error is an *Error whose
// Kind the command maps to an exit code; the Result is filled as far as the
// build got.
func Run(ctx context.Context, deps Deps, in plan.Input, opts Options) (*Result, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if opts.MaxHeal <= 0 {
		opts.MaxHeal = 2
	}
	if opts.ConfigureTimeout <= 0 {
		opts.ConfigureTimeout = 30 * time.Minute
	}
	if opts.BuildTimeout <= 0 {
		opts.BuildTimeout = 4 * time.Hour
	}
	if opts.OutDir != "" {
		// Absolute, so the manifest path in the result and last-build.json
		// does not depend on the folder llamactl ran in.
		abs, err := filepath.Abs(opts.OutDir)
		if err != nil {
			return &Result{}, errorf(BadInput, "--out %s: %v", opts.OutDir, err)
		}
		opts.OutDir = abs
	}
	in.Heal = opts.Heal
	r := &runner{deps: deps, opts: opts, in: in, res: &Result{Heal: opts.Heal, Steps: append([]Step(nil), opts.SourceSteps...)}}
	err := r.run(ctx)
	if r.log != nil {
		r.log.Close()
	}
	return r.res, asError(err)
}

// stage tells Deps.Stage what starts now (a live status line).
func (r *runner) stage(name string) {
	if r.deps.Stage != nil {
		r.deps.Stage(name)
	}
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

// run is the pipeline: plan, the build folder, the attempts (healed when
// asked), then the finishing stages.
func (r *runner) run(ctx context.Context) error {
	if err := r.plan(ctx); err != nil {
		return err
	}
	unlock, err := r.openFolder(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if err := r.attempts(ctx); err != nil {
		return err
	}
	_, finish := r.stages(r.res.Plan)
	return r.runStages(ctx, finish, 0)
}

// plan makes the build's plan, once; a plan with blockers runs nothing.
func (r *runner) plan(ctx context.Context) error {
	if r.in.Snapshot != nil && r.in.Snapshot.OS.GOOS == runtime.GOOS {
		Inspect(ctx, r.deps.Runner, r.deps.Environ, &r.in)
	}
	p, err := r.deps.MakePlan(r.in)
	if err != nil {
		return errorf(BadInput, "%v", err)
	}
	r.res.Plan = p
	r.addFixes(p.Fixes, 0)
	if len(p.Blockers) > 0 {
		r.res.Failed = "plan"
		var texts []string
		for _, b := range p.Blockers {
			texts = append(texts, b.Text)
		}
		return errorf(Blocked, "cannot build on this machine yet:\n  %s", strings.Join(texts, "\n  "))
	}
	return nil
}

// openFolder creates and locks the build folder and starts its log.
func (r *runner) openFolder(ctx context.Context) (unlock func(), err error) {
	p := r.res.Plan
	if err := os.MkdirAll(p.BuildDir, 0o755); err != nil {
		return nil, errorf(Internal, "creating the build directory: %v", err)
	}
	// One build per folder: a second llamactl building here would run ninja
	// in the same tree and truncate this one's log.
	lk, err := filelock.Acquire(ctx, filepath.Join(p.BuildDir, ".llamactl-build.lock"), func() {
		if r.deps.Waiting != nil {
			r.deps.Waiting(p.BuildDir)
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(p.BuildDir)
		}
		return nil, errorf(Internal, "locking the build directory %s: %v", p.BuildDir, err)
	}
	r.res.LogPath = filepath.Join(p.BuildDir, "llamactl-build.log")
	if r.log, err = os.OpenFile(r.res.LogPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
		lk.Unlock()
		return nil, errorf(Internal, "opening the build log: %v", err)
	}
	for _, f := range r.res.Fixes {
		fmt.Fprintf(r.log, "=== llamactl %s\n", f.Text)
	}
	return func() { lk.Unlock() }, nil
}

// attempts runs the attempt stages (patch → msvc-environment → configure
// → compile) until they succeed; a failed configure or compile is
// diagnosed and, with --heal, re-planned and retried while that adds a fix
// (at most Options.MaxHeal retries).
func (r *runner) attempts(ctx context.Context) error {
	for n := 1; ; n++ {
		r.res.Attempts = n
		r.beginAttempt(n)
		stages, _ := r.stages(r.res.Plan)
		err := r.runStages(ctx, stages, n)
		if err == nil {
			return nil
		}
		if be := (*Error)(nil); errors.As(err, &be) && be.Kind == Interrupted {
			return err // the killed compile is not a failure to diagnose or heal
		}
		if stage := r.res.Failed; stage != "configure" && stage != "compile" {
			return err
		}
		r.diagnose()
		err = r.explainFailure(r.res.Failed, err)
		if !r.opts.Heal {
			r.res.WouldHeal = r.wouldHeal()
			return err
		}
		if n > r.opts.MaxHeal {
			return err
		}
		added, herr := r.heal(n)
		if herr != nil || len(added) == 0 {
			return err
		}
		r.res.Healed = append(r.res.Healed, added...)
		r.res.Diagnoses = nil
		r.res.Failed = ""
	}
}

// interrupted is the error of a build stopped by Ctrl-C or SIGTERM; ninja
// keeps what it compiled, so the same command continues from there.
func interrupted(buildDir string) error {
	if buildDir == "" { // the source pipeline: nothing built yet
		return errorf(Interrupted, "interrupted before the build: a partial download is kept and resumed; run the same llamactl build command again")
	}
	return errorf(Interrupted, "build interrupted: cmake, ninja and the compilers were stopped. %s keeps what was compiled; run the same llamactl build command again to continue", buildDir)
}

// explainFailure names the cause of a failed configure or compile in its
// step and error: the knowledge base's diagnosis, else the log's first
// compiler error with its file and line, never a bare exit code.
func (r *runner) explainFailure(stage string, err error) error {
	why := ""
	switch {
	case len(r.res.Diagnoses) > 0:
		d := r.res.Diagnoses[0]
		why = d.ID + ": " + d.Title
	case r.res.FirstError != nil:
		why = "first error: " + r.res.FirstError.String()
	default:
		return err
	}
	for i := len(r.res.Steps) - 1; i >= 0; i-- {
		if r.res.Steps[i].Name == stage && r.res.Steps[i].Status == "failed" {
			if !strings.Contains(r.res.Steps[i].Detail, why) {
				r.res.Steps[i].Detail += ": " + why
			}
			break
		}
	}
	var be *Error
	if errors.As(err, &be) && !strings.Contains(be.Message, why) {
		return &Error{Kind: be.Kind, Message: be.Message + "\n  cause: " + why, Err: be.Err}
	}
	return err
}

// diagnose runs the knowledge base over the log.
func (r *runner) diagnose() {
	if r.deps.Diagnose == nil {
		return
	}
	b, err := readTail(r.res.LogPath, r.logStart, 16<<20)
	if err != nil {
		return
	}
	var found []Diagnosis
	if r.deps.Diagnose != nil {
		found = r.deps.Diagnose(string(b))
	}
	for _, d := range found {
		if !slices.ContainsFunc(r.res.Diagnoses, func(x Diagnosis) bool { return x.ID == d.ID }) {
			r.res.Diagnoses = append(r.res.Diagnoses, d)
		}
	}
	r.res.FirstError = nil
	if len(r.res.Diagnoses) == 0 {
		if e, ok := FirstCompilerError(string(b)); ok {
			r.res.FirstError = &e
		}
	}
}

func readTail(p string, from, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if start := max(from, info.Size()-n); start > 0 {
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n)) // bounded even if the log still grows
}

// newSymptoms are the diagnosed failure IDs the plan has not seen yet.
func (r *runner) newSymptoms() []string {
	var out []string
	for _, d := range r.res.Diagnoses {
		if !slices.Contains(r.in.Symptoms, d.ID) && !slices.Contains(out, d.ID) {
			out = append(out, d.ID)
		}
	}
	return out
}

// replan plans again with the diagnosed failure IDs as symptoms and
// returns the new plan and the fixes it adds to the current one (registry
// patches included).
func (r *runner) replan(heal bool) (plan.Plan, plan.Input, []plan.Fix, bool) {
	var symptoms []string
	for _, d := range r.res.Diagnoses {
		symptoms = append(symptoms, d.ID)
	}
	in := r.in
	in.Heal = heal
	in.Symptoms = append(slices.Clone(r.in.Symptoms), symptoms...)
	np, err := r.deps.MakePlan(in)
	if err != nil || len(np.Blockers) > 0 {
		return np, in, nil, false
	}
	var added []plan.AppliedPatch
	for _, ap := range np.Patches {
		if !slices.ContainsFunc(r.res.Plan.Patches, func(x plan.AppliedPatch) bool { return x.ID == ap.ID }) {
			added = append(added, ap)
		}
	}
	var fixes []plan.Fix
	for _, f := range np.Fixes {
		if !slices.ContainsFunc(r.res.Plan.Fixes, func(x plan.Fix) bool { return x.ID == f.ID && x.Change == f.Change }) {
			fixes = append(fixes, f)
		}
	}
	fixes = append(fixes, plan.FixesFromPatches(added, in.Symptoms, in.Registry)...)
	return np, in, fixes, true
}

// heal re-plans after failed attempt n and returns the fixes that adds.
// The next plan's input is this one's plus the attempt's diagnoses, each
// counted again when seen again (a rule may act on how often: fewer jobs
// after every out-of-memory attempt). A failure with no diagnosis adds
// nothing to plan with, and a re-plan that adds no fix not already applied
// ends the healing.
func (r *runner) heal(n int) ([]string, error) {
	if len(r.res.Diagnoses) == 0 {
		return nil, nil
	}
	np, in, fixes, ok := r.replan(true)
	if !ok {
		return nil, fmt.Errorf("re-plan failed")
	}
	if len(fixes) == 0 {
		return nil, nil
	}
	var ids []string
	for _, f := range fixes {
		ids = append(ids, f.ID)
	}
	r.in = in
	r.res.Plan = np
	r.addFixes(fixes, n)
	fmt.Fprintf(r.log, "=== llamactl --heal: diagnosed %s; applying %s and retrying\n", strings.Join(in.Symptoms, ", "), strings.Join(ids, ", "))
	return ids, nil
}

// wouldHeal is what --heal would change after this failure (printed when
// it was not given). Only a symptom the first plan did not know (a failure
// ID diagnosed in the log) can call for a change, so without one the first
// plan is the answer and nothing is planned again: it had no blocker (the
// build ran), and --heal changes only what would block
// (build/plan's TestHealOnlyUnblocks). With one, the plan is made again
// with it, as --heal would.
func (r *runner) wouldHeal() []plan.Fix {
	if len(r.newSymptoms()) == 0 {
		return nil
	}
	_, _, fixes, _ := r.replan(true)
	return fixes
}

func (r *runner) addFixes(fixes []plan.Fix, attempt int) {
	for _, f := range fixes {
		if slices.ContainsFunc(r.res.Fixes, func(x plan.Fix) bool { return x.ID == f.ID && x.Change == f.Change }) {
			continue
		}
		f.Attempt = attempt
		r.res.Fixes = append(r.res.Fixes, f)
		if r.log != nil {
			fmt.Fprintf(r.log, "=== llamactl %s\n", f.Text)
		}
	}
}
