package build

import (
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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/msvcenv"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/patches"
)

// The stages of one configure/compile attempt: patch, msvc-environment,
// configure, compile (or the first CUDA object, facts.go).

// beginAttempt starts attempt n: its part of the log, the environment the
// plan asks for, and a fresh CMake cache when the plan says so.
func (r *runner) beginAttempt(n int) {
	p := r.res.Plan
	// Each attempt is diagnosed on its own part of the log: a cause the
	// previous attempt showed and --heal fixed must not be found again.
	if off, err := r.log.Seek(0, io.SeekCurrent); err == nil {
		r.logStart = off
	}
	fmt.Fprintf(r.log, "=== llamactl build attempt %d: %s\n", n, strings.Join(append([]string{p.Configure.Program}, p.Configure.Args...), " "))
	r.env = withPlanEnv(r.deps.Environ, p.Env)
	if p.FreshCache {
		// A configuration llamactl did not make, which conflicts with the
		// plan (fix fresh-cache): what `cmake --fresh` does, on any CMake.
		os.Remove(filepath.Join(p.BuildDir, "CMakeCache.txt"))
		os.RemoveAll(filepath.Join(p.BuildDir, "CMakeFiles"))
		r.in.Folder = nil
		fmt.Fprintf(r.log, "=== llamactl --heal: removed %s and %s\n", filepath.Join(p.BuildDir, "CMakeCache.txt"), filepath.Join(p.BuildDir, "CMakeFiles"))
	}
}

// withPlanEnv is base with the plan's variables set (for cmake and ninja).
func withPlanEnv(base []string, vars []plan.EnvVar) []string {
	env := slices.Clone(base)
	for _, v := range vars {
		env = setEnv(env, v.Name, v.Value)
	}
	return env
}

// patchStage applies the plan's source diffs (all files or none each).
type patchStage struct{ *runner }

func (patchStage) Name() string                { return "patch" }
func (patchStage) Skip(context.Context) string { return "" }

func (s patchStage) Run(context.Context) error {
	p := s.res.Plan
	reg := s.in.Registry
	if reg == nil {
		reg = patches.Default()
	}
	var applied []string
	for _, ap := range p.Patches {
		if ap.Diff == "" {
			continue
		}
		s.stage("patch " + ap.ID)
		pt, _ := reg.Get(ap.ID)
		diff, err := reg.Diff(pt)
		if err != nil {
			return errorf(Internal, "patch %s: %v", ap.ID, err)
		}
		res, err := patches.ApplyDiff(p.SourceDir, diff)
		if err != nil {
			s.cur.Detail = ap.ID + ": " + err.Error()
			return errorf(Failed, "patch %s does not apply to %s: %v. Nothing was changed; the source may be newer than the patch (llamactl patches show %s)", ap.ID, p.SourceDir, err, ap.ID)
		}
		if res.AlreadyApplied {
			applied = append(applied, ap.ID+" (already applied)")
		} else {
			applied = append(applied, ap.ID)
		}
	}
	s.cur.Detail = strings.Join(applied, ", ")
	return nil
}

// msvcStage imports vcvarsall.bat's environment for cmake and ninja
// (Windows; package msvcenv).
type msvcStage struct{ *runner }

func (msvcStage) Name() string                { return "msvc-environment" }
func (msvcStage) Skip(context.Context) string { return "" }

func (s msvcStage) Run(ctx context.Context) error {
	p := s.res.Plan
	s.stage("msvc environment")
	e, err := msvcenv.Import(ctx, s.deps.Runner, p.BuildDir, p.VCVars.Path, p.VCVars.Args(), slices.Clone(s.deps.Environ))
	if err != nil {
		s.cur.Detail = err.Error()
		return errorf(Failed, "%v", err)
	}
	s.env = withPlanEnv(e.Vars, p.Env)
	s.res.EnvChanges = e.Changes
	s.cur.Detail = plan.Message("step-msvc-vars", len(e.Changes), strings.Join(p.VCVars.Args(), " ")).Text
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

// configureStage runs CMake, unless the folder is configured for this
// very plan (its stamp says so).
type configureStage struct{ *runner }

func (configureStage) Name() string { return "configure" }

func (s configureStage) Skip(context.Context) string {
	p := s.res.Plan
	prev := readStamp(p.BuildDir)
	configured := fileExists(filepath.Join(p.BuildDir, "build.ninja")) && fileExists(filepath.Join(p.BuildDir, "CMakeCache.txt"))
	if prev.Plan != s.stamp() || !configured {
		return ""
	}
	s.res.Toolchain = prev.Toolchain // what the configure that made the folder found
	return plan.Message("step-configure-unchanged").Text
}

func (s configureStage) Run(ctx context.Context) error {
	p := s.res.Plan
	stamp := s.stamp()
	if prev := readStamp(p.BuildDir); prev.Plan != "" && prev.Plan != stamp {
		forgetPlan(p.BuildDir)
	}
	// Until this configure succeeds the folder matches no plan: a failed
	// configure leaves a cache a later run must not mistake for this plan's
	// (the stamp still says llamactl owns the folder).
	if err := writeStamp(p.BuildDir, stampFile{Plan: "incomplete"}); err != nil {
		return errorf(Internal, "writing the plan stamp: %v", err)
	}
	if err := s.configure(ctx); err != nil {
		return err
	}
	if err := writeStamp(p.BuildDir, stampFile{Plan: stamp, Toolchain: s.res.Toolchain}); err != nil {
		return errorf(Internal, "writing the plan stamp: %v", err)
	}
	return nil
}

// forgetPlan removes what an earlier, different plan left in dir.
func forgetPlan(dir string) {
	// Options left in the cache by an earlier plan would survive a
	// re-configure (a backend switched off stays on): start the cache anew.
	os.Remove(filepath.Join(dir, "CMakeCache.txt"))
	// So would the earlier plan's outputs: a CPU build after a CUDA one
	// kept libggml-cuda.so in bin/, listed it, copied it to --out, and
	// llama-cli loaded it. Ninja relinks from the kept objects.
	os.RemoveAll(filepath.Join(dir, "bin"))
	// ggml-vulkan's generated shader header is not regenerated when
	// the shader generator changes (another glslc finds other
	// extensions): ggml-vulkan.cpp then misses the new variants
	// (vulkan-shaders-header-stale). Ninja regenerates it.
	os.Remove(filepath.Join(dir, "ggml", "src", "ggml-vulkan", "ggml-vulkan-shaders.hpp"))
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

// configure runs cmake and reads the compilers it found; a backend option
// CMake ignored fails it (the build would be CPU-only).
func (r *runner) configure(ctx context.Context) error {
	r.stage("configure")
	p := r.res.Plan
	var buf bytes.Buffer
	res, err := r.exec(ctx, p.Configure, r.opts.ConfigureTimeout, io.MultiWriter(r.log, &buf))
	r.cur.Command, r.cur.ExitCode = commandLine(p.Configure), res.ExitCode
	if err != nil {
		r.cur.Detail = err.Error()
		if errors.Is(err, proc.ErrNotFound) {
			return errorf(Failed, "cmake was not found: install CMake 3.24 or newer (Windows: winget install Kitware.CMake; Debian/Ubuntu: sudo apt install cmake ninja-build) and rerun")
		}
		return errorf(Failed, "configure: %v (log: %s)", err, r.res.LogPath)
	}
	r.res.Toolchain = toolchain(buf.String())
	if res.ExitCode != 0 {
		r.cur.Detail = plan.Message("step-cmake-exit", res.ExitCode).Text
		return errorf(Failed, "configure failed (cmake exit %d); the log is %s", res.ExitCode, r.res.LogPath)
	}
	ignored := UnusedVariables(buf.String())
	var backend []string
	for _, v := range ignored {
		if isBackendOption(v) {
			backend = append(backend, v)
		}
	}
	if len(backend) > 0 {
		r.cur.Detail = plan.Message("step-backend-ignored", strings.Join(backend, ", ")).Text
		r.res.Diagnoses = append(r.res.Diagnoses, kbEntry("cmake-flag-ignored", "CMake ignored "+strings.Join(backend, ", ")))
		return errorf(Failed, "configure ignored %s (the build would be CPU-only); see %s", strings.Join(backend, ", "), r.res.LogPath)
	}
	if len(ignored) > 0 {
		r.cur.Detail = plan.Message("step-unused-options", strings.Join(ignored, ", ")).Text
	}
	return nil
}

// toolchain is the compilers a configure log names.
func toolchain(log string) map[string]string {
	tc := map[string]string{}
	for _, l := range strings.Split(log, "\n") {
		l = strings.TrimRight(l, "\r")
		if m := compilerIDRE.FindStringSubmatch(l); m != nil {
			tc[strings.ToLower(m[1])] = m[2]
		}
		if m := hostCompRE.FindStringSubmatch(l); m != nil {
			tc["cuda_host"] = m[1]
		}
	}
	return tc
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

// compileStage runs the plan's build command (Ninja), reporting its
// [n/m] progress.
type compileStage struct{ *runner }

func (compileStage) Name() string                { return "compile" }
func (compileStage) Skip(context.Context) string { return "" }

func (s compileStage) Run(ctx context.Context) error {
	s.stage("compile")
	p := s.res.Plan
	noWork := false
	lw := &proc.LineWriter{Fn: func(l string) {
		if strings.Contains(l, "ninja: no work to do") {
			noWork = true
		}
		if m := ninjaProgressRE.FindStringSubmatch(l); m != nil && s.deps.Progress != nil {
			done, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			s.deps.Progress(done, total, m[3])
		}
	}}
	res, err := s.exec(ctx, p.Build, s.opts.BuildTimeout, io.MultiWriter(s.log, lw))
	s.cur.Command, s.cur.ExitCode = commandLine(p.Build), res.ExitCode
	if err != nil {
		s.cur.Detail = err.Error()
		return errorf(Failed, "compile: %v (log: %s)", err, s.res.LogPath)
	}
	if res.ExitCode != 0 {
		s.cur.Detail = plan.Message("step-exit", res.ExitCode).Text
		return errorf(Failed, "compile failed (exit %d); the log is %s", res.ExitCode, s.res.LogPath)
	}
	if noWork {
		s.cur.Detail = plan.Message("step-up-to-date").Text
		s.res.NoOp = noConfigureRan(s.res.Steps)
	}
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
