package doctor

import (
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// Section F of docs/doctor.md\'s "Every check": WSL. These run on Linux
// snapshots and skip unless the machine is a WSL distro.

const wslLib = "/usr/lib/wsl/lib"

func checkWSLDetect(s *machine.Snapshot) []Finding {
	if !s.WSL.IsWSL {
		return []Finding{emit(s, "wsl.detect", "not-wsl")}
	}
	if s.WSL.Version == 1 {
		return []Finding{emit(s, "wsl.detect", "wsl1")}
	}
	return []Finding{emit(s, "wsl.detect", "wsl2")}
}

func checkWSLLibcuda(s *machine.Snapshot) []Finding {
	if !s.WSL.IsWSL {
		return []Finding{skip("wsl.libcuda", "not-wsl")}
	}
	if len(s.WSL.LibcudaPaths) == 0 {
		return []Finding{emit(s, "wsl.libcuda", "none")}
	}
	var bad []string
	for _, p := range s.WSL.LibcudaPaths {
		if !strings.HasPrefix(p, wslLib+"/") {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		return []Finding{emit(s, "wsl.libcuda", "shadowed", "lib", bad[0]).With(s.WSL.LibcudaPaths...)}
	}
	return []Finding{emit(s, "wsl.libcuda", "ok", "lib", s.WSL.LibcudaPaths[0])}
}

func checkWSLDriverPkgs(s *machine.Snapshot) []Finding {
	if !s.WSL.IsWSL {
		return []Finding{skip("wsl.linux-driver-pkgs", "not-wsl")}
	}
	if len(s.WSL.DriverPackages) == 0 {
		return []Finding{emit(s, "wsl.linux-driver-pkgs", "ok")}
	}
	// Package names only: a version suffix ("nvidia-utils-535=535.1") is cut.
	var names []string
	for _, p := range s.WSL.DriverPackages {
		names = append(names, strings.Fields(strings.SplitN(p, "=", 2)[0])[0])
	}
	return []Finding{emit(s, "wsl.linux-driver-pkgs", "installed", "pkgs", strings.Join(names, " ")).With(s.WSL.DriverPackages...)}
}

func checkWSLNvidiaSMI(s *machine.Snapshot) []Finding {
	if !s.WSL.IsWSL {
		return []Finding{skip("wsl.nvidia-smi", "not-wsl")}
	}
	smi := firstHit(s, "nvidia-smi")
	switch {
	case smi == "":
		return []Finding{emit(s, "wsl.nvidia-smi", "missing")}
	case strings.HasPrefix(smi, wslLib+"/"):
		return []Finding{emit(s, "wsl.nvidia-smi", "ok", "path", smi)}
	case strings.HasPrefix(smi, "/mnt/"):
		return []Finding{emit(s, "wsl.nvidia-smi", "windows-exe", "path", smi)}
	}
	return []Finding{emit(s, "wsl.nvidia-smi", "linux-smi", "path", smi)}
}

// wslTools are the build tools that must not resolve to Windows .exe files.
var wslTools = []string{"nvcc", "cmake", "ninja", "nvidia-smi", "git", "gcc", "g++"}

func checkWSLWindowsPath(s *machine.Snapshot) []Finding {
	if !s.WSL.IsWSL {
		return []Finding{skip("wsl.windows-path", "not-wsl")}
	}
	var bad []string
	for _, t := range wslTools {
		for _, h := range append(hits(s, t), hits(s, t+".exe")...) {
			if strings.HasPrefix(h.Path, "/mnt/") {
				bad = append(bad, t+": "+h.Path)
				break
			}
		}
	}
	if first := firstHit(s, "nvcc"); strings.HasPrefix(first, "/mnt/") {
		return []Finding{emit(s, "wsl.windows-path", "shadowing", "tool", "nvcc", "path", first).With(bad...)}
	}
	if len(bad) > 0 {
		return []Finding{emit(s, "wsl.windows-path", "visible").With(bad...)}
	}
	mnt := 0
	for _, p := range s.Path {
		if strings.HasPrefix(p.Dir, "/mnt/") {
			mnt++
		}
	}
	if mnt > 0 || s.WSL.WindowsPathInterop {
		return []Finding{emit(s, "wsl.windows-path", "appended", "count", itoa(mnt))}
	}
	return []Finding{emit(s, "wsl.windows-path", "ok")}
}

// modelDirVars are where llama.cpp and llamactl keep models.
var modelDirVars = []string{"LLAMA_CACHE", "LLAMACTL_MODELS", "LLAMACTL_CACHE", "HF_HOME"}

func checkWSLModels(s *machine.Snapshot) []Finding {
	if !s.WSL.IsWSL {
		return []Finding{skip("wsl.model-location", "not-wsl")}
	}
	for _, k := range modelDirVars {
		if v, ok := env(s, k); ok && strings.HasPrefix(v, "/mnt/") {
			return []Finding{emit(s, "wsl.model-location", "on-9p", "var", k, "dir", v)}
		}
	}
	if h := s.OS.HomeDir; strings.HasPrefix(h, "/mnt/") {
		return []Finding{emit(s, "wsl.model-location", "on-9p", "var", "HOME", "dir", h)}
	}
	return []Finding{emit(s, "wsl.model-location", "ok")}
}
