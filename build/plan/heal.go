package plan

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/matrix"
	"github.com/llamactl/llamactl/patches"
)

// What the planner knows will fail is decided before CMake runs. Each rule
// below looks at the facts (snapshot, build folder, the user's options) and,
// when the build cannot work as asked:
//
//   - without --heal adds a blocker that names the cause, the option that
//     caused it (when the user gave one) and the choices with their costs;
//   - with --heal applies the first choice and records a Fix. An option the
//     user gave explicitly is overridden with a notice that names it (the
//     rule documented in docs/build.md, "Healing"): --heal is the user's
//     permission to change the build so that it works.
//
// The same rules run again after a failed attempt with the failure IDs the
// log showed (Input.Symptoms): a failure the facts did not predict (an
// environment variable CMake read, a compiler the snapshot does not know)
// then triggers the same fix.

// Fix is one change --heal made to the build.
type Fix struct {
	// ID names the fix: host-compiler, cuda-arch-ptx, cuda-arch-native,
	// fresh-cache, ninja-path, no-launcher, fewer-jobs, or a registry
	// patch's ID.
	ID string `json:"id"`
	// Trigger is the check or failure ID that called for it.
	Trigger string `json:"trigger"`
	// Attempt is 0 for a fix made before CMake ran, N for one made after
	// attempt N failed.
	Attempt int `json:"attempt"`
	// Option is the user's option the fix overrode, as given
	// ("--cmake-arg CMAKE_CUDA_HOST_COMPILER=/usr/bin/g++-12", "-j 16"), or "".
	Option string `json:"option,omitempty"`
	// Change is what changed, as CMake options or actions.
	Change string `json:"change"`
	// Text is the notice printed to the user.
	Text string `json:"text"`
}

// Folder is what the build folder held before this build (gathered by the
// executor; nil when it does not exist yet).
type Folder struct {
	// Ours says the folder carries llamactl's plan stamp: llamactl configured
	// it and starts its cache anew by itself when the plan changes.
	Ours bool `json:"ours"`
	// Cache is the folder's CMakeCache.txt (NAME -> value), when there is one.
	Cache map[string]string `json:"cache,omitempty"`
	// Compilers are the C and C++ compilers CMake would pick now for an
	// empty cache (CC/CXX, else cc/c++ on PATH), with links resolved, keyed
	// by CMAKE_C_COMPILER / CMAKE_CXX_COMPILER.
	Compilers map[string]string `json:"compilers,omitempty"`
}

// NinjaFacts says where Ninja is.
type NinjaFacts struct {
	OnPath    string   `json:"on_path,omitempty"`   // what PATH finds, or ""
	Elsewhere []string `json:"elsewhere,omitempty"` // installed but not on PATH
	Checked   bool     `json:"checked"`             // false: not looked for (no facts)
}

func (pl *planner) fix(f Fix) {
	pl.p.Fixes = append(pl.p.Fixes, f)
}

func (pl *planner) symptom(id string) bool { return slices.Contains(pl.in.Symptoms, id) }

// userArg returns how the user gave a cache option (--cuda-arch or
// --cmake-arg), or "".
func (pl *planner) userArg(name string) string {
	if name == "CMAKE_CUDA_ARCHITECTURES" && pl.in.CUDAArchFlag != "" {
		return "--cuda-arch " + pl.in.CUDAArchFlag
	}
	for _, a := range pl.in.CMakeArgs {
		c, err := ParseCacheArg(a)
		if err != nil {
			continue
		}
		if c.Name == name {
			return "--cmake-arg " + a
		}
		if n, ok := pl.opt.NameAt(c.Name, pl.in.Engine.BuildNumber); ok && n == name {
			return "--cmake-arg " + a
		}
	}
	return ""
}

// heals runs the rules once the user's options are in the plan.
func (pl *planner) heals() {
	pl.fewerJobs()
	pl.ninja()
	pl.folder()
	if pl.p.Backend == "cuda" && pl.toolkit() != nil {
		pl.hostCompiler()
		pl.cudaArchs()
	}
}

// --- CUDA architectures ------------------------------------------------

func archNumber(a string) (int, string) {
	a = strings.TrimSpace(a)
	base, kind, _ := strings.Cut(a, "-")
	n, err := strconv.Atoi(strings.TrimRight(base, "af"))
	if err != nil {
		return 0, kind
	}
	return n, kind
}

// newestArch is the newest compute_NN this nvcc lists.
func newestArch(archs []string) int {
	best := 0
	for _, a := range archs {
		if n, err := strconv.Atoi(strings.TrimPrefix(a, "compute_")); err == nil && n > best {
			best = n
		}
	}
	return best
}

// buildableArch is the newest architecture llama.cpp's CUDA code compiles
// for with this toolkit: nvcc 11.8 lists compute_90, but llama.cpp's sm_90
// code calls cudaGridDependencySynchronize, a CUDA 12 API (failure
// cuda-toolkit-too-old, ggml-org/llama.cpp#26591; measured here on the real
// tree: 90-virtual fails, 89 builds).
func (pl *planner) buildableArch() int {
	n := newestArch(pl.toolkitArchs())
	if tk := pl.toolkit(); n >= 90 && version.ComparePrefix(tk.Version, "12.0") < 0 {
		n = 89
	}
	return n
}

// portableArchs is the list --heal builds when `native` cannot be asked:
// PTX for sm_61 (the oldest architecture llama.cpp's quantized kernels use
// __dp4a on), which the driver compiles for any newer GPU, and real code for
// the newest architecture this toolkit builds.
func (pl *planner) portableArchs() string {
	n := pl.buildableArch()
	if n <= 61 {
		return fmt.Sprintf("%d-virtual", n)
	}
	return fmt.Sprintf("61-virtual;%d-real", n)
}

// toolkitArchs are the compute_NN this toolkit builds: nvcc --list-gpu-arch
// from the snapshot, else the matrix's real targets for its version.
func (pl *planner) toolkitArchs() []string {
	tk := pl.toolkit()
	if len(tk.GPUArchs) > 0 {
		return tk.GPUArchs
	}
	if t, ok := matrix.Default().Toolkit(tk.Version); ok {
		var out []string
		for _, sm := range t.SM {
			out = append(out, fmt.Sprintf("compute_%d", sm))
		}
		return out
	}
	return nil
}

// newerToolkit is the oldest CUDA release in the matrix that builds sm.
func newerToolkit(sm int) string {
	r := matrix.Default().Resolve(matrix.Query{GPUs: []matrix.GPUQuery{{CC: fmt.Sprintf("%d.%d", sm/10, sm%10)}}})
	oldest := ""
	for _, c := range r.CUDA.Acceptable {
		if oldest == "" || version.Compare(c.Version, oldest) < 0 {
			oldest = c.Version
		}
	}
	if oldest == "" {
		oldest = r.CUDA.Recommended
	}
	// llama.cpp's sm_90 code needs CUDA 12 (buildableArch).
	if sm >= 90 && oldest != "" && version.ComparePrefix(oldest, "12.0") < 0 {
		oldest = "12.0"
	}
	return oldest
}

func (pl *planner) cudaArchs() {
	tk := pl.toolkit()
	value, set := pl.get("CMAKE_CUDA_ARCHITECTURES")
	gpus := len(pl.in.Snapshot.NVIDIA.GPUs)

	// `native` with no GPU to ask: CMake's detection fails or nvcc gets
	// an empty architecture (cuda-native-arch-no-gpu).
	native := set && slices.Contains(strings.Split(value, ";"), "native")
	if (native && gpus == 0) || (pl.symptom("cuda-native-arch-no-gpu") && gpus == 0) {
		opt := pl.userArg("CMAKE_CUDA_ARCHITECTURES")
		if !pl.in.Heal {
			pl.blocker("cuda-arch-native-no-gpu", orWord(opt, "CMAKE_CUDA_ARCHITECTURES=native"))
			return
		}
		// An explicit list: it also overrides a native that came from
		// outside the plan (the CUDAARCHS environment variable, a cache entry).
		// llama.cpp's own default list is not used: with CUDA 11.8 it holds
		// 90-virtual, which this engine's code cannot build (buildableArch).
		archs := pl.portableArchs()
		pl.set("CMAKE_CUDA_ARCHITECTURES", archs)
		change := "-DCMAKE_CUDA_ARCHITECTURES=" + archs
		pl.fix(Fix{ID: "cuda-arch-native", Trigger: "cuda-native-arch-no-gpu", Option: opt, Change: change,
			Text: message("heal-cuda-arch-native", orWord(opt, "native CUDA architectures"), change).Text})
		return
	}
	if !set || value == "" {
		return
	}
	known := pl.toolkitArchs()
	if len(known) == 0 {
		return
	}
	newest := pl.buildableArch()
	var bad []string
	var badSM []int
	var keep []string
	for _, a := range strings.Split(value, ";") {
		n, _ := archNumber(a)
		if n == 0 {
			keep = append(keep, a)
			continue
		}
		if !slices.Contains(known, fmt.Sprintf("compute_%d", n)) || n > newest {
			bad = append(bad, a)
			badSM = append(badSM, n)
			continue
		}
		keep = append(keep, a)
	}
	if len(bad) == 0 && !(pl.symptom("nvcc-arch-too-new") && newest > 0) {
		return
	}
	if len(bad) == 0 {
		return // the log blamed another nvcc; nothing in this plan is too new
	}
	opt := pl.userArg("CMAKE_CUDA_ARCHITECTURES")
	sm := slices.Max(badSM)
	newer := newerToolkit(sm)
	ptx := fmt.Sprintf("%d-virtual", newest)
	if !pl.in.Heal {
		var choices []string
		if newer != "" {
			choices = append(choices, message("choice-newer-cuda", newer, fmt.Sprint(sm)).Text)
		}
		choices = append(choices, message("choice-ptx", ptx, fmt.Sprint(newest), fmt.Sprint(sm)).Text, message("choice-other-backend").Text)
		pl.blocker("cuda-arch-unsupported", orWord(opt, "CMAKE_CUDA_ARCHITECTURES="+value), tk.Version, tk.NVCC, strings.Join(bad, ";"), fmt.Sprint(newest),
			"\n    - "+strings.Join(choices, "\n    - "))
		return
	}
	if !slices.Contains(keep, ptx) && !slices.Contains(keep, fmt.Sprintf("%d", newest)) {
		keep = append(keep, ptx)
	}
	nv := strings.Join(keep, ";")
	pl.set("CMAKE_CUDA_ARCHITECTURES", nv)
	pl.fix(Fix{ID: "cuda-arch-ptx", Trigger: "nvcc-arch-too-new", Option: opt, Change: "-DCMAKE_CUDA_ARCHITECTURES=" + nv,
		Text: message("heal-cuda-arch-ptx", orWord(opt, "CMAKE_CUDA_ARCHITECTURES="+value), tk.Version, strings.Join(bad, ";"), nv, fmt.Sprint(newest), fmt.Sprint(sm)).Text})
}

// --- host compiler -----------------------------------------------------

// compilerMajor finds a compiler's major version in the snapshot by path
// (links resolved by the caller's facts are not needed: the snapshot keeps
// every path it found, g++ and g++-12 alike).
func (pl *planner) compilerMajor(p string) (kind string, major int) {
	for _, c := range pl.in.Snapshot.Compilers {
		if c.Path == p || (!strings.ContainsAny(p, `/\`) && path.Base(c.Path) == p) {
			return c.Kind, c.Major
		}
	}
	return "", 0
}

func (pl *planner) hostCompiler() {
	if pl.win {
		return
	}
	tk := pl.toolkit()
	host, set := pl.get("CMAKE_CUDA_HOST_COMPILER")
	opt := pl.userArg("CMAKE_CUDA_HOST_COMPILER")
	if !set || opt == "" {
		return // the plan's own choice (doctor's, patch nvcc-host-gcc)
	}
	facts, ok := matrix.Default().Toolkit(tk.Version)
	if !ok {
		return
	}
	kind, major := pl.compilerMajor(host)
	var limit int
	switch kind {
	case "g++", "gcc":
		limit, _, ok = matrix.Default().GCCMaxMajor(facts)
	case "clang", "clang++":
		limit, _, ok = matrix.Default().ClangMaxMajor(facts)
	default:
		ok = false
	}
	rejected := ok && major > limit
	if !rejected && !pl.symptom("nvcc-unsupported-gcc") {
		return
	}
	if !rejected {
		limit = 0 // the log says nvcc refused it; the snapshot did not know this compiler
	}
	good := pl.in.Selection.HostCompiler
	if good == "" || good == host {
		pl.blocker("cuda-host-compiler-none", opt, tk.Version, nvccLimit(limit))
		return
	}
	if !pl.in.Heal {
		pl.blocker("cuda-host-compiler-rejected", opt, tk.Version, nvccLimit(limit), good)
		return
	}
	pl.set("CMAKE_CUDA_HOST_COMPILER", good)
	pl.fix(Fix{ID: "host-compiler", Trigger: "nvcc-unsupported-gcc", Option: opt, Change: "-DCMAKE_CUDA_HOST_COMPILER=" + good,
		Text: message("heal-host-compiler", opt, tk.Version, nvccLimit(limit), good).Text})
}

func nvccLimit(limit int) string {
	if limit == 0 {
		return message("nvcc-limit-refused").Text
	}
	return message("nvcc-limit", limit).Text
}

// --- build folder --------------------------------------------------------

// backendOptions are the cache entries that switch a backend on, old
// spellings included, by backend.
func (pl *planner) backendOptions() map[string]string {
	out := map[string]string{}
	for _, l := range pl.opt.Lineages {
		if l.Backend == "" {
			continue
		}
		for _, n := range l.Names {
			out[n.Name] = l.Backend
		}
	}
	for _, n := range []string{"GGML_SYCL", "GGML_METAL", "GGML_KOMPUTE", "GGML_MUSA", "GGML_CANN", "LLAMA_CLBLAST", "LLAMA_KOMPUTE", "LLAMA_SYCL", "LLAMA_METAL"} {
		if _, ok := out[n]; !ok {
			out[n] = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(n, "GGML_"), "LLAMA_"))
		}
	}
	return out
}

// staleName says whether a cache entry is an option spelling this engine
// no longer reads (LLAMA_CUBLAS, LLAMA_CUDA, LLAMA_NATIVE on a current tree).
func (pl *planner) staleName(name string) (string, bool) {
	for _, l := range pl.opt.Lineages {
		for _, n := range l.Names {
			if n.Name != name {
				continue
			}
			cur, ok := pl.opt.NameAt(name, pl.in.Engine.BuildNumber)
			if ok && cur != name {
				return cur, true
			}
			if !ok {
				return "", true
			}
		}
	}
	return "", false
}

// folder checks a build folder someone else configured (no llamactl
// stamp): CMake keeps every cache entry the plan does not set, so its
// generator, compilers, backend switches and old option spellings would
// decide this build, or stop it.
func (pl *planner) folder() {
	if pl.symptom("cmake-cache-mismatch") {
		// CMake itself refused the folder's cache (generator, source).
		pl.freshCache(nil)
		return
	}
	f := pl.in.Folder
	if f == nil || f.Ours || len(f.Cache) == 0 {
		return
	}
	var why []string
	if g := f.Cache["CMAKE_GENERATOR"]; g != "" && g != pl.p.Generator {
		why = append(why, message("folder-generator", g).Text)
	}
	if h := f.Cache["CMAKE_HOME_DIRECTORY"]; h != "" && pl.in.SourceDir != "" && !samePath(h, pl.in.SourceDir) {
		why = append(why, message("folder-source", h).Text)
	}
	if c := f.Cache["CMAKE_CACHEFILE_DIR"]; c != "" && pl.in.BuildDir != "" && !samePath(c, pl.in.BuildDir) {
		why = append(why, message("folder-moved", c).Text)
	}
	for _, name := range []string{"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER"} {
		have := f.Cache[name]
		if _, set := pl.get(name); set || have == "" {
			continue
		}
		if want := f.Compilers[name]; want != "" && !samePath(have, want) {
			why = append(why, message("folder-compiler", name, have, want).Text)
		}
	}
	backends := pl.backendOptions()
	var names []string
	for name := range f.Cache {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v := f.Cache[name]
		if _, set := pl.get(name); set {
			continue
		}
		if cur, stale := pl.staleName(name); stale && isOn(v) || stale && strings.HasSuffix(name, "_NATIVE") {
			why = append(why, message("folder-stale-option", name, v, orWord(cur, "nothing")).Text)
			continue
		}
		if b, ok := backends[name]; ok && isOn(v) && b != pl.p.Backend {
			why = append(why, message("folder-backend", name, v, b).Text)
		}
	}
	if a := f.Cache["CMAKE_CUDA_ARCHITECTURES"]; strings.Contains(a, "native") && len(pl.in.Snapshot.NVIDIA.GPUs) == 0 && pl.p.Backend == "cuda" {
		if _, set := pl.get("CMAKE_CUDA_ARCHITECTURES"); !set {
			why = append(why, message("folder-native-arch").Text)
		}
	}
	if len(why) == 0 {
		return
	}
	pl.freshCache(why)
}

func (pl *planner) freshCache(why []string) {
	dir := pl.in.BuildDir
	reasons := strings.Join(why, "; ")
	if reasons == "" {
		reasons = message("folder-cmake-refused").Text
	}
	if !pl.in.Heal {
		pl.blocker("build-folder-conflict", dir, reasons)
		return
	}
	pl.p.FreshCache = true
	pl.fix(Fix{ID: "fresh-cache", Trigger: "build-folder-conflict", Change: "removed CMakeCache.txt and CMakeFiles/ from " + dir,
		Text: message("heal-fresh-cache", dir, reasons).Text})
}

// samePath compares two paths of the planned machine, which may be a
// Windows one planned from Linux (a snapshot): separators of either kind.
func samePath(a, b string) bool {
	clean := func(s string) string {
		return strings.TrimRight(filepath.ToSlash(filepath.Clean(strings.ReplaceAll(s, `\`, "/"))), "/")
	}
	if runtimeWindowsPath(a) || runtimeWindowsPath(b) {
		return strings.EqualFold(clean(a), clean(b))
	}
	return clean(a) == clean(b)
}

func runtimeWindowsPath(s string) bool { return len(s) > 1 && s[1] == ':' }

// --- Ninja ---------------------------------------------------------------

func (pl *planner) ninja() {
	n := pl.in.Ninja
	if !n.Checked || n.OnPath != "" {
		return
	}
	if _, set := pl.get("CMAKE_MAKE_PROGRAM"); set {
		return // the user named the build program
	}
	if len(n.Elsewhere) == 0 {
		pl.blocker("ninja-missing")
		return
	}
	found := n.Elsewhere[0]
	if pl.p.VCVars != nil && strings.Contains(strings.ToLower(found), `\common7\ide\commonextensions\microsoft\cmake\ninja\`) {
		// Visual Studio's own Ninja: vcvarsall, which the build imports, puts
		// it on PATH for cmake and ninja.
		return
	}
	// The planned machine's path, whatever runs the planner (a Linux
	// snapshot planned on Windows keeps its slashes).
	dir := path.Dir(found)
	if pl.win {
		dir = found[:max(0, strings.LastIndexAny(found, `\/`))]
	}
	if !pl.in.Heal {
		pl.blocker("ninja-not-on-path", found, pathCommand(pl.win, dir))
		return
	}
	pl.set("CMAKE_MAKE_PROGRAM", found)
	pl.fix(Fix{ID: "ninja-path", Trigger: "ninja-not-on-path", Change: "-DCMAKE_MAKE_PROGRAM=" + found,
		Text: message("heal-ninja", found, pathCommand(pl.win, dir)).Text})
}

func pathCommand(win bool, dir string) string {
	if win {
		return fmt.Sprintf(`$env:Path = "%s;" + $env:Path`, dir)
	}
	return fmt.Sprintf(`export PATH="%s:$PATH"`, dir)
}

func orWord(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// FixesFromPatches turns the registry patches a re-plan added into fixes.
func FixesFromPatches(added []AppliedPatch, symptoms []string, reg *patches.Registry) []Fix {
	if reg == nil {
		reg = patches.Default()
	}
	var out []Fix
	for _, ap := range added {
		trigger := ""
		if p, ok := reg.Get(ap.ID); ok {
			for _, s := range symptoms {
				if slices.Contains(p.When.Symptoms, s) {
					trigger = s
				}
			}
		}
		out = append(out, Fix{ID: ap.ID, Trigger: trigger, Change: strings.Join(ap.Changes, " "),
			Text: message("heal-patch", ap.ID, ap.Title, strings.Join(ap.Changes, " ")).Text})
	}
	return out
}
