package buildcmd

// The heal suite: every failure class --heal knows, produced for real on the
// real llama.cpp tree (scripts/deps.d/30-llamacpp-src.sh) with the real
// cmake, ninja, g++-11/12, Debian's nvcc 11.8 and ccache. Each case runs the
// same command twice: without --heal it must fail with the cause and the
// exact fix (naming the user's option when one caused it), with --heal it
// must end in a working build (CPU: the targets `llamactl run` needs, built
// and verified; CUDA: configure and the first compiled CUDA object, as no
// GPU is here) with the fix printed, recorded in manifest.json, and the
// expected number of attempts.
//
// It takes minutes, so `go test ./...` skips it; scripts/stages/50-heal.sh
// runs it with LLAMACTL_HEAL_TREE set to the tree.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// HealTreeEnv names the real llama.cpp tree the heal suite builds.
const HealTreeEnv = "LLAMACTL_HEAL_TREE"

type healEnv struct {
	src    string // the clone every case builds
	commit string
	snap   []byte // this machine's snapshot, gathered once
	env    map[string]string
}

var (
	healOnce  sync.Once
	healSetup *healEnv
	healErr   error
)

func run1(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func healSuite(t *testing.T) *healEnv {
	t.Helper()
	tree := os.Getenv(HealTreeEnv)
	if tree == "" {
		t.Skipf("the heal suite runs in scripts/stages/50-heal.sh (%s=the real llama.cpp tree)", HealTreeEnv)
	}
	if runtime.GOOS != "linux" {
		t.Skip("the heal suite uses Debian's toolchain")
	}
	healOnce.Do(func() {
		base := os.Getenv("LLAMACTL_HEAL_WORK")
		if base == "" {
			base, healErr = os.MkdirTemp("", "llamactl-heal-")
			if healErr != nil {
				return
			}
		}
		src := filepath.Join(base, "llama.cpp")
		os.RemoveAll(src)
		if out, err := run1("", nil, "git", "clone", "-q", "--no-hardlinks", tree, src); err != nil {
			healErr = fmt.Errorf("git clone %s: %v %s", tree, err, out)
			return
		}
		commit, _ := run1(src, nil, "git", "rev-parse", "--short=9", "HEAD")
		snap := probe.Gather(context.Background(), probe.System(proc.Env{Runner: proc.Exec{}, Getenv: os.Getenv, Environ: os.Environ, Now: time.Now}))
		b, _ := json.Marshal(snap)
		healSetup = &healEnv{src: src, commit: strings.TrimSpace(commit), snap: b, env: envMap()}
	})
	if healErr != nil {
		t.Fatal(healErr)
	}
	return healSetup
}

// envMap is the environment cmake gets: this one's PATH, HOME and ccache's
// settings (the stage shares one ccache with stages 40 and 60:
// scripts/stages/lib/ccache.sh).
func envMap() map[string]string {
	m := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "LANG": "C"}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); (k == "TMPDIR" || strings.HasPrefix(k, "CCACHE_")) && v != "" {
			m[k] = v
		}
	}
	return m
}

type healCase struct {
	name    string
	backend string
	args    []string // --cmake-arg values
	arch    string   // --cuda-arch
	env     map[string]string
	// setup breaks the build folder (or the environment) before each run.
	setup func(t *testing.T, h *healEnv, dir string, env map[string]string)
	// Without --heal: the exit code and what the error must name.
	exitNoHeal int
	noHealSays []string
	// With --heal: the fix, when it was made (0: before CMake) and the attempts.
	fix      string
	fixAt    int
	attempts int
	check    func(t *testing.T, doc *Doc, m *build.Manifest)
}

func (h *healEnv) runBuild(t *testing.T, c healCase, dir string, heal bool) (*Doc, string, int, time.Duration) {
	t.Helper()
	env := map[string]string{}
	for k, v := range h.env {
		env[k] = v
	}
	for k, v := range c.env {
		env[k] = v
	}
	if c.setup != nil {
		c.setup(t, h, dir, env)
	}
	o, out, errOut := newOpts(t, env, proc.Exec{})
	var snap machine.Snapshot
	if err := json.Unmarshal(h.snap, &snap); err != nil {
		t.Fatal(err)
	}
	o.Gather = func(context.Context) *machine.Snapshot { s := snap; return &s }
	o.Source, o.BuildDir, o.Backend, o.Heal = h.src, dir, c.backend, heal
	o.CMakeArgs, o.CUDAArch, o.Jobs = c.args, c.arch, 2
	if c.backend == "cuda" {
		o.StopAfter = "cuda-object"
	} else {
		// stage 40's options and targets (scripts/stages/40-real-engines.sh):
		// its objects are in the shared ccache, so these builds compile from
		// it (GGML_RPC=ON is a PUBLIC define of ggml: without it llama,
		// common and the server would all compile anew).
		o.Targets = []string{"llama-server", "rpc-server"}
		o.Portable, o.RPC = true, true
		// For a quick look while changing the rules: the CPU cases stop after
		// configure (the stage always builds them in full).
		o.StopAfter = os.Getenv("LLAMACTL_HEAL_CPU_STOP_AFTER")
	}
	o.F.IO.JSON = true
	start := time.Now()
	err := execute(context.Background(), o)
	took := time.Since(start)
	var doc Doc
	if jerr := json.Unmarshal([]byte(out.String()), &doc); jerr != nil {
		t.Fatalf("no JSON document (%v): %s\n%s", jerr, out, errOut)
	}
	return &doc, out.String(), cmdutil.ExitCode(err), took
}

// foreignCache configures dir by hand, as a user following another guide
// would; a failing configure still leaves its CMakeCache.txt behind.
func foreignCache(env []string, args ...string) func(t *testing.T, h *healEnv, dir string, _ map[string]string) {
	return func(t *testing.T, h *healEnv, dir string, _ map[string]string) {
		os.RemoveAll(dir)
		out, _ := run1("", append(os.Environ(), env...), "cmake", append([]string{"-S", h.src, "-B", dir}, args...)...)
		if _, err := os.Stat(filepath.Join(dir, "CMakeCache.txt")); err != nil {
			t.Fatalf("setting up the foreign build folder left no CMakeCache.txt: %s", out)
		}
	}
}

func healCases() []healCase {
	cuda := func(c healCase) healCase { c.backend = "cuda"; return c }
	return []healCase{
		// A host compiler nvcc 11.8 rejects, given explicitly: refused before
		// CMake (the snapshot knows g++-12), overridden with a notice by --heal.
		cuda(healCase{name: "host-compiler-known", args: []string{"CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12"}, arch: "89-real",
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"cuda-host-compiler-rejected", "--cmake-arg CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12", "/usr/bin/g++-11"},
			fix: "host-compiler", fixAt: 0, attempts: 1}),
		// The same compiler under a name the snapshot does not list: CMake
		// fails for real, the log names nvcc-unsupported-gcc, --heal retries.
		cuda(healCase{name: "host-compiler-unknown", args: []string{"CMAKE_CUDA_HOST_COMPILER=/usr/bin/x86_64-linux-gnu-g++-12"}, arch: "89-real",
			exitNoHeal: cmdutil.ExitBuild, noHealSays: []string{"nvcc-unsupported-gcc", "would_heal", "this comes from your --cmake-arg CMAKE_CUDA_HOST_COMPILER=/usr/bin/x86_64-linux-gnu-g++-12"},
			fix: "host-compiler", fixAt: 1, attempts: 2}),
		// An architecture nvcc 11.8 cannot build: refused with the choices,
		// healed with PTX for compute_89 (llama.cpp's sm_90 code needs CUDA 12).
		cuda(healCase{name: "cuda-arch-too-new", arch: "120-real",
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"cuda-arch-unsupported", "--cuda-arch 120-real", "install CUDA 12.8", "--cuda-arch 89-virtual", "--backend vulkan"},
			fix: "cuda-arch-ptx", fixAt: 0, attempts: 1,
			check: func(t *testing.T, doc *Doc, m *build.Manifest) {
				if v := cacheOf(m, "CMAKE_CUDA_ARCHITECTURES"); v != "89-virtual" {
					t.Errorf("CMAKE_CUDA_ARCHITECTURES = %q, want 89-virtual (PTX)", v)
				}
			}}),
		// native without a GPU, asked for explicitly.
		cuda(healCase{name: "cuda-arch-native", arch: "native",
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"cuda-arch-native-no-gpu", "--cuda-arch native"},
			fix: "cuda-arch-native", fixAt: 0, attempts: 1}),
		// native from the environment (CUDAARCHS), which no plan shows: CMake
		// fails, --heal names an architecture explicitly and retries.
		cuda(healCase{name: "cuda-arch-native-env", env: map[string]string{"CUDAARCHS": "native"},
			exitNoHeal: cmdutil.ExitBuild, noHealSays: []string{"cuda-native-arch-no-gpu"},
			fix: "cuda-arch-native", fixAt: 1, attempts: 2}),
		// A broken ccache (a cache folder that cannot be created): the
		// first compile fails, --heal builds without the launcher.
		cuda(healCase{name: "ccache-broken", arch: "89-real", env: map[string]string{"CCACHE_DIR": "/proc/nonexistent/ccache"},
			exitNoHeal: cmdutil.ExitBuild, noHealSays: []string{"ccache-failed", "would_heal", "CMAKE_CXX_COMPILER_LAUNCHER="},
			fix: "no-launcher", fixAt: 1, attempts: 2}),
		// Old option spellings left in the folder's cache by a configure
		// from an old guide (LLAMA_CUBLAS stops configure: FATAL_ERROR).
		{name: "stale-options", backend: "cpu",
			setup:      foreignCache(nil, "-G", "Ninja", "-DLLAMA_CUBLAS=ON", "-DLLAMA_CUDA=OFF", "-DLLAMA_NATIVE=OFF"),
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"build-folder-conflict", "LLAMA_CUBLAS=ON", "LLAMA_NATIVE=OFF", "GGML_CUDA"},
			fix: "fresh-cache", fixAt: 0, attempts: 1},
		// A folder made by another generator.
		{name: "other-generator", backend: "cpu",
			setup:      foreignCache(nil, "-G", "Unix Makefiles", "-DLLAMA_BUILD_TESTS=OFF"),
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"build-folder-conflict", "Unix Makefiles"},
			fix: "fresh-cache", fixAt: 0, attempts: 1},
		// A folder configured with another compiler (g++-11; c++ is g++-12).
		{name: "other-compiler", backend: "cpu",
			setup:      foreignCache([]string{"CC=/usr/bin/gcc-11", "CXX=/usr/bin/g++-11"}, "-G", "Ninja", "-DLLAMA_BUILD_TESTS=OFF"),
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"build-folder-conflict", "g++-11"},
			fix: "fresh-cache", fixAt: 0, attempts: 1,
			check: func(t *testing.T, doc *Doc, m *build.Manifest) {
				if cxx := m.Toolchain["cxx"]; !strings.HasPrefix(cxx, "GNU 12") {
					t.Errorf("built with %q, want this machine's g++ 12", cxx)
				}
			}},
		// A folder configured for the CUDA backend, built for the CPU.
		{name: "other-backend", backend: "cpu",
			setup: foreignCache(nil, "-G", "Ninja", "-DGGML_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=89-real",
				"-DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-11", "-DCMAKE_CUDA_COMPILER=/usr/bin/nvcc", "-DLLAMA_BUILD_TESTS=OFF"),
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"build-folder-conflict", "GGML_CUDA=ON", "cuda backend"},
			fix: "fresh-cache", fixAt: 0, attempts: 1,
			check: func(t *testing.T, doc *Doc, m *build.Manifest) {
				for _, a := range m.Artifacts {
					if strings.Contains(a.Path, "ggml-cuda") {
						t.Errorf("the CPU build ships %s", a.Path)
					}
				}
				if m.Verify == nil || slices.Contains(m.Verify.LoadedBackend, "CUDA") {
					t.Errorf("verify = %+v", m.Verify)
				}
			}},
		// Ninja installed where PATH does not look (pip install --user ninja).
		{name: "ninja-off-path", backend: "cpu",
			setup: func(t *testing.T, h *healEnv, dir string, env map[string]string) {
				home := filepath.Join(t.TempDir(), "home")
				bin := filepath.Join(t.TempDir(), "bin")
				os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755)
				os.MkdirAll(bin, 0o755)
				ninja, err := exec.LookPath("ninja")
				if err != nil {
					t.Fatal(err)
				}
				if out, err := run1("", nil, "cp", ninja, filepath.Join(home, ".local", "bin", "ninja")); err != nil {
					t.Fatalf("%v %s", err, out)
				}
				for _, tool := range []string{"cmake", "cc", "c++", "gcc", "g++", "git", "ccache", "ld", "as", "ar", "ranlib", "nm", "objcopy", "strip"} {
					if p, err := exec.LookPath(tool); err == nil {
						os.Symlink(p, filepath.Join(bin, tool))
					}
				}
				env["PATH"], env["HOME"] = bin, home
			},
			exitNoHeal: cmdutil.ExitFindings, noHealSays: []string{"ninja-not-on-path", ".local/bin/ninja", "export PATH="},
			fix: "ninja-path", fixAt: 0, attempts: 1,
			check: func(t *testing.T, doc *Doc, m *build.Manifest) {
				if v := cacheOf(m, "CMAKE_MAKE_PROGRAM"); !strings.HasSuffix(v, ".local/bin/ninja") {
					t.Errorf("CMAKE_MAKE_PROGRAM = %q", v)
				}
			}},
	}
}

func cacheOf(m *build.Manifest, name string) string {
	for _, c := range m.Plan.Cache {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func TestHealRealTree(t *testing.T) {
	h := healSuite(t)
	only := os.Getenv("LLAMACTL_HEAL_CASES") // a regexp-free list: "a,b"
	for _, c := range healCases() {
		if only != "" && !slices.Contains(strings.Split(only, ","), c.name) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			// Beside the sources, as stages 40 and 60 build: ccache (its base
			// folder above the trees) then sees the same relative paths.
			dir := filepath.Join(h.src, "build-"+c.name)
			os.RemoveAll(dir)
			t.Cleanup(func() { os.RemoveAll(dir) })
			doc, out, code, took := h.runBuild(t, c, dir, false)
			t.Logf("without --heal: exit %d in %.1fs", code, took.Seconds())
			if code != c.exitNoHeal {
				t.Fatalf("without --heal: exit %d, want %d\n%s", code, c.exitNoHeal, out)
			}
			for _, s := range c.noHealSays {
				if !strings.Contains(out, s) {
					t.Errorf("without --heal the output does not say %q:\n%s", s, out)
				}
			}
			if doc.Result != nil && len(doc.Result.Fixes) > 0 {
				t.Errorf("without --heal something was fixed: %+v", doc.Result.Fixes)
			}

			doc, out, code, took = h.runBuild(t, c, dir, true)
			t.Logf("with --heal: exit %d in %.1fs", code, took.Seconds())
			if code != 0 {
				t.Fatalf("with --heal: exit %d\n%s", code, out)
			}
			r := doc.Result
			if strings.Contains(out, "rerun with --heal") {
				t.Errorf("--heal was given, yet the output says to rerun with it:\n%s", out)
			}
			if r.Attempts != c.attempts {
				t.Errorf("attempts %d, want %d", r.Attempts, c.attempts)
			}
			i := slices.IndexFunc(r.Fixes, func(f plan.Fix) bool { return f.ID == c.fix })
			if i < 0 {
				t.Fatalf("fix %s not applied: %+v", c.fix, r.Fixes)
			}
			if f := r.Fixes[i]; f.Attempt != c.fixAt || f.Text == "" || f.Change == "" {
				t.Errorf("fix = %+v, want it made at attempt %d with a notice", f, c.fixAt)
			}
			var m build.Manifest
			b, err := os.ReadFile(r.Manifest)
			if err != nil || json.Unmarshal(b, &m) != nil {
				t.Fatalf("manifest %s: %v", r.Manifest, err)
			}
			if !slices.ContainsFunc(m.Heal, func(f plan.Fix) bool { return f.ID == c.fix && f.Attempt == c.fixAt }) || m.Attempts != c.attempts {
				t.Errorf("manifest heal %+v attempts %d", m.Heal, m.Attempts)
			}
			// The engine's version: a git checkout of one squashed commit.
			if e := m.Engine; !e.HasGit || e.Commit != h.commit || e.VersionFrom != "git-commit" || e.CommitCount != 1 || e.Semver == "" {
				t.Errorf("manifest engine = %+v, want git-commit %s", e, h.commit)
			}
			if c.backend == "cuda" {
				if m.StoppedAfter != "cuda-object" || !slices.ContainsFunc(r.Steps, func(s build.Step) bool {
					return s.Name == "compile" && s.Status == "ok" && strings.Contains(s.Detail, ".cu.o")
				}) {
					t.Errorf("no CUDA object compiled: stopped %q, steps %+v", m.StoppedAfter, r.Steps)
				}
			} else if m.StoppedAfter == "" {
				if m.Verify == nil || !m.Verify.OK || !slices.ContainsFunc(m.Artifacts, func(a build.Artifact) bool { return a.Path == "llama-server" }) {
					t.Errorf("CPU build not verified or without llama-server: verify %+v", m.Verify)
				}
			}
			if c.check != nil && m.StoppedAfter == "" {
				c.check(t, doc, &m)
			}
		})
	}
}
