package failures

import "testing"

// The invariants added for batch 15's dev logs (issue #15, turn 9): each
// names the expected ID with the expected confidence; near misses below.
func TestBatch15Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// bfloat16 types missing: a toolkit before CUDA 11.0 (NVIDIA/apex#1310, CUDA 10.2)
		{`csrc/megatron/fused_weight_gradient_dense_16bit_prec_cuda.cu(33): error: identifier "CUDA_R_16BF" is undefined`, "cuda-toolkit-too-old", false},
		// (cuda_bf16.h missing stays probable: an include path can lose it too)
		{"kernels/bf16.cu:3:10: fatal error: cuda_bf16.h: No such file or directory", "cuda-toolkit-too-old", true},
		{`src/k.cu(12): error: identifier "__nv_bfloat16" is undefined`, "cuda-toolkit-too-old", true},
		// clinfo's rows joined by a paste that lost the line break (koboldcpp#247)
		{"Number of platforms                               0                                                     ICD loader properties", "opencl-no-platform", false},
		{"Number of platforms                               0", "opencl-no-platform", false},
		// sm_50 to sm_72: dropped by CUDA 13, too new for an nvcc before it:
		// probable; below sm_50 dropped, sm_75 and newer too new, certain
		{"nvcc fatal   : Unsupported gpu architecture 'compute_60'", "nvcc-arch-dropped", true},
		{"nvcc fatal   : Value 'sm_70' is not defined for option 'gpu-architecture'", "nvcc-arch-dropped", true},
		{"nvcc fatal   : Unsupported gpu architecture 'compute_35'", "nvcc-arch-dropped", false},
		{"nvcc fatal   : Unsupported gpu architecture 'compute_89'", "nvcc-arch-too-new", false},
		// a device out of memory after an allocation that did not fall back
		{"ggml_vulkan: Device memory allocation of size 4294967296 failed.\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "gpu-out-of-memory", false},
		// unless_prev reads the line just before: another line in between
		// and the error is the device's own again
		{"ggml_vulkan: Failed to allocate pinned memory.\nggml_vulkan: Device memory allocation of size 4294967296 failed.\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "gpu-out-of-memory", false},
		// the pinned-memory fallback first, a real device allocation failing later
		{"ggml_vulkan: Failed to allocate pinned memory.\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\nllama_model_load: loading model\nggml_vulkan: Device memory allocation of size 4294967296 failed.\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "gpu-out-of-memory", false},
	})
	checkNotNamed(t, []nearMiss{
		// ggml_vulkan falls back to ordinary host memory when pinning fails
		// (ggml-vulkan.cpp's ggml_vk_host_malloc; ggml-org/llama.cpp#9271)
		{"ggml_vulkan: Failed to allocate pinned memory.\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\nllama_model_load: loaded meta data", "gpu-out-of-memory"},
		// the two lines read joined (a paste whose first line looked wrapped)
		{"ggml_vulkan: Failed to allocate pinned memory.ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "gpu-out-of-memory"},
		// blank lines between the two do not count
		{"ggml_vulkan: Failed to allocate pinned memory.\n\n\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", "gpu-out-of-memory"},
		{"Number of platforms                               2", "opencl-no-platform"},
		{"Number of platforms 0.5 (sic)", "opencl-no-platform"},
		{`src/k.cu(12): error: identifier "CUDA_R_16F" is undefined`, "cuda-toolkit-too-old"},
		{"nvcc fatal   : Unsupported gpu architecture 'compute_60'", "nvcc-arch-too-new"},
	})
}

// Unreal Engine's loader names the import it did not find (mika314/UELlama#1).
func TestBatch15UnrealMissingImport(t *testing.T) {
	checkNamed(t, []invCase{
		{"[2023.10.07-15.59.05:337][  0]LogWindows: Failed to preload 'H:/p/Plugins/UELlama/Binaries/Win64/llama.dll' (GetLastError=126)\n[2023.10.07-15.59.05:337][  0]LogWindows:   Missing import: cudart64_12.dll", "cuda-runtime-dll-missing", false},
		{"LogWindows:   Missing import: MSVCP140.dll", "vc-runtime-dll-missing", false},
	})
	checkNotNamed(t, []nearMiss{
		{"LogWindows: Loaded H:/p/Binaries/Win64/cudart64_12.dll", "cuda-runtime-dll-missing"},
		{"LogWindows:   Missing import: user32.dll", "vc-runtime-dll-missing"},
	})
}
