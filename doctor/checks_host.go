package doctor

import (
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
)

// Section A of docs/doctor.md\'s "Every check": host and environment.

// registry binds catalog IDs to rules; backend-dependent ones are added in funcs().
var registry = map[string]CheckFunc{
	"host.os":               checkHostOS,
	"host.arch":             checkHostArch,
	"host.cpu":              checkHostCPU,
	"host.mem":              checkHostMem,
	"host.disk":             checkHostDisk,
	"env.tmp":               checkEnvTmp,
	"env.overrides":         checkEnvOverrides,
	"env.stale-path":        checkStalePath,
	"nv.nvml-load":          checkNVMLLoad,
	"nv.nvml-init":          checkNVMLInit,
	"nv.driver-version":     checkDriverVersion,
	"nv.driver-cuda":        checkDriverCUDA,
	"nv.devices":            checkDevices,
	"nv.vram":               checkVRAM,
	"nv.smi-consistency":    checkSMIConsistency,
	"cuda.inventory":        checkCUDAInventory,
	"cuda.path-consistency": checkCUDAPathConsistency,
	"cuda.select":           checkCUDASelect,
	"cuda.arch-support":     checkArchSupport,
	"cuda.archs-flag":       checkArchsFlag,
	"cuda.host-compiler":    checkHostCompiler,
	"cuda.vs-integration":   checkVSIntegration,
	"cuda.runtime-dlls":     checkRuntimeDLLs,
	"cuda.stubs":            checkStubs,
	"cuda.glibc":            checkGlibc,
	"cuda.debian-layout":    checkDebianLayout,
	"msvc.vswhere":          checkVswhere,
	"msvc.instances":        checkMSVCInstances,
	"msvc.toolset":          checkMSVCToolset,
	"msvc.sdk":              checkWindowsSDK,
	"msvc.devenv":           checkDevEnv,
	"msvc.active-prompt":    checkActivePrompt,
	"msvc.cl-version":       checkClVersion,
	"clangcl.present":       checkClangCL,
	"build.cmake":           checkCMake,
	"build.ninja":           checkNinja,
	"build.git":             checkGit,
	"build.compiler-cache":  checkCompilerCache,
	"amd.gfx":               checkAMDGfx,
	"amd.driver-win":        checkAMDDriverWin,
	"ocl.icd-registry":      checkICDRegistry,
	"ocl.platforms":         checkOCLPlatforms,
	"vk.loader":             checkVulkanLoader,
	"wsl.detect":            checkWSLDetect,
	"wsl.libcuda":           checkWSLLibcuda,
	"wsl.linux-driver-pkgs": checkWSLDriverPkgs,
	"wsl.nvidia-smi":        checkWSLNvidiaSMI,
	"wsl.windows-path":      checkWSLWindowsPath,
	"wsl.model-location":    checkWSLModels,
	"path.tools":            checkPathTools,
	"path.dlls":             checkPathDLLs,
	"path.ggml-stray":       checkGGMLStray,
	"path.multi-cuda":       checkMultiCUDA,
	"path.hygiene":          checkPathHygiene,
	"path.ldlib":            checkLdLib,
	"meta.probe-errors":     checkProbeErrors,
}

func checkHostOS(s *machine.Snapshot) []Finding {
	name := platformName(s)
	f := emit(s, "host.os", "ok", "os", name, "version", s.OS.Version)
	if isWindows(s) {
		// Windows 11 starts at build 22000; WSL GPU needs Windows 10 21H2 (19044) or newer.
		build := s.OS.Version
		if s.Windows != nil && s.Windows.Build != "" {
			build = s.Windows.Build
		}
		if v := version.Of(build); v.Len() >= 3 && v.Major() == 10 && v.At(2) < 19044 {
			f = emit(s, "host.os", "old-windows", "os", name, "version", build)
		}
	}
	return []Finding{f.WithFact("goos", s.OS.GOOS).WithFact("version", s.OS.Version)}
}

func checkHostArch(s *machine.Snapshot) []Finding {
	switch s.OS.Arch {
	case "amd64":
		return []Finding{emit(s, "host.arch", "ok", "arch", s.OS.Arch)}
	case "arm64":
		if isWindows(s) {
			return []Finding{emit(s, "host.arch", "windows-arm64", "arch", s.OS.Arch)}
		}
		return []Finding{emit(s, "host.arch", "ok", "arch", s.OS.Arch)}
	case "":
		return []Finding{skip("host.arch", "not-recorded", "what", "the architecture")}
	}
	return []Finding{emit(s, "host.arch", "unsupported", "arch", s.OS.Arch)}
}

func checkHostCPU(s *machine.Snapshot) []Finding {
	if s.OS.Arch != "amd64" {
		return []Finding{emit(s, "host.cpu", "ok", "cpu", orUnknown(s.OS.CPUModel), "cores", strconv.Itoa(s.OS.LogicalCores))}
	}
	if len(s.OS.CPUFlags) == 0 {
		return []Finding{skip("host.cpu", "not-recorded", "what", "the CPU feature list")}
	}
	if !containsStr(lower(s.OS.CPUFlags), "avx2") {
		return []Finding{emit(s, "host.cpu", "no-avx2", "cpu", orUnknown(s.OS.CPUModel))}
	}
	return []Finding{emit(s, "host.cpu", "ok", "cpu", orUnknown(s.OS.CPUModel), "cores", strconv.Itoa(s.OS.LogicalCores)).
		WithFact("flags", strings.Join(s.OS.CPUFlags, " "))}
}

func checkHostMem(s *machine.Snapshot) []Finding {
	if s.OS.RAMTotalMiB == 0 {
		return []Finding{skip("host.mem", "not-recorded", "what", "the memory size")}
	}
	tot, free := gib(s.OS.RAMTotalMiB), gib(s.OS.RAMFreeMiB)
	if s.OS.RAMTotalMiB < 8*1024 {
		return []Finding{emit(s, "host.mem", "small", "total", tot, "free", free)}
	}
	if s.OS.RAMFreeMiB > 0 && s.OS.RAMFreeMiB < 2*1024 {
		return []Finding{emit(s, "host.mem", "low-free", "total", tot, "free", free)}
	}
	return []Finding{emit(s, "host.mem", "ok", "total", tot, "free", free)}
}

func checkHostDisk(s *machine.Snapshot) []Finding {
	if s.OS.DiskFreeMiB == 0 {
		return []Finding{skip("host.disk", "not-recorded", "what", "the free disk space")}
	}
	free := gib(s.OS.DiskFreeMiB)
	switch {
	case s.OS.DiskFreeMiB < g().Thresholds.DiskFullMiB: // a CUDA build tree alone takes a few GiB
		return []Finding{emit(s, "host.disk", "full", "free", free)}
	case s.OS.DiskFreeMiB < g().Thresholds.DiskLowMiB:
		return []Finding{emit(s, "host.disk", "low", "free", free)}
	}
	return []Finding{emit(s, "host.disk", "ok", "free", free)}
}

func checkEnvTmp(s *machine.Snapshot) []Finding {
	// Every Windows process has SystemRoot/WINDIR; without them the
	// environment was not recorded (a partial snapshot), so say nothing.
	_, sr := env(s, "SystemRoot")
	_, wd := env(s, "WINDIR")
	_, tmp := env(s, "TEMP")
	if !sr && !wd && !tmp {
		return []Finding{skip("env.tmp", "not-recorded", "what", "the environment")}
	}
	// nvcc.exe exits 2 without output when TMP/TEMP are unset (cupy#4397).
	var missing []string
	for _, k := range []string{"TEMP", "TMP"} {
		if v, _ := env(s, k); strings.TrimSpace(v) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		vars := missing[0]
		if len(missing) == 2 {
			vars = "TEMP and TMP" // a value checks.zh-CN.json translates
		}
		return []Finding{emit(s, "env.tmp", "unset", "vars", vars)}
	}
	v, _ := env(s, "TEMP")
	return []Finding{emit(s, "env.tmp", "ok", "temp", v)}
}

// overrideVars hide or reorder GPUs.
var overrideVars = []string{"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "GGML_VK_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION"}

func checkEnvOverrides(s *machine.Snapshot) []Finding {
	var out []Finding
	for _, k := range overrideVars {
		v, set := env(s, k)
		if !set {
			continue
		}
		unset := "Remove-Item Env:" + k
		if !isWindows(s) {
			unset = "unset " + k
		}
		switch {
		case k == "HSA_OVERRIDE_GFX_VERSION":
			out = append(out, emit(s, "env.overrides", "gfx-override", "var", k, "value", v, "unset", unset))
		case k == "CUDA_VISIBLE_DEVICES" && len(nvidiaGPUs(s)) == 0,
			(k == "HIP_VISIBLE_DEVICES" || k == "ROCR_VISIBLE_DEVICES" || k == "GPU_DEVICE_ORDINAL") && !gpuVendors(s)["amd"]:
			// Nothing to hide on this machine: worth knowing, not an error.
			out = append(out, emit(s, "env.overrides", "set", "var", k, "value", v, "unset", unset))
		case k == "CUDA_VISIBLE_DEVICES":
			vis := visibleNVIDIA(s)
			if len(vis) == 0 {
				out = append(out, emit(s, "env.overrides", "hides-all", "var", k, "value", v, "count", strconv.Itoa(len(nvidiaGPUs(s))), "unset", unset))
			} else {
				out = append(out, emit(s, "env.overrides", "restricts", "var", k, "value", v, "count", strconv.Itoa(len(vis)), "unset", unset))
			}
		case strings.TrimSpace(v) == "" || strings.TrimSpace(v) == "-1":
			out = append(out, emit(s, "env.overrides", "hides-all", "var", k, "value", v, "count", "all", "unset", unset))
		default:
			out = append(out, emit(s, "env.overrides", "set", "var", k, "value", v, "unset", unset))
		}
	}
	if len(out) == 0 {
		return []Finding{emit(s, "env.overrides", "ok")}
	}
	return out
}

// Registry values holding the persistent PATH.
const (
	regMachinePath = `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment\Path`
	regUserPath    = `HKCU\Environment\Path`
)

func checkStalePath(s *machine.Snapshot) []Finding {
	if s.Windows == nil || s.Windows.Registry == nil {
		return []Finding{skip("env.stale-path", "not-recorded", "what", "the registry PATH")}
	}
	mp, ok1 := s.Windows.Registry[regMachinePath]
	up, ok2 := s.Windows.Registry[regUserPath]
	if !ok1 && !ok2 {
		return []Finding{skip("env.stale-path", "not-recorded", "what", "the registry PATH")}
	}
	var stale []string
	for _, d := range append(strings.Split(mp, ";"), strings.Split(up, ";")...) {
		d = strings.TrimSpace(d)
		if d == "" || strings.Contains(d, "%") || !toolDir(d) {
			continue
		}
		found := false
		for _, p := range s.Path {
			if samePath(s, p.Dir, d) {
				found = true
				break
			}
		}
		if !found && !containsStr(stale, d) {
			stale = append(stale, d)
		}
	}
	if len(stale) > 0 {
		return []Finding{emit(s, "env.stale-path", "stale").With(stale...)}
	}
	return []Finding{emit(s, "env.stale-path", "ok")}
}

// toolDir says whether a PATH directory belongs to a tool doctor cares about.
func toolDir(d string) bool {
	l := strings.ToLower(d)
	for _, k := range []string{"cuda", "microsoft visual studio", "cmake", "ninja", "git", "vulkan", "rocm", "llvm"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

func gib(mib uint64) string {
	return strconv.FormatFloat(float64(mib)/1024, 'f', 1, 64) + " GiB"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func lower(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.ToLower(x)
	}
	return out
}

// checkProbeErrors reports what the gather could not learn: a tool that
// hung, crashed or printed garbage, a registry key it could not read.
func checkProbeErrors(s *machine.Snapshot) []Finding {
	if len(s.ProbeErrors) == 0 {
		return []Finding{emit(s, "meta.probe-errors", "ok")}
	}
	var out []Finding
	for _, e := range s.ProbeErrors {
		if e.TimedOut {
			out = append(out, emit(s, "meta.probe-errors", "timed-out", "probe", e.Probe, "error", firstLine(e.Error)))
			continue
		}
		out = append(out, emit(s, "meta.probe-errors", "failed", "probe", e.Probe, "error", firstLine(e.Error)))
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
