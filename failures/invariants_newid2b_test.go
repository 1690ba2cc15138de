package failures

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The build IDs of issue #15's second round: causes of failed builds the
// neighbourhood hits and llamactl could not name, each recognised by the
// fixed wording of the tool that reports it.
var newID2bIDs = []string{"compiler-out-of-memory", "cmake-too-old", "msvc-wrong-arch", "cuda-arch-malformed", "host-compiler-too-old"}

// Each log names the expected ID and only it, with the expected confidence.
func TestNewID2bSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// the compiler says it could not allocate memory (GCC/libiberty, MSVC in
		// English and Chinese: the code is the same in every language)
		{"virtual memory exhausted: Cannot allocate memory", "compiler-out-of-memory", false},
		{"cc1plus: out of memory allocating 4194304 bytes after a total of 2147483648 bytes", "compiler-out-of-memory", false},
		{`C:\llama.cpp\ggml\src\ggml-cuda\fattn.cu(12): fatal error C1060: compiler is out of heap space`, "compiler-out-of-memory", false},
		{"c1xx : fatal error C1002: compiler is out of heap space in pass 2", "compiler-out-of-memory", false},
		{"ggml-cpu.c(3120): fatal error C1076: compiler limit: internal heap limit reached", "compiler-out-of-memory", false},
		{"llama.cpp(1): fatal error C1060: 编译器的堆空间不足", "compiler-out-of-memory", false},
		{"LINK : fatal error LNK1102: out of memory", "compiler-out-of-memory", false},
		// nvcc's front end (recorded with nvcc 11.8 under ulimit -v) and its back end
		{"/usr/include/c++/11/bits/stl_iterator_base_funcs.h(182): catastrophic error: out of memory\n\n1 catastrophic error detected in the compilation of \"k.cu\".\nCompilation terminated.", "compiler-out-of-memory", false},
		{"ptxas fatal   : Memory allocation failure", "compiler-out-of-memory", false},
		// the kernel says it killed a compiler for memory
		{"[12345.678901] Out of memory: Killed process 4242 (cc1plus) total-vm:6291456kB, anon-rss:5898240kB, file-rss:0kB", "compiler-out-of-memory", false},
		{"kernel: Out of memory: Kill process 9001 (cicc) score 912 or sacrifice child", "compiler-out-of-memory", false},
		// a compiler killed by SIGKILL: the OOM killer's usual trace, but a CI
		// timeout reads the same, so probable
		{"g++-11: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.", "compiler-out-of-memory", true},
		{"c++: internal compiler error: Killed (program cc1plus)", "compiler-out-of-memory", true},
		{"nvcc error   : 'cicc' died due to signal 9 (Kill signal)", "compiler-out-of-memory", true},
		{"nvcc error   : 'ptxas' died due to signal 9 (Kill signal)", "compiler-out-of-memory", true},
		{"clang++: error: unable to execute command: Killed", "compiler-out-of-memory", true},
		{"collect2: fatal error: ld terminated with signal 9 [Killed]", "compiler-out-of-memory", true},

		// CMake names the version it needs, or a policy it does not know
		{"CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n  CMake 3.18 or higher is required.  You are running version 3.16.3", "cmake-too-old", false},
		{"  CMake 3.14...3.28 or higher is required.  You are running version 3.10.2", "cmake-too-old", false},
		{"CMake Error at CMakeLists.txt:2 (cmake_policy):\n  Policy \"CMP0177\" is not known to this version of CMake.", "cmake-too-old", false},
		// a built-in command of a later CMake: probable (a typo of a user's function reads alike)
		{"CMake Error at ggml/CMakeLists.txt:120 (cmake_path):\n  Unknown CMake command \"cmake_path\".", "cmake-too-old", true},
		// Windows CMake lists its own Visual Studio generators, not the one asked for
		{"CMake Error: Could not create named generator Visual Studio 18 2026\n\nGenerators\n* Visual Studio 17 2022        = Generates Visual Studio 2022 project files.\n                                 Use -A option to specify architecture.\n  Visual Studio 16 2019        = Generates Visual Studio 2019 project files.", "cmake-too-old", true},

		// the linker names the x86/x64 conflict (English, Chinese), nvcc the 32-bit host compiler
		{`ggml\src\ggml-cuda\CMakeFiles\ggml-cuda.dir\ggml-cuda.cu.obj : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'`, "msvc-wrong-arch", false},
		{"ggml.obj : fatal error LNK1112: module machine type 'x86' conflicts with target machine type 'x64'", "msvc-wrong-arch", false},
		{"ggml.obj : fatal error LNK1112: 模块计算机类型“x64”与目标计算机类型“x86”冲突", "msvc-wrong-arch", false},
		{`cudart.lib(cudart_static.obj) : warning LNK4272: library machine type 'x64' conflicts with target machine type 'x86'`, "msvc-wrong-arch", false},
		{"nvcc fatal   : 32 bit compilation is only supported for Microsoft Visual Studio 2013 and earlier", "msvc-wrong-arch", false},

		// CMake's own check of CMAKE_CUDA_ARCHITECTURES (recorded with CMake 3.25) and nvcc's
		{"CMake Error at /usr/share/cmake-3.25/Modules/CMakeDetermineCUDACompiler.cmake:279 (message):\n  CMAKE_CUDA_ARCHITECTURES:\n\n    8.6\n\n  is not one of the following:", "cuda-arch-malformed", false},
		{"  CMAKE_CUDA_ARCHITECTURES:\n\n    sm_86\n\n  is not one of the following:", "cuda-arch-malformed", false},
		{"  CMAKE_CUDA_ARCHITECTURES:\n\n    compute_89\n\n  is not one of the following:", "cuda-arch-malformed", false},
		{"  CMAKE_CUDA_ARCHITECTURES:\n\n    86,89\n\n  is not one of the following:", "cuda-arch-malformed", false},
		{"  CMAKE_CUDA_ARCHITECTURES:\n\n    75;8.6\n\n  is not one of the following:", "cuda-arch-malformed", false},
		{"nvcc fatal   : Value 'sm_8.6' is not defined for option 'gpu-architecture'", "cuda-arch-malformed", false},
		{"nvcc fatal   : Value '8.6' is not defined for option 'gpu-architecture'", "cuda-arch-malformed", false},
		{"nvcc fatal   : Value 'sm86' is not defined for option 'gpu-architecture'", "cuda-arch-malformed", false},
		{"nvcc fatal   : Value 'sm_8.6' is not defined for option 'gpu-code'", "cuda-arch-malformed", false},

		// the compiler or CMake says the standard is unknown to this compiler
		{"g++: error: unrecognized command-line option '-std=c++17'", "host-compiler-too-old", false},
		{`cc1plus: error: unrecognized command line option "-std=c++17"`, "host-compiler-too-old", false},
		{"gcc: error: unrecognized command line option ‘-std=c11’", "host-compiler-too-old", false},
		{"error: invalid value 'c++17' in '-std=c++17'", "host-compiler-too-old", false},
		{"cl : Command line warning D9002 : ignoring unknown option '/std:c++17'", "host-compiler-too-old", false},
		{"CMake Error in ggml/src/CMakeLists.txt:\n  Target \"ggml-base\" requires the language dialect \"CXX17\" (with compiler\n  extensions).  But the current compiler \"GNU\" does not support this, or\n  CMake does not know the flags to enable it.", "host-compiler-too-old", false},
		{"CMake Error in ggml/src/CMakeLists.txt:\n  The compiler feature \"cxx_std_17\" is not known to CXX compiler\n\n  \"GNU\"\n\n  version 5.4.0.", "host-compiler-too-old", false},
		// an intrinsic or an -m option the compiler lacks: probable (a compiler
		// for another CPU says the same)
		{"ggml.c:439:19: warning: implicit declaration of function ‘_mm_loadu_si64’; did you mean ‘_mm_loadl_epi64’? [-Wimplicit-function-declaration]", "host-compiler-too-old", true},
		{"ggml.c:439:19: error: call to undeclared function '_mm_loadu_si64'; ISO C99 and later do not support implicit function declarations", "host-compiler-too-old", true},
		{"ggml-cpu.cpp:120:5: error: '_mm256_dpbusd_avx_epi32' was not declared in this scope", "host-compiler-too-old", true},
		{"c++: error: unrecognized command-line option '-mavxvnni'", "host-compiler-too-old", true},
		{"cc: error: unrecognized command line option '-mavx512bf16'", "host-compiler-too-old", true},
		{"clang: error: unknown argument: '-mamx-tile'", "host-compiler-too-old", true},
	})
}

// The same words for something else: none of the new IDs may be named.
func TestNewID2bNearMisses(t *testing.T) {
	var cases []nearMiss
	for _, log := range []string{
		// a killed process that is not a compiler, a bare "Killed", a compiler
		// that crashed for another reason
		"Killed",
		"./llama-server -m model.gguf\nKilled",
		"[12345.678901] Out of memory: Killed process 4242 (llama-server) total-vm:62914560kB",
		"c++: internal compiler error: Segmentation fault signal terminated program cc1plus",
		"c++: internal compiler error: Illegal instruction signal terminated program cc1plus",
		"nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)",
		"nvcc error   : 'cudafe++' died with status 0xC0000409",
		"ninja: build stopped: subcommand failed.",
		// nvcc's front end failing for another reason; an allocation failure at run time
		"ggml-cuda.cu(12): catastrophic error: cannot open source file \"cuda_bf16.h\"",
		"ggml_vulkan: Memory allocation failure",
		// GCC under a tiny memory limit crashed instead (recorded here): a crash is not named
		"g++-11: internal compiler error: Segmentation fault signal terminated program cc1plus",
		// the GPU's memory, not the compiler's
		"CUDA error: out of memory",
		"ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory",
		"MSB8020 fatal error C1083: Cannot open include file: 'cuda_runtime.h': No such file or directory",
		// CMake 4 is too NEW for an old project; deprecation warnings; unset policies
		"CMake Error at CMakeLists.txt:1 (cmake_minimum_required):\n  Compatibility with CMake < 3.5 has been removed from CMake.",
		"CMake Deprecation Warning at CMakeLists.txt:1 (cmake_minimum_required):\n  Compatibility with CMake < 3.10 will be removed from a future version of\n  CMake.",
		"CMake Warning (dev) at CMakeLists.txt:12 (find_package):\n  Policy CMP0146 is not set: The FindCUDA module is removed.",
		// a Linux CMake has no Visual Studio generators at all (recorded with CMake 3.25)
		"CMake Error: Could not create named generator Visual Studio 17 2022\n\nGenerators\n  Green Hills MULTI            = Generates Green Hills MULTI files\n                                 (experimental, work-in-progress).\n* Unix Makefiles               = Generates standard UNIX makefiles.\n  Ninja                        = Generates build.ninja files.",
		"CMake Error: Could not create named generator Visual Studio 17 2022",
		"Unknown CMake command \"llama_add_compile_flags\".",
		// ARM64 and x64 are another pair; the x86 compiler's path alone fails nothing
		"ggml.obj : fatal error LNK1112: module machine type 'ARM64' conflicts with target machine type 'x64'",
		"-- Check for working C compiler: C:/Program Files/Microsoft Visual Studio/2022/Community/VC/Tools/MSVC/14.44.35207/bin/Hostx86/x86/cl.exe - skipped",
		"nvcc warning : Compiling in the 32-bit mode is deprecated and may not be supported in future releases",
		"libomp140.x86_64.dll was not found",
		// well-formed architectures that nvcc is too old or too new for, an empty list, native
		"nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'",
		"nvcc fatal   : Unsupported gpu architecture 'compute_30'",
		"nvcc fatal   : Value 'sm_30' is not defined for option 'gpu-architecture'",
		"CMAKE_CUDA_ARCHITECTURES must be non-empty if set.",
		"  CMAKE_CUDA_ARCHITECTURES:\n\n    native\n\n  is not one of the following:",
		"Compute capability 121 used, use 121a or 121f",
		"ValueError: Unknown CUDA arch (9.0+PTX) or GPU not supported",
		// the project's own standard setting, not the compiler's age (koboldcpp#1259's C2429)
		`C:\koboldcpp\ggml\src\ggml-cpu\ggml-cpu-traits.h(18,21): error C2429: language feature 'nested-namespace-definition' requires compiler flag '/std:c++17'`,
		"ggml-cpu-traits.h:18:15: error: nested namespace definitions only available with '-std=c++17' or '-std=gnu++17' [-Wpedantic]",
		"#error This file requires compiler and library support for the ISO C++ 2017 standard. This support must be enabled with the -std=c++17 or -std=gnu++17 compiler options.",
		// x86 flags on another CPU's compiler, a missing -m flag, an unrelated unknown option
		"clang: error: unsupported option '-mavx512f' for target 'aarch64-apple-darwin'",
		"aarch64-linux-gnu-gcc: error: unrecognized command-line option '-mavx2'",
		"inlining failed in call to 'always_inline' '_mm256_fmadd_ps': target specific option mismatch",
		"g++: error: unrecognized command-line option '-Wno-unknown-warning-option'",
		"ggml.c:100:5: warning: implicit declaration of function 'ggml_cpu_init' [-Wimplicit-function-declaration]",
		"CMake Error in CMakeLists.txt:\n  Target \"x\" requires the language dialect \"CXX26\" (with compiler\n  extensions).  But the current compiler \"GNU\" does not support this, or\n  CMake does not know the flags to enable it.",
	} {
		for _, id := range newID2bIDs {
			cases = append(cases, nearMiss{log, id})
		}
	}
	checkNotNamed(t, cases)
}

// The generic crash lines of confidence_test.go never name these IDs with
// certainty (a kill is not a memory shortage by itself).
func TestNewID2bKillAloneIsProbable(t *testing.T) {
	d := Default().DiagnoseString("[ 57%] Building CXX object ggml/src/CMakeFiles/ggml-cpu.dir/ggml-cpu/ops.cpp.o\nc++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\nmake[2]: *** [ggml/src/CMakeFiles/ggml-cpu.dir/build.make:146: ops.cpp.o] Error 1\n")
	if len(d.Findings) != 1 || d.Findings[0].ID != "compiler-out-of-memory" || d.Findings[0].Confidence != ConfidenceProbable {
		t.Fatalf("got %+v", brief(d.Findings))
	}
	// with the kernel's own line beside it, the finding is certain
	d = Default().DiagnoseString("c++: fatal error: Killed signal terminated program cc1plus\n[ 1234.5] Out of memory: Killed process 77 (cc1plus) total-vm:4000000kB\n")
	if len(d.Findings) != 1 || d.Findings[0].ID != "compiler-out-of-memory" || d.Findings[0].Confidence == ConfidenceProbable {
		t.Fatalf("got %+v", brief(d.Findings))
	}
}

// The fixes name only what llamactl build really has: every --flag and -j
// in a fix or command is one of llamactl build's flags, and a fix that
// names llamactl build has it among its commands.
func TestNewID2bFixesNameRealFlags(t *testing.T) {
	src, err := os.ReadFile("../build/buildcmd/buildcmd.go")
	if err != nil {
		t.Fatal(err)
	}
	long := regexp.MustCompile(`llamactl build((?: +--?[a-z][a-z-]*(?: [0-9]+)?)+)`)
	flag := regexp.MustCompile(`--?([a-z][a-z-]*)`)
	seen := 0
	for _, id := range newID2bIDs {
		e, ok := Default().Entry(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		for _, text := range append([]string{e.Fix}, e.Commands...) {
			for _, m := range long.FindAllStringSubmatch(text, -1) {
				for _, f := range flag.FindAllStringSubmatch(m[1], -1) {
					seen++
					name := f[1]
					if name == "j" {
						name = "jobs" // IntVarP(&opts.Jobs, "jobs", "j", ...)
						if !strings.Contains(string(src), `"jobs", "j"`) {
							t.Errorf("%s: -j is not llamactl build's", id)
						}
					}
					if !strings.Contains(string(src), `"`+name+`"`) {
						t.Errorf("%s: %q names --%s, which llamactl build does not define", id, text, name)
					}
				}
			}
		}
		if strings.Contains(e.Fix, "llamactl build") && !strings.Contains(strings.Join(e.Commands, "\n"), "llamactl build") {
			t.Errorf("%s: the fix names llamactl build but the commands do not", id)
		}
	}
	if seen < 4 {
		t.Fatalf("only %d flags checked: the pattern no longer finds the fixes' flags", seen)
	}
}

// --cuda-arch takes what the fix of cuda-arch-malformed tells the user to
// write, and refuses the malformed forms the ID is about.
func TestNewID2bCUDAArchFixIsAccepted(t *testing.T) {
	src, err := os.ReadFile("../build/buildcmd/buildcmd.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("archRE += regexp.MustCompile\\(`([^`]+)`\\)").FindSubmatch(src)
	if m == nil {
		t.Fatal("archRE not found in buildcmd.go")
	}
	archRE := regexp.MustCompile(string(m[1]))
	for _, ok := range []string{"86", "86-real", "75;86"} {
		if !archRE.MatchString(ok) {
			t.Errorf("--cuda-arch %s refused", ok)
		}
	}
	for _, bad := range []string{"8.6", "sm_86", "compute_86"} {
		if archRE.MatchString(bad) {
			t.Errorf("--cuda-arch %s accepted", bad)
		}
	}
}
