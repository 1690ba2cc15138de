package failures

import "testing"

// Red team of the certain signatures added in turn 5 (issue #15): lines a
// real log holds that carry a signature's words while the cause is another
// one or none. Each must not name the ID (or only as probable, with the line
// as evidence); the real positives stay in the newid2r/newid2b tables.
func TestRedTeamNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// server-port-in-use: a retry that then succeeds, a test suite's
		// expected result, an errno table, a help text
		{"WARNING: port 8080 busy (address already in use), trying next port 8081\nllama server listening at http://127.0.0.1:8081", "server-port-in-use"},
		{"Socket error 10048 (retrying on port 8081)", "server-port-in-use"},
		{"  ✓ rejects with EADDRINUSE when the port is taken (12 ms)", "server-port-in-use"},
		{"tests/test_server.py::test_port_taken PASSED [OSError: [Errno 98] Address already in use]", "server-port-in-use"},
		{"EADDRINUSE      98      Address already in use", "server-port-in-use"},
		{"  --reuse-port    allow binding to a port already in use (avoids EADDRINUSE after a restart)", "server-port-in-use"},

		// model-file-not-found: llama_file failing to WRITE a file (a session,
		// a slot, an imatrix) into a folder that does not exist; a test suite
		// that expects the error (recorded here: llama-completion --prompt-cache
		// /nonexistent/dir/cache.bin, exit 0)
		{"hi0.00.021.794 E llama_state_save_file: error saving session file: failed to open /nonexistent/dir/cache.bin: No such file or directory", "model-file-not-found"},
		{"srv  handle_slots_save: failed to open slots/slot0.bin: No such file or directory", "model-file-not-found"},
		{"save_imatrix: failed to open out/imatrix.gguf: No such file or directory", "model-file-not-found"},
		{"tests/test_load.py::test_missing_path_raises PASSED  [expects ValueError: Model path does not exist: missing.gguf]", "model-file-not-found"},

		// rocm-no-device / sycl-no-device: a multi-backend build probes every
		// backend; the one without a device says so while another one has
		// found its GPU (ollama's ROCm library on an NVIDIA machine)
		{"ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\nload_backend: loaded ROCm backend from /usr/lib/ollama/libggml-hip.so\nggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes", "rocm-no-device"},
		{"time=2025-01-01T10:00:00.000Z level=DEBUG source=amd_linux.go:100 msg=\"rocm probe\" error=\"hipErrorNoDevice\"\ntime=2025-01-01T10:00:00.000Z level=INFO source=types.go:130 msg=\"inference compute\" id=GPU-1 library=cuda name=\"NVIDIA GeForce RTX 3090\"", "rocm-no-device"},
		{"ggml_sycl_init: no SYCL device available: No device of requested type available. -1 (PI_ERROR_DEVICE_NOT_FOUND)\nggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes", "sycl-no-device"},
		{"Found 0 SYCL devices:\nggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32", "sycl-no-device"},

		// the mirror: CUDA's probe on a machine whose ROCm found the AMD GPU;
		// a wrong-machine library the linker skipped in a build that succeeded
		{"ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\nggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32", "cuda-no-device"},
		{"LINK : warning LNK4272: library machine type 'x86' conflicts with target machine type 'x64'\nBuild succeeded.\n    1 Warning(s)\n    0 Error(s)", "msvc-wrong-arch"},

		// host-compiler-too-old: another -std value that begins like a
		// supported one (recorded: gcc -std=c17x)
		{"gcc: error: unrecognized command-line option '-std=c17x'; did you mean '-std=c17'?", "host-compiler-too-old"},
		{"gcc: error: unrecognized command-line option ‘-std=c11x’; did you mean ‘-std=c11’?", "host-compiler-too-old"},
	})
}

// The look-alikes that still point at the cause are hedged: a warning-level
// line, or a service that says it gave up on one socket and goes on.
func TestRedTeamHedged(t *testing.T) {
	checkNamed(t, []invCase{
		{"[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 98 - Address already in use).", "server-port-in-use", true},
		// llama.cpp's compute buffer did not fit with pipeline parallelism
		// (several GPUs); it retried without it and went on (the
		// out of memory happened, so it stays, hedged: ref-gpu-out-of-memory-
		// compute-buffer-multi-gpu-llamacpp-pr26297-win.log is such a log)
		{"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1234.00 MiB on device 1: cudaMalloc failed: out of memory\nggml_gallocr_reserve_n: failed to allocate CUDA1 buffer of size 1293942784\nllama_context: compute buffer allocation failed, retrying without pipeline parallelism\nllama_context:      CUDA0 compute buffer size =   560.00 MiB\nmain: server is listening on http://127.0.0.1:8080 - starting the main loop", "gpu-out-of-memory", true},
		// a bind error an earlier start printed, then the server listening
		{"Error: listen tcp 127.0.0.1:11434: bind: address already in use\nListening on 127.0.0.1:11434 (version 0.5.7)", "server-port-in-use", true},
		// a newer CUDA runtime's probe where an older one then found the GPU
		// (ollama ships two); found BEFORE the failure (an old build that
		// worked, pasted beside a new one that does not) stays certain
		{"load_backend: loaded CUDA backend from /usr/lib/ollama/cuda_v13/libggml-cuda.so\nggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version\nload_backend: loaded CUDA backend from /usr/lib/ollama/cuda_v12/libggml-cuda.so\nggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes", "cuda-driver-too-old", true},
		{"[mdns] warning: could not bind 224.0.0.251:5353: address already in use; mDNS discovery disabled", "server-port-in-use", true},
	})
	// and the errors themselves stay certain
	checkNamed(t, []invCase{
		{"OSError: [Errno 98] Address already in use", "server-port-in-use", false},
		{"ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected", "rocm-no-device", false},
		{"g++: error: unrecognized command-line option '-std=c++17'", "host-compiler-too-old", false},
		// a ROCm machine whose Vulkan device is the same AMD GPU: ROCm's own
		// failure is still the cause of running without it (only another
		// vendor's own runtime finding its GPU makes the probe a by-product)
		{"ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\nggml_vulkan: 0 = AMD Radeon RX 6600 (RADV NAVI23) | uma: 0 | fp16: 1", "rocm-no-device", false},
		{"ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version", "cuda-driver-too-old", false},
		{"ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes\nggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version", "cuda-driver-too-old", false},
		// a pasted session: the converter, then a run with a wrong path
		{"python convert_hf_to_gguf.py ./Qwen2-7B --outfile models/qwen2-7b-f16.gguf\nllama_model_load: error loading model: failed to open models/qwen2-7b-q4.gguf: No such file or directory", "model-file-not-found", false},
		{"LINK : warning LNK4272: library machine type 'x86' conflicts with target machine type 'x64'\nfoo.obj : error LNK2019: unresolved external symbol cudaMalloc referenced in function main", "msvc-wrong-arch", false},
		{"llama_model_load: error loading model: failed to open models/7B/ggml-model-q4_0.gguf: No such file or directory", "model-file-not-found", false},
		// words of saving or exporting in the PATH are not the program saving
		{"llama_model_load: error loading model: failed to open /content/saved_models/output/export/model-q4.gguf: No such file or directory", "model-file-not-found", false},
		{"Error: open /kaggle/working/output/model.gguf: no such file or directory", "model-file-not-found", false},
		// a GPU of another vendor seen by Vulkan is most often the integrated
		// one beside the dGPU the failing runtime was for (an Intel or Radeon
		// iGPU beside an NVIDIA laptop GPU): the failure stays named
		{"ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\nggml_vulkan: Found 1 Vulkan devices:\nggml_vulkan: 0 = Intel(R) UHD Graphics 630 (Intel open-source Mesa driver) | uma: 1 | fp16: 1", "cuda-no-device", false},
	})
}

// The most frequent certain signatures of the dev corpus: an allocator's
// out-of-memory that the program caught and retried smaller is not the
// failure.
func TestRedTeamFrequentNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		{"WARNING: CUDA out of memory. Tried to allocate 2.00 GiB. Retrying with batch size 8\ntraining finished", "gpu-out-of-memory"},
		{"torch.OutOfMemoryError: CUDA out of memory (caught by find_executable_batch_size, retrying with a smaller batch)", "gpu-out-of-memory"},
		// a projector passed as the model is not an engine too old for it
		{"llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'clip'", "model-arch-unsupported"},
	})
	checkNamed(t, []invCase{
		// the retry failed too: out of memory again after it
		{"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1234.00 MiB on device 1: cudaMalloc failed: out of memory\nllama_context: compute buffer allocation failed, retrying without pipeline parallelism\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 2468.00 MiB on device 0: cudaMalloc failed: out of memory\nllama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers", "gpu-out-of-memory", false},
		// listening first, then a second start on the same port
		{"main: server is listening on http://127.0.0.1:8080 - starting the main loop\nError: listen tcp 127.0.0.1:8080: bind: address already in use", "server-port-in-use", false},
		{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 7.79 GiB", "gpu-out-of-memory", false},
	})
}
