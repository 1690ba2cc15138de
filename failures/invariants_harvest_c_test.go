package failures

import "testing"

// The same causes in the words, tools and languages public threads show them
// in (issue #15, h-harvest-c): each form names the expected ID with the
// expected confidence.
func TestHarvestCSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// WSAEADDRINUSE in more Windows languages, as users' logs quote it
		{"Error: listen tcp 127.0.0.1:11434: bind: Tylko jedno użycie każdego adresu gniazda (protokół/adres sieciowy/port) jest normalnie dozwolone.", "server-port-in-use", false},
		{"OSError: [WinError 10048] 각 소켓 주소(프로토콜/네트워크 주소/포트)는 하나만 사용할 수 있습니다", "server-port-in-use", false},
		{"Error: 각 소켓 주소(프로토콜/네트워크 주소/포트)는 하나만 사용할 수 있습니다. (os error 10048)", "server-port-in-use", false},
		{"System.Net.Sockets.SocketException (10048): Di norma è consentito un solo utilizzo di ogni indirizzo di socket (protocollo/indirizzo di rete/porta).", "server-port-in-use", false},
		{"OSError: [WinError 10048] 一次只能用一個通訊端位址 (通訊協定/網路位址/連接埠)。", "server-port-in-use", false},
		{"ERROR: [Errno 10048] error while attempting to bind on address ('0.0.0.0', 8000): 通常一個通訊端位址 (通訊協定/網路位址/連接埠) 只允許使用一次。", "server-port-in-use", false},
		{"OSError: [WinError 10048] Elk socketadres (protocol/netwerkadres/poort) kan normaal slechts één keer worden gebruikt", "server-port-in-use", false},
		{"OSError: [WinError 10048] Endast en användning av varje socketadress (protokoll/nätverksadress/port) är normalt tillåten", "server-port-in-use", false},
		// Rust's io::Error for it
		{"Error: Only one usage of each socket address (protocol/network address/port) is normally permitted. (os error 10048)", "server-port-in-use", false},
		{"thread 'main' panicked at src/main.rs:10:5:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 98, kind: AddrInUse, message: \"Address already in use\" }", "server-port-in-use", false},
		// Werkzeug's (Flask's, TensorBoard's) sentence for EADDRINUSE, after an OS error in any language
		{" * Serving Flask app 'app'\n * Debug mode: off\nAddress already in use\nPort 5000 is in use by another program. Either identify and stop that program, or start the server with a different port.", "server-port-in-use", false},
		{"Port 6006 is in use by another program. Either identify and stop that program, or start the server with a different port.", "server-port-in-use", false},
		{"Die Adresse wird bereits verwendet\nPort 5000 is in use by another program. Either identify and stop that program, or\nstart the server with a different port.", "server-port-in-use", false},
		// Gradio's own words for a port it could not bind (probable: any bind error reads the same)
		{"    raise OSError(\nOSError: Cannot find empty port in range: 7860-7860. You can specify a different port by setting the GRADIO_SERVER_PORT environment variable or passing the `server_port` parameter to `launch()`.", "server-port-in-use", true},
		{"OSError: All ports from 7860 to 7959 are in use. Please close a port.", "server-port-in-use", true},
		{"OSError: Port 40325 is in use. If a gradio.Blocks is running on the port, you can close() it or gradio.close_all().", "server-port-in-use", true},

		// nvcc older than the C++ standard it is given (loki-47-6F-64/sunshine#361, NVIDIA/thrust#1356)
		{"nvcc fatal   : Value 'c++17' is not defined for option 'std'\nmake[2]: *** [CMakeFiles/sunshine.dir/build.make:328: CMakeFiles/sunshine.dir/sunshine/platform/linux/cuda.cu.o] Error 1", "cuda-toolkit-too-old", false},
		{"FAILED: ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/acc.cu.o\nnvcc fatal : Value 'c++17' is not defined for option 'std'", "cuda-toolkit-too-old", false},
		{"nvcc fatal   : Value 'c++20' is not defined for option 'std'", "cuda-toolkit-too-old", false},

		// CPython's ctypes on Windows for a symbol the DLL lacks (abetlen/llama-cpp-python#1818, #2074)
		{"    _lib.llama_mmap_supported.argtypes = []\n  File \"C:\\Python310\\lib\\ctypes\\__init__.py\", line 387, in __getattr__\n    func = self.__getitem__(name)\nAttributeError: function 'llama_mmap_supported' not found", "ggml-backend-mismatch", false},
		{"AttributeError: function 'llama_get_kv_self' not found. Did you mean: 'llama_get_model'?", "ggml-backend-mismatch", false},
		{"AttributeError: function 'llama_sampler_init_tail_free' not found", "ggml-backend-mismatch", false},

		// OpenMP's duplicate-runtime error wrapped by a console before
		// "initialized" (llvm-project openmp/runtime/src/i18n/en_US.txt)
		{"OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already ini\ntialized.", "openmp-duplicate-runtime", false},
		{"OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already\ninitialized.", "openmp-duplicate-runtime", false},
		{"OMP: Error #15: Initializing libomp.dylib, but found libomp.dylib already", "openmp-duplicate-runtime", false},

		// the probe's Windows exit codes as unsigned decimals (NTSTATUS 0xC0000005, 0xC0000409)
		{"llama-server.exe --list-devices failed: exit status 3221225477", "backend-probe-crash", true},
		{"llama-server --list-devices failed: exit status 3221226505", "backend-probe-crash", true},

		// Apple GPUs without the SIMD-group functions ggml's Metal kernels call
		// (ggml-org/llama.cpp#2564 an A12Z, #3129 an Intel Iris Plus)
		{"ggml_metal_init: load pipeline error: Error Domain=AGXMetalA12 Code=3 \"Encountered unlowered function call to air.simd_sum.f32\" UserInfo={NSLocalizedDescription=Encountered unlowered function call to air.simd_sum.f32}", "metal-unsupported-gpu", true},
		{"ggml_metal_init: error: load pipeline error: Error Domain=AGXMetalA12 Code=3 \"Encountered unlowered function call to air.simd_max.f32\"\nggml_backend_metal_device_init: error: failed to allocate context\nllama_init_from_model: failed to initialize the context: failed to initialize Metal backend", "metal-unsupported-gpu", true},
		{"ggml_metal_init: load pipeline error: Error Domain=CompilerError Code=2 \"AIR builtin function was called but no definition was found.\" UserInfo={NSLocalizedDescription=AIR builtin function was called but no definition was found.}\nllama_new_context_with_model: ggml_metal_init() failed", "metal-unsupported-gpu", true},

		// ggml-sycl's assertion when it found no SYCL device (intel/ipex-llm#11774)
		{"GGML_ASSERT: C:/Users/Administrator/actions-runner/cpp-release/_work/llm.cpp/llm.cpp/llama-cpp-bigdl/ggml-sycl.cpp:18283: main_gpu_id<g_all_sycl_device_count", "sycl-no-device", true},

		// VS Code's CMake Tools ending a parallel CUDA build with 137, SIGKILL's
		// code (ggml-org/llama.cpp#13375)
		{"[build] [47/230] Building CUDA object ggml/src/ggml-cuda/CMakeFiles/ggml-cuda.dir/template-instances/fattn-mma-f16-instance-ncols1_4-ncols2_4.cu.o\n[build] ninja: build stopped: subcommand failed.\n[proc] 命令“/usr/local/bin/cmake --build /home/u/llama.cpp/out/build/preset --parallel 26 --”已退出，代码为 137\n[build] 生成已完成，退出代码为 137", "compiler-out-of-memory", true},
		{"[build] Build finished with exit code 137", "compiler-out-of-memory", true},

		// CCCL refusing an nvcc of another CUDA version than its headers (EricLBuehler/mistral.rs#2006)
		{"/usr/local/cuda-13.0/targets/x86_64-linux/include/cccl/cuda/std/__cccl/cuda_toolkit.h:30:4: error: #error \"CUDA compiler and CUDA toolkit headers are incompatible, please check your include paths\"", "cuda-toolkit-mixed", false},
		{"RuntimeError: Ninja build failed: ... cuda_toolkit.h: \"CUDA compiler and CUDA toolkit headers are incompatible\"", "cuda-toolkit-mixed", false},

		// cmd.exe's double-quoted languages with the variable's name alone (cmd stops a command's name at '=')
		{"\"CMAKE_ARGS\" no se reconoce como un comando interno o externo,\nprograma o archivo por lotes ejecutable.", "shell-env-syntax", true},
		{"\"FORCE_CMAKE\" non è riconosciuto come comando interno o esterno,", "shell-env-syntax", true},

		// the lines of CMake's generator mismatch alone, or wrapped (Kitware/CMake Source/cmake.cxx)
		{"Either remove the CMakeCache.txt file and CMakeFiles directory or choose a different binary directory.", "cmake-cache-mismatch", false},
		{"CMake Error: Error: generator : Ninja", "cmake-cache-mismatch", false},
		{"CMake Error: Error: generator platform: x64", "cmake-cache-mismatch", false},
		{"Either remove the CMakeCache.txt file and CMakeFiles directory\nor choose a different binary directory.", "cmake-cache-mismatch", false},

		// LLVM's allocation-failure handler in a build (llvm/llvm-project#59194)
		{"  CXX      src/semigroups_la-cong.lo\nLLVM ERROR: out of memory\nAllocation failed\nPLEASE submit a bug report to https://bugs.llvm.org/ and include the crash backtrace, preprocessed source, and associated run script.", "compiler-out-of-memory", true},
	})
}

// Near misses: the same words with another cause, or look-alikes of the new
// forms. The ID in each case must not be named.
func TestHarvestCNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// a bind refused for permission (a reserved port range), not a port in use
		{"Error: listen tcp 127.0.0.1:11434: bind: An attempt was made to access a socket in a way forbidden by its access permissions.", "server-port-in-use"},
		{"Error: access denied (os error 10013)", "server-port-in-use"},
		{"Error: connection refused (os error 10061)", "server-port-in-use"},
		{"System.Net.Sockets.SocketException (10061): No connection could be made because the target machine actively refused it.", "server-port-in-use"},
		{"System.Net.Sockets.SocketException (10013): An attempt was made to access a socket in a way forbidden by its access permissions.", "server-port-in-use"},
		{"Os { code: 111, kind: ConnectionRefused, message: \"Connection refused\" }", "server-port-in-use"},
		{"kind: AddrNotAvailable, message: \"Cannot assign requested address\"", "server-port-in-use"},
		// Gradio's other messages
		{"ValueError: When localhost is not accessible, a shareable link must be created. Please set share=True.", "server-port-in-use"},

		// nvcc rejecting a GNU dialect (CMake's extensions), an architecture or another option
		{"nvcc fatal   : Value 'gnu++17' is not defined for option 'std'", "cuda-toolkit-too-old"},
		{"nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'", "cuda-toolkit-too-old"},
		{"nvcc fatal   : Value 'c++17' is not defined for option 'gpu-architecture'", "cuda-toolkit-too-old"},

		// ctypes missing a function of another library, or Python objects
		{"AttributeError: function 'cublasLtCreate' not found", "ggml-backend-mismatch"},
		{"AttributeError: 'Llama' object has no attribute 'model'", "ggml-backend-mismatch"},
		{"AttributeError: function 'llama_sampler_init_greedy' was not found in the docs", "ggml-backend-mismatch"},

		// C1083 for another header (libcurl's own is left to the concepts,
		// which want llama.cpp's source folders: invariants_test.go)
		{"C:\\src\\x.cpp(1): fatal error C1083: Cannot open include file: 'zstd.h': No such file or directory", "curl-missing"},
		{"C:\\src\\x.cpp(1): fatal error C1083: Cannot open include file: 'openssl/ssl.h': No such file or directory", "curl-missing"},
		{"C:\\src\\x.cpp(1): fatal error C1083: Cannot open include file: 'mycurl/curl.hpp': No such file or directory", "curl-missing"},

		// x64 and ARM64 are another pair than the x86 environment this ID
		// names (microsoft/vcpkg#32607: x64 assembly in an ARM64 build;
		// FunkinCrew/Funkin#1472: an ARM64 target picked on an x64 machine)
		{"src\\libdav1d.a.p\\cpuid.obj : fatal error LNK1112: 模块计算机类型“x64”与目标计算机类型“ARM64”冲突", "msvc-wrong-arch"},
		{"obj\\msvc19-arm64-nc\\70e38311_Context3DElementType.obj : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'ARM64'", "msvc-wrong-arch"},
		// other linker errors that name ARM64
		{"LINK : fatal error LNK1181: cannot open input file 'ARM64\\Release\\ggml.lib'", "msvc-wrong-arch"},
		{"error LNK2019: unresolved external symbol __imp_ggml_init referenced in function main (ARM64)", "msvc-wrong-arch"},

		// OpenMP's other errors, and the hint alone is not the error's line
		{"OMP: Error #13: Assertion failure at kmp_runtime.cpp(6480).", "openmp-duplicate-runtime"},
		{"OMP: Error #179: Function Can't open SHM2 failed:", "openmp-duplicate-runtime"},
		// an unsigned exit code of another program, or another code
		{"Process finished with exit code 3221225477", "backend-probe-crash"},
		{"llama-server --list-devices failed: exit status 3221225786", "backend-probe-crash"},

		// Metal's other pipeline errors, and ggml's capability lines
		{"ggml_metal_init: load pipeline error: Error Domain=AGXMetalG13X Code=3 \"Compiler encountered an internal error\"", "metal-unsupported-gpu"},
		{"ggml_metal_init: simdgroup reduction support   = true", "metal-unsupported-gpu"},
		// CUDA's main-GPU assertion, or another SYCL one
		{"GGML_ASSERT: ggml-cuda.cu:1234: main_gpu_id < ggml_cuda_info().device_count", "sycl-no-device"},
		{"GGML_ASSERT: ggml-sycl.cpp:3000: ptr != nullptr", "sycl-no-device"},

		// a build's other exit codes
		{"[build] Build finished with exit code 1", "compiler-out-of-memory"},
		{"[build] Build finished with exit code 1370", "compiler-out-of-memory"},

		// the compiler and the driver, not two toolkits
		{"CUDA driver version is insufficient for CUDA runtime version", "cuda-toolkit-mixed"},
		{"the CUDA compiler and the GPU are incompatible", "cuda-toolkit-mixed"},

		// a lower-case or plain command in the same sentence
		{"\"cmake_args\" no se reconoce como un comando interno o externo,", "shell-env-syntax"},
		{"\"CMAKE\" no se reconoce como un comando interno o externo,", "shell-env-syntax"},

		// CMake naming its generator without a mismatch
		{"-- Building for: Visual Studio 17 2022", "cmake-cache-mismatch"},
		{"CMake Error: Could not create named generator Ninja2", "cmake-cache-mismatch"},
		{"-- Generator: Ninja", "cmake-cache-mismatch"},

		// LLVM's other fatal errors
		{"LLVM ERROR: Cannot select: intrinsic %llvm.x86.avx512.mask.cvtps2ph.512", "compiler-out-of-memory"},
		{"LLVM ERROR: out of registers", "compiler-out-of-memory"},
	})
}
