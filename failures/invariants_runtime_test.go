package failures

import "testing"

// Batch 5, runtime half (issue #15): the invariants added or changed for
// runtime and load failures. Each log names the expected ID and only it,
// with the expected confidence.
func TestRuntimeInvariantSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// ggml's CUDA error glued to a progress line or inside a bracket
		{"Processing Prompt [BLAS] (512 / 12710 tokens)CUDA error: out of memory", "gpu-out-of-memory", false},
		{"[CUDA error: out of memory current device: 0, in function alloc at ggml-cuda.cu:445", "gpu-out-of-memory", false},
		{"llama runner process has terminated: ROCm error: out of memory", "gpu-out-of-memory", false},
		// compute buffers that fail with a GPU in use
		{"llm_load_tensors: offloaded 33/33 layers to GPU\nllama_new_context_with_model: failed to allocate compute buffers", "gpu-out-of-memory", true},
		{"llama_kv_cache: Vulkan0 KV buffer size = 18.00 MiB\ngraph_reserve: failed to allocate compute buffers", "gpu-out-of-memory", true},
		// ggml-cuda's older wording of "no code for this GPU", and the newer one without a list
		{"ERROR: ggml-cuda was compiled without support for the current GPU architecture.", "cuda-no-kernel-image", false},
		{"ggml-cuda/mmq.cuh:2400: ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch 520. ggml-cuda.cu was compiled for: 610,700,750", "cuda-no-kernel-image", false},
		{"ERROR: CUDA kernel mul_mat_q has no device code compatible with CUDA arch 500.", "cuda-no-kernel-image", false},
		// a llama.cpp library symbol missing when the program loads: libraries of two builds
		{"./llama-server: symbol lookup error: ./llama-server: undefined symbol: mtmd_get_cap_from_file", "ggml-backend-mismatch", false},
		{"./llama-cli: symbol lookup error: build/src/libllama.so: undefined symbol: ggml_cpu_has_llamafile", "ggml-backend-mismatch", false},
		{"OSError: /venv/lib/python3.11/site-packages/llama_cpp/lib/libllama.so: undefined symbol: ggml_backend_cuda_init", "ggml-backend-mismatch", false},
		{"The procedure entry point ggml_backend_dev_count could not be located in the dynamic link library C:\\llama\\llama.dll.", "ggml-backend-mismatch", false},
		{"Der Prozedureinstiegspunkt \"llama_model_load_from_file\" wurde in der DLL \"C:\\llama\\llama-server.exe\" nicht gefunden.", "ggml-backend-mismatch", false},
		{"无法定位程序输入点 ggml_backend_load_all 于动态链接库 C:\\llama\\llama-server.exe 上。", "ggml-backend-mismatch", false},
		{"dyld[4242]: Symbol not found: _ggml_backend_metal_init", "ggml-backend-mismatch", false},
		// a backend that crashed while the devices were probed, in another loader's words
		{"vulkan: INFO: Vulkan crashed during device probe; trying next backend", "backend-probe-crash", false},
		{"CUDA backend crashed while probing devices", "backend-probe-crash", false},
		// the CUDA driver cannot be initialized (WSL2 libraries not mapped, a stale driver after suspend)
		{"ggml_cuda_init: failed to initialize CUDA: named symbol not found", "cuda-no-device", true},
		{"ggml_cuda_init: failed to initialize CUDA: unknown error", "cuda-no-device", true},
		// a Vulkan driver manifest whose driver does not initialize
		{"ggml_vk_available_devices_internal: ignoring Vulkan exception: vk::Instance::enumeratePhysicalDevices: ErrorInitializationFailed", "vulkan-no-driver", true},
		{"vkEnumeratePhysicalDevices failed: VK_ERROR_INITIALIZATION_FAILED", "vulkan-no-driver", true},
		// clinfo with no platform
		{"Number of platforms                               0", "opencl-no-platform", false},
		// a dependency listing that marks a DLL missing
		{"libomp140.x86_64.dll              MISSING   <---", "openmp-dll-missing", false},
		{"vulkan-1.dll    MISSING", "vulkan-no-driver", false},
		// the engine has no GPU backend to load
		{`time=2024-12-27T13:46:01.758 level=INFO source=routes.go:1339 msg="Dynamic LLM libraries" runners=[cpu]`, "gpu-backend-not-loaded", true},
		{`level=INFO source=common.go:49 msg="Dynamic LLM libraries" runners="[cpu cpu_avx cpu_avx2]"`, "gpu-backend-not-loaded", true},
		{"ggml_backend_load_best: failed to load C:\\Users\\x\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\ggml-cpu-alderlake.dll\nggml_backend_load_best: failed to load C:\\Users\\x\\AppData\\Local\\Programs\\Ollama\\lib\\ollama\\ggml-cpu-haswell.dll", "gpu-backend-not-loaded", true},
		// "invalid device function" after an AMD device line is HIP's
		{"ggml_cuda_init: found 1 ROCm devices:\nllama_model_load: loaded\nCUDA error: invalid device function", "hip-invalid-device-function", false},
		// ggml-rpc's own line
		{"ggml-rpc.cpp:547: Failed to connect to 127.0.0.1:50999", "rpc-worker-unreachable", true},
		// other tools' words for the same causes (PyTorch on ROCm, XPU and Apple; ggml-metal; SYCL; ollama's driver library)
		{"torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.98 GiB", "gpu-out-of-memory", false},
		{"RuntimeError: MPS backend out of memory (MPS allocated: 17.77 GB, other allocations: 1.40 GB, max allowed: 18.13 GB).", "gpu-out-of-memory", false},
		{"ggml_backend_metal_buffer_type_alloc_buffer: error: failed to allocate buffer, size = 8192.00 MiB", "gpu-out-of-memory", false},
		{"Native API failed. Native API returns: UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", "gpu-out-of-memory", false},
		{"UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.", "cuda-no-kernel-image", false},
		{`level=INFO source=gpu.go:630 msg="unable to load cuda driver library" library=/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14 error="cuda driver library init failure: 100"`, "cuda-no-device", false},
		{`msg="unable to load cuda driver library" library=/usr/lib/wsl/lib/libcuda.so.1 error="cuda driver library init failure: 999"`, "cuda-no-device", true},
		{`msg="unable to load cuda driver library" library=/usr/lib/libcuda.so.470.256.02 error="cuda driver library init failure: 35"`, "cuda-driver-too-old", false},
		{`time=2025-10-01T10:00:00.000Z level=INFO source=runner.go:464 msg="failure during GPU discovery" OLLAMA_LIBRARY_PATH=[/usr/lib/ollama /usr/lib/ollama/rocm] extra_envs=map[] error="runner crashed"`, "backend-probe-crash", false},
		{"ERROR at /build/vulkaninfo/vulkaninfo.h:573:vkEnumerateInstanceExtensionProperties failed with ERROR_INITIALIZATION_FAILED", "vulkan-no-driver", true},
		{"gguf_init_from_file_impl: failed to read key-value pairs", "model-file-invalid", true},
		{"ggml-cuda/mmq.cuh:3120: ERROR: HIP kernel mul_mat_q has no device code compatible with HIP arch 1100.", "hip-invalid-device-function", true},
		{"The code execution cannot proceed because MSVCP140_CODECVT_IDS.dll was not found.", "vc-runtime-dll-missing", false},
		{"The program can't start because api-ms-win-crt-runtime-l1-1-0.dll is missing from your computer.", "vc-runtime-dll-missing", false},
		// "missing" after the DLL's name in French, German and Portuguese dialogs
		{"L'exécution du code ne peut pas se poursuivre car VCRUNTIME140.dll est introuvable. La réinstallation du programme peut corriger ce problème.", "vc-runtime-dll-missing", false},
		{"Das Programm kann nicht gestartet werden, da MSVCP140.dll auf dem Computer fehlt.", "vc-runtime-dll-missing", false},
		{"O programa não pode ser iniciado porque vulkan-1.dll não foi encontrado.", "vulkan-no-driver", false},
		// TensorFlow's loader warning, printed on machines without a GPU too
		{"2021-05-01 10:00:00.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found", "cuda-runtime-dll-missing", true},
		{"W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing", true},
		{"OSError: libcufft.so.11: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing", false},
		// more of the same causes in other tools' words
		{"ggml_gallocr_reserve_n: failed to allocate Metal buffer of size 2147483648", "gpu-out-of-memory", true},
		{"ggml_gallocr_reserve_n: failed to allocate NVIDIA GeForce RTX 3060 buffer of size 1610612736", "gpu-out-of-memory", true},
		{"CUDA error: API call is not supported in the installed CUDA driver", "cuda-driver-too-old", false},
		{"cudaErrorCallRequiresNewerDriver", "cuda-driver-too-old", false},
		{"pyopencl._cl.LogicError: clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR", "opencl-no-platform", false},
		{"Error: No OpenCL platforms found", "opencl-no-platform", false},
		{"Failed to initialize NVML: Driver/library version mismatch", "cuda-no-device", false},
		{"RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.", "cuda-no-device", true},
		{"llama_model_load_from_file_impl: no backends are loaded. hint: use ggml_backend_load() or ggml_backend_load_all() to load a backend before calling this function", "gpu-backend-not-loaded", true},
		{"Warning: CuBLAS library file not found. Non-BLAS library will be used.", "gpu-backend-not-loaded", true},
		{`time=2024-05-01T10:00:00.000Z level=INFO source=gpu.go:221 msg="[0] CUDA GPU is too old. Compute Capability detected: 3.5"`, "cuda-no-kernel-image", true},
		{"rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory", "rocblas-arch-unsupported", true},
		{"[0 NVIDIA GeForce GTX 1060] vkEnumeratePhysicalDevices failed -3", "vulkan-no-driver", true},
		{"$ llama-server -m big.gguf -md small.gguf\nbuild: 9120 (0ab3c1f77) with GNU 13.3.0 for Linux x86_64", "spec-decoding-inactive", false},
		{"Error: pull model manifest: 412: The model you are attempting to pull requires a newer version of Ollama.", "model-arch-unsupported", true},
	})
}

// Near misses of the runtime invariants: the same shapes for another cause,
// where saying nothing is right.
func TestRuntimeInvariantSilences(t *testing.T) {
	for _, log := range []string{
		// a kernel this architecture lacks by design (flash attention on Pascal) is not a build for other GPUs
		"ggml-cuda/fattn.cu:571: ERROR: CUDA kernel flash_attn_ext_f16 has no device code compatible with CUDA arch 610. ggml-cuda.cu was compiled for: 610",
		"ERROR: CUDA kernel flash_attn_ext_f16 has no device code compatible with CUDA arch 610. ggml-cuda.cu was compiled for: 520,610,700",
		// words glued to "CUDA error" are not the error
		"MYCUDA error: out of memory",
		// undefined symbols of other libraries, and link-time undefined symbols
		"./app: symbol lookup error: ./app: undefined symbol: curl_easy_init",
		"ld.lld: error: undefined symbol: ggml_backend_cuda_init",
		"The procedure entry point ?foo@@YAXXZ could not be located in the dynamic link library bar.dll.",
		"Undefined symbols for architecture arm64:\n  \"_ggml_backend_metal_init\", referenced from:",
		// a crash that is not a device probe
		"Vulkan crashed during shader compilation",
		// CUDA initialization errors of other kinds, or a null from a dynamic loader
		"ggml_cuda_init: failed to initialize CUDA: (null)",
		// the Vulkan loader hiding a portability driver the application did not ask for
		"ERROR | DRIVER: vkCreateInstance: Found drivers that contain devices which support the portability subset, but the instance does not enumerate portability drivers! Applications that wish to enumerate portability drivers must set the VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR bit.\nERROR | DRIVER: vkCreateInstance: Found no drivers!\nmemtest_vulkan: early exit during init: ERROR_INCOMPATIBLE_DRIVER while getting erupt::generated::InstanceLoader",
		// clinfo with platforms
		"Number of platforms                               2",
		// a library present in a dependency listing, and a word that is not a DLL's state
		"libomp140.x86_64.dll              <prefix>\\Library\\bin",
		"ERROR: MISSING vulkan headers",
		// a runner built for one CUDA major asking for another's library is a broken package
		"/tmp/ollama2415219728/runners/cuda_v12/ollama_llama_server: error while loading shared libraries: libcublas.so.11: cannot open shared object file: No such file or directory",
		// ollama runner lists with a GPU runner
		`msg="Dynamic LLM libraries" runners="[cpu cpu_avx cpu_avx2 cuda_v11 cuda_v12 rocm_v60102]"`,
		`msg="Dynamic LLM libraries" runners=[metal]`,
		// a GPU backend that fails to load is another cause's consequence (CUDA runtime DLLs): not named from this line
		"ggml_backend_load_best: failed to load C:\\ollama\\lib\\ggml-cuda.dll",
		// compute buffers on the CPU are host memory; alone the line names no device
		"ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 437944320\nllm_load_tensors: offloaded 0/33 layers to GPU\nllama_new_context_with_model: failed to allocate compute buffers",
		"llama_new_context_with_model: failed to allocate compute buffers",
		// ollama's discovery that timed out did not crash
		`msg="failure during GPU discovery" error="failed to finish discovery before timeout"`,
		// cuDNN on Linux is a separate install, not the CUDA runtime (the corpus threads say nothing about llamactl's fix for it)
		"Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory\nPlease make sure libcudnn_ops_infer.so.8 is in your library path!",
		// pinned host memory that could not be allocated is a debug note, not an error
		"ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: out of memory",
		// the Universal CRT present in a dependency listing
		"api-ms-win-crt-runtime-l1-1-0.dll              C:\\Windows\\System32",
		// OpenBLAS is a CPU library: koboldcpp without it still has no GPU question
		"Warning: OpenBLAS library file not found. Non-BLAS library will be used.",
		// host allocations and other NVML failures
		"ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 1610612736",
		"Failed to initialize NVML: Unknown Error",
		"Number of OpenCL platforms found: 1",
		// a draft model on a build older than the speculative refactor still speculates
		"$ llama-server -m big.gguf -md small.gguf -ngl 99\nbuild: 5280 (27aa2595) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for x86_64-linux-gnu",
		"$ llama-server -m big.gguf -md small.gguf\nversion: 8954 (0ab3c1f77)",
		"$ llama-server -m big.gguf -md small.gguf\nmain: build = 1500 (0ab3c1f)",
		// a projector file given as the model is not an architecture this build lacks
		"llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'clip'",
		// the same words for a DLL of no known cause
		"Die Ausführung des Codes kann nicht fortgesetzt werden, da foo.dll nicht gefunden wurde.",
		"Das Programm kann nicht gestartet werden, da bar.dll auf dem Computer fehlt.",
		// a library path tried and missed during discovery, at debug level
		`time=2024-05-01T10:00:00.000Z level=DEBUG source=gpu.go:468 msg="Unable to load cudart" library=/usr/local/cuda/lib64/libcudart.so.12 error="libcudart.so.12: cannot open shared object file: No such file or directory"`,
		`level=DEBUG source=gpu.go:500 msg="Unable to load nvcuda" library=/usr/lib/wsl/lib/libcuda.so.1 error="libcuda.so.1: cannot open shared object file"`,
		// one CPU variant that fails to load is not the whole folder
		"ggml_backend_load_best: failed to load /usr/lib/ollama/ggml-cpu-icelake.so: undefined symbol: foo",
		// a build with several backends says so while another one runs the model
		"ggml_vulkan: No devices found.\nggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes",
		// clients of other servers
		"Error: Failed to connect to api.openai.com:443",
		"Failed to connect to 127.0.0.1:8080: connection refused",
		"curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused",
	} {
		if d := Default().DiagnoseString(log + "\n"); len(d.Findings) != 0 {
			t.Errorf("%q: got %+v, want nothing", log, brief(d.Findings))
		}
	}
}

// not_in names two existing groups, and drops a match only when the first
// group's number is listed in the second.
func TestSignatureNotIn(t *testing.T) {
	for name, data := range map[string]string{
		"one group":     `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^arch ([0-9]+)","not_in":[1]}]}]}`,
		"missing group": `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^arch ([0-9]+)","not_in":[1,2]}]}]}`,
		"group zero":    `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^arch ([0-9]+) in ([0-9,]+)","not_in":[0,2]}]}]}`,
	} {
		if _, err := Load([]byte(data)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	kb, err := Load([]byte(`{"schema":1,"failures":[{"id":"x","title":"t","stage":"runtime","platforms":["all"],"signatures":[{"re":"^arch ([0-9]+)(?: built: ([0-9, ]+))?","not_in":[1,2]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for log, want := range map[string]int{
		"arch 610":                 1, // no list: counts
		"arch 610 built: 520,700":  1,
		"arch 610 built: 520,610":  0,
		"arch 61 built: 610, 700":  1, // whole numbers only
		"arch 700 built: 610, 700": 0,
	} {
		if got := len(kb.DiagnoseString(log + "\n").Findings); got != want {
			t.Errorf("%q: %d findings, want %d", log, got, want)
		}
	}
}
