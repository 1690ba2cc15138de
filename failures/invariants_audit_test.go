package failures

import "testing"

// The confidence audit of issue #15: a finding is certain only when the
// matched line states the cause; a symptom several causes print is
// probable. Each case below is a near miss: the line another cause prints
// next to (or instead of) the symptom, and the confidence each ID must get.
// want lists every finding as ID/confidence, in the order explain reports
// them; an empty want means the log must name nothing.
func TestAuditConfidence(t *testing.T) {
	for _, c := range []struct {
		log  string
		want []string
	}{
		// --- runtime ---
		// an exit code of the device listing is any crash or abort; a driver that says why outranks it
		{"llama-server --list-devices failed: exit status 0xc0000409", []string{"backend-probe-crash/probable"}},
		{"ggml_cuda_init: failed to initialize CUDA: CUDA driver version is insufficient for CUDA runtime version\nllama-server --list-devices failed: exit status 134",
			[]string{"cuda-driver-too-old/certain", "backend-probe-crash/probable"}},
		{"vulkan: INFO: Vulkan crashed during device probe; trying next backend", []string{"backend-probe-crash/certain"}},
		// "no usable GPU" and an empty device list are what a missing driver prints too
		{"warning: no usable GPU found, --gpu-layers option will be ignored", []string{"gpu-backend-not-loaded/probable"}},
		{"ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\nwarning: no usable GPU found, --gpu-layers option will be ignored", []string{"cuda-no-device/certain"}},
		{"warning: not compiled with GPU offload support, --gpu-layers option will be ignored", []string{"gpu-backend-not-loaded/certain"}},
		{"llama_model_load_from_file_impl: no backends are loaded. hint: use ggml_backend_load() or ggml_backend_load_all() to load a backend before calling this function", []string{"gpu-backend-not-loaded/probable"}},
		{"load_backend: failed to load C:\\llama\\ggml-cpu.dll: vcruntime140_1.dll was not found\nllama_model_load_from_file_impl: no backends are loaded. hint: use ggml_backend_load() or ggml_backend_load_all() to load a backend before calling this function",
			[]string{"vc-runtime-dll-missing/certain"}},
		// a buffer that did not fit: certain only with the allocator's out-of-memory words
		{"ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648", []string{"gpu-out-of-memory/probable"}},
		{"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 2048.00 MiB on device 0: cudaMalloc failed: out of memory\nggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648", []string{"gpu-out-of-memory/certain"}},
		{"ggml_backend_metal_buffer_type_alloc_buffer: failed to allocate Metal buffer of 8589934592 bytes (out of memory)", []string{"gpu-out-of-memory/certain"}},
		{"llama_model_load: error loading model: unable to allocate backend buffer", []string{"gpu-out-of-memory/probable"}},
		{"llama_init_from_model: failed to initialize the context: std::bad_alloc", []string{"gpu-out-of-memory/probable"}},
		{"ggml_vulkan: Device memory allocation of size 4294967296 failed.\nggml_vulkan: vk::Device::allocateMemory: ErrorUnknown", []string{"gpu-out-of-memory/probable"}},
		{"ggml_vulkan: Device memory allocation of size 4294967296 failed.\nggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory", []string{"gpu-out-of-memory/certain"}},
		// ggml-opencl's failed allocation names its OpenCL error: only -4 is exhausted memory
		{"ggml_backend_opencl_buffer_type_alloc_buffer: failed to allocate 512.00 MiB (err=-61). Consider reducing -ngl, lowering -c / -ub, or using quantized KV cache.", []string{"gpu-out-of-memory/probable"}},
		{"ggml_backend_opencl_buffer_type_alloc_buffer: failed to allocate 512.00 MiB (err=-4). Consider reducing -ngl, lowering -c / -ub, or using quantized KV cache.", []string{"gpu-out-of-memory/certain"}},
		// SYCL's pool says the device gave no memory, which a single allocation over the 4 GiB limit of some Intel GPUs prints too
		{"ggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 8589934592 Bytes of memory on device", []string{"gpu-out-of-memory/probable"}},
		{"Native API failed. Native API returns: UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY\nggml_backend_sycl_buffer_type_alloc_buffer: can't allocate 8589934592 Bytes of memory on device", []string{"gpu-out-of-memory/certain"}},
		// a lost Vulkan device is a hang, a timeout or a crash as often as a driver problem
		{"ggml_vulkan: device lost on AMD Radeon RX 6600 (RADV NAVI23)", []string{"vulkan-no-driver/probable"}},
		{"vk::PhysicalDevice::createDevice: ErrorDeviceLost", []string{"vulkan-no-driver/probable"}},
		{"terminate called after throwing an instance of 'vk::IncompatibleDriverError'", []string{"vulkan-no-driver/certain"}},
		// gguf.cpp's "failed to read ..." closes any error of its section: a tensor type this build does not know is the engine's age
		{"gguf_init_from_file_impl: tensor 'blk.0.attn_q.weight' has invalid ggml type 39. should be in [0, 39)\ngguf_init_from_file_impl: failed to read tensor info", []string{"model-arch-unsupported/probable"}},
		{"gguf_init_from_file_impl: failed to read tensor info", []string{"model-file-invalid/probable"}},
		{"gguf_init_from_file_impl: failed to read magic", []string{"model-file-invalid/certain"}},
		{"gguf_init_from_file_impl: invalid magic characters: '<!DO', expected 'GGUF'", []string{"model-file-invalid/certain"}},
		// Windows' loader code 126 is the library or one of its dependencies (cuDNN 8 without zlibwapi.dll); a DLL named as missing is certain
		{"Could not load library cudnn_cnn_infer64_8.dll. Error code 126\nPlease make sure cudnn_cnn_infer64_8.dll is in your library path!", []string{"cuda-runtime-dll-missing/probable"}},
		{"The code execution cannot proceed because cublas64_12.dll was not found. Reinstalling the program may fix this problem.", []string{"cuda-runtime-dll-missing/certain"}},
		{"OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\torch\\lib\\cudnn_cnn_infer64_8.dll\" or one of its dependencies.", []string{}},
		// a draft model without --spec-type is inert only from build b8955 on: the command line alone is probable
		{"$ llama-server -m big.gguf -md small.gguf", []string{"spec-decoding-inactive/probable"}},
		{"$ llama-server -m big.gguf -md small.gguf\nbuild: 9120 (0ab3c1f77) with GNU 13.3.0 for Linux x86_64", []string{"spec-decoding-inactive/certain"}},
		{"$ llama-server -m big.gguf -md small.gguf\nbuild: 8100 (0ab3c1f77) with GNU 13.3.0 for Linux x86_64", []string{}},
		// --- build ---
		// scikit-build gives up on every generator when any compiler is missing, on Linux too
		{"scikit-build could not get a working generator for your system. Aborting build.", []string{"msvc-env-missing/probable"}},
		{"error: Microsoft Visual C++ 14.0 or greater is required. Get it with \"Microsoft C++ Build Tools\"", []string{"msvc-env-missing/certain"}},
		// a driver API symbol missing at load time: a library built without -lcuda, or a libcuda older than the symbol
		{"OSError: /tmp/_MEI1/koboldcpp_cublas.so: undefined symbol: cuMemCreate", []string{"cuda-driver-lib-link/probable"}},
		{"/usr/bin/ld: ggml-cuda.cu.o: undefined reference to `cuMemCreate'", []string{"cuda-driver-lib-link/certain"}},
		// nvcc's "single input file" is any stray argument, not only an unquoted path
		{"nvcc fatal : A single input file is required for a non-link phase when an outputfile is specified", []string{"nvcc-unquoted-arg/probable"}},
		// CMake cannot identify a HIP compiler that cannot compile its probe for any reason (device libraries too)
		{"-- The HIP compiler identification is unknown", []string{"hip-sdk-not-found/probable"}},
		// CMake's CUDA wrappers: the compile that failed inside them has many causes; the nested one, when present, is certain
		{"  Failed to detect a default CUDA architecture.", []string{"cuda-arch-detect-failed/probable"}},
		{"  The CUDA compiler\n\n    \"/usr/local/cuda/bin/nvcc\"\n\n  is not able to compile a simple test program.", []string{"cuda-compiler-test-failed/probable"}},
		{"CMake Error at /usr/share/cmake-3.28/Modules/CMakeTestCUDACompiler.cmake:56 (message):", []string{"cuda-compiler-test-failed/probable"}},
		{"  The CUDA compiler\n\n    \"/usr/local/cuda/bin/nvcc\"\n\n  is not able to compile a simple test program.\n  /usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 12 are not supported!", []string{"nvcc-unsupported-gcc/certain"}},
		// --- cli ---
		// a flag that a newer llama.cpp removed is also unknown to a build older than the flag
		{"error: invalid argument: --draft-max", []string{"engine-flag-removed/probable"}},
		{"error: invalid argument: --memory-f32", []string{"engine-flag-removed/certain"}},
		{"error while handling argument \"--draft-max\": the argument has been removed. use --spec-draft-n-max or --spec-ngram-mod-n-max", []string{"engine-flag-removed/certain"}},
	} {
		d := Default().DiagnoseString(c.log + "\n")
		got := []string{}
		for _, f := range d.Findings {
			got = append(got, f.ID+"/"+f.Confidence)
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %v, want %v", c.log, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: got %v, want %v", c.log, got, c.want)
				break
			}
		}
	}
}
