// Package plan computes the CMake + Ninja invocation for one llama.cpp build
// as a pure function of the machine snapshot, doctor's selection, the user's
// options and the engine version. It runs nothing: `llamactl build --dry-run`
// prints a plan, and the executor (package build) runs it.
package plan

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/matrix"

	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/patches"
)

// Selection is what doctor selected for this machine: the one selection
// type, matrix.Selection (doctor.SelectFor fills it; the planner reads it).
type Selection = matrix.Selection

// Engine is the llama.cpp source being built.
type Engine struct {
	Ref         string `json:"ref,omitempty"` // "b9591", "v0.4.0", or "" for --source trees without metadata
	BuildNumber int    `json:"build_number,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Semver      string `json:"semver,omitempty"`
	SHA256      string `json:"sha256,omitempty"` // of the source archive, when downloaded
	// HasGit is true exactly when Commit was read from a git checkout.
	HasGit bool `json:"has_git"`
	// CommitCount is git's count of commits to HEAD; it is the build number
	// only when VersionFrom is "git" (a shallow or squashed history counts less).
	CommitCount int `json:"commit_count,omitempty"`
	// Dirty says the checkout's tracked files have local changes.
	Dirty bool `json:"dirty,omitempty"`
	// VersionFrom says where the version came from: git (full history),
	// git-tag (shallow/squashed, a bNNNN tag), git-commit (shallow/squashed,
	// no release tag: commit known, build number not), lock (llamactl's
	// download), archive-name, cmake-arg (the user's LLAMA_BUILD_NUMBER), unknown.
	VersionFrom string `json:"version_from,omitempty"`
}

// Input is everything the plan depends on.
type Input struct {
	Snapshot  *machine.Snapshot
	Selection Selection
	Engine    Engine
	// Backend is what the user asked for: cuda|vulkan|hip|opencl|cpu|auto.
	Backend   string
	SourceDir string
	BuildDir  string
	// CMakeArgs are the user's --cmake-arg values, in any spelling.
	CMakeArgs []string
	// Jobs is the user's -j; 0 lets the plan choose (the logical cores,
	// capped by the available memory: JobsBasis).
	Jobs      int
	BuildType string // default Release
	// Compiler is "" (MSVC cl / system default) or "clang-cl".
	Compiler                 string
	AllowUnsupportedCompiler bool
	// Symptoms are failure IDs diagnosed on a previous attempt (--heal).
	Symptoms []string
	Registry *patches.Registry
	// Launcher is a ccache/sccache path found on this machine, or "".
	Launcher string
	// Portable says why the binaries must run on other machines
	// ("--portable", "building from the lock file ci.lock.toml"); "" builds
	// for this machine.
	Portable string
	// Source is what the engine's tree says about itself (build/engine.ScanSource).
	Source SourceFacts
	// Heal is --heal: what the rules know will fail is fixed (with a notice)
	// instead of refused, and known fixes found on this machine (newer
	// Vulkan headers) are applied at plan time.
	Heal bool
	// CacheDir is llamactl's cache (where fixes tell users to put newer headers).
	CacheDir string
	// RPC builds llama.cpp's RPC backend (GGML_RPC=ON) and its worker
	// binary, the one `llamactl rpc serve` starts.
	RPC bool
	// CUDAArchFlag is --cuda-arch as given (so a refusal can name it).
	CUDAArchFlag string
	// Folder is what the build folder held; Ninja where Ninja is (facts the
	// executor gathers; zero values mean "not looked at").
	Folder *Folder
	Ninja  NinjaFacts
	// Targets limits the compile to these CMake targets (--target); empty
	// builds all. Verification runs llama-cli, else llama-server.
	Targets []string
}

// EnvVar is one environment change applied to cmake and ninja only.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Why   string `json:"why,omitempty"`
}

// VCVars is the MSVC developer environment to import on Windows.
type VCVars struct {
	Path    string `json:"path"`
	Arch    string `json:"arch"`
	Toolset string `json:"toolset,omitempty"` // -vcvars_ver=
}

// Args returns vcvarsall's arguments.
func (v VCVars) Args() []string {
	a := []string{v.Arch}
	if v.Toolset != "" {
		a = append(a, "-vcvars_ver="+v.Toolset)
	}
	return a
}

// Command is one program with arguments.
type Command struct {
	Program string   `json:"program"`
	Args    []string `json:"args"`
}

// AppliedPatch is a registry patch the plan includes.
type AppliedPatch struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Reason  string   `json:"reason"`
	Changes []string `json:"changes"`
	Diff    string   `json:"diff,omitempty"`
}

// Plan is the complete build recipe.
type Plan struct {
	OS           string         `json:"os"`
	Backend      string         `json:"backend"`
	Reasons      []string       `json:"reasons,omitempty"`
	Engine       Engine         `json:"engine"`
	SourceDir    string         `json:"source_dir"`
	BuildDir     string         `json:"build_dir"`
	Generator    string         `json:"generator"`
	Cache        []CacheArg     `json:"cache"`
	Env          []EnvVar       `json:"env,omitempty"`
	VCVars       *VCVars        `json:"vcvars,omitempty"`
	Patches      []AppliedPatch `json:"patches,omitempty"`
	Translations []Translation  `json:"translations,omitempty"`
	Warnings     []Note         `json:"warnings,omitempty"`
	// Blockers stop the build before configure; each says what to do.
	Blockers []Note `json:"blockers,omitempty"`
	// Offline lists what llamactl turned off so the build does not reach
	// the network (llama.cpp's web-UI download...).
	Offline []Note `json:"offline,omitempty"`
	// RPC: GGML_RPC=ON and the RPC worker binary (docs/distributed.md).
	RPC bool `json:"rpc,omitempty"`
	// Targets are the only CMake targets built; empty means all.
	Targets []string `json:"targets,omitempty"`
	// Fixes are what --heal changed (before configure, or after a failed
	// attempt); FreshCache asks the executor to remove the build folder's
	// CMakeCache.txt and CMakeFiles/ before configuring.
	Fixes      []Fix `json:"heal,omitempty"`
	FreshCache bool  `json:"fresh_cache,omitempty"`
	Jobs       int   `json:"jobs"`
	// JobsBasis says where Jobs came from (the user's -j, the cores, the
	// cores capped by memory) and whether --heal lowered it.
	JobsBasis *JobsBasis `json:"jobs_basis,omitempty"`
	Configure Command    `json:"configure"`
	Build     Command    `json:"build"`
}

// Backends are the values --backend accepts.
var Backends = []string{"auto", "cuda", "vulkan", "hip", "opencl", "cpu"}

type planner struct {
	in  Input
	p   Plan
	opt *Options
	win bool
}

// Make computes the plan. Errors are bad input (unknown backend, a removed
// option); problems of the machine become Blockers so --dry-run can show them.
func Make(in Input) (Plan, error) {
	if in.Snapshot == nil {
		return Plan{}, fmt.Errorf("no machine snapshot")
	}
	if in.Registry == nil {
		in.Registry = patches.Default()
	}
	if in.BuildType == "" {
		in.BuildType = "Release"
	}
	if in.Jobs < 0 {
		in.Jobs = 0
	}
	if in.Backend == "" {
		in.Backend = "auto"
	}
	if !slices.Contains(Backends, in.Backend) {
		return Plan{}, fmt.Errorf("unknown backend %q: choose one of %s", in.Backend, strings.Join(Backends, ", "))
	}
	if in.Engine.BuildNumber == 0 {
		in.Engine = engineFromArgs(in.Engine, in.CMakeArgs)
	}
	pl := &planner{in: in, opt: OptionTable(), win: in.Snapshot.OS.GOOS == "windows"}
	pl.p = Plan{OS: in.Snapshot.OS.GOOS, Engine: in.Engine, SourceDir: in.SourceDir, BuildDir: in.BuildDir, Generator: "Ninja"}
	if err := pl.make(); err != nil {
		return Plan{}, err
	}
	return pl.p, nil
}

func (pl *planner) set(name, value string) {
	for i, c := range pl.p.Cache {
		if c.Name == name {
			pl.p.Cache[i].Value = value
			return
		}
	}
	pl.p.Cache = append(pl.p.Cache, CacheArg{Name: name, Value: value})
}

func (pl *planner) get(name string) (string, bool) {
	for _, c := range pl.p.Cache {
		if c.Name == name {
			return c.Value, true
		}
	}
	return "", false
}

func (pl *planner) appendFlag(name, value string) {
	if old, ok := pl.get(name); ok && old != "" {
		if strings.Contains(old, value) {
			return
		}
		value = old + " " + value
	}
	pl.set(name, value)
}

func (pl *planner) blocker(id string, a ...any) {
	pl.p.Blockers = append(pl.p.Blockers, message(id, a...))
}

func (pl *planner) warn(id string, a ...any) {
	pl.p.Warnings = append(pl.p.Warnings, message(id, a...))
}

func (pl *planner) make() error {
	in := pl.in
	build := in.Engine.BuildNumber

	// Backend: the user's choice, or doctor's.
	backend := in.Backend
	pl.p.Reasons = append(pl.p.Reasons, in.Selection.Reasons...)
	if backend == "auto" {
		backend = in.Selection.Backend
		if backend == "" {
			backend = "cpu"
		}
		pl.p.Reasons = append(pl.p.Reasons, message("reason-backend-auto", backend).Text)
	} else {
		pl.p.Reasons = append(pl.p.Reasons, message("reason-backend-flag", backend).Text)
	}
	pl.p.Backend = backend
	pl.jobs()
	if build == 0 {
		if e := in.Engine; e.VersionFrom == "git-commit" {
			pl.warn("engine-build-unknown-git", e.Commit, fmt.Sprint(e.CommitCount), fmt.Sprint(e.CommitCount))
		} else {
			pl.warn("engine-build-unknown")
		}
	}

	pl.set("CMAKE_BUILD_TYPE", in.BuildType)
	flag, err := pl.opt.BackendFlag(backend, build)
	if err != nil {
		return err
	}
	if flag != "" {
		pl.set(flag, "ON")
	}
	for _, d := range pl.opt.Defaults {
		if d.OS != "" && d.OS != in.Snapshot.OS.GOOS {
			continue
		}
		// Options newer than a known engine are left out (they would be unused).
		if d.From == 0 || build == 0 || build >= d.From {
			pl.set(d.Name, d.Value)
		}
	}

	if pl.win {
		pl.windows()
	}
	switch backend {
	case "cuda":
		pl.cuda()
	case "vulkan":
		pl.vulkan()
	case "hip":
		pl.hip()
	case "opencl":
		pl.opencl()
	}
	if in.Portable != "" {
		pl.set(pl.nameAt("GGML_NATIVE"), "OFF")
	}
	if in.RPC {
		pl.set(pl.nameAt("GGML_RPC"), "ON")
		pl.p.RPC = true
		pl.p.Reasons = append(pl.p.Reasons, message("reason-rpc").Text)
	}
	pl.launcher(backend)
	pl.network()
	pl.patches()

	// The user's options last: they win, in the spelling this engine knows.
	var user []CacheArg
	for _, a := range in.CMakeArgs {
		c, err := ParseCacheArg(a)
		if err != nil {
			return err
		}
		user = append(user, c)
	}
	user, tr, err := pl.opt.Translate(user, build)
	if err != nil {
		return err
	}
	pl.p.Translations = tr
	for _, t := range tr {
		pl.warn("option-translated", t.Given, t.Name, buildName(build))
	}
	for _, u := range user {
		if n, ok := pl.opt.NetworkFor(u.Name); ok && isOn(u.Value) {
			pl.warn("network-option", u.Name, u.Value, n.Why)
		}
		pl.set(u.Name, u.Value)
		if u.Type != "" {
			for i := range pl.p.Cache {
				if pl.p.Cache[i].Name == u.Name {
					pl.p.Cache[i].Type = u.Type
				}
			}
		}
	}

	pl.heals()
	pl.native()

	pl.p.Configure = Command{Program: "cmake", Args: append([]string{"-S", in.SourceDir, "-B", in.BuildDir, "-G", "Ninja"}, cacheStrings(pl.p.Cache)...)}
	pl.p.Build = Command{Program: "cmake", Args: []string{"--build", in.BuildDir, "--config", in.BuildType, "-j", fmt.Sprint(pl.p.Jobs)}}
	if len(in.Targets) > 0 {
		pl.p.Targets = slices.Clone(in.Targets)
		pl.p.Build.Args = append(pl.p.Build.Args, append([]string{"--target"}, in.Targets...)...)
		pl.p.Reasons = append(pl.p.Reasons, message("reason-targets", strings.Join(in.Targets, ", ")).Text)
	}
	sort.SliceStable(pl.p.Env, func(i, j int) bool { return pl.p.Env[i].Name < pl.p.Env[j].Name })
	return nil
}

func cacheStrings(c []CacheArg) []string {
	var out []string
	for _, a := range c {
		out = append(out, a.String())
	}
	return out
}

func isOn(v string) bool {
	switch strings.ToUpper(v) {
	case "ON", "1", "TRUE", "YES", "Y":
		return true
	}
	return false
}

// winJoin joins Windows path parts whatever OS the planner runs on.
func winJoin(parts ...string) string {
	out := strings.TrimRight(parts[0], `\/`)
	for _, p := range parts[1:] {
		out += `\` + strings.Trim(p, `\/`)
	}
	return out
}

// msvc returns the Visual Studio install to build with: the one whose
// vcvarsall doctor selected, else the first with the C++ tools.
func (pl *planner) msvc() *machine.MSVCInstall {
	s := pl.in.Snapshot
	for i, m := range s.MSVC {
		if pl.in.Selection.VCVarsAll != "" && strings.HasPrefix(strings.ToLower(pl.in.Selection.VCVarsAll), strings.ToLower(m.Path)) {
			return &s.MSVC[i]
		}
	}
	for i, m := range s.MSVC {
		if m.HasVCTools {
			return &s.MSVC[i]
		}
	}
	return nil
}

func (pl *planner) windows() {
	m := pl.msvc()
	if m == nil {
		pl.blocker("msvc-missing")
		return
	}
	vc := pl.in.Selection.VCVarsAll
	if vc == "" {
		vc = winJoin(m.Path, `VC\Auxiliary\Build\vcvarsall.bat`)
	}
	pl.p.VCVars = &VCVars{Path: vc, Arch: "x64", Toolset: pl.in.Selection.MSVCToolset}
	pl.p.Reasons = append(pl.p.Reasons, message("reason-msvc-env", m.DisplayName, m.ProductVersion).Text)
	if pl.in.Compiler == "clang-cl" {
		if !m.HasClangCL {
			pl.blocker("clang-cl-missing", m.DisplayName)
		}
		pl.set("CMAKE_C_COMPILER", "clang-cl")
		pl.set("CMAKE_CXX_COMPILER", "clang-cl")
	}
}

// toolkit returns the CUDA toolkit to build with.
func (pl *planner) toolkit() *machine.CUDAToolkit {
	sel := pl.in.Selection
	if sel.Toolkit != nil {
		return sel.Toolkit
	}
	for i, t := range pl.in.Snapshot.Toolkits {
		if sel.CUDA != "" && version.ComparePrefix(t.Version, sel.CUDA) == 0 {
			return &pl.in.Snapshot.Toolkits[i]
		}
	}
	if len(pl.in.Snapshot.Toolkits) > 0 {
		return &pl.in.Snapshot.Toolkits[0]
	}
	return nil
}

func (pl *planner) cuda() {
	tk := pl.toolkit()
	if tk == nil {
		want := pl.in.Selection.CUDA
		if want == "" {
			want = "12.4"
		}
		pl.blocker("cuda-toolkit-missing", want)
		return
	}
	// Pin nvcc: whatever nvcc is first on PATH may belong to another toolkit (F12).
	pl.set("CMAKE_CUDA_COMPILER", tk.NVCC)
	pl.p.Reasons = append(pl.p.Reasons, message("reason-cuda", tk.Version, tk.Root).Text)
	archs := pl.in.Selection.CUDAArchitectures
	gpus := len(pl.in.Snapshot.NVIDIA.GPUs)
	if archs != "" {
		pl.set("CMAKE_CUDA_ARCHITECTURES", archs)
	}
	if archs != "" || gpus == 0 {
		// Named architectures, or no GPU to probe: native detection would
		// either be ignored or fail (F10/F11).
		pl.set(pl.nameAt("GGML_NATIVE"), "OFF")
		if gpus == 0 && archs == "" {
			pl.warn("cuda-no-gpu-default-archs")
		}
	}
}

// native says why the CPU code (ggml-cpu, in every build) is or is not
// tuned to this machine, once the user's options are in. llama.cpp's
// default GGML_NATIVE=ON compiles for this processor (-march=native): the
// fastest build here, and an "illegal instruction" crash on an older or
// different CPU, so binaries that leave the machine are built with it OFF
// (item 2).
func (pl *planner) native() {
	name := pl.nameAt("GGML_NATIVE")
	v, set := pl.get(name)
	on := !set || isOn(v)
	switch {
	case pl.in.Portable != "" && on:
		pl.warn("native-on-not-portable", name+"="+v, pl.in.Portable)
	case pl.in.Portable != "":
		pl.p.Reasons = append(pl.p.Reasons, message("native-off-portable", name, pl.in.Portable).Text)
	case on:
		pl.p.Reasons = append(pl.p.Reasons, message("native-on-local", name).Text)
	}
}

func (pl *planner) nameAt(current string) string {
	if n, ok := pl.opt.NameAt(current, pl.in.Engine.BuildNumber); ok {
		return n
	}
	return current
}

func (pl *planner) vulkan() {
	v := pl.in.Snapshot.Vulkan
	osKey := "linux"
	if pl.win {
		osKey = "windows"
	}
	if v.Glslc == "" {
		pl.blocker("vulkan-glslc-missing", message("fix-vulkan-sdk-"+osKey).Text)
	}
	if !v.SPIRVHeaders && pl.opt.Required("vulkan-spirv-headers", pl.in.Engine.BuildNumber) && v.SDK == "" {
		req, _ := pl.opt.Requirement("vulkan-spirv-headers")
		pl.blocker("vulkan-spirv-headers-missing", fmt.Sprint(req.From), message("fix-spirv-headers-"+osKey).Text)
	}
	if v.SDK != "" {
		pl.p.Reasons = append(pl.p.Reasons, message("reason-vulkan-sdk", v.SDK).Text)
	}
	pl.vulkanHeaders()
	pl.vulkanGlslc()
}

func (pl *planner) hip() {
	h := pl.in.Snapshot.HIP
	if h.Root == "" {
		pl.blocker("hip-sdk-missing")
		return
	}
	if len(h.GFX) > 0 {
		pl.set("GPU_TARGETS", strings.Join(h.GFX, ";"))
	} else {
		pl.warn("hip-no-gfx")
	}
	// The HIP SDK's clang compiles ggml-hip; on Windows it is also the C/C++
	// compiler.
	if pl.win {
		pl.set("CMAKE_C_COMPILER", winJoin(h.Root, `bin\clang.exe`))
		pl.set("CMAKE_CXX_COMPILER", winJoin(h.Root, `bin\clang++.exe`))
		pl.set("CMAKE_PREFIX_PATH", h.Root)
	} else {
		pl.p.Env = append(pl.p.Env,
			EnvVar{Name: "HIPCXX", Value: path.Join(h.Root, "llvm/bin/clang"), Why: "HIP clang compiles ggml-hip"},
			EnvVar{Name: "HIP_PATH", Value: h.Root, Why: "the ROCm root"})
	}
}

func (pl *planner) opencl() {
	// llama.cpp's OpenCL backend drops every device but Adreno and Intel (F43).
	for _, p := range pl.in.Snapshot.OpenCL.Platforms {
		for _, d := range p.Devices {
			if enginefacts.OpenCLVendorSupported(d.Name, d.Vendor) {
				return
			}
		}
	}
	pl.warn("opencl-no-supported-device")
}

func (pl *planner) launcher(backend string) {
	if pl.in.Launcher == "" {
		return
	}
	if pl.symptom("ccache-failed") && pl.in.Heal {
		// The launcher itself failed: compile without it. Empty values, so
		// the ones the failed attempt left in the cache are replaced.
		// ggml also launches ccache by itself (GGML_CCACHE, ON by default)
		// when no launcher is set.
		for _, l := range []string{"C", "CXX", "CUDA"} {
			pl.set("CMAKE_"+l+"_COMPILER_LAUNCHER", "")
		}
		pl.set(pl.nameAt("GGML_CCACHE"), "OFF")
		pl.fix(Fix{ID: "no-launcher", Trigger: "ccache-failed", Change: "-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_CUDA_COMPILER_LAUNCHER= -D" + pl.nameAt("GGML_CCACHE") + "=OFF",
			Text: message("heal-no-launcher", pl.in.Launcher).Text})
		return
	}
	pl.set("CMAKE_C_COMPILER_LAUNCHER", pl.in.Launcher)
	pl.set("CMAKE_CXX_COMPILER_LAUNCHER", pl.in.Launcher)
	if backend == "cuda" {
		pl.set("CMAKE_CUDA_COMPILER_LAUNCHER", pl.in.Launcher)
	}
}

func (pl *planner) network() {
	build := pl.in.Engine.BuildNumber
	for _, n := range pl.opt.Network {
		// Off from a known build on, or whenever the tree's CMake declares it
		// (a tree of unknown version).
		if n.Off && (build >= n.From && build > 0 && n.From > 0 || slices.Contains(pl.in.Source.Options, n.Name)) {
			pl.set(n.Name, "OFF")
			if n.Name == "LLAMA_USE_PREBUILT_UI" {
				pl.p.Offline = append(pl.p.Offline, message("offline-ui", n.Name))
			} else {
				pl.p.Offline = append(pl.p.Offline, message("offline-option", n.Name, n.Why))
			}
		}
	}
}

func (pl *planner) placeholders() map[string]string {
	m := map[string]string{
		"{build_number}":  "",
		"{commit}":        pl.in.Engine.Commit,
		"{host_compiler}": pl.in.Selection.HostCompiler,
	}
	if pl.in.Engine.BuildNumber > 0 {
		m["{build_number}"] = fmt.Sprint(pl.in.Engine.BuildNumber)
	}
	if tk := pl.toolkit(); tk != nil {
		m["{toolkit_root}"] = tk.Root
		if pl.win {
			m["{toolkit_lib}"] = winJoin(tk.Root, `lib\x64`)
		} else {
			m["{toolkit_lib}"] = path.Join(tk.Root, "lib64")
		}
	}
	return m
}

// expand fills placeholders; ok is false when one has no value here.
func expand(v string, ph map[string]string) (string, bool) {
	for k, val := range ph {
		if strings.Contains(v, k) {
			if val == "" {
				return v, false
			}
			v = strings.ReplaceAll(v, k, val)
		}
	}
	if strings.Contains(v, "{") && strings.Contains(v, "}") {
		return v, false
	}
	return v, true
}

func (pl *planner) situation() patches.Situation {
	s := patches.Situation{
		OS:                 pl.p.OS,
		Backend:            pl.p.Backend,
		EngineBuild:        pl.in.Engine.BuildNumber,
		NoGit:              !pl.in.Engine.HasGit,
		HostCompilerNeeded: pl.in.Selection.HostCompiler != "" && !pl.win,
		Symptoms:           pl.in.Symptoms,
	}
	if tk := pl.toolkit(); tk != nil {
		s.CUDA = tk.Version
	}
	if m := pl.msvc(); m != nil {
		s.MSVCToolset = m.DefaultToolset
		if pl.in.Selection.MSVCToolset != "" {
			s.MSVCToolset = pl.in.Selection.MSVCToolset
		}
	}
	return s
}

func (pl *planner) patches() {
	ph := pl.placeholders()
	for _, m := range pl.in.Registry.Match(pl.situation()) {
		ap := AppliedPatch{ID: m.ID, Title: m.Title, Reason: m.Reason}
		ok := pl.applyChanges(&ap, m.Patch, m.Changes, ph)
		if ok {
			pl.p.Patches = append(pl.p.Patches, ap)
		}
	}
}

// applyChanges applies one change set; false means it was not applicable.
func (pl *planner) applyChanges(ap *AppliedPatch, p patches.Patch, c patches.Changes, ph map[string]string) bool {
	if c.Requires == "allow-unsupported-compiler" && !pl.in.AllowUnsupportedCompiler {
		return false
	}
	if c.MSVCToolsetBelow != "" {
		ts := pl.olderToolset(c.MSVCToolsetBelow)
		if ts == "" {
			if c.Fallback != nil && (c.Fallback.Requires != "allow-unsupported-compiler" || pl.in.AllowUnsupportedCompiler) {
				ap.Reason += "; " + patches.Text("reason.fallback", "toolset", c.MSVCToolsetBelow)
				return pl.applyChanges(ap, p, *c.Fallback, ph)
			}
			pl.blocker("msvc-no-older-toolset", p.ID, p.Title, c.MSVCToolsetBelow)
			return false
		}
		if pl.p.VCVars != nil {
			pl.p.VCVars.Toolset = ts
		}
		ap.Changes = append(ap.Changes, "vcvarsall x64 -vcvars_ver="+ts)
	}
	// Every value a patch sets must be known; a missing one is reported
	// (cache entries, flags and environment alike) and the patch skipped.
	expandAll := func(kvs []patches.KV) ([]patches.KV, bool) {
		out := make([]patches.KV, 0, len(kvs))
		for _, kv := range kvs {
			v, ok := expand(kv.Value, ph)
			if !ok {
				pl.missing(p.ID, kv.Value)
				return nil, false
			}
			out = append(out, patches.KV{Name: kv.Name, Value: v})
		}
		return out, true
	}
	cache, ok := expandAll(c.Cache)
	if !ok {
		return false
	}
	appends, ok := expandAll(c.Append)
	if !ok {
		return false
	}
	env, ok := expandAll(c.Env)
	if !ok {
		return false
	}
	for _, kv := range cache {
		pl.set(kv.Name, kv.Value)
		ap.Changes = append(ap.Changes, "-D"+kv.Name+"="+kv.Value)
	}
	for _, kv := range appends {
		pl.appendFlag(kv.Name, kv.Value)
		ap.Changes = append(ap.Changes, kv.Name+" += "+kv.Value)
	}
	for _, kv := range env {
		pl.p.Env = append(pl.p.Env, EnvVar{Name: kv.Name, Value: kv.Value, Why: "patch " + p.ID})
		ap.Changes = append(ap.Changes, "env "+kv.Name+"="+kv.Value)
	}
	if c.Diff != "" {
		ap.Diff = c.Diff
		ap.Changes = append(ap.Changes, "source diff "+c.Diff)
	}
	return true
}

// olderToolset returns the newest installed toolset (major.minor) below limit.
func (pl *planner) olderToolset(limit string) string {
	m := pl.msvc()
	if m == nil {
		return ""
	}
	best := ""
	for _, t := range m.Toolsets {
		v := strings.TrimSpace(t)
		if i := strings.LastIndexAny(v, `\/`); i >= 0 {
			v = v[i+1:]
		}
		if version.ComparePrefix(v, limit) >= 0 {
			continue
		}
		if best == "" || version.Compare(v, best) > 0 {
			best = v
		}
	}
	if parts := strings.Split(best, "."); len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return best
}

var placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)

// missing warns that a patch was skipped for want of a value, unless the
// value is the engine's version, which engine-build-unknown already reports.
func (pl *planner) missing(id, value string) {
	if pl.in.Engine.BuildNumber == 0 && (strings.Contains(value, "{build_number}") || strings.Contains(value, "{commit}")) {
		return
	}
	// Name what is missing in words, not as the raw "{placeholder}".
	what := value
	ph := pl.placeholders()
	for _, k := range placeholderRE.FindAllString(value, -1) {
		if _, ok := messageTable()["value-"+strings.Trim(k, "{}")]; ok && ph[k] == "" {
			what = message("value-" + strings.Trim(k, "{}")).Text
			break
		}
	}
	pl.warn("patch-value-missing", id, what)
}

// engineFromArgs takes the engine's version from the user's
// LLAMA_BUILD_NUMBER/LLAMA_BUILD_COMMIT when the tree did not tell it (a
// distribution's source package, a GitHub "Download ZIP"), so options are
// spelled for that build and the verifier expects it.
func engineFromArgs(e Engine, args []string) Engine {
	n, commit := 0, ""
	for _, a := range args {
		c, err := ParseCacheArg(a)
		if err != nil {
			continue
		}
		switch c.Name {
		case "LLAMA_BUILD_NUMBER":
			if v, err := strconv.Atoi(c.Value); err == nil && v > 0 {
				n = v
			}
		case "LLAMA_BUILD_COMMIT":
			commit = c.Value
		}
	}
	if n == 0 {
		return e
	}
	e.BuildNumber, e.VersionFrom = n, "cmake-arg"
	if e.Commit == "" {
		e.Commit = commit
	}
	return e
}
