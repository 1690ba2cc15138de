// Package machine holds the facts of one machine: the serializable Snapshot
// that every rule reads (doctor's checks, build's planner, the kernels
// probe, run's sizing, explain and the support report), its one loader
// (Load: a file, a report folder or zip, a doctor --json document or a
// report.json, in UTF-8 or UTF-16 as PowerShell writes it) and the one
// cgroup-aware reader of host memory. Probes fill a Snapshot once
// (doctor/probe); everything else is a pure function of it, so a snapshot
// recorded on a customer's Windows machine gives the same findings when
// replayed anywhere.
package machine

import "time"

// SchemaVersion is bumped on incompatible changes; readers refuse newer majors.
const SchemaVersion = 1

// Snapshot is everything doctor learned about a machine.
type Snapshot struct {
	Schema     int                    `json:"schema"`
	Llamactl   string                 `json:"llamactl_version,omitempty"`
	TakenAt    time.Time              `json:"taken_at"`
	OS         OSInfo                 `json:"os"`
	Env        map[string]string      `json:"env,omitempty"`   // only the variables that matter (see probe.EnvAllowlist)
	Path       []PathEntry            `json:"path,omitempty"`  // PATH in order
	Tools      map[string][]ToolHit   `json:"tools,omitempty"` // tool name -> every hit on PATH, in order
	NVIDIA     NVIDIA                 `json:"nvidia"`
	Toolkits   []CUDAToolkit          `json:"cuda_toolkits,omitempty"`
	MSVC       []MSVCInstall          `json:"msvc,omitempty"`
	Compilers  []Compiler             `json:"compilers,omitempty"` // gcc/g++/clang/clang-cl found
	OpenCL     OpenCL                 `json:"opencl"`
	Vulkan     Vulkan                 `json:"vulkan"`
	HIP        HIP                    `json:"hip"`
	WSL        WSL                    `json:"wsl"`
	Windows    *Windows               `json:"windows,omitempty"`
	BuildTools map[string]ToolVersion `json:"build_tools,omitempty"` // cmake, ninja, git, ccache...
	// Probe results from `doctor --probe` (kernels), when run.
	Probes []ProbeResult `json:"probes,omitempty"`
	// Errors met while gathering: a probe that crashed, hung or was denied.
	ProbeErrors []ProbeError `json:"probe_errors,omitempty"`
	// Raw command outputs keyed by command line (kept for --verbose and report --zip).
	Raw map[string]string `json:"raw,omitempty"`
	// Timings is how long each gatherer took (for --verbose and benchmarks).
	Timings *Timings `json:"timings,omitempty"`
}

// Timings records the gather's wall time and each gatherer's duration; the
// sum of the gatherers exceeding the wall time shows they ran concurrently.
type Timings struct {
	Wall      time.Duration  `json:"wall_ns"`
	Gatherers []GatherTiming `json:"gatherers,omitempty"`
}

type GatherTiming struct {
	Name     string        `json:"name"`
	Duration time.Duration `json:"duration_ns"`
	TimedOut bool          `json:"timed_out,omitempty"`
}

type OSInfo struct {
	GOOS          string   `json:"goos"` // windows, linux, darwin
	Arch          string   `json:"arch"`
	Name          string   `json:"name,omitempty"`    // "Windows 11 Pro", "Debian GNU/Linux 12 (bookworm)"
	Version       string   `json:"version,omitempty"` // "10.0.22631", kernel release on Linux
	Hostname      string   `json:"hostname,omitempty"`
	User          string   `json:"user,omitempty"`
	HomeDir       string   `json:"home,omitempty"`
	CPUModel      string   `json:"cpu_model,omitempty"`
	CPUFlags      []string `json:"cpu_flags,omitempty"` // avx, avx2, avx512f, f16c, fma...
	PhysicalCores int      `json:"physical_cores,omitempty"`
	LogicalCores  int      `json:"logical_cores,omitempty"`
	RAMTotalMiB   uint64   `json:"ram_total_mib,omitempty"`
	RAMFreeMiB    uint64   `json:"ram_available_mib,omitempty"`
	DiskFreeMiB   uint64   `json:"disk_free_mib,omitempty"` // where the cache/build dir lives
	Glibc         string   `json:"glibc,omitempty"`
}

type PathEntry struct {
	Dir    string `json:"dir"`
	Exists bool   `json:"exists"`
	// Source is "user" or "system" on Windows when known from the registry.
	Source string `json:"source,omitempty"`
}

type ToolHit struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
}

type ToolVersion struct {
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"` // parsed, e.g. "3.25.1"
	Raw     string `json:"raw,omitempty"`
	Error   string `json:"error,omitempty"`
}

// NVIDIA is the driver and GPUs as NVML (and nvidia-smi) report them.
type NVIDIA struct {
	// NVMLStatus is "ok" or NVML's return code name (e.g.
	// "ERROR_DRIVER_NOT_LOADED", "ERROR_LIBRARY_NOT_FOUND").
	NVMLStatus    string `json:"nvml_status,omitempty"`
	NVMLLibrary   string `json:"nvml_library,omitempty"`    // the library file loaded
	DriverVersion string `json:"driver_version,omitempty"`  // "560.94"
	CUDADriverAPI string `json:"cuda_driver_api,omitempty"` // "12.6": the highest CUDA the driver supports
	// CUDADriverAPIStatus says why CUDADriverAPI is empty although nvidia-smi
	// answered: "err" when it printed "CUDA Version: ERR!" (its user-space
	// library does not match the driver: a WSL failure signature), "n/a"
	// for "N/A". Snapshots before this field stored "ERR!" in CUDADriverAPI.
	CUDADriverAPIStatus string `json:"cuda_driver_api_status,omitempty"`
	SMIDriverVersion    string `json:"smi_driver_version,omitempty"` // nvidia-smi's, for cross-check
	SMIStatus           string `json:"smi_status,omitempty"`
	GPUs                []GPU  `json:"gpus,omitempty"`
}

type GPU struct {
	Index             int    `json:"index"`
	Name              string `json:"name"`
	UUID              string `json:"uuid,omitempty"`
	Serial            string `json:"serial,omitempty"`
	PCIBusID          string `json:"pci_bus_id,omitempty"`
	ComputeCapability string `json:"compute_capability,omitempty"` // "8.9" from NVML (wins over the table)
	TotalMiB          uint64 `json:"total_mib,omitempty"`
	FreeMiB           uint64 `json:"free_mib,omitempty"`
	Vendor            string `json:"vendor,omitempty"` // nvidia, amd, intel (non-NVIDIA GPUs from other probes)
}

type CUDAToolkit struct {
	Version string   `json:"version"`            // "12.4.131" from nvcc --version
	Root    string   `json:"root"`               // CUDA_PATH-style root
	NVCC    string   `json:"nvcc"`               // path to nvcc
	Found   []string `json:"found_by,omitempty"` // "CUDA_PATH", "CUDA_PATH_V12_4", "registry", "default-dir", "PATH", "debian"
	// Links are the paths the toolkit was found at that resolve to Root
	// through symbolic links (/usr/local/cuda -> /usr/local/cuda-12.2): Root
	// is the resolved directory, each link is a name scripts and CMake use.
	Links         []string `json:"links,omitempty"`
	GPUArchs      []string `json:"gpu_archs,omitempty"` // nvcc --list-gpu-arch: compute_50...
	HasCudart     bool     `json:"has_cudart,omitempty"`
	HasCublas     bool     `json:"has_cublas,omitempty"`
	VSIntegration bool     `json:"vs_integration,omitempty"` // MSBuild .props/.targets present for a VS install
	// DLLDir is where the runtime libraries are: bin\ (Windows, CUDA <= 12),
	// bin\x64\ (Windows, CUDA 13+), lib64 or targets/*/lib (Linux).
	DLLDir string `json:"dll_dir,omitempty"`
	// Missing marks a root named by CUDA_PATH* or the registry that is not on disk.
	Missing bool `json:"missing,omitempty"`
}

// MSVCInstall is one Visual Studio / Build Tools instance (vswhere) and its toolsets.
type MSVCInstall struct {
	InstanceID     string   `json:"instance_id,omitempty"`
	DisplayName    string   `json:"display_name,omitempty"`         // "Visual Studio Community 2022"
	ProductVersion string   `json:"product_version,omitempty"`      // "17.11.5" (catalog productDisplayVersion)
	InstallVersion string   `json:"installation_version,omitempty"` // "17.11.35327.3"
	Path           string   `json:"path"`
	Toolsets       []string `json:"toolsets,omitempty"`        // VC\Tools\MSVC\14.41.34120 ...
	DefaultToolset string   `json:"default_toolset,omitempty"` // Microsoft.VCToolsVersion.default.txt
	ClVersion      string   `json:"cl_version,omitempty"`      // "19.41.34123" from the cl banner
	HasVCTools     bool     `json:"has_vc_tools"`
	HasClangCL     bool     `json:"has_clang_cl,omitempty"`
	VCVarsAll      string   `json:"vcvarsall,omitempty"` // VC\Auxiliary\Build\vcvarsall.bat when present
	// CUDABuildCustomizations are the CUDA versions whose MSBuild files are in
	// MSBuild\Microsoft\VC\v*\BuildCustomizations (what the VS generator uses).
	CUDABuildCustomizations []string `json:"cuda_build_customizations,omitempty"`
	// FromVswhere: vswhere reported it (false: found by scanning the default dirs).
	FromVswhere bool `json:"from_vswhere,omitempty"`
}

type Compiler struct {
	Kind    string `json:"kind"` // gcc, g++, clang, clang++, clang-cl, cl
	Path    string `json:"path"`
	Version string `json:"version"` // "12.2.0"
	Major   int    `json:"major"`
	Target  string `json:"target,omitempty"`
}

type OpenCL struct {
	Status    string           `json:"status,omitempty"` // ok, no-icd-loader, no-platforms (-1001), error
	Loader    string           `json:"loader,omitempty"`
	ICDFiles  []string         `json:"icd_files,omitempty"`
	Platforms []OpenCLPlatform `json:"platforms,omitempty"`
	Error     string           `json:"error,omitempty"`
}

type OpenCLPlatform struct {
	Name    string         `json:"name"`
	Vendor  string         `json:"vendor"`
	Version string         `json:"version"`
	Devices []OpenCLDevice `json:"devices,omitempty"`
}

type OpenCLDevice struct {
	Name           string `json:"name"`
	Vendor         string `json:"vendor,omitempty"`
	Type           string `json:"type"` // GPU, CPU, ACCELERATOR
	Version        string `json:"version,omitempty"`
	OpenCLCVersion string `json:"opencl_c_version,omitempty"`
	DriverVersion  string `json:"driver_version,omitempty"`
	GlobalMemMiB   uint64 `json:"global_mem_mib,omitempty"`
}

type Vulkan struct {
	Status       string         `json:"status,omitempty"`
	Devices      []VulkanDevice `json:"devices,omitempty"`
	Glslc        string         `json:"glslc,omitempty"`
	SPIRVHeaders bool           `json:"spirv_headers,omitempty"`
	SDK          string         `json:"sdk,omitempty"` // VULKAN_SDK
}

type VulkanDevice struct {
	Name       string `json:"name"`
	Type       string `json:"type"` // DISCRETE_GPU, INTEGRATED_GPU, CPU (llvmpipe)...
	APIVersion string `json:"api_version,omitempty"`
	Driver     string `json:"driver,omitempty"`
	VendorID   string `json:"vendor_id,omitempty"`
}

type HIP struct {
	Status  string   `json:"status,omitempty"`
	Version string   `json:"version,omitempty"`
	Root    string   `json:"root,omitempty"` // HIP_PATH / /opt/rocm
	GFX     []string `json:"gfx,omitempty"`  // gfx1100...
}

type WSL struct {
	IsWSL              bool     `json:"is_wsl"`
	Version            int      `json:"version,omitempty"`
	LibcudaPaths       []string `json:"libcuda_paths,omitempty"`   // every libcuda.so* the loader can see
	DriverPackages     []string `json:"driver_packages,omitempty"` // nvidia-driver-*, libnvidia-compute-* installed inside WSL
	WindowsPathInterop bool     `json:"windows_path_interop,omitempty"`
}

// Windows holds what only Windows has: registry facts and DLL resolution.
type Windows struct {
	Build           string              `json:"build,omitempty"`
	Registry        map[string]string   `json:"registry,omitempty"` // key\value -> data, for the keys doctor reads
	SystemDir       string              `json:"system_dir,omitempty"`
	DLLs            map[string][]string `json:"dlls,omitempty"` // dll name -> every resolution candidate in search order
	PATHEXT         string              `json:"pathext,omitempty"`
	DeveloperPrompt bool                `json:"developer_prompt,omitempty"` // VSCMD_VER / VCINSTALLDIR set
}

type ProbeResult struct {
	Kind      string             `json:"kind"` // cuda, opencl, vulkan
	Stage     string             `json:"stage"`
	OK        bool               `json:"ok"`
	FailureID string             `json:"failure_id,omitempty"`
	Detail    string             `json:"detail,omitempty"`
	Duration  time.Duration      `json:"duration_ns,omitempty"`
	Metrics   map[string]float64 `json:"metrics,omitempty"` // e.g. bandwidth_gbps, h2d_gbps
}

type ProbeError struct {
	Probe    string `json:"probe"`
	Error    string `json:"error"`
	TimedOut bool   `json:"timed_out,omitempty"`
}
