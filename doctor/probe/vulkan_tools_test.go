package probe

import (
	"context"
	"testing"
)

// Lines as Debian bookworm's libvulkan-dev 1.3.239 and sid's 1.4.363 write them.
const (
	vkCore239 = "#define VK_HEADER_VERSION 239\n\n// Complete version of this file\n#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, 3, VK_HEADER_VERSION)\n"
	vkCore363 = "#define VK_HEADER_VERSION 363\n\n// Complete version of this file\n#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, 4, VK_HEADER_VERSION)\n"
	// Vulkan-Headers before 1.2.175 used VK_MAKE_VERSION without a variant.
	vkCoreOld = "#define VK_HEADER_VERSION 131\n#define VK_HEADER_VERSION_COMPLETE VK_MAKE_VERSION(1, 2, VK_HEADER_VERSION)\n"
)

func TestParseVulkanHeaderVersion(t *testing.T) {
	for in, want := range map[string]struct {
		n int
		c string
	}{vkCore239: {239, "1.3.239"}, vkCore363: {363, "1.4.363"}, vkCoreOld: {131, "1.2.131"}, "#define VK_HEADER_VERSION_COMPLETE x\n": {0, ""}, "": {0, ""}} {
		if n, c := ParseVulkanHeaderVersion(in); n != want.n || c != want.c {
			t.Errorf("%q: %d %q, want %d %q", in, n, c, want.n, want.c)
		}
	}
	if v := ParseCMakePackageVersion("set(PACKAGE_VERSION \"1.5.5\")\n\nif(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)\n"); v != "1.5.5" {
		t.Errorf("cmake version %q", v)
	}
	if v := LoaderVersionFromName("libvulkan.so.1.3.239"); v != "1.3.239" {
		t.Errorf("loader %q", v)
	}
	if v := LoaderVersionFromName("libvulkan.so.1"); v != "" {
		t.Errorf("loader %q", v)
	}
}

func FuzzParseVulkanToolchain(f *testing.F) {
	f.Add(vkCore239)
	f.Add("set(PACKAGE_VERSION \"1.5.5\")")
	f.Fuzz(func(t *testing.T, s string) {
		if n, _ := ParseVulkanHeaderVersion(s); n < 0 || n > 999999 {
			t.Fatalf("version %d", n)
		}
		_ = ParseCMakePackageVersion(s)
		_ = LoaderVersionFromName(s)
	})
}

// Debian 12 with bookworm's headers, sid's unpacked into llamactl's cache:
// the system's copy first (what CMake uses), the private one listed too.
func TestGatherVulkanToolchainLinux(t *testing.T) {
	m := NewMemFS("linux", map[string]string{
		"/usr/include/vulkan/vulkan_core.h":                                           vkCore239,
		"/home/u/.cache/llamactl/vulkan-headers/sid/usr/include/vulkan/vulkan_core.h": vkCore363,
		"/usr/share/cmake/SPIRV-Headers/SPIRV-HeadersConfigVersion.cmake":             "set(PACKAGE_VERSION \"1.5.5\")\n",
		"/usr/lib/x86_64-linux-gnu/libvulkan.so.1.3.239":                              "",
	})
	m.AddLink("/usr/lib/x86_64-linux-gnu/libvulkan.so.1", "/usr/lib/x86_64-linux-gnu/libvulkan.so.1.3.239")
	env := map[string]string{"HOME": "/home/u", "PATH": "/usr/bin"}
	d := Deps{GOOS: "linux", FS: m, Getenv: func(k string) string { return env[k] }, Environ: func() []string { return nil }}
	s := Gather(context.Background(), d)
	v := s.Vulkan
	if len(v.Headers) != 2 || v.Headers[0].IncludeDir != "/usr/include" || v.Headers[0].Version != 239 || v.Headers[0].Origin != "system" ||
		v.Headers[1].IncludeDir != "/home/u/.cache/llamactl/vulkan-headers/sid/usr/include" || v.Headers[1].Complete != "1.4.363" || v.Headers[1].Origin != "private" {
		t.Errorf("headers = %+v", v.Headers)
	}
	if h := v.DefaultHeaders(); h == nil || h.Version != 239 {
		t.Errorf("default headers = %+v", h)
	}
	if v.SPIRVHeadersVersion != "1.5.5" || v.LoaderVersion != "1.3.239" {
		t.Errorf("spirv %q loader %q", v.SPIRVHeadersVersion, v.LoaderVersion)
	}
}

// Windows: the SDK's headers (VULKAN_SDK) come first; its version is the
// installer's uninstall entry.
func TestGatherVulkanToolchainWindows(t *testing.T) {
	m := NewMemFS("windows", map[string]string{
		`C:\VulkanSDK\1.3.250.1\Include\vulkan\vulkan_core.h`: "#define VK_HEADER_VERSION 250\n#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, 3, VK_HEADER_VERSION)\n",
		`C:\VulkanSDK\1.4.313.0\Include\vulkan\vulkan_core.h`: "#define VK_HEADER_VERSION 313\n#define VK_HEADER_VERSION_COMPLETE VK_MAKE_API_VERSION(0, 1, 4, VK_HEADER_VERSION)\n",
		`C:\Windows\System32\`:                                "",
	})
	reg := &MemRegistry{Keys: map[string]map[string]string{
		facts.Vulkan.WindowsUninstallKey + `\VulkanSDK`: {"DisplayName": "Vulkan SDK 1.3.250.1", "DisplayVersion": "1.3.250.1"},
		facts.Vulkan.WindowsUninstallKey + `\Other`:     {"DisplayName": "Something"},
	}}
	d := Deps{GOOS: "windows", FS: m, Registry: reg, Getenv: func(k string) string { return "" },
		Environ: func() []string {
			return []string{`VULKAN_SDK=C:\VulkanSDK\1.3.250.1`, `SystemRoot=C:\Windows`, `Path=C:\Windows\System32`}
		}}
	v := Gather(context.Background(), d).Vulkan
	if len(v.Headers) != 2 || v.Headers[0].Origin != "sdk" || v.Headers[0].Version != 250 || v.Headers[1].Version != 313 || v.Headers[1].Origin != "private" {
		t.Errorf("headers = %+v", v.Headers)
	}
	if v.SDKVersion != "1.3.250.1" {
		t.Errorf("sdk version %q", v.SDKVersion)
	}
}
