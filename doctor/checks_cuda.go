package doctor

import (
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/matrix"
)

// Section C of docs/doctor.md\'s "Every check": CUDA toolkits and version selection.

func toolkitLine(tk machine.CUDAToolkit) string {
	if len(tk.Found) > 0 {
		return detailText("cuda-toolkit-found", "version", tk.Version, "nvcc", tk.NVCC, "found", strings.Join(tk.Found, ", "))
	}
	return tk.Version + "  " + tk.NVCC
}

func checkCUDAInventory(s *machine.Snapshot) []Finding {
	if len(s.Toolkits) == 0 {
		if len(nvidiaGPUs(s)) > 0 {
			sel := Select(s)
			return []Finding{emit(s, "cuda.inventory", "none-with-gpu", "version", orUnknown(sel.CUDA))}
		}
		return []Finding{emit(s, "cuda.inventory", "none")}
	}
	var lines []string
	for _, tk := range s.Toolkits {
		lines = append(lines, toolkitLine(tk))
	}
	act, how := activeToolkit(s)
	return []Finding{emit(s, "cuda.inventory", "ok", "count", strconv.Itoa(len(s.Toolkits)), "version", act.Version, "how", how).With(lines...)}
}

func checkCUDAPathConsistency(s *machine.Snapshot) []Finding {
	if len(s.Toolkits) == 0 {
		return []Finding{skip("cuda.path-consistency", "no-toolkit")}
	}
	nv := firstHit(s, "nvcc")
	if isWindows(s) {
		cp, set := env(s, "CUDA_PATH")
		if !set || cp == "" {
			return []Finding{emit(s, "cuda.path-consistency", "no-cuda-path")}
		}
		var root *machine.CUDAToolkit
		for i := range s.Toolkits {
			if samePath(s, s.Toolkits[i].Root, cp) {
				root = &s.Toolkits[i]
			}
		}
		if root == nil {
			return []Finding{emit(s, "cuda.path-consistency", "cuda-path-dangling", "cuda_path", cp)}
		}
		if nv == "" {
			return []Finding{emit(s, "cuda.path-consistency", "nvcc-not-on-path", "cuda_path", cp, "bin", strings.TrimRight(cp, `\`)+`\bin`)}
		}
		if !under(s, nv, cp) {
			return []Finding{emit(s, "cuda.path-consistency", "nvcc-differs", "nvcc", nv, "cuda_path", cp, "version", root.Version, "bin", strings.TrimRight(cp, `\`)+`\bin`)}
		}
		return []Finding{emit(s, "cuda.path-consistency", "ok", "nvcc", nv)}
	}
	if nv == "" {
		return []Finding{emit(s, "cuda.path-consistency", "nvcc-not-on-path-linux")}
	}
	// A newer toolkit elsewhere (/usr/local/cuda-X.Y, /opt/cuda) than the
	// nvcc PATH finds first: builds by hand take the first.
	var first *machine.CUDAToolkit
	for i := range s.Toolkits {
		if samePath(s, s.Toolkits[i].NVCC, nv) {
			first = &s.Toolkits[i]
		}
	}
	if first != nil {
		// A link such as /usr/local/cuda that CMake and scripts use names
		// another toolkit than the nvcc PATH finds.
		for _, tk := range s.Toolkits {
			if samePath(s, tk.Root, first.Root) || version.MajorMinor(tk.Version) == version.MajorMinor(first.Version) {
				continue
			}
			for _, l := range tk.Links {
				return []Finding{emit(s, "cuda.path-consistency", "link-differs", "link", l, "root", tk.Root, "cuda", tk.Version,
					"nvcc", nv, "version", first.Version).WithFact("link", l).WithFact("link_target", tk.Root)}
			}
		}
		for _, tk := range s.Toolkits {
			if !samePath(s, tk.NVCC, nv) && version.Compare(tk.Version, first.Version) > 0 {
				return []Finding{emit(s, "cuda.path-consistency", "linux-shadow", "nvcc", nv, "version", first.Version, "cuda", tk.Version, "root", tk.Root)}
			}
		}
	}
	return []Finding{emit(s, "cuda.path-consistency", "ok", "nvcc", nv)}
}

func checkCUDASelect(s *machine.Snapshot) []Finding {
	nv := nvidiaGPUs(s)
	if len(nv) == 0 {
		return []Finding{skip("cuda.select", "no-nvidia")}
	}
	sel := Select(s)
	if sel.Toolkit != nil {
		return []Finding{emit(s, "cuda.select", "ok", "version", sel.Toolkit.Version, "archs", orUnknown(sel.CUDAArchitectures)).With(sel.Reasons...)}
	}
	var blockers []string
	if sel.Resolution != nil {
		for _, b := range sel.Resolution.Blockers {
			blockers = append(blockers, b.Message+" → "+b.Fix)
		}
	}
	if tk := sel.Installed; tk != nil && sel.CUDA == "" {
		return []Finding{emit(s, "cuda.select", "blocked-nofit", "version", tk.Version).
			With(sel.Problems...).With(blockers...)}
	}
	if tk := sel.Installed; tk != nil {
		return []Finding{emit(s, "cuda.select", "blocked", "version", tk.Version, "recommended", orUnknown(sel.CUDA)).
			With(sel.Problems...).With(blockers...)}
	}
	if sel.CUDA == "" {
		return []Finding{emit(s, "cuda.select", "no-version").With(blockers...)}
	}
	return []Finding{emit(s, "cuda.select", "install", "recommended", sel.CUDA)}
}

func checkArchSupport(s *machine.Snapshot) []Finding {
	nv := nvidiaGPUs(s)
	if len(nv) == 0 {
		return []Finding{skip("cuda.arch-support", "no-nvidia")}
	}
	tk, _ := activeToolkit(s)
	if tk == nil {
		return []Finding{skip("cuda.arch-support", "no-toolkit")}
	}
	var out []Finding
	for _, gpu := range nv {
		if gpu.ComputeCapability == "" {
			continue
		}
		ok, known := matrix.Default().Targets(installed(tk), gpu.ComputeCapability)
		lo, hi := matrix.Default().CUDARange(gpu.ComputeCapability)
		switch {
		case !known:
			out = append(out, emit(s, "cuda.arch-support", "unknown", "version", tk.Version, "name", gpu.Name, "cc", gpu.ComputeCapability))
		case ok:
			out = append(out, emit(s, "cuda.arch-support", "ok", "version", tk.Version, "name", gpu.Name, "cc", gpu.ComputeCapability))
		case lo != "" && version.Compare(version.MajorMinor(tk.Version), lo) < 0:
			out = append(out, emit(s, "cuda.arch-support", "toolkit-too-old", "version", tk.Version, "name", gpu.Name, "cc", gpu.ComputeCapability, "min", lo))
		default:
			// Install what the selection recommends when it is within reach,
			// so the report names one CUDA version, not 12.9 here and 12.9.1 there.
			install := hi
			if sel := Select(s); sel.CUDA != "" && hi != "" && version.Compare(version.MajorMinor(sel.CUDA), hi) <= 0 {
				install = sel.CUDA
			}
			out = append(out, emit(s, "cuda.arch-support", "toolkit-too-new", "version", tk.Version, "name", gpu.Name, "cc", gpu.ComputeCapability, "max", orUnknown(hi), "install", orUnknown(install)))
		}
	}
	if len(out) == 0 {
		return []Finding{skip("cuda.arch-support", "not-recorded", "what", "the compute capability")}
	}
	return out
}

func checkArchsFlag(s *machine.Snapshot) []Finding {
	nv := visibleNVIDIA(s)
	if len(nv) == 0 {
		return []Finding{skip("cuda.archs-flag", "no-nvidia")}
	}
	sel := Select(s)
	if sel.CUDAArchitectures == "" {
		return []Finding{skip("cuda.archs-flag", "not-recorded", "what", "the compute capability")}
	}
	cm := s.BuildTools["cmake"].Version
	// "native" needs CUDA >= 11.6 and CMake >= 3.24; llamactl
	// passes the explicit list anyway so a build without a visible GPU (CI,
	// containers) still targets this card.
	if cm != "" && version.Compare(cm, g().CMakeMinNative) < 0 {
		return []Finding{emit(s, "cuda.archs-flag", "no-native", "archs", sel.CUDAArchitectures, "cmake", cm, "min", g().CMakeMinNative)}
	}
	return []Finding{emit(s, "cuda.archs-flag", "ok", "archs", sel.CUDAArchitectures)}
}

func checkHostCompiler(s *machine.Snapshot) []Finding {
	// The toolkit llamactl will build with (the active one unless another
	// works better; the active one when none does, so its problem shows).
	_, ch, tk := resolve(s, nvidiaGPUs(s))
	if tk == nil {
		return []Finding{skip("cuda.host-compiler", "no-toolkit")}
	}
	if isWindows(s) {
		// nvcc's host compiler on Windows is cl.exe: msvc.cl-version checks it.
		return []Finding{skip("cuda.host-compiler", "windows-msvc")}
	}
	row, ok := matrix.Default().MinorOf(tk.Version)
	if !ok || row.GCCMax == 0 {
		return []Finding{skip("cuda.host-compiler", "unknown-toolkit", "version", tk.Version)}
	}
	var extra []Finding
	// Variables that override nvcc's host compiler or its checks
	// (CMake reads CUDAHOSTCXX; nvcc reads NVCC_CCBIN and NVCC_*_FLAGS).
	for _, k := range []string{"CUDAHOSTCXX", "NVCC_CCBIN"} {
		v, ok := env(s, k)
		if !ok || v == "" {
			continue
		}
		for _, c := range s.Compilers {
			if (samePath(s, c.Path, v) || baseOf(c.Path) == v) && c.Major > row.GCCMax && (c.Kind == "g++" || c.Kind == "gcc") {
				extra = append(extra, emit(s, "cuda.host-compiler", "env-too-new", "var", k, "value", v, "gcc", c.Version, "version", tk.Version, "max", strconv.Itoa(row.GCCMax)))
			}
		}
	}
	for _, k := range []string{"NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS"} {
		if v, _ := env(s, k); strings.Contains(v, "allow-unsupported-compiler") {
			extra = append(extra, emit(s, "cuda.host-compiler", "allow-unsupported", "var", k, "value", v))
		}
	}
	def, _ := gxx(s)
	if def == nil {
		return append(extra, emit(s, "cuda.host-compiler", "no-gxx", "version", tk.Version, "max", strconv.Itoa(row.GCCMax)))
	}
	if def.Major <= row.GCCMax {
		return append(extra, emit(s, "cuda.host-compiler", "ok", "gcc", def.Version, "version", tk.Version, "max", strconv.Itoa(row.GCCMax)))
	}
	if c := ch.HostCompiler; c != "" {
		return append(extra, emit(s, "cuda.host-compiler", "sibling", "gcc", def.Version, "version", tk.Version, "max", strconv.Itoa(row.GCCMax), "cxx", c).
			WithFact("default_gxx", def.Path).WithFact("selected_gxx", c))
	}
	return append(extra, emit(s, "cuda.host-compiler", "too-new", "gcc", def.Version, "version", tk.Version, "max", strconv.Itoa(row.GCCMax)))
}

func checkVSIntegration(s *machine.Snapshot) []Finding {
	tk, _ := activeToolkit(s)
	if tk == nil {
		return []Finding{skip("cuda.vs-integration", "no-toolkit")}
	}
	m := latestMSVC(s)
	if m == nil {
		return []Finding{skip("cuda.vs-integration", "no-msvc")}
	}
	if tk.VSIntegration {
		return []Finding{emit(s, "cuda.vs-integration", "ok", "version", tk.Version)}
	}
	return []Finding{emit(s, "cuda.vs-integration", "missing", "version", tk.Version, "mm", version.MajorMinor(tk.Version),
		"root", strings.TrimRight(tk.Root, `\`), "vs", strings.TrimRight(m.Path, `\`))}
}

// runtimeDLLs are the DLLs ggml-cuda.dll imports for a CUDA major and the
// toolkit folder they live in (gates.json cuda_runtime_dlls). A major newer than the table is assumed to keep the newest
// row's layout and naming (cudart64_<major>.dll).
func runtimeDLLs(major int) (dlls []string, dir string) {
	rows := g().CUDARuntimeDLLs
	if len(rows) == 0 {
		return nil, ""
	}
	newest := rows[0]
	for _, r := range rows {
		if r.CUDAMajor == major {
			return r.DLLs, r.DLLDir
		}
		if r.CUDAMajor > newest.CUDAMajor {
			newest = r
		}
	}
	if major < newest.CUDAMajor {
		return nil, ""
	}
	from, to := "64_"+strconv.Itoa(newest.CUDAMajor), "64_"+strconv.Itoa(major)
	for _, d := range newest.DLLs {
		dlls = append(dlls, strings.Replace(d, from, to, 1))
	}
	return dlls, newest.DLLDir
}

// gatherSearches are the DLLs doctor/probe resolved on Windows before it
// recorded unfound DLLs as empty lists: in those older snapshots an absent
// one of these was searched for and not found. (Today every searched name
// is a key; an absent name was not searched.)
var gatherSearches = map[string]bool{"cudart64_12.dll": true, "cublas64_12.dll": true, "cublaslt64_12.dll": true, "cudart64_13.dll": true, "cublas64_13.dll": true}

func checkRuntimeDLLs(s *machine.Snapshot) []Finding {
	tk, _ := activeToolkit(s)
	if tk == nil {
		return []Finding{skip("cuda.runtime-dlls", "no-toolkit")}
	}
	major := version.Major(tk.Version)
	root := strings.TrimRight(tk.Root, `\`)
	var out []Finding
	dlls, dllDir := runtimeDLLs(major)
	if dllDir != "" && dllDir != "bin" {
		// CUDA 13 moved the runtime DLLs to bin\x64.
		x64 := root + `\` + dllDir
		onPath := false
		for _, d := range pathDirs(s) {
			if samePath(s, d, x64) {
				onPath = true
			}
		}
		if !onPath {
			out = append(out, emit(s, "cuda.runtime-dlls", "bin-x64-missing", "version", tk.Version, "dir", x64))
		}
	}
	if s.Windows == nil || s.Windows.DLLs == nil {
		if len(out) == 0 {
			return []Finding{skip("cuda.runtime-dlls", "not-recorded", "what", "the DLL search")}
		}
		return out
	}
	recorded := 0
	for _, dll := range dlls {
		cands, ok := s.Windows.DLLs[dll]
		if !ok {
			cands, ok = s.Windows.DLLs[strings.ToLower(dll)]
		}
		if !ok && !gatherSearches[strings.ToLower(dll)] {
			continue // this DLL's search was not recorded
		}
		recorded++
		if len(cands) == 0 {
			out = append(out, emit(s, "cuda.runtime-dlls", "not-found", "dll", dll, "version", tk.Version))
			continue
		}
		win := cands[0]
		if !under(s, win, root) {
			out = append(out, emit(s, "cuda.runtime-dlls", "foreign", "dll", dll, "winner", win, "root", root, "dir", dirOf(win)).With(cands...))
			continue
		}
		out = append(out, emit(s, "cuda.runtime-dlls", "ok", "dll", dll, "winner", win))
	}
	if len(out) == 0 && recorded == 0 {
		return []Finding{skip("cuda.runtime-dlls", "not-recorded", "what", "the DLL search for CUDA "+strconv.Itoa(major))}
	}
	return out
}

func checkStubs(s *machine.Snapshot) []Finding {
	ld, _ := env(s, "LD_LIBRARY_PATH")
	var bad []string
	for _, d := range strings.Split(ld, ":") {
		if strings.Contains(d, "/stubs") {
			bad = append(bad, d)
		}
	}
	for _, p := range s.WSL.LibcudaPaths {
		if strings.Contains(p, "/stubs/") && !containsStr(bad, dirOf(p)) {
			bad = append(bad, dirOf(p))
		}
	}
	if len(bad) > 0 {
		return []Finding{emit(s, "cuda.stubs", "on-path", "dir", bad[0]).With(bad...)}
	}
	return []Finding{emit(s, "cuda.stubs", "ok")}
}

func checkGlibc(s *machine.Snapshot) []Finding {
	tk, _ := activeToolkit(s)
	if tk == nil {
		return []Finding{skip("cuda.glibc", "no-toolkit")}
	}
	if s.OS.Glibc == "" {
		return []Finding{skip("cuda.glibc", "not-recorded", "what", "the glibc version")}
	}
	// glibc 2.41 declares cospi/sinpi/rsqrt with noexcept; older CUDA
	// math_functions.h then fails to compile (gates.json glibc_math).
	gm := g().GlibcMath
	if need := glibcNeeds(s); need != "" && version.Compare(version.MajorMinor(tk.Version), need) < 0 {
		if containsStr(tk.Found, "debian") {
			// A distribution's own toolkit package is built for its glibc.
			return []Finding{emit(s, "cuda.glibc", "distro", "version", tk.Version, "glibc", s.OS.Glibc)}
		}
		return []Finding{emit(s, "cuda.glibc", "old-toolkit", "version", tk.Version, "glibc", s.OS.Glibc, "min", gm.CUDAMin, "id", gm.FailureID)}
	}
	return []Finding{emit(s, "cuda.glibc", "ok", "version", tk.Version, "glibc", s.OS.Glibc)}
}

func checkDebianLayout(s *machine.Snapshot) []Finding {
	tk, _ := activeToolkit(s)
	if tk == nil {
		return []Finding{skip("cuda.debian-layout", "no-toolkit")}
	}
	if samePath(s, tk.NVCC, "/usr/bin/nvcc") || containsStr(tk.Found, "debian") {
		return []Finding{emit(s, "cuda.debian-layout", "debian", "nvcc", tk.NVCC, "root", orUnknown(tk.Root))}
	}
	return []Finding{emit(s, "cuda.debian-layout", "ok", "root", orUnknown(tk.Root))}
}
