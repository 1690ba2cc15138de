package failures

import "testing"

// The invariants added for batch 9's dev logs (issue #15, h-tune9): each log
// names the expected ID with the expected confidence; the probable ones carry
// their evidence lines.
func TestBatch9Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// VkResult's name without the VK_ prefix, as Rust's bindings (ash, gfx) print it,
		// on a line that names Vulkan
		{"thread 'main' panicked at 'Unable to create Vulkan instance: VkError(ERROR_INCOMPATIBLE_DRIVER)', src/libcore/result.rs:1165:5", "vulkan-no-driver", false},
		{"Error: failed to create Vulkan instance: ERROR_INCOMPATIBLE_DRIVER", "vulkan-no-driver", false},
		{"vkCreateInstance returned ERROR_INCOMPATIBLE_DRIVER", "vulkan-no-driver", false},

		// ptxas refusing a Blackwell arch-specific instruction on a bare sm_1xx target
		{"ptxas /tmp/tmpxft_0000ef4d_00000000-6_mmq-instance-mxfp4.ptx, line 123423; error   : Feature '.kind::mxf4' not supported on .target 'sm_121'", "cuda-arch-suffix-required", false},
		{"ptxas /tmp/tmpxft_1_mmq.ptx, line 9; error   : Instruction 'mma with block scale' not supported on .target 'sm_120'", "cuda-arch-suffix-required", false},
		{"ptxas /tmp/x.ptx, line 12; error   : Instruction 'tcgen05.mma' not supported on .target 'sm_100'", "cuda-arch-suffix-required", false},
		// any other feature on a bare sm_1xx target: probable
		{"ptxas /tmp/x.ptx, line 12; error   : Feature '.multicast::cluster' not supported on .target 'sm_120'", "cuda-arch-suffix-required", true},

		// ggml's older ROCm device line and its "CUDA error N at file:line:" form
		{"ggml_init_cublas: found 1 ROCm devices:\n  Device 0: , compute capability 11.0\n\nCUDA error 98 at /code/llama.cpp/ggml-cuda.cu:6246: invalid device function", "hip-invalid-device-function", false},
		{"ggml_cuda_init: found 1 ROCm devices:\nCUDA error 98 at ggml-cuda.cu:6246: invalid device function", "hip-invalid-device-function", false},
		{"  Device 0: AMD Radeon RX 7900 XTX, compute capability 11.0\nCUDA error 98 at ggml-cuda.cu:6246: invalid device function", "hip-invalid-device-function", false},

		// a library built for a CPU level failing its DLL initialisation (1114), in several languages
		{"Initializing dynamic library: koboldcpp_noavx2.dll\nTraceback (most recent call last):\n  File \"ctypes\\__init__.py\", line 373, in __init__\nOSError: [WinError 1114] Error en una rutina de inicialización de biblioteca de vínculos dinámicos (DLL)", "cpu-instruction-unsupported", true},
		{"Initializing dynamic library: koboldcpp_vulkan_noavx2.dll\nOSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed", "cpu-instruction-unsupported", true},
		{"Loading C:\\llama\\llama-avx512.dll\nLoadLibrary failed: error 1114", "cpu-instruction-unsupported", true},
		{`OSError: [WinError 1114] Eine DLL-Initialisierungsroutine ist fehlgeschlagen. Error loading "C:\kobold\koboldcpp_noavx2.dll"`, "cpu-instruction-unsupported", true},

		// an x86 vector type given an int: what C makes of an intrinsic the headers lack
		{"/usr/lib/gcc/x86_64-linux-gnu/7.3.0/include/avx512fintrin.h:12514:1: need type‘__m256i {or __vector(4) long long int}’，but act type is ‘int’", "host-compiler-too-old", true},
		{"ggml/src/ggml-aarch64.c:1245:21: error: incompatible types when initializing type '__m256i' {aka '__vector(4) long long int'} using type 'int'", "host-compiler-too-old", true},
		{"ggml.c:2301:17: error: initializing '__m256i' (vector of 4 'long long' values) with an expression of incompatible type 'int'", "host-compiler-too-old", true},
	})
}

// Near-misses: the same words for something else, or one of the two signals
// alone. The ID in each case must not be named.
func TestBatch9NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// another VkResult, or the bare word with no Vulkan on the line
		{"thread 'main' panicked at 'Unable to create Vulkan instance: VkError(ERROR_OUT_OF_HOST_MEMORY)'", "vulkan-no-driver"},
		{"driver install: ERROR_INCOMPATIBLE_DRIVER_VERSION", "vulkan-no-driver"},
		{"setup failed: ERROR_INCOMPATIBLE_DRIVER", "vulkan-no-driver"},

		// a suffixed target, an older arch asking for a newer one, Hopper's sm_90
		{"ptxas /tmp/x.ptx, line 12; error   : Feature '.kind::mxf4' not supported on .target 'sm_121a'", "cuda-arch-suffix-required"},
		{"ptxas /tmp/x.ptx, line 12; error   : Feature '.bf16' requires .target sm_80 or higher", "cuda-arch-suffix-required"},
		{"ptxas /tmp/x.ptx, line 12; error   : Instruction 'wgmma.mma_async' not supported on .target 'sm_90'", "cuda-arch-suffix-required"},
		{"nvcc warning : Feature '.kind::mxf4' not supported on .target 'sm_121'", "cuda-arch-suffix-required"},

		// a ROCm device line and another CUDA error; an NVIDIA build's old form
		{"ggml_init_cublas: found 1 ROCm devices:\nCUDA error 2 at ggml-cuda.cu:6246: out of memory", "hip-invalid-device-function"},
		{"ggml_init_cublas: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce GTX 765M, compute capability 3.0\nCUDA error 98 at ggml-cuda.cu:6246: invalid device function", "hip-invalid-device-function"},

		// 1114 on a library with no CPU level in its name, another code on a CPU-level
		// library, the failsafe (no AVX) library, or the library loaded fine
		{`OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "C:\Python311\Lib\site-packages\torch\lib\c10.dll" or one of its dependencies.`, "cpu-instruction-unsupported"},
		{"Initializing dynamic library: koboldcpp_failsafe.dll\nOSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed", "cpu-instruction-unsupported"},
		{"Initializing dynamic library: koboldcpp_noavx2.dll\nOSError: [WinError 126] The specified module could not be found", "cpu-instruction-unsupported"},
		{"Initializing dynamic library: koboldcpp_noavx2.dll\nLoad Text Model OK: True", "cpu-instruction-unsupported"},

		// a vector type with another type, a scalar type with int
		{"ggml.c:2301:17: error: incompatible types when initializing type '__m256i' using type '__m256'", "host-compiler-too-old"},
		{"ggml.c:2301:17: error: incompatible types when initializing type 'float' using type 'int'", "host-compiler-too-old"},
		{"ggml.c:2301:17: note: expected '__m256i' but argument is of type 'long long int'", "host-compiler-too-old"},
	})
}
