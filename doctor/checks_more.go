package doctor

import (
	"regexp"
	"strings"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/machine"
)

// Catalog checks that read raw recorded outputs or several probes at once.

func init() {
	registry["nv.present"] = checkNVPresent
	registry["nv.driver-model"] = checkDriverModel
	registry["nv.smi-fields"] = checkSMIFields
	registry["amd.present"] = checkAMDPresent
	registry["build.generator"] = checkGenerator
	registry["msvc.lang-pack"] = checkLangPack
}

// rawOf returns the recorded outputs of a program (by base name), e.g. every
// "…\nvidia-smi.exe …" command line.
func rawOf(s *machine.Snapshot, program string) map[string]string {
	out := map[string]string{}
	for k, v := range s.Raw {
		first := k
		if i := strings.Index(strings.ToLower(k), strings.ToLower(program)); i >= 0 {
			first = k[:i+len(program)]
			rest := strings.ToLower(k[i+len(program):])
			if rest != "" && !strings.HasPrefix(rest, " ") && !strings.HasPrefix(rest, ".exe") {
				continue
			}
		}
		b := strings.ToLower(baseOf(first))
		if b == program || b == program+".exe" {
			out[k] = v
		}
	}
	return out
}

func checkNVPresent(s *machine.Snapshot) []Finding {
	if gpus := nvidiaGPUs(s); len(gpus) > 0 {
		var names []string
		for _, g := range gpus {
			names = append(names, g.Name)
		}
		return []Finding{emit(s, "nv.present", "ok", "count", itoa(len(gpus)), "names", strings.Join(names, ", "))}
	}
	if gpuVendors(s)["nvidia"] {
		switch c := nvmlCode(s); {
		case c == "" || c == "NOT_PROBED" || strings.HasPrefix(c, "CHILD_"):
			return []Finding{skip("nv.present", "not-recorded", "what", "NVML")}
		}
		return []Finding{emit(s, "nv.present", "no-driver")}
	}
	return []Finding{skip("nv.present", "no-nvidia")}
}

// "|   0  NVIDIA GeForce RTX 4060      WDDM  |" (driver model column, Windows).
var reDriverModel = regexp.MustCompile(`(?m)^\|\s+(\d+)\s+(.+?)\s+(WDDM|TCC)\s+\|`)

func checkDriverModel(s *machine.Snapshot) []Finding {
	var out []Finding
	for k, raw := range rawOf(s, "nvidia-smi") {
		if strings.Contains(k, "--query") {
			continue
		}
		for _, m := range reDriverModel.FindAllStringSubmatch(raw, -1) {
			if m[3] == "TCC" {
				out = append(out, emit(s, "nv.driver-model", "tcc", "index", m[1], "name", m[2]))
			} else {
				out = append(out, emit(s, "nv.driver-model", "ok", "index", m[1], "name", m[2]))
			}
		}
	}
	if len(out) == 0 {
		switch {
		case s.NVIDIA.SMIStatus == "not-found" && len(nvidiaGPUs(s)) == 0 && !gpuVendors(s)["nvidia"]:
			return []Finding{skip("nv.driver-model", "no-nvidia")}
		case s.NVIDIA.SMIStatus == "not-found":
			return []Finding{skip("nv.driver-model", "no-smi")}
		}
		return []Finding{skip("nv.driver-model", "not-recorded", "what", "nvidia-smi's driver model column")}
	}
	return out
}

func checkSMIFields(s *machine.Snapshot) []Finding {
	for k, raw := range rawOf(s, "nvidia-smi") {
		if !strings.Contains(k, "--query-gpu") {
			continue
		}
		if strings.Contains(raw, "is not a valid field to query") {
			return []Finding{emit(s, "nv.smi-fields", "old-smi")}
		}
		return []Finding{emit(s, "nv.smi-fields", "ok")}
	}
	if s.NVIDIA.SMIStatus == "not-found" {
		return []Finding{skip("nv.smi-fields", "no-smi")}
	}
	return []Finding{skip("nv.smi-fields", "not-recorded", "what", "nvidia-smi's query output")}
}

func checkAMDPresent(s *machine.Snapshot) []Finding {
	if !gpuVendors(s)["amd"] {
		return []Finding{skip("amd.present", "no-amd")}
	}
	var names []string
	add := func(n string) {
		if n != "" && !containsStr(names, n) {
			names = append(names, n)
		}
	}
	for _, d := range s.Vulkan.Devices {
		if strings.Contains(strings.ToLower(d.VendorID+d.Name), "0x1002") || strings.Contains(strings.ToLower(d.Name), "radeon") || strings.Contains(strings.ToLower(d.Name), "amd") {
			add(d.Name)
		}
	}
	for _, p := range s.OpenCL.Platforms {
		for _, d := range p.Devices {
			if oclIsGPU(p, d) && strings.Contains(strings.ToLower(d.Vendor+p.Vendor), "advanced micro devices") {
				add(d.Name)
			}
		}
	}
	for _, g := range s.HIP.GFX {
		add(g)
	}
	return []Finding{emit(s, "amd.present", "ok", "names", orUnknown(strings.Join(names, ", ")))}
}

func checkGenerator(s *machine.Snapshot) []Finding {
	gen, set := env(s, "CMAKE_GENERATOR")
	if !set || gen == "" {
		return []Finding{emit(s, "build.generator", "ok")}
	}
	if strings.HasPrefix(gen, "Visual Studio") && len(nvidiaGPUs(s)) > 0 {
		if tk, _ := activeToolkit(s); tk != nil && !tk.VSIntegration {
			return []Finding{emit(s, "build.generator", "vs-without-cuda", "gen", gen, "version", tk.Version)}
		}
	}
	return []Finding{emit(s, "build.generator", "set", "gen", gen)}
}

func checkLangPack(s *machine.Snapshot) []Finding {
	lang, _ := env(s, "VSLANG")
	localized := lang != "" && lang != "1033"
	for _, raw := range rawOf(s, "cl") {
		for _, r := range raw {
			if r > 0x7f {
				localized = true
				break
			}
		}
	}
	if localized {
		return []Finding{emit(s, "msvc.lang-pack", "localized")}
	}
	return []Finding{emit(s, "msvc.lang-pack", "ok")}
}

func init() { registry["nv.cuda-init"] = checkCUDAInit }

// checkCUDAInit reads the kernel probe results a `doctor --probe` run (or a
// replayed report) recorded: a failed stage names a failure ID whose cause
// and fix come from the failures knowledge base.
func checkCUDAInit(s *machine.Snapshot) []Finding {
	var cuda []machine.ProbeResult
	for _, p := range s.Probes {
		if p.Kind == "cuda" {
			cuda = append(cuda, p)
		}
	}
	if len(cuda) == 0 {
		return []Finding{skip("nv.cuda-init", "not-probed")}
	}
	for _, p := range cuda {
		if p.OK {
			continue
		}
		f := emit(s, "nv.cuda-init", "failed", "stage", p.Stage, "id", orUnknown(p.FailureID), "detail", firstLine(p.Detail))
		if e, ok := failures.Default().Entry(p.FailureID); ok {
			f = f.With(e.Cause)
			f.Fix = &Fix{Text: e.Fix, Commands: e.Commands}
		}
		return []Finding{f}
	}
	last := cuda[len(cuda)-1]
	return []Finding{emit(s, "nv.cuda-init", "ok", "stage", last.Stage)}
}
