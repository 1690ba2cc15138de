package failures

import "testing"

// Red team of the concepts layer and of turn 6's certain signatures (issue
// #15, h-redteam6): lines where a concept's noun meets a failure shape, or a
// signature's words appear, while the cause is another one or none. The
// one-line look-alikes of each concept are its near_misses
// (data/concepts/*.json, TestConceptExamples); these are the ones that need
// more than one line or that a signature, not a concept, would name.
func TestRedTeam6NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// a multi-backend build probes every backend: SYCL or ROCm finds no
		// device while Vulkan found the GPU (the log of a run that works)
		{"ggml_sycl_init: no SYCL devices found\nggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = AMD Radeon RX 6600 (RADV NAVI23) (radv) | uma: 0 | fp16: 1", "sycl-no-device"},
		{"ggml_cuda_init: no ROCm devices found\nggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = AMD Radeon RX 6600 (RADV NAVI23) (radv) | uma: 0 | fp16: 1", "rocm-no-device"},

		// a Vulkan instance that failed in one probe while ggml-vulkan then
		// found the GPU: the driver is there
		{"vkCreateInstance failed with ERROR_INCOMPATIBLE_DRIVER\nggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = AMD Radeon RX 6600 (RADV NAVI23) (radv) | uma: 0 | fp16: 1", "vulkan-no-driver"},

		// model-arch-unsupported (certain since turn 6): an image or video
		// model's GGUF (ComfyUI-GGUF's architectures: flux, sd3, wan ...) given
		// to an LLM runner; no llama.cpp release loads it, so "update
		// llama.cpp" is the wrong fix
		{"Failed to load model flux1-dev-Q4_0.gguf: Unsupported model architecture: flux", "model-arch-unsupported"},
		{"Error loading wan2.1-t2v-14b-Q4_K_M.gguf: Unsupported model architecture: wan", "model-arch-unsupported"},
		{"llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'flux'", "model-arch-unsupported"},
		{"llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'sd3'", "model-arch-unsupported"},
	})
}
