package doctor

import (
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/machine"
)

// Section E of docs/doctor.md\'s "Every check": AMD, OpenCL, Vulkan, HIP.

func checkAMDGfx(s *machine.Snapshot) []Finding {
	if !gpuVendors(s)["amd"] {
		return []Finding{skip("amd.gfx", "no-amd")}
	}
	if len(s.HIP.GFX) == 0 {
		return []Finding{emit(s, "amd.gfx", "unknown")}
	}
	return []Finding{emit(s, "amd.gfx", "ok", "gfx", strings.Join(s.HIP.GFX, ", "), "count", itoa(len(s.HIP.GFX)))}
}

func checkAMDDriverWin(s *machine.Snapshot) []Finding {
	if !gpuVendors(s)["amd"] {
		return []Finding{skip("amd.driver-win", "no-amd")}
	}
	if s.Windows == nil || s.Windows.DLLs == nil {
		return []Finding{skip("amd.driver-win", "not-recorded", "what", "the DLL search")}
	}
	c6, r6 := s.Windows.DLLs["amdhip64_6.dll"]
	c7, r7 := s.Windows.DLLs["amdhip64_7.dll"]
	v6, v7 := len(c6) > 0, len(c7) > 0
	switch {
	case !r6 && !r7:
		return []Finding{skip("amd.driver-win", "not-recorded", "what", "the AMD HIP runtime DLL search")}
	case v7:
		return []Finding{emit(s, "amd.driver-win", "ok", "dll", s.Windows.DLLs["amdhip64_7.dll"][0])}
	case v6:
		// ollama: "AMD driver is too old" when only the v6 runtime is present.
		return []Finding{emit(s, "amd.driver-win", "old", "dll", s.Windows.DLLs["amdhip64_6.dll"][0])}
	}
	return []Finding{emit(s, "amd.driver-win", "none")}
}

func checkICDRegistry(s *machine.Snapshot) []Finding {
	o := s.OpenCL
	if o.Status == "" && len(o.ICDFiles) == 0 && len(o.Platforms) == 0 {
		return []Finding{skip("ocl.icd-registry", "not-recorded", "what", "OpenCL")}
	}
	if len(o.ICDFiles) == 0 && len(o.Platforms) > 0 {
		return []Finding{emit(s, "ocl.icd-registry", "platforms-only", "count", itoa(len(o.Platforms)))}
	}
	if len(o.ICDFiles) == 0 {
		if isWindows(s) {
			return []Finding{emit(s, "ocl.icd-registry", "none-windows")}
		}
		return []Finding{emit(s, "ocl.icd-registry", "none-linux")}
	}
	return []Finding{emit(s, "ocl.icd-registry", "ok", "count", itoa(len(o.ICDFiles))).With(o.ICDFiles...)}
}

func oclGPUs(s *machine.Snapshot) (gpus []machine.OpenCLDevice, cpus []string) {
	for _, p := range s.OpenCL.Platforms {
		for _, d := range p.Devices {
			if oclIsGPU(p, d) {
				gpus = append(gpus, d)
			} else {
				cpus = append(cpus, p.Name+": "+d.Name+" ("+d.Type+")")
			}
		}
	}
	return gpus, cpus
}

func checkOCLPlatforms(s *machine.Snapshot) []Finding {
	o := s.OpenCL
	switch o.Status {
	case "":
		return []Finding{skip("ocl.platforms", "not-recorded", "what", "OpenCL")}
	case "no-icd-loader":
		return []Finding{emit(s, "ocl.platforms", "no-loader")}
	case "no-platforms", "error":
		return []Finding{oclPlatformsFailed(s, o.Status, o.Error)}
	}
	var lines []string
	for _, p := range o.Platforms {
		for _, d := range p.Devices {
			lines = append(lines, p.Name+" ("+p.Vendor+"): "+d.Name+" ["+d.Type+"]")
		}
		if len(p.Devices) == 0 {
			lines = append(lines, p.Name+" ("+p.Vendor+"): no devices")
		}
	}
	if len(o.Platforms) == 0 {
		return []Finding{oclPlatformsFailed(s, "no-platforms", o.Error)}
	}
	gpus, _ := oclGPUs(s)
	if len(gpus) == 0 {
		return []Finding{emit(s, "ocl.platforms", "cpu-only", "platform", o.Platforms[0].Name).With(lines...)}
	}
	return []Finding{emit(s, "ocl.platforms", "ok", "count", itoa(len(gpus))).With(lines...)}
}

// oclPlatformsFailed says why OpenCL listed nothing; a probe that gave no
// error text gets a summary that does not end in ": unknown".
func oclPlatformsFailed(s *machine.Snapshot, status, err string) Finding {
	silent := strings.TrimSpace(err) == ""
	switch {
	case status == "error" && silent:
		return emit(s, "ocl.platforms", "error-silent")
	case status == "error":
		return emit(s, "ocl.platforms", "error", "error", err)
	case silent:
		return emit(s, "ocl.platforms", "no-platforms-silent")
	}
	return emit(s, "ocl.platforms", "no-platforms", "error", err)
}

// llamaOpenCLSupported mirrors ggml-opencl's device filter: Adreno/Qualcomm
// and Intel GPUs only.
func llamaOpenCLSupported(d machine.OpenCLDevice) bool {
	return enginefacts.OpenCLVendorSupported(d.Name, d.Vendor+" "+d.Version)
}

func checkOCLCompat(s *machine.Snapshot, requested string) []Finding {
	gpus, _ := oclGPUs(s)
	wantsOpenCL := strings.EqualFold(requested, "opencl")
	vend := gpuVendors(s)
	var unsupported, supported []string
	for _, d := range gpus {
		if llamaOpenCLSupported(d) {
			// The OpenCL C floor is llama.cpp's, kept once in enginefacts;
			// an unrecorded version is given the benefit of the doubt.
			if d.OpenCLCVersion != "" {
				if ok, why := enginefacts.OpenCLAccepts(d.Name, d.Vendor+" "+d.Version, "GPU", d.OpenCLCVersion); !ok {
					unsupported = append(unsupported, d.Name+" ("+why+")")
					continue
				}
			}
			supported = append(supported, d.Name)
		} else {
			unsupported = append(unsupported, d.Name)
		}
	}
	if len(supported) > 0 {
		return []Finding{emit(s, "ocl.llama-compat", "ok", "gpus", strings.Join(supported, ", "))}
	}
	alt := bestNonOpenCL(s, visibleNVIDIA(s), vend)
	if alt == "cpu" && (len(unsupported) > 0 || vend["amd"]) {
		alt = "vulkan"
	}
	key := "alt-" + alt
	if len(unsupported) == 0 && (!wantsOpenCL || (!vend["amd"] && !vend["nvidia"])) {
		if wantsOpenCL {
			return []Finding{emit(s, "ocl.llama-compat", "requested-no-gpu")}
		}
		return []Finding{skip("ocl.llama-compat", "not-requested")}
	}
	gpusText := strings.Join(unsupported, ", ")
	if gpusText == "" {
		gpusText = vendorList(vend) + " GPU"
	}
	if wantsOpenCL {
		return []Finding{emit(s, "ocl.llama-compat", "requested-"+key, "gpus", gpusText)}
	}
	return []Finding{emit(s, "ocl.llama-compat", "info-"+key, "gpus", gpusText)}
}

func checkVulkanLoader(s *machine.Snapshot) []Finding {
	v := s.Vulkan
	if v.Status == "" && len(v.Devices) == 0 {
		return []Finding{skip("vk.loader", "not-recorded", "what", "Vulkan")}
	}
	var hw, sw []string
	for _, d := range v.Devices {
		n := strings.ToLower(d.Name)
		if strings.Contains(strings.ToUpper(d.Type), "CPU") || strings.Contains(n, "llvmpipe") || strings.Contains(n, "microsoft direct3d12") {
			sw = append(sw, d.Name)
		} else {
			hw = append(hw, d.Name+" ("+d.Type+")")
		}
	}
	switch {
	case len(hw) > 0:
		return []Finding{emit(s, "vk.loader", "ok", "count", itoa(len(hw))).With(hw...)}
	case len(sw) > 0:
		return []Finding{emit(s, "vk.loader", "software-only", "devices", strings.Join(sw, ", "))}
	case v.Status == "no-vulkaninfo":
		return []Finding{emit(s, "vk.loader", "no-vulkaninfo")}
	case v.Status == "no-loader" || v.Status == "no-icd-loader":
		return []Finding{emit(s, "vk.loader", "no-loader")}
	}
	return []Finding{emit(s, "vk.loader", "no-devices", "status", v.Status)}
}

// wantsBackend says whether a backend is requested or would be selected.
func wantsBackend(s *machine.Snapshot, requested, backend string) bool {
	if requested != "" {
		return strings.EqualFold(requested, backend)
	}
	return SelectFor(s, "").Backend == backend
}

func checkVulkanSDK(s *machine.Snapshot, requested string) []Finding {
	if !wantsBackend(s, requested, "vulkan") && !(strings.EqualFold(requested, "opencl") && SelectFor(s, requested).Backend == "vulkan") {
		return []Finding{skip("vk.sdk", "backend-not-selected", "backend", "Vulkan")}
	}
	glslc := s.Vulkan.Glslc
	if glslc == "" {
		glslc = firstHit(s, "glslc")
	}
	switch {
	case glslc == "":
		return []Finding{emit(s, "vk.sdk", "no-glslc")}
	case !s.Vulkan.SPIRVHeaders:
		return []Finding{emit(s, "vk.sdk", "no-spirv-headers", "glslc", glslc)}
	}
	return []Finding{emit(s, "vk.sdk", "ok", "glslc", glslc, "glslc_version", orUnknown(s.Vulkan.GlslcVersion),
		"headers", vulkanHeadersText(s.Vulkan), "spirv", orUnknown(s.Vulkan.SPIRVHeadersVersion), "sdk", orUnknown(vulkanSDKText(s.Vulkan)))}
}

func checkHIPSDK(s *machine.Snapshot, requested string) []Finding {
	if !wantsBackend(s, requested, "hip") {
		if gpuVendors(s)["amd"] && s.HIP.Status != "ok" {
			return []Finding{emit(s, "hip.sdk", "optional")}
		}
		return []Finding{skip("hip.sdk", "backend-not-selected", "backend", "HIP")}
	}
	if s.HIP.Status != "ok" {
		return []Finding{emit(s, "hip.sdk", "missing")}
	}
	return []Finding{emit(s, "hip.sdk", "ok", "version", orUnknown(s.HIP.Version), "root", orUnknown(s.HIP.Root))}
}

func itoa(n int) string { return strconv.Itoa(n) }

// oclIsGPU classifies a device; `clinfo -l` lists no types, so an untyped
// device counts as a GPU unless it or its platform is a known CPU runtime.
func oclIsGPU(p machine.OpenCLPlatform, d machine.OpenCLDevice) bool {
	t := strings.ToUpper(d.Type)
	if t != "" {
		return strings.Contains(t, "GPU")
	}
	n := strings.ToLower(p.Name + " " + d.Name)
	for _, cpu := range []string{"cpu", "portable computing language", "pocl", "llvmpipe", "core(tm)", "xeon", "ryzen", "epyc"} {
		if strings.Contains(n, cpu) {
			return false
		}
	}
	return true
}

// vulkanHeadersText lists the Vulkan headers found, the default first:
// "1.3.239 (/usr/include), also 1.4.363 (/opt/vk/include)".
func vulkanHeadersText(v machine.Vulkan) string {
	var parts []string
	for _, h := range v.Headers {
		ver := h.Complete
		if ver == "" {
			ver = itoa(h.Version)
		}
		parts = append(parts, ver+" ("+h.IncludeDir+")")
	}
	if len(parts) == 0 {
		return "unknown"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return valueText("vk-headers-also", "first", parts[0], "rest", strings.Join(parts[1:], ", "))
}

func vulkanSDKText(v machine.Vulkan) string {
	switch {
	case v.SDK != "" && v.SDKVersion != "":
		return valueText("vk-sdk-at", "version", v.SDKVersion, "path", v.SDK)
	case v.SDKVersion != "":
		return valueText("vk-sdk-not-set", "version", v.SDKVersion)
	}
	return v.SDK
}
