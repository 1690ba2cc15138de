package doctor

import (
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/matrix"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
)

// Section D of docs/doctor.md\'s "Every check": MSVC, clang-cl and the build tools.

func hasProbeError(s *machine.Snapshot, probe string) (machine.ProbeError, bool) {
	for _, e := range s.ProbeErrors {
		if strings.EqualFold(e.Probe, probe) {
			return e, true
		}
	}
	return machine.ProbeError{}, false
}

func checkVswhere(s *machine.Snapshot) []Finding {
	if len(s.MSVC) > 0 {
		return []Finding{emit(s, "msvc.vswhere", "ok", "count", strconv.Itoa(len(s.MSVC)))}
	}
	if e, ok := hasProbeError(s, "vswhere"); ok {
		return []Finding{emit(s, "msvc.vswhere", "failed", "error", e.Error)}
	}
	return []Finding{emit(s, "msvc.vswhere", "missing")}
}

func checkMSVCInstances(s *machine.Snapshot) []Finding {
	if len(s.MSVC) == 0 {
		return []Finding{emit(s, "msvc.instances", "none")}
	}
	var out []Finding
	usable := 0
	for _, m := range s.MSVC {
		name := vsName(&m)
		if !m.HasVCTools {
			out = append(out, emit(s, "msvc.instances", "no-vctools", "name", name, "path", m.Path))
			continue
		}
		usable++
		out = append(out, emit(s, "msvc.instances", "ok", "name", name, "path", m.Path))
	}
	if usable > 0 {
		// Instances without C++ tools matter only when none has them.
		var kept []Finding
		for _, f := range out {
			if f.Status == OK {
				kept = append(kept, f)
			}
		}
		return kept
	}
	return out
}

func checkMSVCToolset(s *machine.Snapshot) []Finding {
	m := latestMSVC(s)
	if m == nil {
		return []Finding{skip("msvc.toolset", "no-msvc")}
	}
	if m.DefaultToolset == "" && len(m.Toolsets) == 0 {
		return []Finding{emit(s, "msvc.toolset", "missing", "path", m.Path)}
	}
	def := m.DefaultToolset
	if def == "" {
		def = m.Toolsets[len(m.Toolsets)-1]
	}
	return []Finding{emit(s, "msvc.toolset", "ok", "toolset", def, "cl", orUnknown(clVersionOf(m))).With(m.Toolsets...)}
}

// Windows SDK install folder.
const regWindowsSDK = `HKLM\SOFTWARE\WOW6432Node\Microsoft\Microsoft SDKs\Windows\v10.0\InstallationFolder`

func checkWindowsSDK(s *machine.Snapshot) []Finding {
	m := latestMSVC(s)
	if m == nil {
		return []Finding{skip("msvc.sdk", "no-msvc")}
	}
	if s.Windows != nil {
		if dir := s.Windows.Registry[regWindowsSDK]; dir != "" {
			return []Finding{emit(s, "msvc.sdk", "ok", "dir", dir)}
		}
	}
	// In a developer environment LIB names the SDK's lib folder (rustup's
	// kernel32.lib test).
	if lib, ok := env(s, "LIB"); ok && lib != "" {
		if strings.Contains(strings.ToLower(lib), `windows kits`) {
			return []Finding{emit(s, "msvc.sdk", "ok", "dir", sdkDirFromLib(lib))}
		}
		return []Finding{emit(s, "msvc.sdk", "missing", "vs", strings.TrimRight(m.Path, `\`))}
	}
	return []Finding{skip("msvc.sdk", "not-recorded", "what", "the Windows SDK location")}
}

func sdkDirFromLib(lib string) string {
	for _, d := range strings.Split(lib, ";") {
		if i := strings.Index(strings.ToLower(d), `windows kits`); i >= 0 {
			return d
		}
	}
	return lib
}

func checkDevEnv(s *machine.Snapshot) []Finding {
	m := latestMSVC(s)
	if m == nil {
		return []Finding{skip("msvc.devenv", "no-msvc")}
	}
	if cl := firstHit(s, "cl"); cl != "" {
		return []Finding{emit(s, "msvc.devenv", "ok", "cl", cl)}
	}
	if s.Windows != nil && s.Windows.DeveloperPrompt {
		return []Finding{emit(s, "msvc.devenv", "prompt-without-cl", "vs", strings.TrimRight(m.Path, `\`))}
	}
	return []Finding{emit(s, "msvc.devenv", "not-imported", "vcvarsall", vcvarsall(m), "vs", strings.TrimRight(m.Path, `\`))}
}

func checkActivePrompt(s *machine.Snapshot) []Finding {
	ver, set := env(s, "VSCMD_VER")
	if !set {
		return []Finding{skip("msvc.active-prompt", "no-prompt")}
	}
	tgt, _ := env(s, "VSCMD_ARG_TGT_ARCH")
	want := "x64"
	if s.OS.Arch == "arm64" {
		want = "arm64"
	}
	if tgt != "" && !strings.EqualFold(tgt, want) {
		return []Finding{emit(s, "msvc.active-prompt", "wrong-arch", "arch", tgt, "want", want)}
	}
	return []Finding{emit(s, "msvc.active-prompt", "ok", "version", ver, "arch", orUnknown(tgt))}
}

func checkClVersion(s *machine.Snapshot) []Finding {
	tk, _ := activeToolkit(s)
	if tk == nil {
		m := latestMSVC(s)
		if m == nil {
			return []Finding{skip("msvc.cl-version", "no-msvc")}
		}
		return []Finding{emit(s, "msvc.cl-version", "ok-no-cuda", "cl", orUnknown(clVersionOf(m)))}
	}
	return checkClVersionFor(s, tk, "msvc.cl-version")
}

// checkClVersionFor applies the MSVC <-> CUDA gates:
// nvcc's host_config.h range and the STL's minimum CUDA (STL1002).
func checkClVersionFor(s *machine.Snapshot, tk *machine.CUDAToolkit, id string) []Finding {
	m := latestMSVC(s)
	if m == nil {
		return []Finding{skip(id, "no-msvc")}
	}
	cl := clVersionOf(m)
	if cl == "" {
		return []Finding{skip(id, "not-recorded", "what", "the cl.exe version")}
	}
	row, ok := matrix.Default().MinorOf(tk.Version)
	if !ok {
		return []Finding{skip(id, "unknown-toolkit", "version", tk.Version)}
	}
	vs := vsName(m)
	var details []string
	if need := matrix.Default().STLMinCUDA(cl); need != "" && version.Compare(version.MajorMinor(tk.Version), need) < 0 {
		details = append(details, reasonText("stl1002", "cl", cl, "need", need))
	}
	if row.MSCVerMaxExcl > 0 && matrix.MSCVer(cl) >= row.MSCVerMaxExcl {
		need := matrix.Default().MinCUDAForCL(cl)
		if t := matrix.Default().OlderToolset(m.Toolsets, row.MSCVerMaxExcl, tk.Version); t != "" {
			return []Finding{emit(s, id, "use-older-toolset", "cl", cl, "vs", vs, "version", tk.Version, "toolset", t, "vcvarsall", vcvarsall(m)).With(details...)}
		}
		return []Finding{emit(s, id, "msvc-too-new", "cl", cl, "vs", vs, "version", tk.Version, "need", orUnknown(need)).With(details...)}
	}
	// host_config.h has a floor too: CUDA 13.x rejects VS 2017 (_MSC_VER < 1920).
	if msc := matrix.MSCVer(cl); row.MSCVerMin > 0 && msc > 0 && msc < row.MSCVerMin {
		return []Finding{emit(s, id, "msvc-too-old", "cl", cl, "vs", vs, "version", tk.Version, "min", matrix.CLVersion(row.MSCVerMin))}
	}
	if len(details) > 0 {
		return []Finding{emit(s, id, "stl-too-new", "cl", cl, "vs", vs, "version", tk.Version, "need", matrix.Default().STLMinCUDA(cl)).With(details...)}
	}
	return []Finding{emit(s, id, "ok", "cl", cl, "version", tk.Version)}
}

func checkClangCL(s *machine.Snapshot) []Finding {
	has := firstHit(s, "clang-cl") != ""
	for _, m := range s.MSVC {
		has = has || m.HasClangCL
	}
	if has {
		return []Finding{emit(s, "clangcl.present", "ok")}
	}
	// Only Windows on ARM builds need clang (llama.cpp docs).
	if s.OS.Arch == "arm64" {
		return []Finding{emit(s, "clangcl.present", "missing-arm64")}
	}
	return []Finding{emit(s, "clangcl.present", "not-needed")}
}

func toolVersion(s *machine.Snapshot, name string) (machine.ToolVersion, bool) {
	t, ok := s.BuildTools[name]
	if !ok || (t.Path == "" && t.Version == "") {
		if p := firstHit(s, name); p != "" {
			return machine.ToolVersion{Path: p, Version: hits(s, name)[0].Version}, true
		}
		return t, false
	}
	return t, true
}

func checkCMake(s *machine.Snapshot) []Finding {
	t, ok := toolVersion(s, "cmake")
	if !ok {
		return []Finding{emit(s, "build.cmake", "missing")}
	}
	if t.Version == "" {
		return []Finding{emit(s, "build.cmake", "unknown-version", "path", t.Path, "error", orUnknown(t.Error))}
	}
	if version.Compare(t.Version, g().CMakeMinNative) < 0 {
		return []Finding{emit(s, "build.cmake", "too-old", "version", t.Version, "path", t.Path, "min", g().CMakeMinNative)}
	}
	return []Finding{emit(s, "build.cmake", "ok", "version", t.Version, "path", t.Path)}
}

func checkNinja(s *machine.Snapshot) []Finding {
	t, ok := toolVersion(s, "ninja")
	if !ok {
		if m := latestMSVC(s); m != nil && isWindows(s) {
			// VS ships a Ninja next to its CMake; llamactl's build uses it.
			return []Finding{emit(s, "build.ninja", "vs-bundled", "vs", strings.TrimRight(m.Path, `\`))}
		}
		return []Finding{emit(s, "build.ninja", "missing")}
	}
	if t.Version == "" {
		return []Finding{emit(s, "build.ninja", "unknown-version", "path", t.Path, "error", orUnknown(t.Error))}
	}
	return []Finding{emit(s, "build.ninja", "ok", "version", t.Version, "path", t.Path)}
}

func checkGit(s *machine.Snapshot) []Finding {
	t, ok := toolVersion(s, "git")
	if !ok {
		return []Finding{emit(s, "build.git", "missing")}
	}
	if t.Version == "" {
		return []Finding{emit(s, "build.git", "unknown-version", "path", t.Path, "error", orUnknown(t.Error))}
	}
	return []Finding{emit(s, "build.git", "ok", "version", t.Version, "path", t.Path)}
}

// checkCompilerCache says whether build will have a compiler launcher
// (build/buildcmd.launcher looks for the same two tools).
func checkCompilerCache(s *machine.Snapshot) []Finding {
	for _, name := range []string{"ccache", "sccache"} {
		if t, ok := toolVersion(s, name); ok {
			return []Finding{emit(s, "build.compiler-cache", "ok", "tool", name, "version", orUnknown(t.Version), "path", t.Path)}
		}
	}
	return []Finding{emit(s, "build.compiler-cache", "missing")}
}

// vsName is "Visual Studio Community 2022 17.11.5" (or what is known of it).
func vsName(m *machine.MSVCInstall) string {
	n := m.DisplayName
	if n == "" {
		n = "Visual Studio"
	}
	if m.ProductVersion != "" {
		n += " " + m.ProductVersion
	} else if m.InstallVersion != "" {
		n += " " + m.InstallVersion
	}
	return n
}
