package failures

import "testing"

// TestGPUPackHIPNoKernelImage: HIP's string for hipErrorNoBinaryForGpu is
// CUDA's for cudaErrorNoKernelImageForDevice ("no kernel image is available
// for execution on the device"). Printed as a ROCm or HIP error it names
// the HIP binary built for another gfx target, and only that; the CUDA
// wording keeps naming the CUDA cause.
func TestGPUPackHIPNoKernelImage(t *testing.T) {
	checkNamed(t, []invCase{
		{"ROCm error: no kernel image is available for execution on the device", "hip-invalid-device-function", true},
		{"RuntimeError: HIP error: no kernel image is available for execution on the device", "hip-invalid-device-function", true},
		{"CUDA error: no kernel image is available for execution on the device", "cuda-no-kernel-image", false},
		{"CUDA error 209 at ggml-cuda.cu:7124: no kernel image is available for execution on the device", "cuda-no-kernel-image", false},
	})
	checkNotNamed(t, []nearMiss{
		{"ROCm error: no kernel image is available for execution on the device", "cuda-no-kernel-image"},
		{"  current device: 0, in function ggml_cuda_compute_forward\nROCm error: no kernel image is available for execution on the device", "cuda-no-kernel-image"},
		{"RuntimeError: HIP error: no kernel image is available for execution on the device", "cuda-no-kernel-image"},
	})
}

// TestGPUPackDeviceLostAfterOOM: a Vulkan device lost right after the
// driver ran out of memory is that memory's consequence: only
// gpu-out-of-memory is named. A device lost alone stays a probable
// vulkan-no-driver.
func TestGPUPackDeviceLostAfterOOM(t *testing.T) {
	checkNamed(t, []invCase{
		{"radv/amdgpu: Not enough memory for command submission.\nggml_vulkan: device lost on Vulkan0\nllama_model_load: error loading model: vk::Queue::submit: ErrorDeviceLost", "gpu-out-of-memory", true},
		{"ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\nterminate called after throwing an instance of 'vk::DeviceLostError'", "gpu-out-of-memory", false},
		{"terminate called after throwing an instance of 'vk::DeviceLostError'\n  what():  vk::Queue::submit: ErrorDeviceLost", "vulkan-no-driver", true},
	})
}
