package doctor

import (
	"fmt"
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

// SelectFor is Select for a backend the user asked for ("" = best for the
// machine). The toolkit, architectures and host compiler are
// matrix.Resolve's answer (Resolution.Choice) for the machine's facts
// (MatrixQuery); doctor picks the backend and words the reasons.
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
	res, ch, tk := resolve(s, nv)
	sel.Installed = tk
	for _, p := range ch.Problems {
		sel.Problems = append(sel.Problems, problemText(s, p))
	}
	if tk != nil {
		sel.Toolkit = tk
		sel.HostCompiler, sel.MSVCToolset = ch.HostCompiler, ch.MSVCToolset
		if ch.MSVCToolset != "" {
			reason("msvc-toolset", "version", tk.Version, "cl", clVersionOf(latestMSVC(s)), "toolset", ch.MSVCToolset)
		}
		if def, _ := gxx(s); ch.HostCompiler != "" && def != nil {
			reason("host-compiler", "version", tk.Version, "max", strconv.Itoa(ch.GCCMax), "gcc", def.Version, "cxx", ch.HostCompiler)
		}
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
		for i, g := range ch.GPUs {
			g.Index = nv[i].Index
			sel.GPUs = append(sel.GPUs, g)
		}
		sel.CUDAArchitectures = ch.CUDAArchitectures
		sel.CUDA = ch.CUDA
		sel.Resolution = res
		if !ch.Works {
			// No installed toolkit can build for this machine: say what to
			// install instead of handing a broken one (and its host
			// compiler choice) to the build.
			sel.Toolkit, sel.HostCompiler, sel.MSVCToolset = nil, "", ""
		}
		if sel.Backend == "cuda" {
			reason("nvidia", "gpu", nv[0].Name, "cc", orUnknown(nv[0].ComputeCapability), "archs", orUnknown(sel.CUDAArchitectures))
			if ch.Works {
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

// resolve asks matrix.Resolve for the machine (nv are its NVIDIA GPUs):
// the resolution (nil when there is neither a GPU nor a toolkit), its
// choice and the chosen installed toolkit (nil when none is installed).
func resolve(s *machine.Snapshot, nv []machine.GPU) (*matrix.Resolution, matrix.Choice, *machine.CUDAToolkit) {
	if len(nv) == 0 && len(s.Toolkits) == 0 {
		return nil, matrix.Choice{Toolkit: -1}, nil
	}
	r := matrix.Default().Resolve(MatrixQuery(s, nv))
	var tk *machine.CUDAToolkit
	if r.Choice.Toolkit >= 0 && r.Choice.Toolkit < len(s.Toolkits) {
		tk = &s.Toolkits[r.Choice.Toolkit]
	}
	return &r, r.Choice, tk
}

// problemText words why an installed toolkit cannot build (the reasons
// table); the driver's own version is doctor's to add.
func problemText(s *machine.Snapshot, p matrix.Problem) string {
	kv := p.Values
	if p.ID == matrix.ProblemDriverTooOld {
		kv = append(kv[:len(kv):len(kv)], "driver", s.NVIDIA.DriverVersion)
	}
	return reasonText(p.ID, kv...)
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
