package failures

import (
	"strings"
	"testing"
)

// The invariants of a cause in the words of other tools, shells and
// languages (issue #15): each log names the expected ID and only it, with the
// expected confidence.
func TestInvariantSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// error codes and status names
		// ggml's "CUDA error N at file:line: message" keeps only the message
		{"CUDA error 2 at ggml-cuda.cu:359: out of memory", "gpu-out-of-memory", false},
		{"cuBLAS error CUBLAS_STATUS_ALLOC_FAILED at ggml-cuda.cu:6345", "gpu-out-of-memory", false},
		{"llama_model_load: error loading model: unable to allocate backend buffer", "gpu-out-of-memory", true},
		{"CUDA error 209 at ggml-cuda.cu:7124: no kernel image is available for execution on the device", "cuda-no-kernel-image", false},
		{"CUDA error 209 at /src/ggml-cuda.cu:500", "cuda-no-kernel-image", false},
		// loaders by file name
		{"OSError: libcuda.so.1: cannot open shared object file: No such file or directory", "cuda-no-device", false},
		{"FileNotFoundError: Could not find module 'nvcuda.dll' (or one of its dependencies).", "cuda-no-device", false},
		{"error while loading shared libraries: libvulkan.so.1: cannot open shared object file: No such file or directory", "vulkan-no-driver", false},
		{"The code execution cannot proceed because vulkan-1.dll was not found.", "vulkan-no-driver", false},
		{"./main: error while loading shared libraries: libOpenCL.so.1: cannot open shared object file: No such file or directory", "opencl-no-platform", false},
		{"由于找不到OpenCL.dll，无法继续执行代码。", "opencl-no-platform", false},
		{"Could not load library cudnn_cnn_infer64_8.dll. Error code 126", "cuda-runtime-dll-missing", true},
		{"Please make sure cudnn_ops_infer64_8.dll is in your library path!", "cuda-runtime-dll-missing", true},
		// tools by name, in several shells and languages
		{"'ninja' is not recognized as an internal or external command,", "ninja-missing", false},
		{"RuntimeError: Ninja is required to load C++ extensions", "ninja-missing", false},
		{"/bin/sh: 1: glslc: not found", "vulkan-glslc-missing", false},
		{"bash: hipcc: command not found", "hip-sdk-not-found", false},
		{"'NMAKE' is not recognized as an internal or external command,", "msvc-env-missing", false},
		{"'cl'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는 배치 파일이 아닙니다.", "msvc-env-missing", false},
		{"无法将“nvcc”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。", "cuda-toolkit-not-found", false},
		{"'CMAKE_MAKE_PROGRAM-NOTFOUND' is not recognized as an internal or external command,", "msvc-env-missing", true},
		// CMake's generator fallback through scikit-build
		{"scikit-build could not get a working generator for your system. Aborting build.", "msvc-env-missing", true},
		{"Building windows wheels for Python 3.10 requires Microsoft Visual Studio 2022.", "msvc-env-missing", false},
		{"CMake Error: Generator: execution of make failed. Make command was: \"nmake\" \"/NOLOGO\" \"all\"", "msvc-env-missing", false},
		{"CMake Error at CMakeLists.txt:2 (project): Generator Visual Studio 16 2019 could not find any instance of Visual Studio.", "vs-generator-not-found", false},
		// the same message cut, quoted, wrapped or translated
		{"> OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.", "openmp-duplicate-runtime", false},
		{"P: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.", "openmp-duplicate-runtime", false},
		{"*OMP: Error #15*: Initialisation of libiomp5md.dll, but libiomp5md.dll has already been initialised.", "openmp-duplicate-runtime", false},
		{"  specification is incompatible with that of previous function \"cospi\"", "cuda-glibc-math-noexcept", false},
		{"   extern float sinpif (float __x) noexcept (true); extern float __sinpif (float __x) noexcept (true);", "cuda-glibc-math-noexcept", false},
		{"clang-16: error: invalid target ID 'gfx941'; format is a processor name", "hip-invalid-target", false},
		{"clang++: error: unsupported HIP gpu architecture: gfx1036", "hip-invalid-target", false},
		{"warning: not compiled with GPU offload support, --gpu-layers option will be ignored", "gpu-backend-not-loaded", false},
		// CMake's status line, also printed where CUDA is optional: probable
		// alone, certain under FindPackageHandleStandardArgs' error (invariants_build_test.go)
		{"-- Could NOT find CUDAToolkit (missing: CUDA_CUDART) (found version \"12.3.52\")", "cuda-toolkit-not-found", true},
		{"error: invalid argument: --memory-f32", "engine-flag-removed", false},
		// batch-3 dev: toolsets, empty device lists, unsupported gfx (probable: ollama also
		// says so of an integrated GPU next to a supported one), no Vulkan driver
		{"Error\tMSB8020\tThe build tools for v143 (Platform Toolset = 'v143') cannot be found.", "vs-generator-not-found", false},
		{"ror MSB8020: The build tools for Visual Studio 2013 (Platform Toolset = 'v120') cannot be found. To build using the v12", "vs-generator-not-found", false},
		{"Returned: \"Available devices: \"", "gpu-backend-not-loaded", true},
		{"time=2025-01-23T16:42:09.019+01:00 level=WARN source=amd_windows.go:140 msg=\"amdgpu is not supported (supported types:[gfx1103])\" gpu_type=gfx1150", "rocblas-arch-unsupported", true},
		{"level=WARN source=amd_linux.go:114 msg=\"amdgpu [0] gfx1010 is not supported by /tmp/ollama402405963/rocm [", "rocblas-arch-unsupported", true},
		{"vulkaninfo.c:921: failed with VK_ERROR_INCOMPATIBLE_DRIVER", "vulkan-no-driver", false},
		{"RuntimeError: vk::createInstanceUnique: ErrorIncompatibleDriver", "vulkan-no-driver", false},
		// batch-4 dev: the same causes in other spellings of the same tools
		{"nvcc fatal   : Unsupported gpu architecture 'compute_native'", "nvcc-arch-native-unsupported", false},
		{"error while handling argument \"--flash-attn\": error: unkown value for --flash-attn: '--main-gpu'", "engine-flag-fa-value", false},
		{"error while handling argument \"--flash-attn\": expected value for argument", "engine-flag-fa-value", false},
		{"LINK : fatal error LNK1104: cannot open file 'cuda.lib'", "cuda-link-libpath", false},
		{"LINK : fatal error LNK1104: cannot open file 'cublas.lib'", "cuda-link-libpath", false},
		{"OSError: /tmp/_MEI1/koboldcpp_cublas.so: undefined symbol: cuMemCreate", "cuda-driver-lib-link", true},
		{"rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek", "rocblas-arch-unsupported", true},
		{"  could not find specified instance of Visual Studio:", "vs-generator-not-found", false},
		// VkResult -9, MSVC's and ptxas's forms, and GCC builtins nvcc does not know
		{"vkCreateInstance failed -9", "vulkan-no-driver", false},
		{"ERROR at /build/source/vulkaninfo/vulkaninfo.h:688:vkCreateInstance failed with ERROR_INCOMPATIBLE_DRIVER", "vulkan-no-driver", false},
		{"ggml-cuda.lib(ggml-cuda.cu.obj) : error LNK2019: unresolved external symbol cuMemCreate referenced in function ggml_cuda_pool_vmm", "cuda-driver-lib-link", false},
		{"ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'", "nvcc-arch-too-new", false},
		{"/usr/lib/gcc/x86_64-linux-gnu/14/include/amxtileintrin.h(42): error: identifier \"__builtin_ia32_ldtilecfg\" is undefined", "nvcc-unsupported-gcc", true},
		// "invalid device function": HIP's words, an NVIDIA build's words with an NVIDIA GPU in sight
		// alone the line does not say which vendor: NVIDIA builds print it too (abetlen/llama-cpp-python#1372)
		{"CUDA error: invalid device function", "hip-invalid-device-function", true},
		{"  Device 0: AMD Radeon 780M, compute capability 11.0, VMM: no\nCUDA error: invalid device function", "hip-invalid-device-function", false},
		{"  Device 0: NVIDIA GeForce GTX 1080, compute capability 6.1, VMM: yes\nCUDA error: invalid device function", "cuda-no-kernel-image", true},
		// PyTorch's and nvcc's own words for a driver or Visual Studio problem
		{"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver", "cuda-driver-too-old", false},
		{"UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver", "cuda-no-device", false},
		{"nvcc fatal   : Could not set up the environment for Microsoft Visual Studio using 'C:/BuildTools/VC/Auxiliary/Build/vcvars64.bat'", "msvc-env-missing", false},
		// the compiler's and make's forms of a missing SDK; RPC's default port
		{"common/download.cpp:5:10: fatal error: curl/curl.h: No such file or directory", "curl-missing", false},
		{"ggml-vulkan.cpp:1:10: fatal error: vulkan/vulkan.hpp: No such file or directory", "vulkan-sdk-not-found", false},
		{"make: nvcc: No such file or directory", "cuda-toolkit-not-found", false},
		{"Failed to connect to 192.168.1.10:50052", "rpc-worker-unreachable", false},
		{"Failed to connect to 127.0.0.1:50999", "rpc-worker-unreachable", true},
		// Korean and Italian Windows' own sentence for a missing DLL; Chinese PowerShell with its prefix and advice
		{"VCRUNTIME140.dll을(를) 찾을 수 없으므로 코드 실행을 진행할 수 없습니다. 프로그램을 다시 설치하면 이 문제가 해결될 수 있습니다.", "vc-runtime-dll-missing", false},
		{"Impossibile continuare l'esecuzione del codice perché non è stato trovato cudart64_12.dll. Il problema potrebbe essere risolto reinstallando il programma.", "cuda-runtime-dll-missing", false},
		{"nvcc : 无法将“nvcc”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。请检查名称的拼写，如果包括路径，请确保路径正确，然后再试一次。", "cuda-toolkit-not-found", false},
		// Visual Studio's environment through the linker, the compiler and distutils
		{"LINK : fatal error LNK1158: cannot run 'rc.exe'", "msvc-env-missing", false},
		{"C:\\src\\ggml.cpp(1): fatal error C1083: Cannot open include file: 'vcruntime.h': No such file or directory", "msvc-env-missing", true},
		{"LINK : fatal error LNK1104: cannot open file 'kernel32.lib'", "msvc-env-missing", true},
		{"error: command 'C:\\BuildTools\\VC\\Tools\\MSVC\\14.29.30133\\bin\\HostX86\\x64\\cl.exe' failed: None", "msvc-env-missing", true},
		{"error: Microsoft Visual C++ 14.0 is required. Get it with \"Microsoft Visual C++ Build Tools\"", "msvc-env-missing", false},
		// PyTorch's cpp_extension, the Vulkan loader, nvcc's host-compiler check
		{"OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.", "cuda-toolkit-not-found", false},
		{"error: [Errno 2] No such file or directory: '/usr/local/cuda/bin/nvcc'", "cuda-toolkit-not-found", false},
		{"nvcc fatal   : Unknown option '-generate-dependencies-with-compile'", "cuda-toolkit-too-old", false},
		{"ERROR: [Loader Message] Code 0 : vkCreateInstance: Found no drivers!", "vulkan-no-driver", false},
		{"Cannot create Vulkan instance.", "vulkan-no-driver", true},
		{"nvcc fatal   : The version ('16.0') of the host compiler ('Apple clang') is not supported", "nvcc-unsupported-gcc", false},
		// "no usable GPU" is what a named cause leads to, not a second cause
		{"ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\nwarning: no usable GPU found, --gpu-layers option will be ignored", "cuda-no-device", false},
		{"-- Could not find nvcc, please set CUDAToolkit_ROOT.\nwarning: not compiled with GPU offload support, --gpu-layers option will be ignored", "cuda-toolkit-not-found", false},
		// a deprecated (still mapped) option next to a missing toolkit: the toolkit explains the CPU-only build
		{"CMake Warning at CMakeLists.txt:95 (message):\n  LLAMA_CUDA is deprecated and will be removed in the future.\n-- Could not find nvcc, please set CUDAToolkit_ROOT.", "cuda-toolkit-not-found", false},
	})
}

// Say nothing rather than a wrong cause.
func TestInvariantSilences(t *testing.T) {
	for _, log := range []string{
		// typos and flags newer than the binary are not removed flags
		"error: invalid argument: --ngl",
		"error: invalid argument: -hf",
		// one Vulkan buffer over the driver's allocation limit is not exhausted memory
		"ggml_vulkan: Device memory allocation of size 4757131264 failed.\nggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory",
		// --list-devices with devices: the header line is followed by them
		"Available devices:\n  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23603 MiB free)",
		// an unrelated DLL in the same sentence shapes
		"The code execution cannot proceed because foo.dll was not found.",
		"'mytool' is not recognized as an internal or external command,",
		// batch-4 invariants: the same shapes for something else
		"nvcc fatal   : Unsupported gpu architecture 'compute_nativex'",
		"error while handling argument \"--ctx-size\": expected value for argument",
		"LINK : fatal error LNK1104: cannot open file 'glew64.lib'",
		"OSError: /tmp/libfoo.so: undefined symbol: curl_easy_init",
		"rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Permission denied",
		"could not find specified instance of Visual Studio Code",
		"vkCreateInstance failed -7",
		"main.obj : error LNK2019: unresolved external symbol cublasCreate_v2 referenced in function main",
		"ptxas fatal   : Value 'sm_52' is not defined for option 'gpu-name'",
		"kernel.cu(12): error: identifier \"my_helper\" is undefined",
		// the same shapes for files and tools that are not the environment's
		"C:\\src\\main.cpp(3): fatal error C1083: Cannot open include file: 'curl/curl.h': No such file or directory",
		"LINK : fatal error LNK1104: cannot open file 'mylib.lib'",
		"error: [Errno 2] No such file or directory: '/usr/local/bin/cmake'",
		"nvcc fatal   : Unknown option '-fPIC'",
		// host memory is not GPU memory; a header without an ID
		"ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 437944320",
		"ggml.c:1:10: fatal error: omp.h: No such file or directory",
		// a ROCm build's error on an NVIDIA machine is not a gfx mismatch
		"  Device 0: NVIDIA GeForce RTX 3050 Laptop GPU\nhipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
	} {
		if d := Default().DiagnoseString(log + "\n"); len(d.Findings) != 0 {
			t.Errorf("%q: got %+v, want nothing", log, brief(d.Findings))
		}
	}
}

func brief(fs []Finding) string {
	var b []string
	for _, f := range fs {
		b = append(b, f.ID+"/"+f.Confidence)
	}
	return "[" + strings.Join(b, " ") + "]"
}
