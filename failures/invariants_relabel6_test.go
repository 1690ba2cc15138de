package failures

import "testing"

// The rules for the dev logs that turn 6's label audit (h-labels: labels
// corrected from each thread's recorded cause, never from the log) gave an
// ID: each names the expected ID with the expected confidence.
func TestRelabel6Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// cuDNN 8 on Windows names the zlib DLL it depends on
		{"Could not locate zlibwapi.dll. Please make sure it is in your library path!", "cuda-runtime-dll-missing", false},
		{"2023-09-12 10:01:02.123 [W:onnxruntime] Could not locate zlibwapi.dll. Please make sure it is in your library path!", "cuda-runtime-dll-missing", false},
		// the rest of a model path that an unquoted space split, refused by llama.cpp's argument parser
		{"error: invalid argument: LLMS\\gemma-3-12b-it-Q4_K_M.gguf", "model-file-not-found", true},
		{"error: invalid argument: Models/llama-3-8b.Q4_K_M.gguf", "model-file-not-found", true},
	})
}

// Near misses: the same words where they do not name these causes.
func TestRelabel6NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// another program's DLL, worded the same
		{"Could not locate zlib1.dll. Please make sure it is in your library path!", "cuda-runtime-dll-missing"},
		// an unknown option, not a path
		{"error: invalid argument: --n-gpu-layer", "model-file-not-found"},
		// a whole model file named without -m: no path separator in it
		{"error: invalid argument: model.gguf", "model-file-not-found"},
		// an absolute path is a model named without -m, not the rest of a split path
		{"error: invalid argument: /models/llama.gguf", "model-file-not-found"},
		{"error: invalid argument: C:\\models\\llama.gguf", "model-file-not-found"},
	})
}

// The second label audit's dev logs (h-labels2: labels made consistent
// across records of one cause, from the cause texts only).
func TestRelabel6bSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// NVML refused by the guest OS: a WSL2 or Hyper-V guest without the GPU
		{"Failed to initialize NVML: GPU access blocked by the operating system", "cuda-no-device", true},
		{"$ nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\nFailed to properly shut down NVML: GPU access blocked by the operating system", "cuda-no-device", true},
		// cudaErrorUnknown (999) as dlib reports it
		{"Error while calling cudaGetDevice(&the_device_id) in file\n...\\dlib\\cuda\\gpu_data.cpp:201. code: 999, reason: unknown error", "cuda-no-device", true},
		{"dlib/cuda/cuda_utils.h:164. code: 999, reason: unknown error", "cuda-no-device", true},
	})
	checkNotNamed(t, []nearMiss{
		// another NVML failure, another code
		{"Failed to initialize NVML: Unknown Error", "cuda-no-device"},
		{"code: 998, reason: unknown error", "cuda-no-device"},
	})
}
