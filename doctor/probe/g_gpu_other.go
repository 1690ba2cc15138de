package probe

import (
	"context"
	"regexp"
	"strings"

	"github.com/llamactl/llamactl/machine"
)

// OpenCL statuses.
const (
	CLOK          = "ok"
	CLNoPlatforms = "no-platforms" // the loader found no ICD: clGetPlatformIDs -1001
	CLNoLoader    = "no-icd-loader"
	CLNoClinfo    = "no-clinfo" // loader/ICDs seen, platforms not enumerated
	CLError       = "error"
)

var reCL1001 = regexp.MustCompile(`-1001|CL_PLATFORM_NOT_FOUND_KHR|Number of platforms\s*:?\s*0\b`)

// gatherOpenCL lists the ICD loader and its vendor files
// and the platforms clinfo sees through them.
func gatherOpenCL(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var o machine.OpenCL
	goos := g.goos()
	if isWin(goos) {
		if p := joinPath(goos, systemDir(g.d), "OpenCL.dll"); isFile(g.d.FS, p) {
			o.Loader = p
		}
		if r := g.d.Registry; r != nil {
			names, err := r.ValueNames(facts.OpenCL.WindowsVendorsKey)
			if err != nil && !isNotFound(err) {
				g.errorf("registry %s: %v", facts.OpenCL.WindowsVendorsKey, err)
			}
			o.ICDFiles = names
		}
	} else {
		for _, p := range facts.OpenCL.LinuxLoaders {
			if isFile(g.d.FS, p) {
				o.Loader = p
				break
			}
		}
		dir := facts.OpenCL.LinuxVendorDir
		if v := lookupEnv(g.d, "OCL_ICD_VENDORS"); v != "" {
			if isDir(g.d.FS, v) {
				dir = v
			} else {
				o.ICDFiles = append(o.ICDFiles, v)
				dir = ""
			}
		}
		if dir != "" {
			o.ICDFiles = append(o.ICDFiles, globDir(g.d.FS, goos, dir, "*.icd")...)
		}
	}
	clinfo := ""
	if hits := searchPath(g.d, g.base.Path, "clinfo"); len(hits) > 0 {
		clinfo = hits[0]
	}
	if clinfo != "" {
		res, out, ok := g.run(ctx, clinfo)
		if ok || !res.TimedOut {
			if ok {
				o.Platforms = ParseClinfo(string(res.Stdout))
			}
			if len(o.Platforms) == 0 {
				// older or Windows builds of clinfo: the short listing
				if _, lout, lok := g.run(ctx, clinfo, "-l"); lok {
					o.Platforms = ParseClinfoList(lout)
					out += lout
				}
			}
			switch {
			case len(o.Platforms) > 0:
				o.Status = CLOK
			case reCL1001.MatchString(out):
				o.Status = CLNoPlatforms
			default:
				o.Status = CLError
				o.Error = truncate(firstLine(out), 300)
			}
		} else if res.TimedOut {
			o.Status, o.Error = CLError, "clinfo timed out"
		}
	}
	if o.Status == "" {
		switch {
		case o.Loader == "":
			o.Status = CLNoLoader
		case len(o.ICDFiles) == 0:
			o.Status = CLNoPlatforms
		default:
			o.Status = CLNoClinfo
		}
	}
	return func(s *machine.Snapshot) { s.OpenCL = o }
}

// gatherVulkan runs vulkaninfo --summary and checks what building the Vulkan
// backend needs: glslc and SPIRV-Headers (llama.cpp docs/build.md).
func gatherVulkan(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var v machine.Vulkan
	goos := g.goos()
	v.SDK = lookupEnv(g.d, "VULKAN_SDK")
	v.Glslc = firstTool(g.base, "glslc")
	if v.Glslc == "" && v.SDK != "" {
		for _, sub := range []string{"Bin", "bin"} {
			name := "glslc"
			if isWin(goos) {
				name = "glslc.exe"
			}
			if p := joinPath(goos, v.SDK, sub, name); isFile(g.d.FS, p) {
				v.Glslc = p
				break
			}
		}
	}
	var spirv []string
	if v.SDK != "" {
		rel := facts.Vulkan.SPIRVHeaderRelSDK
		if !isWin(goos) {
			rel = "include/spirv/unified1"
		}
		spirv = append(spirv, joinPath(goos, v.SDK, rel))
	}
	if !isWin(goos) {
		spirv = append(spirv, facts.Vulkan.SPIRVHeaderDirsLinux...)
	}
	for _, d := range spirv {
		if isFile(g.d.FS, joinPath(goos, d, "spirv.hpp")) || isFile(g.d.FS, joinPath(goos, d, "spirv.h")) {
			v.SPIRVHeaders = true
		}
	}
	vi := ""
	if hits := searchPath(g.d, g.base.Path, "vulkaninfo"); len(hits) > 0 && !strings.HasSuffix(strings.ToLower(hits[0]), ".exe") || isWin(goos) && len(hits) > 0 {
		vi = hits[0]
	}
	if vi == "" {
		v.Status = "no-vulkaninfo"
	} else {
		res, out, ok := g.run(ctx, vi, "--summary")
		switch {
		case res.TimedOut:
			v.Status = "error"
		case !ok:
			v.Status = "error"
		default:
			v.Devices = ParseVulkanSummary(out)
			switch {
			case len(v.Devices) > 0:
				v.Status = "ok"
			case strings.Contains(out, "ERROR_INCOMPATIBLE_DRIVER"):
				v.Status = "no-driver"
			default:
				v.Status = "no-devices"
			}
		}
	}
	return func(s *machine.Snapshot) { s.Vulkan = v }
}

var reHIPVersion = regexp.MustCompile(`HIP version:\s*(\d+\.\d+(?:\.\d+)?)`)

// gatherHIP finds ROCm/HIP: HIP_PATH, ROCM_PATH, /opt/rocm, hipcc, and the
// gfx targets rocminfo reports.
func gatherHIP(ctx context.Context, g *gctx) func(*machine.Snapshot) {
	var h machine.HIP
	goos := g.goos()
	for _, k := range []string{"HIP_PATH", "ROCM_PATH"} {
		if v := lookupEnv(g.d, k); v != "" && h.Root == "" {
			h.Root = cleanDir(goos, v)
		}
	}
	if h.Root == "" && !isWin(goos) {
		for _, r := range facts.HIP.LinuxRoots {
			if isDir(g.d.FS, r) {
				h.Root = r
			}
		}
	}
	if h.Root == "" && isWin(goos) {
		if vs := globDir(g.d.FS, goos, facts.HIP.WindowsRootGlob, "*"); len(vs) > 0 {
			h.Root = vs[len(vs)-1]
		}
	}
	hipcc := firstTool(g.base, "hipcc")
	if hipcc == "" && h.Root != "" {
		for _, n := range []string{"hipcc", "hipcc.bat", "hipcc.exe"} {
			if p := joinPath(goos, h.Root, "bin", n); isFile(g.d.FS, p) {
				hipcc = p
				break
			}
		}
	}
	if hipcc != "" {
		if _, out, ok := g.run(ctx, hipcc, "--version"); ok {
			if m := reHIPVersion.FindStringSubmatch(out); m != nil {
				h.Version = m[1]
			}
		}
	}
	if !isWin(goos) {
		ri := ""
		if hits := searchPath(g.d, g.base.Path, "rocminfo"); len(hits) > 0 {
			ri = hits[0]
		} else if h.Root != "" && isFile(g.d.FS, joinPath(goos, h.Root, "bin", "rocminfo")) {
			ri = joinPath(goos, h.Root, "bin", "rocminfo")
		}
		if ri != "" {
			if _, out, ok := g.run(ctx, ri); ok {
				h.GFX = ParseROCmGFX(out)
			}
		}
	}
	switch {
	case h.Root == "" && hipcc == "":
		h.Status = "not-found"
	case len(h.GFX) > 0 || h.Version != "":
		h.Status = "ok"
	default:
		h.Status = "incomplete"
	}
	return func(s *machine.Snapshot) { s.HIP = h }
}
