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
	})
}
