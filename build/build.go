// Package build runs a plan: it applies source patches, imports the MSVC
// environment on Windows, configures with CMake, compiles with Ninja while
// reporting progress, diagnoses failures with the knowledge base (and with
// --heal applies the matching patch and retries), verifies the binaries and
// writes a manifest. Every command goes through proc.Runner.
package build

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/msvcenv"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/internal/filelock"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/patches"
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
	r := &runner{deps: deps, opts: opts, in: in, res: &Result{Heal: opts.Heal}}
	err := r.run(ctx)
	if r.log != nil {
		r.log.Close()
	}
	return r.res, asError(err)
}

func (r *runner) stage(name string) {
	if r.deps.Stage != nil {
		r.deps.Stage(name)
	}
}

func (r *runner) step(s Step, start time.Time) {
	s.Seconds = roundSeconds(r.deps.Now().Sub(start))
	r.res.Steps = append(r.res.Steps, s)
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(time.Millisecond)) / float64(time.Second)
}

func (r *runner) run(ctx context.Context) error {
	if r.in.Snapshot != nil && r.in.Snapshot.OS.GOOS == runtime.GOOS {
		Inspect(ctx, r.deps.Runner, r.deps.Environ, &r.in)
	}
	p, err := plan.Make(r.in)
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
	if err := os.MkdirAll(p.BuildDir, 0o755); err != nil {
		return errorf(Internal, "creating the build directory: %v", err)
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
			return interrupted(p.BuildDir)
		}
		return errorf(Internal, "locking the build directory %s: %v", p.BuildDir, err)
	}
	defer lk.Unlock()
	r.res.LogPath = filepath.Join(p.BuildDir, "llamactl-build.log")
	if r.log, err = os.OpenFile(r.res.LogPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
		return errorf(Internal, "opening the build log: %v", err)
	}
	for _, f := range r.res.Fixes {
		fmt.Fprintf(r.log, "=== llamactl %s\n", f.Text)
	}

	for attempt := 1; ; attempt++ {
		r.res.Attempts = attempt
		stage, err := r.attempt(ctx, attempt)
		if err == nil {
			break
		}
		r.res.Failed = stage
		if ctx.Err() != nil {
			// Interrupted: the killed compile is not a failure to diagnose or heal.
			return interrupted(r.res.Plan.BuildDir)
		}
		if stage != "configure" && stage != "compile" {
			return err
		}
		r.diagnose()
		err = r.explainFailure(stage, err)
		if !r.opts.Heal {
			r.res.WouldHeal = r.wouldHeal()
			return err
		}
		if attempt > r.opts.MaxHeal {
			return err
		}
		added, herr := r.heal(attempt)
		if herr != nil || len(added) == 0 {
			return err
		}
		r.res.Healed = append(r.res.Healed, added...)
		r.res.Diagnoses = nil
		r.res.Failed = ""
	}
	if r.res.StoppedAfter != "" {
		return r.finishEarly()
	}
	if err := r.finish(ctx); err != nil {
		if ctx.Err() != nil {
			return interrupted(r.res.Plan.BuildDir)
		}
		return err
	}
	return nil
}

// interrupted is the error of a build stopped by Ctrl-C or SIGTERM; ninja
// keeps what it compiled, so the same command continues from there.
func interrupted(buildDir string) error {
	return errorf(Interrupted, "build interrupted: cmake, ninja and the compilers were stopped. %s keeps what was compiled; run the same llamactl build command again to continue", buildDir)
}

// attempt runs patch → environment → configure → compile once.
func (r *runner) attempt(ctx context.Context, n int) (string, error) {
	p := r.res.Plan
	// Each attempt is diagnosed on its own part of the log: a cause the
	// previous attempt showed and --heal fixed must not be found again.
	if off, err := r.log.Seek(0, io.SeekCurrent); err == nil {
		r.logStart = off
	}
	fmt.Fprintf(r.log, "=== llamactl build attempt %d: %s\n", n, strings.Join(append([]string{p.Configure.Program}, p.Configure.Args...), " "))

	start := r.deps.Now()
	var applied []string
	for _, ap := range p.Patches {
		if ap.Diff == "" {
			continue
		}
		r.stage("patch " + ap.ID)
		reg := r.in.Registry
		if reg == nil {
			reg = patches.Default()
		}
		pt, _ := reg.Get(ap.ID)
		diff, err := reg.Diff(pt)
		if err != nil {
			return "patch", errorf(Internal, "patch %s: %v", ap.ID, err)
		}
		res, err := patches.ApplyDiff(p.SourceDir, diff)
		if err != nil {
			r.step(Step{Name: "patch", Status: "failed", Detail: ap.ID + ": " + err.Error()}, start)
			return "patch", errorf(Failed, "patch %s does not apply to %s: %v. Nothing was changed; the source may be newer than the patch (llamactl patches show %s)", ap.ID, p.SourceDir, err, ap.ID)
		}
		if res.AlreadyApplied {
			applied = append(applied, ap.ID+" (already applied)")
		} else {
			applied = append(applied, ap.ID)
		}
	}
	if len(applied) > 0 {
		r.step(Step{Name: "patch", Status: "ok", Detail: strings.Join(applied, ", "), Attempt: n}, start)
	}

	if err := r.environment(ctx); err != nil {
		return "environment", err
	}

	if p.FreshCache {
		// A configuration llamactl did not make, which conflicts with the
		// plan (fix fresh-cache): what `cmake --fresh` does, on any CMake.
		os.Remove(filepath.Join(p.BuildDir, "CMakeCache.txt"))
		os.RemoveAll(filepath.Join(p.BuildDir, "CMakeFiles"))
		r.in.Folder = nil
		fmt.Fprintf(r.log, "=== llamactl --heal: removed %s and %s\n", filepath.Join(p.BuildDir, "CMakeCache.txt"), filepath.Join(p.BuildDir, "CMakeFiles"))
	}
	stamp := r.stamp()
	prev := readStamp(p.BuildDir)
	configured := fileExists(filepath.Join(p.BuildDir, "build.ninja")) && fileExists(filepath.Join(p.BuildDir, "CMakeCache.txt"))
	if prev.Plan == stamp && configured {
		r.step(Step{Name: "configure", Status: "skipped", Detail: plan.Message("step-configure-unchanged").Text, Attempt: n}, r.deps.Now())
		r.res.Toolchain = prev.Toolchain
	} else {
		if prev.Plan != "" && prev.Plan != stamp {
			// Options left in the cache by an earlier plan would survive a
			// re-configure (a backend switched off stays on): start the cache anew.
			os.Remove(filepath.Join(p.BuildDir, "CMakeCache.txt"))
			// So would the earlier plan's outputs: a CPU build after a CUDA one
			// kept libggml-cuda.so in bin/, listed it, copied it to --out, and
			// llama-cli loaded it. Ninja relinks from the kept objects.
			os.RemoveAll(filepath.Join(p.BuildDir, "bin"))
			// ggml-vulkan's generated shader header is not regenerated when
			// the shader generator changes (another glslc finds other
			// extensions): ggml-vulkan.cpp then misses the new variants
			// (vulkan-shaders-header-stale). Ninja regenerates it.
			os.Remove(filepath.Join(p.BuildDir, "ggml", "src", "ggml-vulkan", "ggml-vulkan-shaders.hpp"))
		}
		// Until this configure succeeds the folder matches no plan: a failed
		// configure leaves a cache a later run must not mistake for this plan's
		// (the stamp still says llamactl owns the folder).
		if err := writeStamp(p.BuildDir, stampFile{Plan: "incomplete"}); err != nil {
			return "configure", errorf(Internal, "writing the plan stamp: %v", err)
		}
		if err := r.configure(ctx, n); err != nil {
			return "configure", err
		}
		if err := writeStamp(p.BuildDir, stampFile{Plan: stamp, Toolchain: r.res.Toolchain}); err != nil {
			return "configure", errorf(Internal, "writing the plan stamp: %v", err)
		}
	}
	switch r.opts.StopAfter {
	case "configure":
		r.res.StoppedAfter = "configure"
		return "", nil
	case "cuda-object":
		if err := r.cudaObject(ctx, n); err != nil {
			return "compile", err
		}
		r.res.StoppedAfter = "cuda-object"
		return "", nil
	}
	if err := r.compile(ctx, n); err != nil {
		return "compile", err
	}
	return "", nil
}

func (r *runner) environment(ctx context.Context) error {
	p := r.res.Plan
	env := slices.Clone(r.deps.Environ)
	if p.VCVars != nil {
		r.stage("msvc environment")
		start := r.deps.Now()
		e, err := msvcenv.Import(ctx, r.deps.Runner, p.BuildDir, p.VCVars.Path, p.VCVars.Args(), env)
		if err != nil {
			r.step(Step{Name: "msvc-environment", Status: "failed", Detail: err.Error()}, start)
			return errorf(Failed, "%v", err)
		}
		env = e.Vars
		r.res.EnvChanges = e.Changes
		r.step(Step{Name: "msvc-environment", Status: "ok", Detail: plan.Message("step-msvc-vars", len(e.Changes), strings.Join(p.VCVars.Args(), " ")).Text}, start)
	}
	for _, v := range p.Env {
		env = setEnv(env, v.Name, v.Value)
	}
	r.env = env
	return nil
}

func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, name+"="+value)
}

// stamp identifies everything that decides the configure step.
func (r *runner) stamp() string {
	p := r.res.Plan
	b, _ := json.Marshal(struct {
		C plan.Command
		E []plan.EnvVar
		V *plan.VCVars
	}{p.Configure, p.Env, p.VCVars})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

type stampFile struct {
	Plan      string            `json:"plan"`
	Toolchain map[string]string `json:"toolchain,omitempty"`
}

const stampName = ".llamactl-plan.json"

func readStamp(dir string) stampFile {
	var s stampFile
	b, err := os.ReadFile(filepath.Join(dir, stampName))
	if err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return s
}

func writeStamp(dir string, s stampFile) error {
	b, _ := json.MarshalIndent(s, "", "  ")
	return paths.WriteFileAtomicPerm(filepath.Join(dir, stampName), append(b, '\n'), 0o644)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (r *runner) exec(ctx context.Context, c plan.Command, timeout time.Duration, out io.Writer) (proc.Result, error) {
	return r.deps.Runner.Run(ctx, proc.Cmd{Name: c.Program, Args: c.Args, Env: r.env, Timeout: timeout, Stdout: out, Stderr: out})
}

var (
	compilerIDRE = regexp.MustCompile(`^-- The (C|CXX|CUDA|HIP) compiler identification is (.+)$`)
	hostCompRE   = regexp.MustCompile(`^-- CUDA host compiler is (.+)$`)
)

func (r *runner) configure(ctx context.Context, n int) error {
	r.stage("configure")
	p := r.res.Plan
	start := r.deps.Now()
	var buf bytes.Buffer
	res, err := r.exec(ctx, p.Configure, r.opts.ConfigureTimeout, io.MultiWriter(r.log, &buf))
	step := Step{Name: "configure", Attempt: n, Command: commandLine(p.Configure), ExitCode: res.ExitCode}
	if err != nil {
		step.Status, step.Detail = "failed", err.Error()
		r.step(step, start)
		if errors.Is(err, proc.ErrNotFound) {
			return errorf(Failed, "cmake was not found: install CMake 3.24 or newer (Windows: winget install Kitware.CMake; Debian/Ubuntu: sudo apt install cmake ninja-build) and rerun")
		}
		return errorf(Failed, "configure: %v (log: %s)", err, r.res.LogPath)
	}
	r.res.Toolchain = map[string]string{}
	for _, l := range strings.Split(buf.String(), "\n") {
		l = strings.TrimRight(l, "\r")
		if m := compilerIDRE.FindStringSubmatch(l); m != nil {
			r.res.Toolchain[strings.ToLower(m[1])] = m[2]
		}
		if m := hostCompRE.FindStringSubmatch(l); m != nil {
			r.res.Toolchain["cuda_host"] = m[1]
		}
	}
	if res.ExitCode != 0 {
		step.Status, step.Detail = "failed", plan.Message("step-cmake-exit", res.ExitCode).Text
		r.step(step, start)
		return errorf(Failed, "configure failed (cmake exit %d); the log is %s", res.ExitCode, r.res.LogPath)
	}
	if ignored := UnusedVariables(buf.String()); len(ignored) > 0 {
		var backend []string
		for _, v := range ignored {
			if isBackendOption(v) {
				backend = append(backend, v)
			}
		}
		if len(backend) > 0 {
			step.Status, step.Detail = "failed", plan.Message("step-backend-ignored", strings.Join(backend, ", ")).Text
			r.step(step, start)
			r.res.Diagnoses = append(r.res.Diagnoses, kbEntry("cmake-flag-ignored", "CMake ignored "+strings.Join(backend, ", ")))
			return errorf(Failed, "configure ignored %s (the build would be CPU-only); see %s", strings.Join(backend, ", "), r.res.LogPath)
		}
		step.Detail = plan.Message("step-unused-options", strings.Join(ignored, ", ")).Text
	}
	step.Status = "ok"
	r.step(step, start)
	return nil
}

// UnusedVariables returns the names CMake listed under "Manually-specified
// variables were not used by the project".
func UnusedVariables(log string) []string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.Contains(lines[i], "Manually-specified variables were not used by the project") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			l := lines[j]
			t := strings.TrimSpace(l)
			if t == "" {
				if len(out) > 0 {
					break
				}
				continue
			}
			if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "\t") {
				break
			}
			out = append(out, t)
		}
	}
	return out
}

// isBackendOption says whether name is a backend switch in any llama.cpp
// release (llama.cpp configures with CMAKE_WARN_UNUSED_CLI in its root
// CMakeLists.txt: such a warning means the option was ignored).
func isBackendOption(name string) bool {
	for _, l := range plan.OptionTable().Lineages {
		if l.Backend == "" && l.ID != "clblast" && l.ID != "kompute" && l.ID != "sycl" && l.ID != "metal" {
			continue
		}
		for _, n := range l.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}

var ninjaProgressRE = regexp.MustCompile(`^\[(\d+)/(\d+)\]\s*(.*)$`)

func (r *runner) compile(ctx context.Context, n int) error {
	r.stage("compile")
	p := r.res.Plan
	start := r.deps.Now()
	noWork := false
	lw := &proc.LineWriter{Fn: func(l string) {
		if strings.Contains(l, "ninja: no work to do") {
			noWork = true
		}
		if m := ninjaProgressRE.FindStringSubmatch(l); m != nil && r.deps.Progress != nil {
			done, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			r.deps.Progress(done, total, m[3])
		}
	}}
	res, err := r.exec(ctx, p.Build, r.opts.BuildTimeout, io.MultiWriter(r.log, lw))
	step := Step{Name: "compile", Attempt: n, Command: commandLine(p.Build), ExitCode: res.ExitCode}
	if err != nil {
		step.Status, step.Detail = "failed", err.Error()
		r.step(step, start)
		return errorf(Failed, "compile: %v (log: %s)", err, r.res.LogPath)
	}
	if res.ExitCode != 0 {
		step.Status, step.Detail = "failed", plan.Message("step-exit", res.ExitCode).Text
		r.step(step, start)
		return errorf(Failed, "compile failed (exit %d); the log is %s", res.ExitCode, r.res.LogPath)
	}
	step.Status = "ok"
	if noWork {
		step.Detail = plan.Message("step-up-to-date").Text
		r.res.NoOp = noConfigureRan(r.res.Steps)
	}
	r.step(step, start)
	return nil
}

func noConfigureRan(steps []Step) bool {
	for _, s := range steps {
		if s.Name == "configure" && s.Status == "ok" {
			return false
		}
	}
	return true
}

func commandLine(c plan.Command) string {
	return proc.Cmd{Name: c.Program, Args: c.Args}.String()
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
	np, err := plan.Make(in)
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
func (r *runner) heal(n int) ([]string, error) {
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
// it was not given).
func (r *runner) wouldHeal() []plan.Fix {
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

// finish verifies the binaries, collects artifacts and writes the manifest.
func (r *runner) finish(ctx context.Context) error {
	p := r.res.Plan
	bin := filepath.Join(p.BuildDir, "bin")
	r.res.BinDir = bin
	if p.OS == "windows" && p.Backend == "cuda" {
		r.copyCUDARuntime(bin)
	}
	r.stage("verify")
	start := r.deps.Now()
	v, err := r.verify(ctx, bin)
	r.res.Verify = v
	if err != nil {
		r.step(Step{Name: "verify", Status: "failed", Detail: err.Error()}, start)
		r.res.Failed = "verify"
		return errorf(Failed, "%v", err)
	}
	r.step(Step{Name: "verify", Status: "ok", Detail: strings.Join(v.Notes, "; ")}, start)
	r.toolVersions(ctx)

	start = r.deps.Now()
	arts, err := collect(bin)
	if err != nil {
		return errorf(Internal, "listing the built files: %v", err)
	}
	r.res.Artifacts = arts
	dest := p.BuildDir
	if r.opts.OutDir != "" {
		if err := copyArtifacts(bin, r.opts.OutDir, arts); err != nil {
			return errorf(Internal, "copying the binaries to %s: %v", r.opts.OutDir, err)
		}
		dest = r.opts.OutDir
		r.res.OutDir = dest
	}
	m := r.manifest()
	b, _ := json.MarshalIndent(m, "", "  ")
	r.res.Manifest = filepath.Join(dest, ManifestName)
	if err := paths.WriteFileAtomicPerm(r.res.Manifest, append(b, '\n'), 0o644); err != nil {
		return errorf(Internal, "writing the manifest: %v", err)
	}
	r.step(Step{Name: "manifest", Status: "ok", Detail: r.res.Manifest}, start)
	return nil
}

var (
	loadedRE = regexp.MustCompile(`(?m)load_backend: loaded (\S+) backend from (.+)$`)
	deviceRE = regexp.MustCompile(`(?m)^  ([A-Za-z]+)(\d+): (.+)$`)
)

// ParseVersion reads llama.cpp's "version:" line (both formats);
// the commit is without "-dirty" so it compares with the lock's.
func ParseVersion(out string) (line string, build int, commit string, ok bool) {
	v, ok := enginefacts.ParseVersion(out)
	return v.Line, v.Build, v.Commit, ok
}

func exeName(goos, name string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

func backendLibrary(goos, bin, backend string) string {
	short := map[string]string{"cuda": "cuda", "vulkan": "vulkan", "hip": "hip", "opencl": "opencl"}[backend]
	if short == "" {
		return ""
	}
	names := []string{"libggml-" + short + ".so", "ggml-" + short + ".dll", "libggml-" + short + ".dylib"}
	for _, n := range names {
		if fileExists(filepath.Join(bin, n)) {
			return n
		}
	}
	return ""
}

func (r *runner) verify(ctx context.Context, bin string) (*Verification, error) {
	p := r.res.Plan
	v := &Verification{}
	cli := filepath.Join(bin, exeName(p.OS, "llama-cli"))
	if !fileExists(cli) {
		// A --target build may have made only the server.
		if srv := filepath.Join(bin, exeName(p.OS, "llama-server")); fileExists(srv) {
			cli = srv
		} else {
			return v, errors.New(plan.Message("verify-tool-missing", cli, r.res.LogPath).Text)
		}
	}
	v.Tool = filepath.Base(cli)
	if p.RPC {
		w := RPCWorker(p.OS, bin)
		if w == "" {
			return v, errors.New(plan.Message("verify-no-rpc-worker", strings.Join(RPCWorkerNames, " or "), bin, r.res.LogPath).Text)
		}
		v.RPCWorker = w
		v.Notes = append(v.Notes, plan.Message("verify-rpc-worker", w).Text)
	}
	res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: cli, Args: []string{"--version"}, Env: r.env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		return v, fmt.Errorf("%s --version failed (exit %d, %v): %s", cli, res.ExitCode, err, strings.TrimSpace(lastLines(res.Combined(), 5)))
	}
	line, build, commit, ok := ParseVersion(res.Combined())
	if !ok {
		return v, fmt.Errorf("%s --version printed no version line: %s", cli, strings.TrimSpace(lastLines(res.Combined(), 5)))
	}
	v.VersionLine, v.BuildNumber, v.Commit = line, build, commit
	if p.Engine.BuildNumber > 0 && build != p.Engine.BuildNumber {
		v.Notes = append(v.Notes, fmt.Sprintf("binary reports build %d, the engine is b%d (build-info-unknown)", build, p.Engine.BuildNumber))
	}
	res, err = r.deps.Runner.Run(ctx, proc.Cmd{Name: cli, Args: []string{"--list-devices"}, Env: r.env, Timeout: time.Minute})
	if err != nil {
		return v, fmt.Errorf("%s --list-devices: %v", cli, err)
	}
	out := res.Combined()
	for _, m := range loadedRE.FindAllStringSubmatch(out, -1) {
		v.LoadedBackend = append(v.LoadedBackend, m[1])
	}
	for _, m := range deviceRE.FindAllStringSubmatch(out, -1) {
		v.Devices = append(v.Devices, m[1]+m[2]+": "+m[3])
	}
	want := enginefacts.BackendRegName(p.Backend)
	if p.Backend == "cpu" {
		v.BackendInBuild, v.DeviceUsable, v.OK = true, true, true
		return v, nil
	}
	v.BackendLib = backendLibrary(p.OS, bin, p.Backend)
	hasDevice := func() bool {
		return slices.ContainsFunc(v.Devices, func(d string) bool { return strings.HasPrefix(d, want) })
	}
	loaded := slices.Contains(v.LoadedBackend, want)
	listed := hasDevice()
	if !listed && p.Backend == "vulkan" && (loaded || v.BackendLib != "") {
		// ggml-vulkan skips CPU-type devices (Mesa's lavapipe/llvmpipe)
		// unless they are selected: ask once more with the first selected.
		env := append(slices.Clone(r.env), "GGML_VK_VISIBLE_DEVICES=0")
		if res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: cli, Args: []string{"--list-devices"}, Env: env, Timeout: time.Minute}); err == nil {
			for _, m := range deviceRE.FindAllStringSubmatch(res.Combined(), -1) {
				if d := m[1] + m[2] + ": " + m[3]; strings.HasPrefix(d, want) && !slices.Contains(v.Devices, d) {
					v.Devices = append(v.Devices, d)
				}
			}
			if listed = hasDevice(); listed {
				v.DeviceEnv = "GGML_VK_VISIBLE_DEVICES=0"
			}
		}
	}
	// Hardware that should have listed a device (software Vulkan devices do not count).
	gpus := len(r.in.Snapshot.NVIDIA.GPUs) > 0 || len(r.in.Snapshot.HIP.GFX) > 0
	v.BackendInBuild = loaded || listed || v.BackendLib != ""
	v.DeviceUsable = listed
	switch {
	case listed && v.DeviceEnv != "":
		v.Notes = append(v.Notes, plan.Message("verify-device-env", want, v.DeviceEnv).Text)
	case listed:
		v.Notes = append(v.Notes, plan.Message("verify-device-listed", want).Text)
	case loaded && gpus && p.Backend != "vulkan":
		return v, errors.New(plan.Message("verify-no-device-gpu", want).Text)
	case loaded:
		v.Notes = append(v.Notes, plan.Message("verify-loaded-no-device", want).Text)
	case v.BackendLib != "" && gpus && p.Backend != "vulkan":
		return v, errors.New(plan.Message("verify-lib-no-device-gpu", v.BackendLib, bin).Text)
	case v.BackendLib != "":
		// A non-DL build links the backend library into the binary: that it ran proves it loaded.
		v.Notes = append(v.Notes, plan.Message("verify-linked-no-device", want, v.BackendLib, v.Tool).Text)
	default:
		return v, fmt.Errorf("the %s backend is not in the build (no \"load_backend: loaded %s backend\" line, no %s device, no backend library in %s): the build is CPU-only. Check the configure log %s for \"Manually-specified variables were not used\", and for runtime DLLs run llamactl doctor", want, want, want, bin, r.res.LogPath)
	}
	v.OK = true
	return v, nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// copyCUDARuntime puts cudart, cublas and cublasLt beside the binaries
// (F36: a non-DL build will not start without them).
func (r *runner) copyCUDARuntime(bin string) {
	tk := r.res.Plan.Cache
	root := ""
	for _, c := range tk {
		if c.Name == "CMAKE_CUDA_COMPILER" {
			root = filepath.Dir(filepath.Dir(c.Value))
		}
	}
	if root == "" {
		return
	}
	var copied []string
	for _, m := range cudaRuntimeDLLs(root) {
		if err := copyFile(m, filepath.Join(bin, filepath.Base(m))); err == nil {
			copied = append(copied, filepath.Base(m))
		}
	}
	r.res.Steps = append(r.res.Steps, Step{Name: "cuda-runtime-dlls", Status: map[bool]string{true: "ok", false: "skipped"}[len(copied) > 0], Detail: strings.Join(copied, ", ")})
}

// cudaRuntimeDLLs are the toolkit's cudart, cublas and cublasLt DLLs: in
// <root>\bin up to CUDA 12, in <root>\bin\x64 from CUDA 13 (nvcc stays in
// bin). A name found in both is taken once, from bin\x64.
func cudaRuntimeDLLs(root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, dir := range []string{filepath.Join(root, "bin", "x64"), filepath.Join(root, "bin")} {
		for _, pat := range []string{"cudart64_*.dll", "cublas64_*.dll", "cublasLt64_*.dll"} {
			ms, _ := filepath.Glob(filepath.Join(dir, pat))
			for _, m := range ms {
				if k := strings.ToLower(filepath.Base(m)); !seen[k] {
					seen[k] = true
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func collect(bin string) ([]Artifact, error) {
	entries, err := os.ReadDir(bin)
	if err != nil {
		return nil, err
	}
	var out []Artifact
	for _, e := range entries {
		p := filepath.Join(bin, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			// Only links within bin/ (the SOVERSION chain) travel with the binaries.
			if target, err := os.Readlink(p); err == nil && localLink(target) && fileExists(p) {
				out = append(out, Artifact{Path: e.Name(), Link: target})
			}
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		n, err := io.Copy(h, bufio.NewReader(f))
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, Artifact{Path: e.Name(), SHA256: hex.EncodeToString(h.Sum(nil)), Size: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// localLink says whether a link target names a file in the link's own directory.
func localLink(target string) bool {
	return target != "" && target != "." && target != ".." && !strings.ContainsAny(target, `/\`)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), info.Mode().Perm()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

func copyArtifacts(bin, out string, arts []Artifact) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// Files an earlier llamactl build put in out (its manifest lists them) and
	// this build did not make go; nothing else there is touched.
	if b, err := os.ReadFile(filepath.Join(out, ManifestName)); err == nil {
		var old Manifest
		if json.Unmarshal(b, &old) == nil {
			for _, a := range old.Artifacts {
				if localLink(a.Path) && !slices.ContainsFunc(arts, func(n Artifact) bool { return n.Path == a.Path }) {
					os.Remove(filepath.Join(out, a.Path))
				}
			}
		}
	}
	for _, a := range arts {
		dst := filepath.Join(out, a.Path)
		if a.Link != "" {
			if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if err := os.Symlink(a.Link, dst); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(filepath.Join(bin, a.Path), dst); err != nil {
			return err
		}
	}
	return nil
}

// toolVersions adds cmake's and ninja's versions to the toolchain record.
func (r *runner) toolVersions(ctx context.Context) {
	if r.res.Toolchain == nil {
		r.res.Toolchain = map[string]string{}
	}
	for _, tool := range []string{"cmake", "ninja"} {
		res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: tool, Args: []string{"--version"}, Env: r.env, Timeout: 20 * time.Second})
		if err != nil || res.ExitCode != 0 {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimSpace(string(res.Stdout)), "\n")
		r.res.Toolchain[tool] = strings.TrimSpace(strings.TrimPrefix(first, "cmake version "))
	}
}
