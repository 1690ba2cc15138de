package failures

import "testing"

// Harvest B (issue #15): the build-side causes in the words, tools and
// paste shapes public threads show them in, beyond the ones the knowledge
// base was written from. Each log names the expected ID with the expected
// confidence; the probable ones carry their evidence lines.
func TestHarvestBSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// std::filesystem unresolved at link time: GCC 8 keeps it in
		// libstdc++fs (ggml-org/llama.cpp#10978, #12092, #16019; the
		// maintainers: upgrade the compiler, #10979, #11320)
		{"/usr/bin/ld: ../../ggml/src/libggml.so: undefined reference to `vtable for std::filesystem::__cxx11::filesystem_error'\n/usr/bin/ld: ../../ggml/src/libggml.so: undefined reference to `std::filesystem::__cxx11::directory_iterator::operator*() const'", "host-compiler-too-old", false},
		{"[ 45%] Linking CXX executable ../bin/test-tokenizer-0\n../bin/libggml.so: undefined reference to `typeinfo for std::filesystem::__cxx11::filesystem_error'\ncollect2: error: ld returned 1 exit status", "host-compiler-too-old", false},
		{"../bin/libggml.so: undefined reference to `std::filesystem::current_path[abi:cxx11]()'", "host-compiler-too-old", false},

		// ptxas' form of an architecture CUDA 11/12 dropped (utcs-scea/altis#19)
		{"    /usr/bin/nvcc     -x cu -c /home/u/altis/CMakeFiles/CMakeTmp/main.cu -o CMakeFiles/cmTC_a1746.dir/main.cu.o\n    ptxas fatal   : Value 'sm_30' is not defined for option 'gpu-name'\n    make[1]: *** [CMakeFiles/cmTC_a1746.dir/build.make:66: CMakeFiles/cmTC_a1746.dir/main.cu.o] Error 255", "nvcc-arch-dropped", false},
		{"ptxas fatal   : Value 'sm_35' is not defined for option 'gpu-name'", "nvcc-arch-dropped", false},
		// and of one newer than the toolkit (triton's bundled ptxas: triton-lang/triton#8539)
		{"`ptxas` stderr:\nptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'", "nvcc-arch-too-new", false},

		// host_config.h's sentence wrapped onto its own line
		{"  C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\include\\crt/host_config.h(153): fatal error C1189: #error:\n  -- unsupported Microsoft Visual Studio version! Only the versions between\n  2017 and 2022 (inclusive) are supported!", "nvcc-unsupported-msvc", false},
		{"  unsupported Microsoft Visual Studio version! Only the versions between 2017 and 2022 (inclusive) are supported!", "nvcc-unsupported-msvc", false},
		{"  /usr/local/cuda/include/crt/host_config.h:132:2: error: #error\n  -- unsupported GNU version! gcc versions later than 12 are not supported!", "nvcc-unsupported-gcc", false},
		{"  -- unsupported clang version! clang version must be less than 16 and greater than 3.2 .", "nvcc-unsupported-gcc", false},

		// the Vulkan SDK's import library under an empty VULKAN_SDK (crosire/reshade#2, TheCherno/Hazel#664)
		{"LINK : fatal error LNK1104: cannot open file '\\Bin\\vulkan-1.lib'", "vulkan-sdk-not-found", false},
		{"1>LINK : fatal error LNK1181: cannot open input file '\\Lib\\vulkan-1.lib'", "vulkan-sdk-not-found", false},
		{"1>LINK : fatal error LNK1181: cannot open input file '\\Lib\\shaderc_shared.lib'", "vulkan-sdk-not-found", false},
		// vcpkg's vulkan port (microsoft/vcpkg#33452, jherico/OpenXR-Samples#10)
		{"CMake Error at ports/vulkan/portfile.cmake:30 (message):\n  The Vulkan SDK wasn't found.  Refer to Getting Started with the Windows\n  Vulkan SDK:\n  https://vulkan.lunarg.com/doc/sdk/latest/windows/getting_started.html", "vulkan-sdk-not-found", false},
		{"  CMake Error at ports/vulkan/portfile.cmake:12 (message):\n\n    Could not find Vulkan SDK.  Before continuing, please download and install\n    Vulkan from:\n\n        https://vulkan.lunarg.com/sdk/home", "vulkan-sdk-not-found", false},
		// the same in MSVC's other languages (typographic quotes)
		{"LINK : fatal error LNK1104: 无法打开文件“\\Bin\\vulkan-1.lib”", "vulkan-sdk-not-found", false},
		{"LINK : fatal error LNK1181: 无法打开输入文件“C:\\VulkanSDK\\1.3.250.1\\Lib\\vulkan-1.lib”", "vulkan-sdk-not-found", true},
		// a full path or the bare name: probable (NVIDIA/Q2RTX#45, StudioCherno/Walnut#40)
		{"LINK : fatal error LNK1181: cannot open input file 'C:\\VulkanSDK\\1.3.250.1\\Lib\\vulkan-1.lib'", "vulkan-sdk-not-found", true},
		{"/usr/bin/ld: cannot find -lvulkan\ncollect2: error: ld returned 1 exit status", "vulkan-sdk-not-found", true},
		{"/usr/bin/ld: cannot find -lvulkan: No such file or directory", "vulkan-sdk-not-found", true},

		// node-gyp's Visual Studio finder (nodejs/node-gyp#2203, #2867; cruzyjapan/Gemini-CLI-UI#5)
		{"npm ERR! gyp ERR! find VS You need to install the latest version of Visual Studio\nnpm ERR! gyp ERR! find VS including the \"Desktop development with C++\" workload.", "msvc-env-missing", true},
		{"npm error gyp ERR! find VS - missing any VC++ toolset\nnpm error gyp ERR! find VS could not find a version of Visual Studio 2017 or newer to use", "msvc-env-missing", true},
		{"77 error gyp ERR! stack Error: Could not find any Visual Studio installation to use", "msvc-env-missing", true},
		{"gyp ERR! stack Error: Could not find any Visual Studio installation to use", "msvc-env-missing", true},

		// Triton building its launcher with no C compiler (apple/ml-cross-entropy#5, thu-ml/SageAttention#7)
		{"RuntimeError: Failed to find C compiler. Please specify via CC environment variable.", "cxx-compiler-missing", true},
		{"  File \"D:\\CogVideoX\\venv\\lib\\site-packages\\triton\\runtime\\build.py\", line 52, in _build\n    raise RuntimeError(\"Failed to find C compiler. Please specify via CC environment variable.\")\nRuntimeError: Failed to find C compiler. Please specify via CC environment variable.", "cxx-compiler-missing", true},

		// torch's cpp_extension not knowing a new GPU's architecture (yfeng95/DECA#190, tianzhi0549/FCOS#385, sczhou/ProPainter#21)
		{"ValueError: Unknown CUDA arch (8.6) or GPU not supported", "nvcc-arch-too-new", true},
		{"error:ValueError: Unknown CUDA arch (8.9) or GPU not supported", "nvcc-arch-too-new", true},
		{"ValueError: Unknown CUDA arch (10.0) or GPU not supported for xfuser", "nvcc-arch-too-new", true},

		// GCC not knowing an Arm extension ggml's -march asks for (google/XNNPACK#1551,
		// #3618, #5958; ggml-org/llama.cpp#17403): probable, the compiler predates it
		{"[ 13%] Building C object ggml/src/CMakeFiles/ggml-cpu-armv9.2_1.dir/ggml-cpu/ggml-cpu.c.o\ncc1: error: invalid feature modifier ‘sme’ in ‘-march=armv9.2-a+dotprod+fp16+sve+i8mm+sve2+sme’\ncc1: note: valid arguments are: fp simd crc lse fp16 rcpc rdma dotprod aes sha2 crypto sha3 sm4 fp16fml sve profile rng memtag sb ssbs predres sve2; did you mean ‘sm4’?", "host-compiler-too-old", true},
		{"cc1: error: invalid feature modifier 'i8mm' in '-march=armv8.2-a+i8mm+fp16'", "host-compiler-too-old", true},
		{"src/qs8-gemm/gen/1x8c4-minmax-fp32-neondot.c:1:0: error: invalid feature modifier in ‘-march=armv8.2-a+dotprod’", "host-compiler-too-old", true},

		// the assembler older than the compiler's output (pigirons/cpufp#3, #11;
		// ggml-org/llama.cpp#11787, #5316; ollama/ollama#8942): probable
		{"/tmp/ccRVbZKp.s: Assembler messages:\n/tmp/ccRVbZKp.s:1569: Error: no such instruction: `vpdpbusd %zmm2,%zmm31,%zmm22'", "host-compiler-too-old", true},
		{"      /tmp/ccf8kgSy.s:18475: Error: unsupported instruction `vpdpbusd'", "host-compiler-too-old", true},
		{"    /tmp/cc1SXjxo.s: Assembler messages:\n    /tmp/cc1SXjxo.s:26007: 错误：unsupported instruction `vpdpbusd'\n    make: *** [Makefile:563：ggml-quants.o] 错误 1", "host-compiler-too-old", true},

		// CMake before 3.13 reads 'cmake -B build' 's build folder as the source
		// (ompl/ompl#1337, leomccormack/Spatial_Audio_Framework#19,
		// AndrewCrewKuznetsov/xneur-devel#41): probable
		{"CMake Error: The source directory \"/home/ubuntu/ompl-1.7.0/build\" does not exist.", "cmake-too-old", true},
		{"$ cmake -S . -B build\nCMake Error: The source directory \"/home/df/Spatial_Audio_Framework-master/build\" does not exist.\n$ cmake --version\ncmake version 3.10.2", "cmake-too-old", true},
		{"xneur-devel/xneur$ mkdir build & cmake -S . -B build -DCMAKE_BUILD_TYPE=Release\nCMake Error: The source directory \"/home/user/Projects/xneur-devel/xneur/build\" does not appear to contain CMakeLists.txt.\nSpecify --help for usage, or press the help button on the CMake GUI.", "cmake-too-old", true},

		// 'cmake --build ... -j' on a CMake before 3.12 (diasurgical/DevilutionX#442,
		// libgeos/geos#418, RenderKit/superbuild#2): probable
		{"$ cmake --build . -j $(nproc)\nUnknown argument -j\nUnknown argument 8\nUsage: cmake --build <dir> [options] [-- [native-options]]\nOptions:\n  <dir>          = Project binary directory to be built.", "cmake-too-old", true},
		{"Unknown argument -j1\nUsage: cmake --build <dir> [options] [-- [native-options]]", "cmake-too-old", true},

		// a pasted line in Markdown: bold (dmlc/xgboost#1339), inline code, a list item
		{"**/usr/bin/sh: g++: command not found**", "cxx-compiler-missing", false},
		{"`No CUDA toolset found.`", "cuda-vs-integration-missing", false},
		{"- No CMAKE_CUDA_COMPILER could be found.", "cuda-toolkit-not-found", false},
		{"* nvcc fatal   : Unsupported gpu architecture 'compute_35'", "nvcc-arch-dropped", false},

		// meson's Windows list of compilers (icl and cl first: mesonbuild/compilers/detect.py), none found
		{"ERROR: Unknown compiler(s): [['icl'], ['cl'], ['cc'], ['gcc'], ['clang'], ['clang-cl'], ['pgcc']]", "msvc-env-missing", true},

		// MSB4019 for the CUDA props, the path broken across lines by CMake's
		// reflowed compiler-id output (as unslothai/unsloth#4518 shows the CUDA .targets path)
		{"  C:\\Users\\u\\llama.cpp\\build\\CMakeFiles\\3.27.5\\CompilerIdCUDA\\CompilerIdCUDA.vcxproj(14,5):\n  error MSB4019: The imported project \"C:\\Program Files\\Microsoft Visual\n  Studio\\2022\\Community\\MSBuild\\Microsoft\\VC\\v170\\BuildCustomizations\\CUDA\n  12.4.props\" was not found.  Confirm that the expression in the Import\n  declaration", "cuda-vs-integration-missing", false},

		// GNU make on Windows could not start the compiler (ccxvii/minilibs#4,
		// marcobambini/gravity#198, nrpy/nrpy#24): probable
		{"process_begin: CreateProcess(NULL, cc -I. -O3 -std=c11 -c ggml.c -o ggml.o, ...) failed.\nmake (e=2): The system cannot find the file specified.\nmake: *** [Makefile:372: ggml.o] Error 2", "cxx-compiler-missing", true},
		{"process_begin: CreateProcess(NULL, g++ -c src/flow.cpp -o obj/flow.o -std=c++11, ...) failed.\nmake (e=2): Das System kann die angegebene Datei nicht finden.", "cxx-compiler-missing", true},

		// MSVC's STL refusing an older clang (aseprite/aseprite#2530, #2269; bazelbuild/continuous-integration#1433)
		{"C:\\Program Files (x86)\\Microsoft Visual Studio\\2019\\BuildTools\\VC\\Tools\\MSVC\\14.29.30133\\include\\yvals_core.h(571,2): error: STL1000: Unexpected compiler version, expected Clang 11.0.0 or newer.\n#error STL1000: Unexpected compiler version, expected Clang 11.0.0 or newer.", "host-compiler-too-old", false},
		{"static_assert failed \"error STL1000: Unexpected compiler version, expected Clang 17.0.0 or newer.\" at C:\\Program Files\\Microsoft Visual Studio\\2022\\Community\\VC\\Tools\\MSVC\\14.41.34120\\include\\yvals_core.h(894, 1)", "host-compiler-too-old", false},

		// nvcc's front end failing on GCC 12's avx512fp16intrin.h (kokkos/kokkos-kernels#2108, icl-utk-edu/heffte#54): probable
		{"/usr/lib64/gcc/x86_64-suse-linux/12/include/avx512fp16intrin.h(38): error: vector_size attribute requires an arithmetic or enum type\n   typedef __half __v8hf __attribute__ ((__vector_size__ (16)));", "nvcc-unsupported-gcc", true},

		// shells' own forms: zsh (read as a command named "zsh" before), dash
		// running a script (speedinghzl/CCNet#56), bash in Chinese
		// (tranluan/Nonlinear_Face_3DMM#42), bash with its name (eugene-tarassov/vivado-risc-v#114)
		{"zsh: command not found: nvcc", "cuda-toolkit-not-found", false},
		{"zsh: command not found: g++", "cxx-compiler-missing", false},
		{"zsh: command not found: ninja", "ninja-missing", false},
		{"build.sh: 11: build.sh: nvcc: not found", "cuda-toolkit-not-found", false},
		{"./compile_op_v2_sz224.sh: 行 15: nvcc: 未找到命令\ng++: error: cuda_op_kernel_v2_sz224.cu.o: 没有那个文件或目录", "cuda-toolkit-not-found", false},
		{"bash: g++: 未找到命令", "cxx-compiler-missing", false},
		{"-bash: g++: command not found", "cxx-compiler-missing", false},
		// distutils running the nvcc under a CUDA_HOME that holds none:
		// probable, CUDA_HOME may point elsewhere
		{"unable to execute '/usr/local/cuda/bin/nvcc': No such file or directory\nerror: command '/usr/local/cuda/bin/nvcc' failed with exit status 1", "cuda-toolkit-not-found", true},
	})
}

// Near misses: the same words with another cause. The ID in each case must
// not be named.
func TestHarvestBNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// std::filesystem symbols with a GLIBCXX version: the compiler is new,
		// an older libstdc++ was found at link time (ggml-org/llama.cpp#10778)
		{"../ggml/src/libggml.so: undefined reference to `std::filesystem::status(std::filesystem::__cxx11::path const&)@GLIBCXX_3.4.26'", "host-compiler-too-old"},
		// another library's undefined references, or a filesystem call in the program's own code that compiled
		{"/usr/bin/ld: main.o: undefined reference to `fs_open_dir'", "host-compiler-too-old"},
		{"undefined reference to `my::filesystem::open()'", "host-compiler-too-old"},
		// ptxas rejecting an architecture between the dropped and the newest is left to the toolkit's age (a bundled ptxas)
		{"ptxas fatal   : Value 'sm_52' is not defined for option 'gpu-name'", "nvcc-arch-dropped"},
		{"ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'", "nvcc-arch-dropped"},
		{"ptxas fatal   : Unresolved extern function '_Z3foov'", "nvcc-arch-dropped"},
		// a sentence that only mentions the check
		{"Note: nvcc rejects an unsupported Microsoft Visual Studio version; pass -allow-unsupported-compiler", "nvcc-unsupported-msvc"},
		{"warning: unsupported GNU version detected by configure", "nvcc-unsupported-gcc"},
		// a Vulkan_LIBRARY set to a folder (ggml-org/whisper.cpp#2713), a project's own lib, the Unix name on Windows (handy-computer/transcribe.cpp#103)
		{"LINK : fatal error LNK1181: cannot open input file 'C:\\VulkanSDK\\1.3.296.0\\Lib\\.obj'", "vulkan-sdk-not-found"},
		{"1>LINK : fatal error LNK1181: cannot open input file '\\Lib\\glfw3.lib'", "vulkan-sdk-not-found"},
		{"LINK : fatal error LNK1181: cannot open input file 'vulkan.lib'", "vulkan-sdk-not-found"},
		{"/usr/bin/ld: cannot find -lvulkan-1", "vulkan-sdk-not-found"},
		// node-gyp's Python finder, or a Visual Studio it found and uses
		{"gyp ERR! stack Error: Could not find any Python installation to use", "msvc-env-missing"},
		{"gyp info find VS using VS2022 (17.9.34622.214) found at:", "msvc-env-missing"},
		// Triton's other errors
		{"RuntimeError: Failed to find CUDA.", "cxx-compiler-missing"},
		{"triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error", "cxx-compiler-missing"},
		// an old or malformed TORCH_CUDA_ARCH_LIST entry is not a GPU newer than torch
		{"ValueError: Unknown CUDA arch (3.0) or GPU not supported", "nvcc-arch-too-new"},
		{"ValueError: Unknown CUDA arch (8.6；8.9) or GPU not supported", "nvcc-arch-too-new"},
		// a newer CMake dropping old compatibility is not an old CMake
		{"CMake Error at CMakeLists.txt:3 (cmake_minimum_required):\n  Compatibility with CMake < 3.5 has been removed from CMake.", "cmake-too-old"},
		// HIP headers missing where ROCm is installed (a host compiler used for HIP sources: ggml-org/llama.cpp#10236)
		{"fatal error: 'hip/hip_fp16.h' file not found", "hip-sdk-not-found"},
		// hipcc's platform probe runs nvcc by path and falls back to AMD; a
		// shell naming a command that is not a build tool; nvcc that ran and failed
		{"sh: 1: /usr/local/cuda/bin/nvcc: not found\nsh: 1: nvcc: not found\nDevice not supported - Defaulting to AMD", "cuda-toolkit-not-found"},
		{"zsh: command not found: conda", "cuda-toolkit-not-found"},
		{"error: command '/usr/local/cuda/bin/nvcc' failed with exit status 1", "cuda-toolkit-not-found"},
		{"unable to execute '/usr/local/cuda/bin/nvcc': Permission denied", "cuda-toolkit-not-found"},
		// a malformed CUDA_HOME (a colon-joined list, quotes inside) is not a missing toolkit
		// (open-mmlab/mmdetection#944, MVIG-SJTU/AlphaPose#765)
		{"unable to execute '/usr/local/cuda-10.0:/usr/local/cuda-10.0:/bin/nvcc': No such file or directory", "cuda-toolkit-not-found"},
		{"unable to execute \"'/usr/local/cuda'/bin/nvcc\": No such file or directory", "cuda-toolkit-not-found"},
		// GCC refusing "native+ext" for -mcpu is ggml's flag, not an old compiler (ggml-org/llama.cpp#10895, #11428)
		{"cc1: error: unknown value ‘native+nodotprod+noi8mm+nosve’ for ‘-mcpu’", "host-compiler-too-old"},
		{"cc1: error: invalid feature modifier ‘nodotprod’ in ‘-march=native+nodotprod’", "host-compiler-too-old"},
		// the assembler refusing an instruction of a CPU the toolchain does not target, or a typo in hand-written assembly
		{"/tmp/cc.s:12: Error: no such instruction: `vmovdqu8 %zmm0,(%rax)'", "host-compiler-too-old"},
		{"foo.s:3: Error: no such instruction: `vpdpbusdx %ymm0,%ymm1,%ymm2'", "host-compiler-too-old"},
		// a source folder without CMakeLists.txt (cmake run from the wrong folder)
		{"$ cmake ..\nCMake Error: The source directory \"/home/u\" does not appear to contain CMakeLists.txt.", "cmake-too-old"},
		{"CMake Error: The source directory \"/home/u/proj/src\" does not exist.", "cmake-too-old"},
		// -j given to the configure step is a misuse on any CMake (mavlink/MAVSDK#1392)
		{"Run cmake -DCMAKE_BUILD_TYPE=Release -j 2 -Bbuild/release -H.\nCMake Error: Unknown argument -j\nCMake Error: Run 'cmake --help' for all supported options.", "cmake-too-old"},
		// a sentence that only mentions the SDK
		{"Note: builds that need shaders require the Vulkan SDK; if the Vulkan SDK wasn't found, shaders are prebuilt", "vulkan-sdk-not-found"},
		// a shell trace's "+ " is a command, and a code fence is not a line
		{"+ nvcc --version\n```\nnvcc: NVIDIA (R) Cuda compiler driver\n```", "cuda-toolkit-not-found"},
		// meson's list elsewhere, or one compiler the user named
		{"meson.build:1:0: ERROR: Unknown compiler(s): [['cc'], ['gcc'], ['clang'], ['nvc'], ['pgcc'], ['icc'], ['icx']]", "msvc-env-missing"},
		{"meson.build:1:0: ERROR: Unknown compiler(s): [['cl']]", "msvc-env-missing"},
		// MSB4019 for Visual Studio's own props, wrapped the same way, is not CUDA's
		{"  x.vcxproj(14,5): error MSB4019: The imported project \"C:\\Program\n  Files\\Microsoft.Cpp.Default.props\" was not found.", "cuda-vs-integration-missing"},
		// make failing to start another tool, or the compiler for another reason
		{"process_begin: CreateProcess(NULL, python3 gen.py, ...) failed.\nmake (e=2): The system cannot find the file specified.", "cxx-compiler-missing"},
		{"process_begin: CreateProcess(NULL, gcc -c x.c -o x.o, ...) failed.\nmake (e=5): Access is denied.", "cxx-compiler-missing"},
		// the STL's CUDA check is nvcc's age, not the host compiler's (its own ID)
		{"yvals_core.h:582:2: error: STL1002: Unexpected compiler version, expected CUDA 10.1 Update 2 or newer.", "host-compiler-too-old"},
		// gcc's own error in the same header (its file:line:col form) is not nvcc's
		{"/usr/lib/gcc/x86_64-linux-gnu/12/include/avx512fp16intrin.h:38:1: error: inlining failed in call to 'always_inline' '_mm_add_ph': target specific option mismatch", "nvcc-unsupported-gcc"},
		// scikit-build-core unable to read Visual Studio's CMake version string
		// ("3.26.4-msvc4") is not an old CMake (scikit-build/scikit-build-core#500, #833)
		{"2023-09-17 22:51:22,033 - scikit_build_core - WARNING - Could not determine CMake version, got 'cmake version 3.26.4-msvc4'\nscikit_build_core.errors.CMakeNotFoundError: Could not find CMake with version >= 3.12", "cmake-too-old"},
		// ninja that ran: a folder never configured, or torch's extension build failing in a compiler
		{"ninja: error: loading 'build.ninja': No such file or directory", "ninja-missing"},
		{"subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.", "ninja-missing"},
		// FindCUDA where CUDA is optional stays silent
		{"-- Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR CUDA_NVCC_EXECUTABLE CUDA_INCLUDE_DIRS CUDA_CUDART_LIBRARY)", "cuda-toolkit-not-found"},
	})
}
