package doctor

import (
	"sort"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// Helpers that read a snapshot. Paths are compared the way the recorded
// machine's OS would (case-insensitive with either slash on Windows), never
// with the replaying OS's filepath, so a Windows snapshot gives the same
// findings on Linux.

func isWindows(s *machine.Snapshot) bool { return s.OS.GOOS == "windows" }
func isLinux(s *machine.Snapshot) bool   { return s.OS.GOOS == "linux" }

// normPath canonicalizes a path for comparison on the snapshot's OS.
func normPath(s *machine.Snapshot, p string) string {
	p = strings.TrimSpace(strings.Trim(p, `"`))
	if isWindows(s) {
		p = strings.ToLower(strings.ReplaceAll(p, "/", `\`))
		for strings.HasSuffix(p, `\`) && len(p) > 3 {
			p = strings.TrimSuffix(p, `\`)
		}
		return p
	}
	for strings.HasSuffix(p, "/") && len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

func samePath(s *machine.Snapshot, a, b string) bool {
	return a != "" && b != "" && normPath(s, a) == normPath(s, b)
}

// under says whether p lies in dir (or is dir).
func under(s *machine.Snapshot, p, dir string) bool {
	p, dir = normPath(s, p), normPath(s, dir)
	if p == "" || dir == "" {
		return false
	}
	sep := "/"
	if isWindows(s) {
		sep = `\`
	}
	return p == dir || strings.HasPrefix(p, dir+sep)
}

// dirOf is the directory part of p with either separator.
func dirOf(p string) string {
	i := strings.LastIndexAny(p, `/\`)
	if i < 0 {
		return ""
	}
	if i == 0 {
		return p[:1]
	}
	return p[:i]
}

// baseOf is the file part of p with either separator.
func baseOf(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// env returns a variable from the snapshot (Windows names are case-insensitive).
func env(s *machine.Snapshot, k string) (string, bool) {
	if v, ok := s.Env[k]; ok {
		return v, true
	}
	if isWindows(s) {
		for ek, v := range s.Env {
			if strings.EqualFold(ek, k) {
				return v, true
			}
		}
	}
	return "", false
}

func hits(s *machine.Snapshot, tool string) []machine.ToolHit {
	if h, ok := s.Tools[tool]; ok {
		return h
	}
	if isWindows(s) {
		if h, ok := s.Tools[tool+".exe"]; ok {
			return h
		}
	}
	return nil
}

func firstHit(s *machine.Snapshot, tool string) string {
	if h := hits(s, tool); len(h) > 0 {
		return h[0].Path
	}
	return ""
}

// nvidiaGPUs are the GPUs NVML (or nvidia-smi) reported. A GPU without a
// compute capability (nvidia-smi before R510 has no compute_cap field) gets
// the matrix's, looked up by its full name.
func nvidiaGPUs(s *machine.Snapshot) []machine.GPU {
	var out []machine.GPU
	for _, g := range s.NVIDIA.GPUs {
		if g.Vendor == "" || strings.EqualFold(g.Vendor, "nvidia") {
			if g.ComputeCapability == "" && g.Name != "" && !strings.HasSuffix(g.Name, "...") {
				if l := matrix.Default().LookupGPU(g.Name); l.Found && !l.Uncertain {
					g.ComputeCapability = l.ComputeCapability
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// gpuVendors names the non-NVIDIA GPU vendors any probe saw (amd, intel, qualcomm).
func gpuVendors(s *machine.Snapshot) map[string]bool {
	v := map[string]bool{}
	add := func(text string) {
		t := strings.ToLower(text)
		switch {
		case strings.Contains(t, "advanced micro devices") || strings.Contains(t, "amd") || strings.Contains(t, "radeon") || strings.Contains(t, "0x1002"):
			v["amd"] = true
		case strings.Contains(t, "intel") || strings.Contains(t, "0x8086"):
			v["intel"] = true
		case strings.Contains(t, "adreno") || strings.Contains(t, "qualcomm"):
			v["qualcomm"] = true
		case strings.Contains(t, "nvidia") || strings.Contains(t, "geforce") || strings.Contains(t, "0x10de"):
			v["nvidia"] = true
		}
	}
	for _, g := range s.NVIDIA.GPUs {
		if g.Vendor != "" {
			add(g.Vendor)
		}
	}
	for _, d := range s.Vulkan.Devices {
		if strings.Contains(strings.ToUpper(d.Type), "CPU") {
			continue
		}
		add(d.VendorID + " " + d.Name)
	}
	for _, p := range s.OpenCL.Platforms {
		for _, d := range p.Devices {
			if oclIsGPU(p, d) {
				add(d.Vendor + " " + d.Name)
			}
		}
	}
	if len(s.HIP.GFX) > 0 {
		v["amd"] = true
	}
	if len(nvidiaGPUs(s)) > 0 {
		v["nvidia"] = true
	}
	return v
}

// activeToolkit is the CUDA toolkit a build would use: CUDA_PATH's on
// Windows, else the first nvcc on PATH, else /usr/local/cuda, else the newest.
func activeToolkit(s *machine.Snapshot) (*machine.CUDAToolkit, string) {
	if len(s.Toolkits) == 0 {
		return nil, ""
	}
	if isWindows(s) {
		if cp, ok := env(s, "CUDA_PATH"); ok && cp != "" {
			for i := range s.Toolkits {
				if samePath(s, s.Toolkits[i].Root, cp) {
					return &s.Toolkits[i], "CUDA_PATH"
				}
			}
		}
	}
	if nv := firstHit(s, "nvcc"); nv != "" {
		for i := range s.Toolkits {
			if samePath(s, s.Toolkits[i].NVCC, nv) {
				return &s.Toolkits[i], "PATH"
			}
		}
	}
	for i := range s.Toolkits {
		if samePath(s, s.Toolkits[i].Root, "/usr/local/cuda") {
			return &s.Toolkits[i], "/usr/local/cuda"
		}
	}
	best := 0
	for i := range s.Toolkits {
		if version.Compare(s.Toolkits[i].Version, s.Toolkits[best].Version) > 0 {
			best = i
		}
	}
	return &s.Toolkits[best], "newest"
}

// gxx returns the default g++ (named g++ or c++) and versioned siblings
// (g++-11...) found on the machine.
func gxx(s *machine.Snapshot) (def *machine.Compiler, siblings []machine.Compiler) {
	for i, c := range s.Compilers {
		if c.Kind != "g++" {
			continue
		}
		b := baseOf(c.Path)
		if b == "g++" || b == "c++" {
			if def == nil {
				def = &s.Compilers[i]
			}
			continue
		}
		siblings = append(siblings, c)
	}
	if def == nil && len(siblings) == 0 {
		return nil, nil
	}
	sort.SliceStable(siblings, func(i, j int) bool { return siblings[i].Major > siblings[j].Major })
	return def, siblings
}

// latestMSVC is the newest VS instance with the C++ tools (or nil).
func latestMSVC(s *machine.Snapshot) *machine.MSVCInstall {
	var best *machine.MSVCInstall
	for i := range s.MSVC {
		m := &s.MSVC[i]
		if !m.HasVCTools {
			continue
		}
		if best == nil || version.Compare(m.InstallVersion, best.InstallVersion) > 0 {
			best = m
		}
	}
	return best
}

// clVersionOf is the instance's cl version, from the banner or its default toolset (14.41 -> 19.41).
func clVersionOf(m *machine.MSVCInstall) string {
	if m == nil {
		return ""
	}
	if m.ClVersion != "" {
		return m.ClVersion
	}
	t := m.DefaultToolset
	if t == "" && len(m.Toolsets) > 0 {
		t = m.Toolsets[len(m.Toolsets)-1]
	}
	return matrix.ToolsetCL(t)
}

func vcvarsall(m *machine.MSVCInstall) string {
	if m == nil || m.Path == "" {
		return ""
	}
	return strings.TrimRight(m.Path, `\/`) + `\VC\Auxiliary\Build\vcvarsall.bat`
}

// pathDirs is PATH in order.
func pathDirs(s *machine.Snapshot) []string {
	var out []string
	for _, p := range s.Path {
		out = append(out, p.Dir)
	}
	return out
}

func quoteList(xs []string) string { return strings.Join(xs, ", ") }
