// Fixture code (ours): the construct current llama.cpp's ggml-vulkan.cpp uses
// since ggml-org/llama.cpp#17637 (VK_EXT_layer_settings through Vulkan-Hpp),
// compiled against the Vulkan headers CMake found. Headers older than 1.3.268
// do not have these types.
#include <vulkan/vulkan.hpp>

#include <vector>

extern "C" int fixture_layer_settings(int on) {
    VkBool32 value = on ? VK_TRUE : VK_FALSE;
    std::vector<vk::LayerSettingEXT> settings = {
        {"VK_LAYER_KHRONOS_validation", "validate_best_practices", vk::LayerSettingTypeEXT::eBool32, 1, &value},
    };
    vk::LayerSettingsCreateInfoEXT info(settings);
    return static_cast<int>(info.settingCount);
}
