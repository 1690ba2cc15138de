package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

func write(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScanSourceMarkers(t *testing.T) {
	dir := t.TempDir()
	if f := ScanSource(dir); len(f.VulkanNeeds)+len(f.Options)+len(f.GlslcNeeds) != 0 || !f.Scanned {
		t.Errorf("empty tree: %+v", f)
	}
	write(t, dir, "ggml/src/ggml-vulkan/ggml-vulkan.cpp", "std::vector<vk::LayerSettingEXT> settings;\n")
	write(t, dir, "ggml/src/ggml-vulkan/vulkan-shaders/vulkan-shaders-gen.cpp", `    string_to_spv("fa_decode_ph1", "flash_attn_decode_phase_1.comp", {}, true, true, false, false);`+"\n")
	write(t, dir, "CMakeLists.txt", "option(LLAMA_USE_PREBUILT_UI \"x\" ON)\n# LLAMA_USE_PREBUILT_UIX is another name\n")
	f := ScanSource(dir)
	if !slices.Equal(f.VulkanNeeds, []string{"vk-ext-layer-settings"}) || !slices.Equal(f.Options, []string{"LLAMA_USE_PREBUILT_UI"}) || !slices.Equal(f.GlslcNeeds, []string{"glslc-khr-cooperative-matrix"}) {
		t.Errorf("scan = %+v", f)
	}
}

func TestCheckGlslcRecordsTheFailedFeatureTest(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "ggml/src/ggml-vulkan/vulkan-shaders/vulkan-shaders-gen.cpp", `string_to_spv("fa_decode_ph1", "flash_attn_decode_phase_1.comp", {}, true`)
	write(t, dir, "ggml/src/ggml-vulkan/vulkan-shaders/feature-tests/coopmat.comp", "#version 460\n")
	f := ScanSource(dir)
	test := filepath.Join(dir, "ggml/src/ggml-vulkan/vulkan-shaders/feature-tests/coopmat.comp")
	var ran []string
	got := CheckGlslc(f, dir, "/usr/bin/glslc", func(name string, args ...string) (string, bool) {
		ran = append(append(ran, name), args...)
		return test + ":3: error: '#extension' : extension not supported: GL_KHR_cooperative_matrix\n1 error generated.\n", false
	})
	if !slices.Contains(ran, "--target-env=vulkan1.3") || !slices.Contains(ran, test) {
		t.Errorf("ran %v", ran)
	}
	if msg := got.GlslcLacks["glslc-khr-cooperative-matrix"]; msg != "coopmat.comp:3: error: '#extension' : extension not supported: GL_KHR_cooperative_matrix" {
		t.Errorf("lacks = %q", msg)
	}
	ok := CheckGlslc(f, dir, "/usr/bin/glslc", func(string, ...string) (string, bool) { return "", true })
	if len(ok.GlslcLacks) != 0 {
		t.Errorf("passing glslc recorded %v", ok.GlslcLacks)
	}
}

// The real llama.cpp tree (scripts/deps.d/30-llamacpp-src.sh): it needs
// VK_EXT_layer_settings and has the web-UI download.
func TestScanSourceRealTree(t *testing.T) {
	dir := testutil.RealLlamaTree(t)
	f := ScanSource(dir)
	if !slices.Contains(f.VulkanNeeds, "vk-ext-layer-settings") || !slices.Contains(f.Options, "LLAMA_USE_PREBUILT_UI") {
		t.Errorf("scan = %+v", f)
	}
}
