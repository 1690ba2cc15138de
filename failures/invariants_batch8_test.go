package failures

import "testing"

// The invariants added for batch 8's dev logs (issue #15, h-tune8): each log
// names the expected ID with the expected confidence; the probable ones carry
// their evidence lines.
func TestBatch8Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// llama.cpp's argument errors behind any prefix a supervisor adds
		// (llama-swap, docker compose, a timestamp on top of both)
		{"llama-swap-1  | error while handling argument \"--flash-attn\": error: unkown value for --flash-attn: '--ctx-size'", "engine-flag-fa-value", false},
		{"2025-09-04T10:00:00.123456789Z llama-swap-1  | error while handling argument \"--flash-attn\": error: unkown value for --flash-attn: '--ctx-size'", "engine-flag-fa-value", false},
		{"[INFO] <qwen> error while handling argument \"-fa\": expected value for argument", "engine-flag-fa-value", false},
		{"2025-09-04T10:00:00Z llama-1  | error while handling argument \"--draft-max\": the argument has been removed. use --spec-draft-n-max", "engine-flag-removed", false},

		// Docker's older wording of a runtime the daemon has not registered
		// (the CUDA pack's signature, merged at the same time)
		{"docker: Error response from daemon: Unknown runtime specified nvidia.", "docker-gpu-runtime-missing", false},
		{"Error response from daemon: Unknown runtime specified nvidia", "docker-gpu-runtime-missing", false},

		// a build script comparing the GPU with nvcc's own target list (candle, bindgen_cuda)
		{"  thread 'main' panicked at 'nvcc cannot target gpu arch 89. Available nvcc targets are [35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87].', build.rs:145:17", "nvcc-arch-too-new", false},
		{"thread 'main' panicked at build.rs:120:9:\nnvcc cannot target gpu arch 120. Available nvcc targets are [50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90].", "nvcc-arch-too-new", false},
		{"Error: CUDA compute cap 100 is higher than the highest gpu code from nvcc 90", "nvcc-arch-too-new", false},

		// the ggml-era loaders: the file is not in the container this loader reads
		{"./models/7B/ggml-model-q4_0.bin: invalid model file (bad magic [got 0x67676d66 want 0x67676a74])\n\tyou most likely need to regenerate your ggml files", "model-file-invalid", false},
		{"whisper_model_load: invalid model data (bad magic)", "model-file-invalid", false},
		{"gpt2_model_load: invalid model file 'models/gpt-2-117M/ggml-model.bin' (bad magic)", "model-file-invalid", false},

		// CUDA's invalid device function by its pre-10.1 number (HIP's is 98) or by its name:
		// probable, as every invalid device function (a kernel that does not exist ends so too)
		{"THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCTensorMathPointwise.cu line=247 error=8 : invalid device function", "cuda-no-kernel-image", true},
		{"RuntimeError: cuda runtime error (8) : invalid device function at /pytorch/torch/lib/THC/generic/THCTensorMathPointwise.cu:247", "cuda-no-kernel-image", true},
		{"F0512 10:00:00.000000 1234 im2col.cu:61] Check failed: error == cudaSuccess (8 vs. 0)  invalid device function", "cuda-no-kernel-image", true},
		{"cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInvalidDeviceFunction: invalid device function", "cuda-no-kernel-image", true},
		// THC's wording with the newer number only beside an NVIDIA line
		{"GPU 0: NVIDIA GeForce RTX 3090\nRuntimeError: cuda runtime error (98) : invalid device function at /pytorch/aten/src/THC/THCGeneral.cpp:383", "cuda-no-kernel-image", true},

		// ONNX Runtime's CUDA provider DLL with a dependency missing (Windows' 126)
		{`2024-08-16 15:41:33.79 [E:onnxruntime:Default, provider_bridge_ort.cc:1992 onnxruntime::TryGetProviderInfo_CUDA] D:\a\_work\1\s\onnxruntime\core\session\provider_bridge_ort.cc:1637 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "" when trying to load "C:\env\lib\site-packages\onnxruntime\capi\onnxruntime_providers_cuda.dll"`, "cuda-runtime-dll-missing", true},
		{`[ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 "The specified module could not be found." when trying to load "C:\Python311\Lib\site-packages\onnxruntime\capi\onnxruntime_providers_cuda.dll"`, "cuda-runtime-dll-missing", true},
	})
}

// Near-misses: the same words for something else, or one of the two signals
// alone. The ID in each case must not be named.
func TestBatch8NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// another flag's bad value is not -fa's
		{"error while handling argument \"--cache-type-k\": error: unknown value for --cache-type-k: 'q4'", "engine-flag-fa-value"},
		{"llama-1  | error while handling argument \"--ctx-size\": expected value for argument", "engine-flag-fa-value"},
		// the words inside another word are not the message
		{"noerror while handling argument \"--flash-attn\": expected value for argument", "engine-flag-fa-value"},

		// an unknown runtime that is not NVIDIA's
		{"docker: Error response from daemon: Unknown runtime specified runsc.", "docker-gpu-runtime-missing"},

		// an arch older than the toolkit (dropped, not too new), and nvcc's list without a verdict
		{"thread 'main' panicked at 'nvcc cannot target gpu arch 30. Available nvcc targets are [35, 37, 50, 52].'", "nvcc-arch-too-new"},
		{"nvcc --list-gpu-code: sm_50 sm_52 sm_53 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90", "nvcc-arch-too-new"},

		// "bad magic" in another program; a GGUF read by a pre-GGUF loader is the engine's age
		{"error: not an sstable (bad magic number)", "model-file-invalid"},
		{"tst_brk: Invalid shared memory region (bad magic)", "model-file-invalid"},
		{"whisper_model_load: invalid model file (bad magic [got 0x46554747 want 0x67676d6c])", "model-file-invalid"},

		// invalid device function from HIP, HIP's number, or 98 with nothing saying NVIDIA
		{"RuntimeError: HIP error: invalid device function", "cuda-no-kernel-image"},
		{"hipErrorInvalidDeviceFunction: invalid device function", "cuda-no-kernel-image"},
		{"RuntimeError: cuda runtime error (98) : invalid device function at /pytorch/aten/src/THC/THCGeneral.cpp:383", "cuda-no-kernel-image"},
		{"ROCm version: 5.4\nAMD Radeon RX 6800 XT\nRuntimeError: cuda runtime error (98) : invalid device function at THCGeneral.cpp:383", "cuda-no-kernel-image"},
		{"THCudaCheck FAIL file=THCGeneral.cpp line=70 error=38 : no CUDA-capable device is detected", "cuda-no-kernel-image"},

		// another ONNX Runtime provider, another Windows code, or another program's 126
		{`LoadLibrary failed with error 126 "" when trying to load "C:\onnxruntime\capi\onnxruntime_providers_tensorrt.dll"`, "cuda-runtime-dll-missing"},
		{`LoadLibrary failed with error 193 "" when trying to load "C:\onnxruntime\capi\onnxruntime_providers_cuda.dll"`, "cuda-runtime-dll-missing"},
		{`OSError: [WinError 126] The specified module could not be found. Error loading "C:\torch\lib\c10_cuda.dll" or one of its dependencies.`, "cuda-runtime-dll-missing"},
		// a DLL-not-found exit status names no DLL (accepted miss anything-llm-1795)
		{"Ollama call failed with status code 500: llama runner process has terminated: exit status 0xc0000135", "cuda-runtime-dll-missing"},
	})
}
