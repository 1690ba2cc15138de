package doctor

import (
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
)

// Section B of docs/doctor.md\'s "Every check": NVIDIA driver and GPUs.

// nvmlCode reduces NVMLStatus ("ERROR_DRIVER_NOT_LOADED", "NVML_ERROR_...") to its name.
func nvmlCode(s *machine.Snapshot) string {
	c := strings.ToUpper(strings.TrimSpace(s.NVIDIA.NVMLStatus))
	c = strings.TrimPrefix(c, "NVML_")
	if c == "SUCCESS" {
		return "OK"
	}
	return c
}

// nvidiaEvidence says whether anything besides NVML suggests an NVIDIA GPU.
func nvidiaEvidence(s *machine.Snapshot) bool {
	if s.NVIDIA.SMIDriverVersion != "" || len(s.NVIDIA.GPUs) > 0 {
		return true
	}
	return gpuVendors(s)["nvidia"]
}

func checkNVMLLoad(s *machine.Snapshot) []Finding {
	code := nvmlCode(s)
	switch {
	case code == "":
		return []Finding{skip("nv.nvml-load", "not-recorded", "what", "NVML")}
	case code == "ERROR_LIBRARY_NOT_FOUND":
		if nvidiaEvidence(s) {
			return []Finding{emit(s, "nv.nvml-load", "missing-with-gpu")}
		}
		return []Finding{emit(s, "nv.nvml-load", "absent")}
	case code == "NOT_PROBED":
		return []Finding{skip("nv.nvml-load", "not-recorded", "what", "NVML")}
	case strings.HasPrefix(code, "CHILD_") || strings.Contains(code, "TIMEOUT") || strings.Contains(code, "CRASH"):
		return []Finding{emit(s, "nv.nvml-load", "probe-failed", "code", s.NVIDIA.NVMLStatus)}
	}
	return []Finding{emit(s, "nv.nvml-load", "ok", "lib", orUnknown(s.NVIDIA.NVMLLibrary)).WithFact("nvml_status", s.NVIDIA.NVMLStatus)}
}

func checkNVMLInit(s *machine.Snapshot) []Finding {
	code := nvmlCode(s)
	lib := orUnknown(s.NVIDIA.NVMLLibrary)
	if strings.HasPrefix(code, "CHILD_") {
		return []Finding{skip("nv.nvml-init", "nvml-probe-failed")}
	}
	switch code {
	case "", "NOT_PROBED":
		return []Finding{skip("nv.nvml-init", "not-recorded", "what", "NVML")}
	case "ERROR_LIBRARY_NOT_FOUND":
		return []Finding{skip("nv.nvml-init", "no-nvidia")}
	case "OK":
		return []Finding{emit(s, "nv.nvml-init", "ok", "driver", s.NVIDIA.DriverVersion, "count", strconv.Itoa(len(nvidiaGPUs(s))))}
	case "ERROR_DRIVER_NOT_LOADED":
		if nvidiaEvidence(s) {
			return []Finding{emit(s, "nv.nvml-init", "driver-not-loaded", "code", s.NVIDIA.NVMLStatus, "lib", lib)}
		}
		// The library is installed (e.g. by a CUDA toolkit package) but
		// there is no GPU or kernel module: harmless for CPU builds.
		return []Finding{emit(s, "nv.nvml-init", "no-gpu", "code", s.NVIDIA.NVMLStatus, "lib", lib).WithFact("nvml_status", s.NVIDIA.NVMLStatus)}
	case "ERROR_LIB_RM_VERSION_MISMATCH":
		return []Finding{emit(s, "nv.nvml-init", "version-mismatch", "code", s.NVIDIA.NVMLStatus)}
	case "ERROR_NO_PERMISSION":
		return []Finding{emit(s, "nv.nvml-init", "no-permission", "code", s.NVIDIA.NVMLStatus)}
	case "ERROR_GPU_IS_LOST":
		return []Finding{emit(s, "nv.nvml-init", "gpu-lost", "code", s.NVIDIA.NVMLStatus)}
	}
	return []Finding{emit(s, "nv.nvml-init", "failed", "code", s.NVIDIA.NVMLStatus, "lib", lib)}
}

// driverReady says NVML answered with a driver version.
func driverReady(s *machine.Snapshot) bool {
	return s.NVIDIA.DriverVersion != "" || s.NVIDIA.SMIDriverVersion != ""
}

func driverVersion(s *machine.Snapshot) string {
	if s.NVIDIA.DriverVersion != "" {
		return s.NVIDIA.DriverVersion
	}
	return s.NVIDIA.SMIDriverVersion
}

func checkDriverVersion(s *machine.Snapshot) []Finding {
	if !driverReady(s) {
		return []Finding{skip("nv.driver-version", "no-driver")}
	}
	dv := driverVersion(s)
	tk, _ := activeToolkit(s)
	if tk == nil {
		return []Finding{emit(s, "nv.driver-version", "ok", "driver", dv)}
	}
	floor := driverFloor(version.Major(tk.Version))
	if floor != "" && version.Compare(dv, floor) < 0 {
		where := "windows"
		if s.WSL.IsWSL {
			where = "wsl"
		}
		return []Finding{emit(s, "nv.driver-version", "below-floor", "driver", dv, "floor", floor,
			"major", strconv.Itoa(version.Major(tk.Version)), "version", tk.Version).WithFact("where", where)}
	}
	return []Finding{emit(s, "nv.driver-version", "ok", "driver", dv)}
}

func checkDriverCUDA(s *machine.Snapshot) []Finding {
	api := driverAPI(s)
	if api == "" && cudaAPIErr(s) {
		return []Finding{skip("nv.driver-cuda", "cuda-api-err")}
	}
	if api == "" {
		return []Finding{skip("nv.driver-cuda", "no-driver")}
	}
	tk, how := activeToolkit(s)
	if tk == nil {
		return []Finding{emit(s, "nv.driver-cuda", "ok", "api", api)}
	}
	if version.Compare(version.MajorMinor(tk.Version), api) > 0 {
		return []Finding{emit(s, "nv.driver-cuda", "too-old", "api", api, "version", tk.Version, "driver", driverVersion(s), "how", how)}
	}
	return []Finding{emit(s, "nv.driver-cuda", "ok-toolkit", "api", api, "version", tk.Version)}
}

func checkDevices(s *machine.Snapshot) []Finding {
	gpus := nvidiaGPUs(s)
	if len(gpus) == 0 {
		return []Finding{skip("nv.devices", "no-nvidia")}
	}
	var out []Finding
	for _, gpu := range gpus {
		idx := strconv.Itoa(gpu.Index)
		vram := gib(gpu.TotalMiB)
		switch {
		case gpu.ComputeCapability == "":
			out = append(out, emit(s, "nv.devices", "no-cc", "index", idx, "name", gpu.Name))
		case version.Compare(gpu.ComputeCapability, g().MinCC) < 0:
			out = append(out, emit(s, "nv.devices", "too-old", "index", idx, "name", gpu.Name, "cc", gpu.ComputeCapability))
		default:
			f := emit(s, "nv.devices", "ok", "index", idx, "name", gpu.Name, "cc", gpu.ComputeCapability, "vram", vram)
			if gpu.PCIBusID != "" {
				f = f.WithFact("pci", gpu.PCIBusID)
			}
			out = append(out, f.WithFact("uuid", gpu.UUID))
		}
	}
	return out
}

func checkVRAM(s *machine.Snapshot) []Finding {
	gpus := nvidiaGPUs(s)
	if len(gpus) == 0 {
		return []Finding{skip("nv.vram", "no-nvidia")}
	}
	var out []Finding
	for _, gpu := range gpus {
		if gpu.TotalMiB == 0 {
			continue
		}
		idx := strconv.Itoa(gpu.Index)
		th := g().Thresholds
		if gpu.FreeMiB < th.VRAMLowMiB || float64(gpu.FreeMiB) < th.VRAMLowFraction*float64(gpu.TotalMiB) {
			out = append(out, emit(s, "nv.vram", "low", "index", idx, "name", gpu.Name, "free", gib(gpu.FreeMiB), "total", gib(gpu.TotalMiB)))
			continue
		}
		out = append(out, emit(s, "nv.vram", "ok", "index", idx, "name", gpu.Name, "free", gib(gpu.FreeMiB), "total", gib(gpu.TotalMiB)))
	}
	if len(out) == 0 {
		return []Finding{skip("nv.vram", "not-recorded", "what", "the GPU memory")}
	}
	return out
}

func checkSMIConsistency(s *machine.Snapshot) []Finding {
	smi := s.NVIDIA.SMIStatus
	if cudaAPIErr(s) {
		if s.WSL.IsWSL {
			pkgs := strings.Join(s.WSL.DriverPackages, ", ")
			if pkgs == "" {
				pkgs = "none"
			}
			return []Finding{emit(s, "nv.smi-consistency", "cuda-err-wsl", "path", orUnknown(firstHit(s, "nvidia-smi")), "pkgs", pkgs)}
		}
		return []Finding{emit(s, "nv.smi-consistency", "cuda-err", "path", orUnknown(firstHit(s, "nvidia-smi")))}
	}
	switch smi {
	case "timeout":
		return []Finding{emit(s, "nv.smi-consistency", "smi-timeout", "path", orUnknown(firstHit(s, "nvidia-smi")))}
	case "failed":
		return []Finding{emit(s, "nv.smi-consistency", "smi-failed", "path", orUnknown(firstHit(s, "nvidia-smi")))}
	}
	a, b := s.NVIDIA.DriverVersion, s.NVIDIA.SMIDriverVersion
	if smi == "not-found" {
		return []Finding{skip("nv.smi-consistency", "no-smi")}
	}
	if a == "" || b == "" {
		return []Finding{skip("nv.smi-consistency", "not-recorded", "what", "a driver version from both NVML and nvidia-smi")}
	}
	if version.Compare(a, b) != 0 {
		return []Finding{emit(s, "nv.smi-consistency", "mismatch", "nvml", a, "smi", b, "smi_path", orUnknown(firstHit(s, "nvidia-smi")))}
	}
	return []Finding{emit(s, "nv.smi-consistency", "ok", "driver", a)}
}

// cudaAPIErr says nvidia-smi printed "CUDA Version: ERR!" (the status field,
// or, in snapshots taken before it existed, "ERR!" kept as the version or
// written into smi_status).
func cudaAPIErr(s *machine.Snapshot) bool {
	n := s.NVIDIA
	return n.CUDADriverAPIStatus == "err" || strings.Contains(strings.ToUpper(n.CUDADriverAPI), "ERR") ||
		strings.Contains(strings.ToUpper(n.SMIStatus), "ERR")
}

// driverAPI is the driver's highest CUDA version, "" unless it is a version
// (nvidia-smi prints "ERR!" in a broken WSL stack, "N/A" elsewhere).
func driverAPI(s *machine.Snapshot) string {
	if version.Of(s.NVIDIA.CUDADriverAPI).Len() < 2 {
		return ""
	}
	return s.NVIDIA.CUDADriverAPI
}
