package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// Selection is what a build should use on this machine: the one type
// doctor fills and build's planner and the kernel probes read
// (matrix.Selection).
type Selection = matrix.Selection

// SelectedGPU is one GPU in the selection.
type SelectedGPU = matrix.SelectedGPU

// Select picks the backend, CUDA toolkit, architectures and host compiler.
func Select(s *machine.Snapshot) Selection { return SelectFor(s, "") }

// SelectFor is Select for a backend the user asked for ("" = best for the machine).
func SelectFor(s *machine.Snapshot, requested string) Selection {
	if s == nil {
		s = &machine.Snapshot{}
	}
	var sel Selection
	reason := func(key string, kv ...string) { sel.Reasons = append(sel.Reasons, reasonText(key, kv...)) }
	// The build targets every NVIDIA GPU, even those CUDA_VISIBLE_DEVICES
	// hides at run time (env.overrides reports that separately).
	nv := nvidiaGPUs(s)
	vend := gpuVendors(s)
	requested = strings.ToLower(strings.TrimSpace(requested))

	// Toolkit and host compiler, whenever a toolkit is installed: build and
	// kernel probes compile CUDA code even when the backend is not CUDA.
	tk, problems := chooseToolkit(s, nv)
	working := tk != nil && len(problems) == 0
	sel.Installed, sel.Problems = tk, problems
	if tk != nil {
		sel.Toolkit = tk
		hostCompiler(s, tk, &sel, reason)
	}

	switch {
	case requested == "opencl" && !vend["qualcomm"] && !vend["intel"]:
		sel.Requested = "opencl"
		reason("opencl-unsupported", "gpus", vendorList(vend))
		sel.Backend = bestNonOpenCL(s, nv, vend)
	case requested != "" && requested != "auto":
		sel.Backend = requested
		reason("requested", "backend", requested)
	case len(nv) > 0:
		sel.Backend = "cuda"
	case vend["amd"]:
		sel.Backend = bestNonOpenCL(s, nv, vend)
	case vend["intel"]:
		sel.Backend = "vulkan"
		reason("intel-vulkan")
	case vend["qualcomm"]:
		sel.Backend = "opencl"
		reason("adreno-opencl")
	default:
		sel.Backend = "cpu"
		reason("no-gpu")
	}

	if len(nv) > 0 {
		var archs []string
		for _, g := range nv {
			sg := SelectedGPU{Index: g.Index, Name: g.Name, ComputeCapability: g.ComputeCapability}
			if a := archFor(g.ComputeCapability); a != "" {
				sg.Architecture = a
				if !containsStr(archs, a) {
					archs = append(archs, a)
				}
			}
			sg.MinCUDA, sg.MaxCUDA = cudaRangeFor(g.ComputeCapability)
			sel.GPUs = append(sel.GPUs, sg)
		}
		sort.Slice(archs, func(i, j int) bool { return archNum(archs[i]) < archNum(archs[j]) })
		sel.CUDAArchitectures = strings.Join(archs, ";")
		sel.CUDA = recommendCUDA(s, nv, tk, working)
		if r := resolveWithMatrix(s, nv); r != nil {
			sel.Resolution = r
			// An installed toolkit that works (possibly with an older MSVC
			// toolset, which the matrix does not know about) stays selected.
			if r.CUDA.Recommended != "" && !working && (glibcNeeds(s) == "" || version.Compare(version.MajorMinor(r.CUDA.Recommended), glibcNeeds(s)) >= 0) {
				sel.CUDA = r.CUDA.Recommended
			}
			if r.CUDAArchitectures != "" {
				sel.CUDAArchitectures = r.CUDAArchitectures
			}
		}
		if !working {
			// No installed toolkit can build for this machine: say what to
			// install instead of handing a broken one (and its host
			// compiler choice) to the build.
			sel.Toolkit, sel.HostCompiler, sel.MSVCToolset = nil, "", ""
		}
		if sel.Backend == "cuda" {
			reason("nvidia", "gpu", nv[0].Name, "cc", orUnknown(nv[0].ComputeCapability), "archs", orUnknown(sel.CUDAArchitectures))
			if working {
				reason("toolkit-installed", "version", tk.Version, "nvcc", tk.NVCC)
			} else if sel.CUDA != "" {
				reason("toolkit-install", "version", sel.CUDA)
			}
		}
		if vis := visibleNVIDIA(s); len(vis) < len(nv) {
			v, _ := env(s, "CUDA_VISIBLE_DEVICES")
			reason("hidden", "value", v, "hidden", strconv.Itoa(len(nv)-len(vis)), "total", strconv.Itoa(len(nv)))
		}
	}
	if isWindows(s) {
		if m := latestMSVC(s); m != nil {
			sel.VCVarsAll = vcvarsall(m)
		}
	}
	return sel
}

func vendorList(v map[string]bool) string {
	var out []string
	for _, k := range sortedKeys(v) {
		out = append(out, map[string]string{"amd": "AMD", "nvidia": "NVIDIA", "intel": "Intel", "qualcomm": "Qualcomm"}[k])
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// bestNonOpenCL is what accelerates AMD/NVIDIA cards: CUDA for NVIDIA, HIP
// when the ROCm/HIP SDK is installed and knows the GPU, else Vulkan.
func bestNonOpenCL(s *machine.Snapshot, nv []machine.GPU, vend map[string]bool) string {
	if len(nv) > 0 {
		return "cuda"
	}
	if vend["amd"] && s.HIP.Status == "ok" && len(s.HIP.GFX) > 0 {
		return "hip"
	}
	if vend["amd"] || vend["nvidia"] || vend["intel"] {
		return "vulkan"
	}
	return "cpu"
}

// visibleNVIDIA are the NVIDIA GPUs a CUDA program would see: those NVML
// lists, minus any CUDA_VISIBLE_DEVICES hides.
func visibleNVIDIA(s *machine.Snapshot) []machine.GPU {
	all := nvidiaGPUs(s)
	v, set := env(s, "CUDA_VISIBLE_DEVICES")
	if !set {
		return all
	}
	var out []machine.GPU
	for _, g := range all {
		if visibleIn(v, g) {
			out = append(out, g)
		}
	}
	return out
}

// visibleIn applies CUDA's CUDA_VISIBLE_DEVICES rules: a comma list of
// indices or UUID prefixes; parsing stops at the first invalid entry.
func visibleIn(list string, g machine.GPU) bool {
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			return false
		}
		if n, err := strconv.Atoi(e); err == nil {
			if n < 0 {
				return false
			}
			if n == g.Index {
				return true
			}
			continue
		}
		if strings.HasPrefix(e, "GPU-") || strings.HasPrefix(e, "MIG-") {
			if g.UUID != "" && strings.HasPrefix(g.UUID, e) {
				return true
			}
			continue
		}
		return false
	}
	return false
}

// archFor is CMAKE_CUDA_ARCHITECTURES for a CC: "89-real". Blackwell 12.x
// stays plain: llama.cpp itself rewrites 12X to 12Xa.
func archFor(cc string) string {
	sm := matrix.SM(cc)
	if sm == 0 {
		return ""
	}
	return strconv.Itoa(sm) + "-real"
}

func archNum(a string) int {
	n, _ := strconv.Atoi(strings.TrimRightFunc(strings.SplitN(a, "-", 2)[0], func(r rune) bool { return r < '0' || r > '9' }))
	return n
}

// cudaRangeFor is the oldest and newest CUDA minor of the matrix whose nvcc targets cc.
func cudaRangeFor(cc string) (lo, hi string) {
	sm := matrix.SM(cc)
	if sm == 0 {
		return "", ""
	}
	for _, r := range g().Toolkits {
		if containsInt(r.SM, sm) {
			if lo == "" {
				lo = r.CUDA
			}
			hi = r.CUDA
		}
	}
	return lo, hi
}

// targets says whether toolkit tk can compile for cc: nvcc --list-gpu-arch
// when recorded, else the toolkit table.
func targets(tk *machine.CUDAToolkit, cc string) (bool, bool) {
	sm := matrix.SM(cc)
	if sm == 0 {
		return false, false
	}
	if len(tk.GPUArchs) > 0 {
		want := "compute_" + strconv.Itoa(sm)
		for _, a := range tk.GPUArchs {
			if a == want || a == "sm_"+strconv.Itoa(sm) {
				return true, true
			}
		}
		return false, true
	}
	row, ok := toolkitFacts(tk.Version)
	if !ok {
		return false, false
	}
	return containsInt(row.SM, sm), true
}

// toolkitProblems lists why an installed toolkit cannot build for these GPUs
// on this machine (message keys of the reasons table, with values).
func toolkitProblems(s *machine.Snapshot, tk *machine.CUDAToolkit, nv []machine.GPU) []string {
	var out []string
	for _, gpu := range nv {
		if ok, known := targets(tk, gpu.ComputeCapability); known && !ok {
			out = append(out, reasonText("cannot-target", "version", tk.Version, "gpu", gpu.Name, "cc", gpu.ComputeCapability))
		}
	}
	if api := driverAPI(s); api != "" && version.Compare(version.MajorMinor(tk.Version), api) > 0 {
		out = append(out, reasonText("driver-too-old", "version", tk.Version, "api", api, "driver", s.NVIDIA.DriverVersion))
	}
	if glibcBlocks(s, tk) {
		out = append(out, reasonText("glibc", "version", tk.Version, "glibc", s.OS.Glibc, "min", g().GlibcMath.CUDAMin))
	}
	row, known := toolkitFacts(tk.Version)
	if isWindows(s) {
		if m := latestMSVC(s); m != nil {
			cl := clVersionOf(m)
			if known && row.MSCVerMaxExcl > 0 && matrix.MSCVer(cl) >= row.MSCVerMaxExcl && olderToolset(m, row.MSCVerMaxExcl, tk.Version) == "" {
				out = append(out, reasonText("msvc-too-new", "version", tk.Version, "cl", cl))
			}
			if msc := matrix.MSCVer(cl); known && row.MSCVerMin > 0 && msc > 0 && msc < row.MSCVerMin {
				out = append(out, reasonText("msvc-too-old", "version", tk.Version, "cl", cl, "min", matrix.CLVersion(row.MSCVerMin)))
			}
		}
	} else if def, sibs := gxx(s); known && def != nil && row.GCCMax > 0 && def.Major > row.GCCMax {
		ok := false
		for _, c := range sibs {
			ok = ok || (c.Major > 0 && c.Major <= row.GCCMax)
		}
		if !ok {
			out = append(out, reasonText("gcc-too-new", "version", tk.Version, "gcc", def.Version, "max", strconv.Itoa(row.GCCMax)))
		}
	}
	return out
}

// chooseToolkit is the installed toolkit a build should use, with why it
// cannot build (nil when it can): the active one when it works for every
// GPU, else the newest one that does, else the active one (so its problems
// are reported). Each toolkit's problems are computed once.
func chooseToolkit(s *machine.Snapshot, nv []machine.GPU) (*machine.CUDAToolkit, []string) {
	act, _ := activeToolkit(s)
	if act == nil {
		return nil, nil
	}
	actProblems := toolkitProblems(s, act, nv)
	if len(actProblems) == 0 {
		return act, nil
	}
	var best *machine.CUDAToolkit
	for i := range s.Toolkits {
		tk := &s.Toolkits[i]
		if best != nil && version.Compare(tk.Version, best.Version) <= 0 {
			continue
		}
		if tk == act || tk.Version == act.Version && tk.Root == act.Root {
			continue // its problems are actProblems
		}
		if len(toolkitProblems(s, tk, nv)) == 0 {
			best = tk
		}
	}
	if best != nil {
		return best, nil
	}
	return act, actProblems
}

// recommendCUDA is the CUDA version to build with: the chosen installed
// toolkit when it works, else the newest minor of the matrix that targets
// every GPU, that the driver runs, and that the host compiler accepts.
func recommendCUDA(s *machine.Snapshot, nv []machine.GPU, tk *machine.CUDAToolkit, working bool) string {
	if working {
		return tk.Version
	}
	best := ""
	for _, r := range g().Toolkits {
		ok := true
		for _, gpu := range nv {
			if sm := matrix.SM(gpu.ComputeCapability); sm != 0 && !containsInt(r.SM, sm) {
				ok = false
			}
		}
		if api := driverAPI(s); api != "" && version.Compare(r.CUDA, api) > 0 {
			ok = false
		}
		if glibcNeeds(s) != "" && version.Compare(r.CUDA, glibcNeeds(s)) < 0 {
			ok = false
		}
		if isWindows(s) {
			if m := latestMSVC(s); m != nil {
				cl := clVersionOf(m)
				if r.MSCVerMaxExcl > 0 && matrix.MSCVer(cl) >= r.MSCVerMaxExcl {
					ok = false
				}
				if msc := matrix.MSCVer(cl); r.MSCVerMin > 0 && msc > 0 && msc < r.MSCVerMin {
					ok = false
				}
				if need := stlMinCUDA(cl); need != "" && version.Compare(r.CUDA, need) < 0 {
					ok = false
				}
			}
		}
		if ok {
			best = r.CUDA
		}
	}
	return best
}

// olderToolset returns an installed MSVC toolset family ("14.39") older
// than the toolkit's limit that the toolkit accepts (host_config.h and STL),
// for -vcvars_ver; "" when none.
func olderToolset(m *machine.MSVCInstall, maxExcl int, tkVersion string) string {
	best := ""
	for _, t := range m.Toolsets {
		cl := matrix.ToolsetCL(t)
		if cl == "" || matrix.MSCVer(cl) >= maxExcl {
			continue
		}
		if need := stlMinCUDA(cl); need != "" && version.Compare(tkVersion, need) < 0 {
			continue
		}
		if fam := version.MajorMinor(t); best == "" || version.Compare(fam, best) > 0 {
			best = fam
		}
	}
	return best
}

// hostCompiler fills the host compiler nvcc must use with tk.
func hostCompiler(s *machine.Snapshot, tk *machine.CUDAToolkit, sel *Selection, reason func(string, ...string)) {
	row, ok := toolkitFacts(tk.Version)
	if !ok {
		return
	}
	if isWindows(s) {
		m := latestMSVC(s)
		if m == nil || row.MSCVerMaxExcl == 0 {
			return
		}
		cl := clVersionOf(m)
		if matrix.MSCVer(cl) >= row.MSCVerMaxExcl {
			if t := olderToolset(m, row.MSCVerMaxExcl, tk.Version); t != "" {
				sel.MSVCToolset = t
				reason("msvc-toolset", "version", tk.Version, "cl", cl, "toolset", t)
			}
		}
		return
	}
	def, sibs := gxx(s)
	if row.GCCMax == 0 || def == nil || def.Major <= row.GCCMax {
		return
	}
	for _, c := range sibs {
		if c.Major <= row.GCCMax && c.Major > 0 {
			sel.HostCompiler = c.Path
			reason("host-compiler", "version", tk.Version, "max", strconv.Itoa(row.GCCMax), "gcc", def.Version, "cxx", c.Path)
			return
		}
	}
}

// ReasonText is the catalog text of a selection reason (doctorcmd adds its
// own notes, such as the --probe architecture, in the same data).
func ReasonText(key string, kv ...string) string { return reasonText(key, kv...) }

// reasonText fills a selection reason from the catalog.
func reasonText(key string, kv ...string) string {
	Catalog()
	t, ok := catReasons[key]
	if !ok {
		return fmt.Sprintf("internal: no reason text %q", key)
	}
	return vars(kv).replacerPairs().fill(t)
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func containsStr(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// glibcNeeds is the oldest CUDA whose headers build against this glibc
// ("" when any does; gates.json glibc_math).
func glibcNeeds(s *machine.Snapshot) string {
	gm := g().GlibcMath
	if isLinux(s) && s.OS.Glibc != "" && version.Compare(s.OS.Glibc, gm.GlibcMin) >= 0 {
		return gm.CUDAMin
	}
	return ""
}

// glibcBlocks says the toolkit's headers fail with this glibc (a
// distribution's own package is built for its glibc).
func glibcBlocks(s *machine.Snapshot, tk *machine.CUDAToolkit) bool {
	need := glibcNeeds(s)
	return need != "" && version.Compare(version.MajorMinor(tk.Version), need) < 0 && !containsStr(tk.Found, "debian")
}
