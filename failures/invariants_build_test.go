package failures

import "testing"

// Build-time invariants of batch 5 (issue #15): each cause by what names it
// in any tool's words (MSBuild's import error code, CMake's message across
// versions, glslc's optimizer, a tool's name in any not-found shape), with
// the confidence the evidence allows.
func TestInvariantBuildSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// MSBuild cannot import CUDA's BuildCustomizations: the error code in any
		// language of Visual Studio, or the English sentence without it
		{`C:\src\x\x.vcxproj(40,5): error MSB4019: The imported project "C:\Program Files (x86)\MSBuild\Microsoft.Cpp\v4.0\V140\BuildCustomizations\CUDA 8.0.props" was not found. Confirm that the path in the <Import> declaration is correct, and that the file exists on disk.`, "cuda-vs-integration-missing", false},
		{`C:\src\x\x.vcxproj(61,5): error MSB4019: Das importierte Projekt "C:\Program Files\Microsoft Visual Studio\2022\Community\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 12.4.targets" wurde nicht gefunden.`, "cuda-vs-integration-missing", false},
		{`C:\src\x\x.vcxproj : error  : The imported project "C:\Program Files\Microsoft Visual Studio\2022\Community\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 12.1.props" was not found.`, "cuda-vs-integration-missing", false},
		// CMake's probe for a default CUDA architecture, as 3.18-3.20 and 3.21+ word it
		{"CMake Error at C:/Program Files/CMake/share/cmake-3.19/Modules/CMakeDetermineCUDACompiler.cmake:559 (message):\n  Failed to find a working CUDA architecture.", "cuda-arch-detect-failed", true},
		{"  Failed to detect a default CUDA architecture.", "cuda-arch-detect-failed", true},
		// glslc's optimizer (SPIRV-Tools) behind its GLSL front end: a capability it
		// does not know names it; any other rejection only points at it
		{"shaderc: internal error: compilation succeeded but failed to optimize: Invalid capability operand: 5433", "vulkan-glslc-too-old", false},
		{"shaderc: internal error: compilation succeeded but failed to optimize: Expected input to have different bit width from Result Type: FConvert", "vulkan-glslc-too-old", true},
		// llama.cpp's own CMake warning for a tree that is not a git checkout
		{"CMake Warning at common/CMakeLists.txt:32 (message):\n  Git repository not found; to enable automatic generation of build info,\n  make sure Git is installed and the project is a Git repository.", "build-info-unknown", false},
		// glslangValidator ships with the Vulkan SDK on Windows: missing there,
		// in any shape, with a Windows path or vcpkg triplet in sight
		{"-- Found nlohmann_json: build/vcpkg_installed/x64-windows/share/nlohmann_json/nlohmann_jsonConfig.cmake\nCMake Error at src/CMakeLists.txt:67 (message):\n  Required program `glslangValidator` not found.", "vulkan-sdk-not-found", true},
		{"C:\\src\\app>cmake --build build\n'glslangValidator' is not recognized as an internal or external command,", "vulkan-sdk-not-found", true},
		{"-- Could NOT find Vulkan (missing: glslangValidator) (found version \"1.3.280\")\nC:\\src\\app\\build", "vulkan-sdk-not-found", true},
		// precision review: CMake's "Could NOT find X" is a status line where X is
		// optional; under FindPackageHandleStandardArgs' error (or llama.cpp's own
		// hint) it names the cause, alone it points at it
		{"CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n  Could NOT find Vulkan (missing: Vulkan_LIBRARY Vulkan_INCLUDE_DIR glslc)", "vulkan-sdk-not-found", false},
		{"-- Could NOT find Vulkan (missing: Vulkan_LIBRARY Vulkan_INCLUDE_DIR)", "vulkan-sdk-not-found", true},
		{"CMake Error at common/CMakeLists.txt:90 (message):\n  Could NOT find CURL. Hint: to disable this feature, set -DLLAMA_CURL=OFF", "curl-missing", false},
		{"CMake Error at /usr/share/cmake-3.28/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n  Could NOT find CURL (missing: CURL_LIBRARY CURL_INCLUDE_DIR)", "curl-missing", false},
		{"-- Could NOT find CURL (missing: CURL_LIBRARY CURL_INCLUDE_DIR)", "curl-missing", true},
		{"CMake Error at /usr/share/cmake-3.28/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n  Could NOT find CUDAToolkit (missing: CUDA_CUDART)", "cuda-toolkit-not-found", false},
		// CMake's compiler test names its language on the line before the sentence
		{"  The CUDA compiler\n\n    \"/usr/local/cuda/bin/nvcc\"\n\n  is not able to compile a simple test program.", "cuda-compiler-test-failed", true},
		{"    \"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.2/bin/nvcc.exe\"\n\n  is not able to compile a simple test program.", "cuda-compiler-test-failed", true},
		// GCC 11's std::function is what nvcc 11.5 trips on; the bare error is any template's
		{"/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with '...':\n  435 |         function(_Functor&& __f)\n/usr/include/c++/11/bits/std_function.h:435:145: note:         '_ArgTypes'", "cuda-gcc-parameter-packs", false},
		{"/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with '...':", "cuda-gcc-parameter-packs", true},
		// a GPU_TARGETS value that is not a gfx name is a command line, not an error
		{"make -j16 LLAMA_HIPBLAS=1 AMDGPU_TARGETS=gxf1032", "hip-invalid-target", true},
		// a stale shader header: ggml-vulkan's pipeline code in sight, or gcc's sibling hint
		{"ggml-vulkan.cpp:1918:42: error: 'flash_attn_f32_f16_int8_data' was not declared in this scope\n 1918 |  if (f32acc) { spv_data = flash_attn_f32_f16_int8_data; }", "vulkan-shaders-header-stale", false},
		{"ggml/src/ggml-vulkan/ggml-vulkan.cpp: In function 'void ggml_vk_load_shaders(vk_device&)':\nggml-vulkan.cpp:2010:9: error: 'matmul_f16_l_len' was not declared in this scope", "vulkan-shaders-header-stale", true},
		{"x.cpp:1918:42: error: 'rope_f16_data' was not declared in this scope; did you mean 'rope_f32_data'?", "vulkan-shaders-header-stale", true},
		// the same causes in the words of CMake's other modules, clang, MSBuild,
		// MSVC and setuptools
		{"CMake Error at /usr/share/cmake-3.22/Modules/CMakeDetermineCUDACompiler.cmake:179 (message):\n  Failed to find nvcc.\n  Compiler Clang requires the CUDA toolkit. Please set the CUDAToolkit_ROOT\n  variable.", "cuda-toolkit-not-found", false},
		{"  Compiler Clang requires the CUDA toolkit. Please set the CUDAToolkit_ROOT variable.", "cuda-toolkit-not-found", false},
		{"CMake Error at /usr/share/cmake-3.16/Modules/FindPackageHandleStandardArgs.cmake:146 (message):\n  Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE)", "cuda-toolkit-not-found", false},
		{"CMake Error at /usr/share/cmake-3.16/Modules/FindCUDA.cmake:857 (message):\n  Specify CUDA_TOOLKIT_ROOT_DIR", "cuda-toolkit-not-found", false},
		{`C:\Program Files\Microsoft Visual Studio\2022\Community\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 12.4.targets(862,9): error : The CUDA Toolkit v12.4 directory '' does not exist.  Please verify the CUDA Toolkit is installed properly or define the CudaToolkitDir property to resolve this error.`, "cuda-toolkit-not-found", false},
		{"C:\\BuildTools\\MSBuild\\Microsoft\\VC\\v170\\BuildCustomizations\\CUDA 13.1.targets(609,9): error : \n  The CUDA Toolkit directory '' does not exist. \n  Please verify the CUDA Toolkit is installed properly", "cuda-toolkit-not-found", false},
		{"CMake Error at CMakeLists.txt:3 (project):\n  No CMAKE_HIP_COMPILER could be found.", "hip-sdk-not-found", false},
		{"clang: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass '-nogpuinc' to build without HIP runtime", "hip-sdk-not-found", false},
		{`C:\llama.cpp\ggml\src\ggml-vulkan\ggml-vulkan.cpp(3): fatal error C1083: Cannot open include file: 'vulkan/vulkan.hpp': No such file or directory`, "vulkan-sdk-not-found", false},
		{`C:\llama.cpp\ggml\src\ggml-vulkan\ggml-vulkan.cpp(5): fatal error C1083: Cannot open include file: 'spirv/unified1/spirv.hpp': No such file or directory`, "vulkan-spirv-headers-missing", false},
		{"error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory", "cxx-compiler-missing", false},
		{"unable to execute 'gcc': No such file or directory", "cxx-compiler-missing", false},
		{"error: command 'cl.exe' failed: No such file or directory", "msvc-env-missing", false},
		{`C:\src\ext.cpp(1): fatal error C1083: Cannot open include file: 'type_traits': No such file or directory`, "msvc-env-missing", true},
		{"FileNotFoundError: [Errno 2] No such file or directory: 'ninja'", "ninja-missing", false},
		// llama.cpp before GGML only warned and built for the CPU; the warning
		// names the SDK only after FindVulkan's status line says what is missing
		{"-- Could NOT find Vulkan (missing: Vulkan_LIBRARY Vulkan_INCLUDE_DIR)\nCMake Warning at CMakeLists.txt:480 (message):\n  Vulkan not found", "vulkan-sdk-not-found", false},
		{"-- Could NOT find Vulkan (missing: glslc) (found version \"1.3.257\")\nCMake Warning at CMakeLists.txt:343 (message):\n  Vulkan not found", "vulkan-glslc-missing", false},
		{"CMake Warning at vendor/llama.cpp/CMakeLists.txt:305 (message):\n  cuBLAS not found", "cuda-toolkit-not-found", false},
		// nvcc includes the runtime API itself: an unknown cuda* function is the
		// toolkit's age; a half intrinsic or cuBLAS call may be a missing include
		{"ggml-cuda/common.cuh(126): error: identifier \"cudaGridDependencySynchronize\" is undefined", "cuda-toolkit-too-old", false},
		{"ggml-cuda/fattn.cu(10): error: identifier \"__hmax\" is undefined", "cuda-toolkit-too-old", true},
		// a missing header in the compilers' other languages: MSVC words C1083
		// per language (the code and the header name stay), gcc's strerror is
		// glibc's translation and zh-CN's colons are full-width; MSVC's own
		// headers (the Universal CRT's, such as stdio.h, come with the Windows
		// SDK: near misses in invariants_batch12_test.go)
		{`C:\src\x.cpp(1): schwerwiegender Fehler C1083: Datei (Include) kann nicht geöffnet werden: "type_traits": No such file or directory`, "msvc-env-missing", true},
		{`C:\src\x.cpp(1): fatal error C1083: Не удается открыть файл включение: vcruntime.h: No such file or directory`, "msvc-env-missing", true},
		{`C:\src\x.cpp(1): fatal error C1083: include ファイルを開けません。'yvals_core.h':No such file or directory`, "msvc-env-missing", true},
		{`C:\src\ggml-vulkan.cpp(1): fatal error C1083: No se puede abrir el archivo incluir: 'vulkan/vulkan.hpp': No such file or directory`, "vulkan-sdk-not-found", false},
		{"common/download.cpp:5:10: fatal error: curl/curl.h: No existe el archivo o el directorio", "curl-missing", false},
		{"ggml-vulkan.cpp:8:10: schwerwiegender Fehler: vulkan/vulkan.hpp: Datei oder Verzeichnis nicht gefunden", "vulkan-sdk-not-found", false},
		{"ggml-vulkan.cpp:8:10: 致命错误：vulkan/vulkan.hpp：没有那个文件或目录", "vulkan-sdk-not-found", false},
		// CMake names the compiler it could not run: cl is Visual Studio's
		// environment, nvcc the CUDA toolkit, g++ the system compiler, the HIP
		// compiler ROCm; the NMake fallback with no compiler identified points at
		// Visual Studio's environment
		{"CMake Error at CMakeLists.txt:3 (project):\n  The CMAKE_C_COMPILER:\n\n    cl\n\n  is not a full path and was not found in the PATH.", "msvc-env-missing", false},
		{"The CMAKE_CXX_COMPILER: cl.exe is not a full path and was not found in the PATH.", "msvc-env-missing", false},
		{"CMake Error at CMakeLists.txt:3 (project):\n  The CMAKE_CUDA_COMPILER:\n\n    nvcc\n\n  is not a full path and was not found in the PATH.", "cuda-toolkit-not-found", false},
		// a path the user or a script set that does not exist: probably the
		// toolkit, possibly only a wrong path
		{"CMake Error at CMakeLists.txt:3 (project):\n  The CMAKE_CUDA_COMPILER:\n\n    /usr/local/cuda/bin/nvcc\n\n  is not a full path to an existing compiler tool.", "cuda-toolkit-not-found", true},
		{"CMake Error at CMakeLists.txt:3 (project):\n  The CMAKE_CXX_COMPILER:\n\n    g++\n\n  is not a full path and was not found in the PATH.", "cxx-compiler-missing", false},
		{"CMake Error at CMakeLists.txt:3 (project):\n  The CMAKE_HIP_COMPILER:\n\n    C:/Program Files/AMD/ROCm/6.1/bin/clang++.exe\n\n  is not a full path to an existing compiler tool.", "hip-sdk-not-found", true},
		{"-- Building for: NMake Makefiles\n-- The C compiler identification is unknown\nCMake Error at CMakeLists.txt:3 (project):", "msvc-env-missing", true},
		// HIP through a Visual Studio generator: CMake refuses it by name, or a
		// HIP option next to the Visual Studio generator points at it
		{`HIP language not currently supported by "Visual Studio 17 2022" generator`, "hip-compiler-not-clang", false},
		{"$env:CMAKE_ARGS=\"-DGGML_HIP=on\"; pip install llama-cpp-python\n-- Building for: Visual Studio 17 2022\n-- The CXX compiler identification is MSVC 19.37.32824.0", "hip-compiler-not-clang", true},
		// the same missing compilers through cargo, the cc crate, make and meson
		{"error: linker `link.exe` not found\n  |\n  = note: program not found\nnote: the msvc targets depend on the msvc linker but `link.exe` was not found", "msvc-env-missing", false},
		{"  error occurred: Failed to find tool. Is `cl.exe` installed? (see https://docs.rs/cc/latest/cc/#compile-time-requirements for help)", "msvc-env-missing", false},
		{"error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)", "cxx-compiler-missing", false},
		{"  cargo:warning=failed to find tool \"c++\": No such file or directory (os error 2)", "cxx-compiler-missing", false},
		{"make: cc: No such file or directory", "cxx-compiler-missing", false},
		{"..\\meson.build:1:0: ERROR: Unknown compiler(s): [['icl'], ['cl'], ['cc'], ['gcc'], ['clang'], ['clang-cl'], ['pgcc']]\n      A full log can be found at C:\\Users\\me\\AppData\\Local\\Temp\\meson-log.txt", "msvc-env-missing", true},
		{"../meson.build:1:0: ERROR: Unknown compiler(s): [['cc'], ['gcc'], ['clang'], ['nvc'], ['pgcc'], ['icc'], ['icx']]\n      A full log can be found at /tmp/pip-install-x/meson-log.txt", "cxx-compiler-missing", true},
		// meson says the same of a ninja older than 1.8.2
		{"ERROR: Could not detect Ninja v1.8.2 or newer", "ninja-missing", true},
		// ccache as the launcher says which compiler it could not find: the
		// missing compiler is the cause, not ccache
		{`ccache: error: Could not find compiler "nvcc" in PATH`, "cuda-toolkit-not-found", false},
		{`ccache: error: Could not find compiler "cl.exe" in PATH`, "msvc-env-missing", false},
		{`ccache: error: Could not find compiler "g++" in PATH`, "cxx-compiler-missing", false},
		{`ccache: error: Could not find compiler "hipcc" in PATH`, "hip-sdk-not-found", false},
		{"ccache: error: Failed to create directory /home/u/.cache/ccache/tmp: Permission denied", "ccache-failed", false},
		// a project's own CMake check for the shader compiler
		{"CMake Error at ggml/src/vulkan-shaders/CMakeLists.txt:3 (message):\n  glslc not found.", "vulkan-glslc-missing", false},
		// MSBuild's own words when the C++ tools are not installed
		{"TRK0005: Failed to locate: \"CL.exe\". The system cannot find the file specified.", "msvc-env-missing", false},
		{"C:\\VS\\MSBuild\\Microsoft\\VC\\v170\\Microsoft.CppCommon.targets(741,5): error TRK0005: Failed to locate: \"link.exe\". The system cannot find the file specified.", "msvc-env-missing", false},
		// a build that failed for another reason: the unknown build info and
		// nvcc's deprecation warning are not what to report (a source archive
		// or an old architecture list prints them with any failure)
		{"CMake Warning at common/CMakeLists.txt:32 (message):\n  Git repository not found; to enable automatic generation of build info,\nCMake Error at ggml/src/ggml-cuda/CMakeLists.txt:183 (message):\n  CUDA Toolkit not found", "cuda-toolkit-not-found", false},
		{"nvcc warning : The 'compute_35', 'compute_37', 'sm_35', 'sm_37' architectures are deprecated, and may be removed in a future release (Use -Wno-deprecated-gpu-targets to suppress warning).\n/usr/local/cuda/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version! gcc versions later than 11 are not supported!\nninja: build stopped: subcommand failed.", "nvcc-unsupported-gcc", false},
		// FindCUDAToolkit's status line, printed wherever CUDA is looked for
		{"-- Unable to find cudart library.", "cuda-toolkit-not-found", true},
		// ggml-cuda's needs that CUDA 10 lacks: nvcc 11's -extended-lambda, cuda_bf16.h
		{"nvcc fatal   : Unknown option '-extended-lambda'", "cuda-toolkit-too-old", false},
		{"ggml/src/ggml-cuda/vendors/cuda.h(6): catastrophic error: cannot open source file \"cuda_bf16.h\"", "cuda-toolkit-too-old", true},
		// CMake's other checks of the same cache and its multi-config Ninja
		{"CMake Error: Error: generator platform: ARM64\nDoes not match the platform used previously: x64\nEither remove the CMakeCache.txt file and CMakeFiles directory or choose a different binary directory.", "cmake-cache-mismatch", false},
		{`CMake Error: CMake was unable to find a build program corresponding to "Ninja Multi-Config".  CMAKE_MAKE_PROGRAM is not set.`, "ninja-missing", false},
		// the toolkit's other libraries on Linux, as on Windows
		{"/usr/bin/ld: cannot find -lnvrtc: No such file or directory", "cuda-link-libpath", false},
		// a compiler named in CC/CXX/CUDACXX that CMake could not find
		{"CMake Error at CMakeLists.txt:3 (project):\n  Could not find compiler set in environment variable CC:\n\n  cl.", "msvc-env-missing", false},
		{"CMake Error at CMakeLists.txt:3 (project):\n  Could not find compiler set in environment variable CXX:\n\n  /usr/bin/g++-13.", "cxx-compiler-missing", false},
		{"  Could not find compiler set in environment variable CUDACXX:\n\n  /usr/local/cuda-12.4/bin/nvcc.", "cuda-toolkit-not-found", true},
		{"CMake Warning:\n  Manually-specified variables were not used by the project:\n\n    AMDGPU_TARGETS\n    LLAMA_HIPBLAS\n", "cmake-flag-ignored", false},
	})
}

// The near-misses of those invariants, and of the build rules reviewed for
// precision: say nothing rather than a wrong cause.
func TestInvariantBuildSilences(t *testing.T) {
	for _, log := range []string{
		// another project's import, a CUDA props file that was found
		`C:\src\x\x.vcxproj(40,5): error MSB4019: The imported project "C:\src\packages\Foo.targets" was not found.`,
		`Importing project "C:\Program Files\Microsoft Visual Studio\2022\Community\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 12.4.props" into project "x.vcxproj".`,
		// the architecture message of other languages, or an architecture that was found
		"Failed to find a working HIP architecture.",
		"-- The CUDA compiler identification is NVIDIA 12.4.131\n-- Detecting CUDA compiler ABI info - done",
		// glslc's compile errors of the shader itself are not the optimizer's
		"shaderc: internal error: compilation failed",
		// git outside llama.cpp's build-info step: pip, a build script
		"fatal: not a git repository (or any of the parent directories): .git",
		"fatal: no es un repositorio git (ni ninguno de los directorios superiores): .git",
		// glslangValidator on Linux ships in glslang-tools, not with the Vulkan
		// SDK; a tool that was found
		"[ 40%] Compiling vertex shader\n/bin/sh: 1: Vulkan_GLSLANG_VALIDATOR_EXECUTABLE-NOTFOUND: not found\namd@host:~/src$",
		"/usr/bin/ld: cannot find -lfoo\nglslangValidator: command not found\n/home/u/src",
		"-- Found glslangValidator: C:/VulkanSDK/1.3.280.0/Bin/glslangValidator.exe",
		// CMake's compiler test of another language; CMakeOutput.log's success line
		"CMake Error at /usr/share/cmake-3.25/Modules/CMakeTestCCompiler.cmake:70 (message):\n  The C compiler\n\n    \"/usr/bin/cc\"\n\n  is not able to compile a simple test program.",
		"  is not able to compile a simple test program.",
		"Compiling the CUDA compiler identification source file \"CMakeCUDACompilerId.cu\" succeeded.",
		// a variable or placeholder for the targets
		"cmake -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=$GFX_ARCH",
		"cmake -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=${{ matrix.targets }}",
		"cmake -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=<your gfx>",
		// FindCUDA's and CMake's words where CUDA is optional; a compiler that
		// ran and failed; a tool other than ninja; the project's own header
		"-- Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE CUDA_INCLUDE_DIRS CUDA_CUDART_LIBRARY)",
		"CUDA_TOOLKIT_ROOT_DIR not found or specified",
		"error: command 'gcc' failed with exit status 1",
		"error: command '/usr/bin/gcc' failed with exit code 1",
		"FileNotFoundError: [Errno 2] No such file or directory: 'ninja.log'",
		`C:\src\x.cpp(1): fatal error C1083: Cannot open include file: 'vulkan_helpers.h': No such file or directory`,
		"clang: error: cannot find libdevice for sm_35; provide path to different CUDA installation via '--cuda-path'",
		// a header of the project's own whose name ends like the C runtime's; a source file
		`C:\src\x.cpp(1): fatal error C1083: Cannot open include file: 'mystdio.h': No such file or directory`,
		`C:\src\x.cpp(1): fatal error C1083: Cannot open source file: 'stdio.h.cpp': No such file or directory`,
		// a compiler path of the user's own; Ninja chosen (the compiler may be
		// anything); a line that is only "cl"
		"CMake Error at CMakeLists.txt:3 (project):\n  The CMAKE_C_COMPILER:\n\n    /usr/bin/mycc\n\n  is not a full path to an existing compiler tool.",
		"-- Building for: Ninja\n-- The C compiler identification is unknown",
		"cl",
		// a HIP build with Ninja; an MSVC configure with nothing about HIP
		"cmake -B build -DGGML_HIP=ON -G Ninja\n-- The CXX compiler identification is Clang 17.0.0",
		"-- Building for: Visual Studio 17 2022\n-- The C compiler identification is MSVC 19.37.32824.0",
		// another linker or tool the crate misses (meson's list that starts
		// with icl and cl is its Windows list: named, probable, in
		// invariants_harvest_b_test.go)
		"error: linker `aarch64-linux-gnu-gcc` not found",
		"  cargo:warning=failed to find tool \"nasm\": No such file or directory (os error 2)",
		// ccache missing a compiler of no known toolkit
		`ccache: error: Could not find compiler "mycc" in PATH`,
		// glslc that was found
		"-- Found glslc: /usr/bin/glslc",
		// TRK0005 for a tool of the project's own
		`error TRK0005: Failed to locate: "protoc.exe". The system cannot find the file specified.`,
		// a failed build of a source archive: nothing known failed, and the
		// warning is not why
		"CMake Warning at cmake/build-info.cmake:14 (message):\n  Git not found. Build info will not be accurate.\n[12/80] Building CXX object x.o\nninja: build stopped: subcommand failed.",
		"-- Git not found. Build info will not be accurate.\nmake[2]: *** [ggml/src/CMakeFiles/ggml.dir/build.make:76: ggml.o] Error 1",
		"Git repository not found; to enable automatic generation of build info,\n-- Configuring incomplete, errors occurred!",
		// make, not ninja, is what is missing here
		`CMake Error: CMake was unable to find a build program corresponding to "Unix Makefiles".  CMAKE_MAKE_PROGRAM is not set.`,
		// a compiler of no known toolkit named in CC
		"  Could not find compiler set in environment variable CC:\n\n  /opt/intel/icx.",
		// unused tuning options or architectures of a GPU build that is still
		// built (a removed GGML_CUDA_* knob, a HIP list in a CUDA build): not a
		// CPU-only build
		"CMake Warning:\n  Manually-specified variables were not used by the project:\n\n    GGML_CUDA_FORCE_DMMV\n",
		"CMake Warning:\n  Manually-specified variables were not used by the project:\n\n    AMDGPU_TARGETS\n    CUDA_ARCHITECTURES\n",
		// a CMake warning of another package; a type that is not a CUDA API
		"CMake Warning at CMakeLists.txt:40 (message):\n  OpenMP not found",
		"kernel.cu(10): error: identifier \"my_cuda_helper\" is undefined",
		// an undeclared *_len of the project's own, without Vulkan in sight
		"src/parse.cpp:40:9: error: 'header_len' was not declared in this scope",
	} {
		if d := Default().DiagnoseString(log + "\n"); len(d.Findings) != 0 {
			t.Errorf("%q: got %+v, want nothing", log, brief(d.Findings))
		}
	}
}
