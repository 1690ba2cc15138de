package build

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// Inspect gathers the facts the planner's heal rules read about the build
// folder and Ninja, once, before planning: what the folder's
// CMakeCache.txt holds (and whether llamactl wrote it), which C/C++
// compilers CMake would pick now, and where Ninja is when PATH lacks it.
// environ is the environment cmake will run with.
func Inspect(ctx context.Context, r proc.Runner, environ []string, in *plan.Input) {
	if in.BuildDir != "" {
		in.Folder = InspectFolder(in.BuildDir, r, environ)
	}
	in.Ninja = FindNinja(environ, in.Snapshot)
}

// cacheLineRE is one CMakeCache.txt entry: NAME:TYPE=VALUE.
var cacheLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.+-]*):([A-Z]+)=(.*)$`)

// ReadCMakeCache reads a CMakeCache.txt into NAME -> value.
func ReadCMakeCache(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") {
			continue
		}
		if m := cacheLineRE.FindStringSubmatch(l); m != nil && m[2] != "INTERNAL" || m != nil && (m[1] == "CMAKE_GENERATOR" || m[1] == "CMAKE_HOME_DIRECTORY" || m[1] == "CMAKE_CACHEFILE_DIR") {
			out[m[1]] = m[3]
		}
	}
	return out, sc.Err()
}

// InspectFolder describes an existing build folder, or returns nil.
func InspectFolder(dir string, r proc.Runner, environ []string) *plan.Folder {
	cache, err := ReadCMakeCache(filepath.Join(dir, "CMakeCache.txt"))
	if err != nil {
		return nil
	}
	f := &plan.Folder{Cache: cache, Compilers: map[string]string{}}
	f.Ours = fileExists(filepath.Join(dir, stampName))
	for name, spec := range map[string][2]string{"CMAKE_C_COMPILER": {"CC", "cc"}, "CMAKE_CXX_COMPILER": {"CXX", "c++"}} {
		if runtime.GOOS == "windows" {
			continue // cl.exe comes from the MSVC environment, imported later
		}
		prog := envValue(environ, spec[0])
		if prog == "" {
			prog = spec[1]
		}
		p := prog
		if !filepath.IsAbs(p) {
			lp, err := lookPathIn(p, envValue(environ, "PATH"))
			if err != nil {
				continue
			}
			p = lp
		}
		f.Compilers[name] = resolve(p)
	}
	// The cache's own compilers, resolved alike, so /usr/bin/c++ and
	// /usr/bin/g++-12 compare equal.
	for _, name := range []string{"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER"} {
		if v := cache[name]; v != "" && filepath.IsAbs(v) {
			cache[name] = resolve(v)
		}
	}
	return f
}

func resolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// lookPathIn finds an executable in a PATH value (not llamactl's own PATH:
// the one cmake will get).
func lookPathIn(name, pathValue string) (string, error) {
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{".exe", ".bat", ".cmd", ""}
	}
	for _, dir := range filepath.SplitList(pathValue) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			p := filepath.Join(dir, name+ext)
			if info, err := os.Stat(p); err == nil && !info.IsDir() && (runtime.GOOS == "windows" || info.Mode()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}

// FindNinja says whether cmake will find Ninja on its PATH, and where it is
// installed when not: the places installers put it without adding it to
// PATH (Visual Studio's CMake tools, pip install --user ninja, Python
// Scripts folders, /usr/local and /opt).
func FindNinja(environ []string, snap *machine.Snapshot) plan.NinjaFacts {
	var extra []string
	if snap != nil {
		for _, m := range snap.MSVC {
			// Visual Studio's "C++ CMake tools" ship Ninja here, on PATH only
			// in a Developer prompt.
			extra = append(extra, m.Path+`\Common7\IDE\CommonExtensions\Microsoft\CMake\Ninja\ninja.exe`)
		}
	}
	n := plan.NinjaFacts{Checked: true}
	if p, err := lookPathIn("ninja", envValue(environ, "PATH")); err == nil {
		n.OnPath = p
		return n
	}
	exe := "ninja"
	if runtime.GOOS == "windows" {
		exe = "ninja.exe"
	}
	home := envValue(environ, "HOME")
	if runtime.GOOS == "windows" {
		home = envValue(environ, "USERPROFILE")
	}
	var cands []string
	cands = append(cands, extra...)
	if home != "" {
		cands = append(cands, filepath.Join(home, ".local", "bin", exe))
		g, _ := filepath.Glob(filepath.Join(home, ".local", "lib", "python3*", "site-packages", "ninja", "data", "bin", exe))
		cands = append(cands, g...)
	}
	if runtime.GOOS == "windows" {
		for _, v := range []string{"LOCALAPPDATA", "APPDATA"} {
			if d := envValue(environ, v); d != "" {
				g, _ := filepath.Glob(filepath.Join(d, "Programs", "Python", "Python3*", "Scripts", exe))
				cands = append(cands, g...)
				g, _ = filepath.Glob(filepath.Join(d, "Python", "Python3*", "Scripts", exe))
				cands = append(cands, g...)
			}
		}
		for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)"} {
			if d := envValue(environ, v); d != "" {
				g, _ := filepath.Glob(filepath.Join(d, "Microsoft Visual Studio", "*", "*", "Common7", "IDE", "CommonExtensions", "Microsoft", "CMake", "Ninja", exe))
				cands = append(cands, g...)
			}
		}
	} else {
		cands = append(cands, "/usr/local/bin/ninja", "/usr/bin/ninja", "/bin/ninja")
		g, _ := filepath.Glob("/opt/*/bin/ninja")
		cands = append(cands, g...)
	}
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c] {
			continue
		}
		seen[c] = true
		if info, err := os.Stat(c); err == nil && !info.IsDir() {
			n.Elsewhere = append(n.Elsewhere, c)
		}
	}
	return n
}

// cudaObjectRE finds a CUDA object among Ninja's targets.
var cudaObjectRE = regexp.MustCompile(`^(\S+\.cu\.o(?:bj)?): `)

// cudaObjectStage compiles the first CUDA object of the configured build
// (--stop-after cuda-object): the first call of nvcc with the plan's host
// compiler and architectures. Its step is "compile".
type cudaObjectStage struct{ *runner }

func (cudaObjectStage) Name() string                { return "compile" }
func (cudaObjectStage) Skip(context.Context) string { return "" }

func (s cudaObjectStage) Run(ctx context.Context) error {
	s.stage("compile (first CUDA object)")
	p := s.res.Plan
	obj, err := s.firstCUDAObject(ctx)
	if err != nil {
		return err
	}
	build := plan.Command{Program: p.Build.Program, Args: append(argsBefore(p.Build.Args, "--target"), "--target", obj)}
	var buf strings.Builder
	res, err := s.exec(ctx, build, s.opts.BuildTimeout, io.MultiWriter(s.log, &buf))
	s.cur.Command, s.cur.ExitCode = commandLine(build), res.ExitCode
	if err != nil || res.ExitCode != 0 {
		s.cur.Detail = fmt.Sprintf("exit %d %v", res.ExitCode, err)
		return errorf(Failed, "compiling %s failed (exit %d); the log is %s", obj, res.ExitCode, s.res.LogPath)
	}
	s.cur.Detail = "compiled " + obj + " (stopped after the first CUDA object)"
	s.res.StoppedAfter = "cuda-object"
	return nil
}

// firstCUDAObject is the first CUDA object among Ninja's targets.
func (r *runner) firstCUDAObject(ctx context.Context) (string, error) {
	p := r.res.Plan
	ninja := "ninja"
	if c, ok := r.cacheValue("CMAKE_MAKE_PROGRAM"); ok {
		ninja = c
	}
	res, err := r.deps.Runner.Run(ctx, proc.Cmd{Name: ninja, Args: []string{"-C", p.BuildDir, "-t", "targets", "all"}, Env: r.env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		r.cur.Detail = fmt.Sprintf("ninja -t targets: %v %s", err, lastLines(res.Combined(), 3))
		return "", errorf(Failed, "listing the build's targets with %s failed: %v", ninja, err)
	}
	var objs []string
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if m := cudaObjectRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			objs = append(objs, m[1])
		}
	}
	if len(objs) == 0 {
		r.cur.Detail = "the configured build has no CUDA object"
		return "", errorf(Failed, "the configured build in %s has no CUDA object: is GGML_CUDA on? (--stop-after cuda-object is for --backend cuda)", p.BuildDir)
	}
	sort.Strings(objs)
	return objs[0], nil
}

// argsBefore returns args up to (not including) the first marker.
func argsBefore(args []string, marker string) []string {
	for i, a := range args {
		if a == marker {
			return append([]string(nil), args[:i]...)
		}
	}
	return append([]string(nil), args...)
}

func (r *runner) cacheValue(name string) (string, bool) {
	for _, c := range r.res.Plan.Cache {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

// earlyManifestStage writes the manifest of a build stopped by
// Options.StopAfter (nothing verified, no artifacts).
type earlyManifestStage struct{ *runner }

func (earlyManifestStage) Name() string                { return "manifest" }
func (earlyManifestStage) Skip(context.Context) string { return "" }

func (s earlyManifestStage) Run(context.Context) error {
	p := s.res.Plan
	if s.opts.StopAfter == "configure" {
		s.res.StoppedAfter = "configure"
	}
	dest := p.BuildDir
	if s.opts.OutDir != "" {
		if err := os.MkdirAll(s.opts.OutDir, 0o755); err != nil {
			return outError(s.opts.OutDir, err)
		}
		dest = s.opts.OutDir
		s.res.OutDir = dest
	}
	if err := s.writeManifest(dest); err != nil {
		return err
	}
	s.cur.Detail = s.res.Manifest + " (stopped after " + s.res.StoppedAfter + ")"
	return nil
}
