package failures

import "testing"

// The invariants added for batch 7's dev logs (issue #15, h-tune7): each log
// names the expected ID with the expected confidence; the probable ones carry
// their evidence lines.
func TestBatch7Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// OpenCL's -1001 (CL_PLATFORM_NOT_FOUND_KHR) next to "platforms", or as an "Error Code"
		{"main:670: number of platforms : error -1001", "opencl-no-platform", false},
		{"Cannot get OpenCL platforms! (-1001)", "opencl-no-platform", false},
		{"Failed to get platforms: -1001", "opencl-no-platform", false},
		{"CLError: OpenCL Error Code: -1001 Type: UNKNOWN\n    at CL11.checkError (/home/u/node_modules/nooocl/lib/cl11.js:712:19)", "opencl-no-platform", false},
		{"pyopencl: OpenCL error -1001", "opencl-no-platform", false},

		// any program's undefined ggml symbol at load time: an older ggml library was loaded
		{"Error: llama runner process has terminated: error:/usr/lib/ollama/runners/cuda_v12_avx/ollama_llama_server: undefined symbol: ggml_backend_cuda_reg.", "ggml-backend-mismatch", false},
		{"./build/bin/llama-server: /usr/local/lib/libggml-base.so: undefined symbol: ggml_graph_reserve", "ggml-backend-mismatch", false},
		{`ImportError: /home/u/venv/lib/python3.11/site-packages/llama_cpp/lib/libllama.so: undefined symbol: llama_model_load_from_file`, "ggml-backend-mismatch", false},

		// ollama's "GPU too old" with or without a sentence between
		{"2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. Compute Capability detected: 5.2", "cuda-no-kernel-image", true},
		{"2024/01/10 10:00:00 gpu.go:140: CUDA GPU is too old. Compute Capability detected: 3.5", "cuda-no-kernel-image", true},

		// rocBLAS lists the Tensile libraries it has (none for this GPU), then the runner aborts
		{"Mar 02 06:28:39 host ollama[1295]: \"/usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary_lazy_gfx1100.dat\"\n" +
			"Mar 02 06:28:39 host ollama[1295]: \"/usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\n" +
			"Mar 02 06:28:39 host ollama[1295]: time=2025-03-02T06:28:39.656Z level=ERROR source=server.go:421 msg=\"llama runner terminated\" error=\"signal: aborted (core dumped)\"",
			"rocblas-arch-unsupported", true},
		{" List of available TensileLibrary Files : \n\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx906.dat\"\n\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat\"\nAborted (core dumped)", "rocblas-arch-unsupported", true},

		// a PyTorch OOM that did run the device out of memory is still named
		{"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacty of 6.00 GiB of which 1.10 GiB is free.", "gpu-out-of-memory", false},
		{"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 8.00 GiB of which 12.50 MiB is free.", "gpu-out-of-memory", false},
		{"RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 4.00 GiB total capacity; 3.10 GiB already allocated; 0 bytes free; 3.20 GiB reserved in total by PyTorch)", "gpu-out-of-memory", false},

		// a llamafile that carries its weights is still named
		{`ResourceUnavailable: Program 'llava-v1.5-7b-q4.llamafile.exe' failed to run: The specified executable is not a valid application for this OS platform.`, "llamafile-exe-too-large", true},
	})
}

// Near-misses: the same words for something else, or one of the two signals
// alone. The ID in each case must not be named.
func TestBatch7NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// -1001 without platforms, platforms without -1001, another OpenCL status
		{"HTTP request failed: error -1001 (timed out)", "opencl-no-platform"},
		{"number of platforms : 2", "opencl-no-platform"},
		{"Cannot get OpenCL platforms! (-5)", "opencl-no-platform"},
		{"CLError: OpenCL Error Code: -5 Type: CL_OUT_OF_RESOURCES", "opencl-no-platform"},
		{"platform build 10011 started", "opencl-no-platform"},

		// an undefined symbol that is not ggml's, and a link-time undefined reference (another cause)
		{"/usr/lib/ollama/runners/cuda_v12/ollama_llama_server: undefined symbol: cublasLtCreate", "ggml-backend-mismatch"},
		{"/usr/bin/ld: main.o: undefined reference to `ggml_backend_cuda_reg'", "ggml-backend-mismatch"},

		// an old GPU without ollama's verdict
		{"2024/01/14 19:50:06 gpu.go:94: Nvidia GPU detected\n2024/01/14 19:50:06 gpu.go:150: CUDA Compute Capability detected: 8.6", "cuda-no-kernel-image"},

		// the Tensile list alone (no abort), an abort alone, another file list
		{"\"/usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary_lazy_gfx1100.dat\"\n\"/usr/local/lib/ollama/rocm/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\nllama runner started in 3.2 seconds", "rocblas-arch-unsupported"},
		{"msg=\"llama runner terminated\" error=\"signal: aborted (core dumped)\"", "rocblas-arch-unsupported"},
		{"\"/usr/lib/ollama/libggml-hip.so\"\nAborted (core dumped)", "rocblas-arch-unsupported"},

		// PyTorch saying the device still had GiBs free for a MiB request: not a full device
		{"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 14.00 MiB. GPU 0 has a total capacty of 6.00 GiB of which 3.55 GiB is free. Of the allocated memory 1.36 GiB is allocated by PyTorch", "gpu-out-of-memory"},
		{"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 8.00 GiB total capacity; 1.20 GiB already allocated; 5.40 GiB free; 1.30 GiB reserved in total by PyTorch)", "gpu-out-of-memory"},

		// the bare versioned llamafile program carries no weights: the 4 GB limit cannot be it
		{`ResourceUnavailable: Program 'llamafile-server-0.2.exe' failed to run: An error occurred trying to start process 'C:\Users\u\Downloads\llamafile-server-0.2.exe' with working directory 'C:\Users\u\Downloads'. The specified executable is not a valid application for this OS platform.`, "llamafile-exe-too-large"},
		{`Program 'llamafile-0.8.6.exe' failed to run: The specified executable is not a valid application for this OS platform.`, "llamafile-exe-too-large"},
	})
}
