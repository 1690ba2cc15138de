package doctor

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// The Vulkan SDK and headers values of vk.sdk are sentences of their own:
// with --lang zh-CN they are Chinese too (value_texts), in English as
// before.
func TestVulkanSDKValueTranslated(t *testing.T) {
	for _, c := range []struct {
		vk     machine.Vulkan
		en, zh []string
	}{
		{machine.Vulkan{SDK: `C:\VulkanSDK\1.3.290.0`, SDKVersion: "1.3.290.0",
			Headers: []machine.VulkanHeaders{{IncludeDir: `C:\VulkanSDK\1.3.290.0\Include`, Complete: "1.3.290"}, {IncludeDir: `C:\vcpkg\include`, Version: 275}}},
			[]string{`Vulkan SDK 1.3.290.0 at C:\VulkanSDK\1.3.290.0`, `Vulkan headers 1.3.290 (C:\VulkanSDK\1.3.290.0\Include), also 275 (C:\vcpkg\include)`},
			[]string{`1.3.290.0，位于 C:\VulkanSDK\1.3.290.0`, `1.3.290 (C:\VulkanSDK\1.3.290.0\Include)，另有 275 (C:\vcpkg\include)`}},
		{machine.Vulkan{SDKVersion: "1.4.313.0"},
			[]string{"Vulkan SDK 1.4.313.0 (installed; VULKAN_SDK is not set in this shell)"},
			[]string{"1.4.313.0（已安装；此 shell 中未设置 VULKAN_SDK）"}},
	} {
		vk := c.vk
		vk.Glslc, vk.SPIRVHeaders = "/usr/bin/glslc", true
		fs := checkVulkanSDK(&machine.Snapshot{Vulkan: vk}, "vulkan")
		if len(fs) != 1 || fs[0].Status != OK {
			t.Fatalf("vk.sdk: %+v", fs)
		}
		for _, w := range c.en {
			if !strings.Contains(fs[0].Summary, w) {
				t.Errorf("English %q lacks %q", fs[0].Summary, w)
			}
		}
		zh := NewTranslator(LangZhCN).Finding(fs[0]).Summary
		for _, w := range c.zh {
			if !strings.Contains(zh, w) {
				t.Errorf("zh-CN %q lacks %q", zh, w)
			}
		}
		for _, en := range []string{" at ", "installed", "also", "not set"} {
			if strings.Contains(zh, en) {
				t.Errorf("zh-CN %q keeps English %q", zh, en)
			}
		}
	}
}
