package probe

import (
	"context"
	"strings"

	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/machine"
)

// vulkanToolchain records the versions that decide whether a llama.cpp
// version's Vulkan backend compiles here: the headers' VK_HEADER_VERSION
// (every copy found, the default one first), glslc's version, the
// SPIRV-Headers package's version, the loader's and the SDK's.
func vulkanToolchain(ctx context.Context, g *gctx, v *machine.Vulkan) {
	goos := g.goos()
	vf := facts.Vulkan
	seen := map[string]bool{}
	add := func(dir, origin string) {
		key := strings.ToLower(dir)
		if seen[key] {
			return
		}
		if rp, err := g.d.FS.Realpath(dir); err == nil && rp != "" {
			if seen[strings.ToLower(rp)] {
				return
			}
			seen[strings.ToLower(rp)] = true
		}
		seen[key] = true
		b, err := g.d.FS.ReadFile(joinPath(goos, dir, "vulkan", "vulkan_core.h"))
		if err != nil {
			return
		}
		n, complete := ParseVulkanHeaderVersion(string(b))
		if n == 0 {
			return
		}
		v.Headers = append(v.Headers, machine.VulkanHeaders{IncludeDir: dir, Version: n, Complete: complete, Origin: origin})
	}
	// CMake's FindVulkan: $VULKAN_SDK's include folder first, then the system's.
	if v.SDK != "" {
		if isWin(goos) {
			add(joinPath(goos, v.SDK, "Include"), "sdk")
		} else {
			add(joinPath(goos, v.SDK, "include"), "sdk")
		}
	}
	if !isWin(goos) {
		for _, d := range vf.HeaderDirsLinux {
			add(d, "system")
		}
	}
	globs := vf.PrivateGlobsLinux
	if isWin(goos) {
		globs = vf.PrivateGlobsWindows
	}
	home := lookupEnv(g.d, "HOME")
	// llamactl's own cache (LLAMACTL_CACHE_DIR, ...), where the fixes tell
	// users to put newer headers and where build --heal looks.
	cache := paths.CacheDir(goos, func(k string) string { return lookupEnv(g.d, k) })
	for _, gl := range globs {
		if strings.Contains(gl, "{home}") && home == "" {
			continue
		}
		gl = strings.ReplaceAll(strings.ReplaceAll(gl, "{cache}", cache), "{home}", home)
		for _, dir := range expandStarGlob(g.d.FS, goos, gl) {
			add(dir, "private")
		}
	}

	if v.Glslc != "" {
		if _, out, ok := g.run(ctx, v.Glslc, "--version"); ok {
			v.GlslcVersion = strings.TrimSpace(firstLine(out))
		}
	}

	var cmakeDirs []string
	if v.SDK != "" {
		for _, rel := range vf.SPIRVCMakeRelSDK {
			cmakeDirs = append(cmakeDirs, joinPath(goos, append([]string{v.SDK}, strings.Split(rel, "/")...)...))
		}
	}
	if !isWin(goos) {
		cmakeDirs = append(cmakeDirs, vf.SPIRVCMakeDirsLinux...)
	}
	for _, d := range cmakeDirs {
		if b, err := g.d.FS.ReadFile(joinPath(goos, d, "SPIRV-HeadersConfigVersion.cmake")); err == nil {
			if ver := ParseCMakePackageVersion(string(b)); ver != "" {
				v.SPIRVHeadersVersion = ver
				break
			}
		}
	}

	if !isWin(goos) {
		for _, l := range vf.LoadersLinux {
			if !isFile(g.d.FS, l) {
				continue
			}
			if rp, err := g.d.FS.Realpath(l); err == nil {
				v.LoaderVersion = LoaderVersionFromName(baseName(goos, rp))
			}
			break
		}
	}

	if isWin(goos) && g.d.Registry != nil {
		v.SDKVersion = windowsVulkanSDKVersion(g)
	}
	if v.SDKVersion == "" && v.SDK != "" {
		if name := baseName(goos, strings.TrimRight(v.SDK, `\/`)); reDottedVersion.MatchString(name) {
			v.SDKVersion = name
		}
	}
}

// windowsVulkanSDKVersion reads the LunarG installer's uninstall entry
// ("Vulkan SDK 1.4.313.0"): the SDK installed, whatever this shell's
// VULKAN_SDK says.
func windowsVulkanSDKVersion(g *gctx) string {
	key := facts.Vulkan.WindowsUninstallKey
	subs, err := g.d.Registry.SubKeys(key)
	if err != nil {
		return ""
	}
	best := ""
	for _, sk := range subs {
		if !strings.Contains(strings.ToLower(sk), "vulkan") {
			continue
		}
		name, _ := g.d.Registry.Value(key+`\`+sk, "DisplayName")
		if !strings.HasPrefix(name, facts.Vulkan.WindowsSDKDisplay) {
			continue
		}
		ver, _ := g.d.Registry.Value(key+`\`+sk, "DisplayVersion")
		if ver == "" {
			ver = reDottedVersion.FindString(name)
		}
		if ver > best {
			best = ver
		}
	}
	return best
}

// expandStarGlob expands the one "*" path element of pattern (none: the
// path itself when it is a folder).
func expandStarGlob(fsys FS, goos, pattern string) []string {
	sep := sepOf(goos)
	parts := strings.Split(pattern, sep)
	for i, p := range parts {
		if !strings.Contains(p, "*") {
			continue
		}
		dir := strings.Join(parts[:i], sep)
		rest := parts[i+1:]
		var out []string
		for _, hit := range globDir(fsys, goos, dir, p) {
			full := joinPath(goos, append([]string{hit}, rest...)...)
			if isDir(fsys, full) {
				out = append(out, full)
			}
		}
		return out
	}
	if isDir(fsys, pattern) {
		return []string{pattern}
	}
	return nil
}
