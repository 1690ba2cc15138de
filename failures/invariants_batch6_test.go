package failures

import "testing"

// The invariants added for batch 6's dev logs (issue #15): each log names the
// expected ID with the expected confidence; the probable ones carry their
// evidence lines.
func TestBatch6Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// no OpenCL ICD loader at all: no platform can be found
		{"Cannot find an OpenCL ICD loader library.\n\nYou are probably missing the native OpenCL runtime or driver for your platform.", "opencl-no-platform", false},
		{"ERROR: unable to load the OpenCL ICD loader", "opencl-no-platform", false},

		// instance creation failing with VK_ERROR_INITIALIZATION_FAILED: the driver
		// did not initialise (a broken implicit layer does the same: probable)
		{"vulkaninfo/vulkaninfo.c:3339: failed with VK_ERROR_INITIALIZATION_FAILED", "vulkan-no-driver", true},
		{"vulkaninfo.c:630: failed with VK_ERROR_INITIALIZATION_FAILED", "vulkan-no-driver", true},
		{"terminate called after throwing an instance of 'vk::InitializationFailedError'\n  what():  vk::createInstance: ErrorInitializationFailed", "vulkan-no-driver", true},

		// torch's fbgemm.dll is the first DLL torch loads that needs OpenMP
		{`OSError: [WinError 126] The specified module could not be found. Error loading "C:\venv\Lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies.`, "openmp-dll-missing", true},
		{`OSError: [WinError 126] 找不到指定的模块。 Error loading "D:\envs\x\Lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies`, "openmp-dll-missing", true},

		// ollama has only its CPU runners but sees a GPU
		{"time=2025-02-10T19:56:38.961+08:00 level=INFO source=routes.go:1267 msg=\"Dynamic LLM libraries\" runners=[cpu]\n" +
			"time=2025-02-10T19:56:38.961+08:00 level=INFO source=gpu.go:226 msg=\"looking for compatible GPUs\"\n" +
			"time=2025-02-10T19:56:39.438+08:00 level=INFO source=types.go:131 msg=\"inference compute\" id=GPU-e60f library=cuda variant=v11 compute=8.0 driver=11.8 name=\"NVIDIA A100-SXM4-80GB\" total=\"79.3 GiB\" available=\"78.9 GiB\"",
			"gpu-backend-not-loaded", true},
		{"level=INFO source=common.go:49 msg=\"Dynamic LLM libraries\" runners=\"[cpu cpu_avx cpu_avx2]\"\n" +
			"level=INFO source=types.go:107 msg=\"inference compute\" id=0 library=rocm variant=\"\" compute=gfx1030 driver=6.3 name=1002:73bf total=\"16.0 GiB\"",
			"gpu-backend-not-loaded", true},

		// ollama 0.1's form: the list inside the message
		{"time=2024-04-20T10:00:00.000Z level=INFO source=payload.go:44 msg=\"Dynamic LLM libraries [cpu_avx2 cpu cpu_avx]\"\n" +
			"time=2024-04-20T10:00:01.000Z level=INFO source=types.go:71 msg=\"inference compute\" id=GPU-5ab1 library=cuda compute=8.6 driver=12.4 name=\"NVIDIA GeForce RTX 3090\" total=\"24.0 GiB\" available=\"23.1 GiB\"",
			"gpu-backend-not-loaded", true},

		// a GPU no CUDA 11+ toolkit compiles for, then a CUDA error
		{"ggml_init_cublas: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce GTX 765M, compute capability 3.0\n\ncuBLAS error 3 at ggml-cuda.cu:5552\ncurrent device: 0", "cuda-no-kernel-image", true},
		{"  Device 0: GeForce GT 520, compute capability 2.1, VMM: no\nCUDA error: unspecified launch failure\n  current device: 0, in function ggml_cuda_op_mul_mat at ggml-cuda.cu:1610", "cuda-no-kernel-image", true},

		// the HIP package CMake found cannot include its own targets file
		{"CMake Error at /opt/rocm/hip/lib/cmake/hip/hip-config.cmake:214 (\n   include could not find requested file:\n \n     /opt/rocm/hip/lib/cmake/hip/hip-targets.cmake", "hip-sdk-not-found", true},
		{"CMake Error at /opt/rocm-5.3.0/lib/cmake/hip-lang/hip-lang-config.cmake:90 (include):\n  include could not find requested file:\n\n    /opt/rocm-5.3.0/lib/cmake/hip-lang/hip-lang-targets.cmake", "hip-sdk-not-found", true},

		// CMake's FindCUDA module found no toolkit
		{"CMake Error at /usr/share/cmake-3.16/Modules/FindPackageHandleStandardArgs.cmake:146 (message):\n  Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE\n  CUDA_INCLUDE_DIRS CUDA_CUDART_LIBRARY)", "cuda-toolkit-not-found", false},
		{"CMake Error at /usr/share/cmake-3.10/Modules/FindCUDA.cmake:682 (message):\n  Specify CUDA_TOOLKIT_ROOT_DIR\nCall Stack (most recent call first):\n  CMakeLists.txt:11 (find_package)", "cuda-toolkit-not-found", false},
	})
}

// Near-misses: the same words for something else, or one of the two signals
// alone. The ID in each case must not be named.
func TestBatch6NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// CMake finding the loader is no failure
		{"-- Looking for OpenCL ICD loader - found", "opencl-no-platform"},
		{"-- Found OpenCL: /usr/lib/x86_64-linux-gnu/libOpenCL.so (found version \"3.0\")", "opencl-no-platform"},

		// device creation and memory are not the instance: other causes
		{"terminate called after throwing an instance of 'vk::InitializationFailedError'\n  what():  vk::PhysicalDevice::createDevice: ErrorInitializationFailed", "vulkan-no-driver"},
		{"ERROR at vulkaninfo.h:1024:vkCreateDevice failed with ERROR_INITIALIZATION_FAILED", "vulkan-no-driver"},
		{"ggml_vulkan: vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY", "vulkan-no-driver"},

		// c10.dll first (the VC++ runtime), another error code, another DLL
		{`OSError: [WinError 126] The specified module could not be found. Error loading "C:\venv\Lib\site-packages\torch\lib\c10.dll" or one of its dependencies.`, "openmp-dll-missing"},
		{`OSError: [WinError 127] The specified procedure could not be found. Error loading "C:\venv\Lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies.`, "openmp-dll-missing"},
		{`OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "C:\venv\Lib\site-packages\torch\lib\fbgemm.dll" or one of its dependencies.`, "openmp-dll-missing"},

		// GPU runners present, or no GPU at all
		{"msg=\"Dynamic LLM libraries\" runners=\"[cpu cpu_avx cpu_avx2 cuda_v11 cuda_v12 rocm_avx]\"\nmsg=\"inference compute\" id=GPU-1 library=cuda variant=v12 compute=8.6", "gpu-backend-not-loaded"},
		{"msg=\"Dynamic LLM libraries [cpu_avx2 cuda_v11 rocm_v60002 cpu cpu_avx]\"\nmsg=\"inference compute\" id=GPU-1 library=cuda compute=8.6", "gpu-backend-not-loaded"},
		{"msg=\"Dynamic LLM libraries [cpu_avx2 cpu cpu_avx]\"\nmsg=\"inference compute\" id=0 library=cpu variant=avx2 compute=\"\" driver=0.0 name=\"\" total=\"31.2 GiB\"", "gpu-backend-not-loaded"},

		// a GPU some toolkit still compiles for; an old GPU without an error; an old GPU out of memory
		{"  Device 0: Tesla K80, compute capability 3.7, VMM: yes\nCUDA error: unspecified launch failure", "cuda-no-kernel-image"},
		{"  Device 0: NVIDIA GeForce GTX 765M, compute capability 3.0\nllama_model_load: loaded meta data", "cuda-no-kernel-image"},
		{"  Device 0: NVIDIA GeForce GTX 680, compute capability 3.0\nCUDA error: out of memory\n  current device: 0", "cuda-no-kernel-image"},
		// a Kepler's last driver (R470) is older than a CUDA 12 runtime: the driver is named
		{"  Device 0: NVIDIA GeForce GTX 680, compute capability 3.0\nCUDA error: CUDA driver version is insufficient for CUDA runtime version", "cuda-no-kernel-image"},
		{"  Device 0: NVIDIA GeForce RTX 3060, compute capability 3.05\nCUDA error: unspecified launch failure", "cuda-no-kernel-image"},

		// a project's own include, and the Windows HIP SDK's broken paths (another ID)
		{"CMake Error at CMakeLists.txt:10 (include):\n  include could not find requested file:\n\n    cmake/hip-targets.cmake", "hip-sdk-not-found"},
		{"CMake Error at C:/Program Files/AMD/ROCm/5.7/lib/cmake/hip/hip-config-amd.cmake:50 (include):\n  The imported target \"hip::host\" references the file\n     \"C:/constructicon/builds/gfx/eleven/23.30/drivers/compute/install/native/Release/x64/lib/amdhip64.lib\"\n  but this file does not exist.", "hip-sdk-not-found"},

		// FindCUDA finding the toolkit
		{"-- Found CUDA: /usr/local/cuda (found version \"11.8\")", "cuda-toolkit-not-found"},
		// an optional CUDA not found is a status line, not the failure
		{"-- Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE CUDA_INCLUDE_DIRS CUDA_CUDART_LIBRARY)\nCMake Error at CMakeLists.txt:40 (message):\n  Protobuf not found", "cuda-toolkit-not-found"},
	})
}
