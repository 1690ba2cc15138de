package failures

import (
	"strings"
	"testing"
)

// The invariants added for batch 10's dev logs, build side (issue #15,
// h-tune10a): each log names the expected ID with the expected confidence;
// the probable ones carry their evidence lines.
func TestBatch10aSignatures(t *testing.T) {
	pad := strings.Repeat(" ", 88)
	checkNamed(t, []invCase{
		// CMake's NOTFOUND convention: the variable meant to hold nvcc's path is run as a command
		{"-- Executing NVCC-NOTFOUND --version resulted in error: 1\nCMake Error at ports/cuda/vcpkg_find_cuda.cmake:69 (message):", "cuda-toolkit-not-found", false},
		{"/bin/sh: 1: CUDA_NVCC_EXECUTABLE-NOTFOUND: not found", "cuda-toolkit-not-found", false},
		{`execute_process: "CMAKE_CUDA_COMPILER-NOTFOUND" -V failed`, "cuda-toolkit-not-found", false},
		{"CMake Error at ports/cuda/vcpkg_find_cuda.cmake:69 (message):\n  Could not find CUDA.  Before continuing, please download and install CUDA\n  (v10.1.0 or higher) from:", "cuda-toolkit-not-found", false},
		// a setup.py asked to build a CUDA extension with no nvcc (flash-attn, mamba, causal-conv1d)
		{"/tmp/pip-install-x/mamba-ssm_1/setup.py:77: UserWarning: mamba_ssm was requested, but nvcc was not found.  Are you sure your environment has nvcc available?", "cuda-toolkit-not-found", true},
		{"setup.py:117: UserWarning: flash_attn was requested, but nvcc was not found.  Are you sure your environment has nvcc available?", "cuda-toolkit-not-found", true},
		{"warnings.warn: causal_conv1d was requested, but nvcc was not found.", "cuda-toolkit-not-found", true},
		// the same absence in other build scripts' words (apex's flag, a backend chosen by a script)
		{"RuntimeError: --cuda_ext was requested, but nvcc was not found.  Are you sure your environment has nvcc available?", "cuda-toolkit-not-found", true},
		{"RuntimeError: CUDA backend selected but nvcc was not found: nvcc", "cuda-toolkit-not-found", true},
		{"ValueError: CUDA build requested but nvcc was not found; install the CUDA Toolkit or use --backend cpu", "cuda-toolkit-not-found", true},
		{"[setup][error] CUDA_HOME is required for the extension's compilation, but nvcc was not found.", "cuda-toolkit-not-found", true},
		// POSIX shells' command-not-found for nvcc (existing shape, kept by these cases)
		{"/bin/sh: 1: nvcc: not found", "cuda-toolkit-not-found", false},
		{"bash: line 1: nvcc: command not found", "cuda-toolkit-not-found", false},

		// MSVC's vcruntime.h missing while another compiler reads the Windows SDK's UCRT headers
		{`C:\Program Files (x86)\Windows Kits\10\Include\10.0.26100.0\ucrt/corecrt.h:10:10: fatal error: vcruntime.h: No such file or directory`, "msvc-env-missing", true},
		{`C:\Program Files (x86)\Windows Kits\10\Include\10.0.22621.0\ucrt\corecrt.h:10:10: fatal error: 'vcruntime.h' file not found`, "msvc-env-missing", true},
		{`corecrt.h(10): fatal error C1083: Cannot open include file: 'vcruntime.h': No such file or directory`, "msvc-env-missing", true},

		// amdhip64.dll sought in the HIP SDK's bin (it ships with the driver in System32)
		{`  file INSTALL cannot find "C:/Program Files/AMD/ROCm/5.7/bin/amdhip64.dll": File exists.`, "hip-sdk-cmake-config-broken", true},
		{`Error copying file (if different) from "C:/Program Files/AMD/ROCm/6.1/bin/amdhip64.dll" to "D:/build/bin".`, "hip-sdk-cmake-config-broken", true},
		{`file COPY cannot find "C:\Program Files\AMD\ROCm\6.2\bin\amdhip64.dll": No such file or directory.`, "hip-sdk-cmake-config-broken", true},
		// the same file as CMake's import check reports it (the ID's existing rule, certain)
		{"CMake Error at C:/Program Files/AMD/ROCm/5.7/lib/cmake/hip-lang/hip-lang-targets.cmake:83 (message):\n  The imported target \"hip-lang::amdhip64\" references the file\n\n     \"C:/Program Files/AMD/ROCm/5.7/bin/amdhip64.dll\"\n\n  but this file does not exist.  Possible reasons include:", "hip-sdk-cmake-config-broken", false},

		// ExternalProject/FetchContent of a CMake before 3.24 swallowing a keyword it does not know into URL
		{"[cmake] CMake Error at /usr/share/cmake-3.22/Modules/ExternalProject.cmake:2806 (message):\n[cmake]   At least one entry of URL is a path (invalid in a list)", "cmake-too-old", true},
		{"CMake Error at C:/Program Files/CMake/share/cmake-3.20/Modules/ExternalProject.cmake:2564 (message):\n  At least one entry of URL is a path (invalid in a list)", "cmake-too-old", true},
		{"[build] CMake Error at /opt/cmake/share/cmake-3.18/Modules/FetchContent.cmake:1012 (message):\n[build]   At least one entry of URL is a path (invalid in a list)", "cmake-too-old", true},

		// a console's rows copied onto one line, each padded to the window's width
		{"/usr/include/c++/11/bits/std_function.h:530:146: error: parameter packs not expa" + pad + "nded with '...':\n  530 |         operator=(_Functor&& __f)\n      |  ^\n/usr/include/c++/11/bits/std_function.h:530:146: note:         '_ArgTypes'", "cuda-gcc-parameter-packs", false},
		{"2024-05-01T12:00:00Z /usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded wi" + pad + "th '...':", "cuda-gcc-parameter-packs", true},
	})
}

// Near-misses: the same words for something else, or one signal alone. The
// ID in each case must not be named.
func TestBatch10aNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// another tool NOTFOUND, or nvcc's variable only listed (a cache dump)
		{"-- Executing GIT-NOTFOUND --version resulted in error: 1", "cuda-toolkit-not-found"},
		{"CUDA_NVCC_EXECUTABLE:FILEPATH=CUDA_NVCC_EXECUTABLE-NOTFOUND", "cuda-toolkit-not-found"},
		{"-- CMAKE_CUDA_COMPILER: CMAKE_CUDA_COMPILER-NOTFOUND", "cuda-toolkit-not-found"},
		// another requirement missing, or a library that is not CUDA
		{"Could not find cuDNN.  Before continuing, please download and install cuDNN", "cuda-toolkit-not-found"},
		{"UserWarning: mamba_ssm was requested, but ninja was not found.", "cuda-toolkit-not-found"},
		{"nvcc was found but is version 11.5", "cuda-toolkit-not-found"},
		{"CUDA was requested and nvcc was found. Building the extension.", "cuda-toolkit-not-found"},
		{"warning: nvcc was not found; building for CPU only", "cuda-toolkit-not-found"},
		{"UserWarning: cudnn was requested, but cuDNN was not found.", "cuda-toolkit-not-found"},

		// another header, or the VC runtime DLL at run time
		{"corecrt.h:10:10: fatal error: stdio_ext.h: No such file or directory", "msvc-env-missing"},
		{"The code execution cannot proceed because VCRUNTIME140.dll was not found.", "msvc-env-missing"},
		{"src/main.c:3:10: fatal error: vcruntime_new.hpp: No such file or directory", "msvc-env-missing"},

		// amdhip64.dll not found at run time, the project's own DLL, Linux's .so
		{"ggml_hip: failed to load amdhip64.dll: The specified module could not be found.", "hip-sdk-cmake-config-broken"},
		{`file INSTALL cannot find "C:/build/bin/ggml-hip.dll": No such file or directory.`, "hip-sdk-cmake-config-broken"},
		{`file INSTALL cannot find "/opt/rocm/6.1/lib/libamdhip64.so.6": No such file or directory.`, "hip-sdk-cmake-config-broken"},

		// the URL-list error in CMake 3.24 and later (a real local path in a list), or without the module's version
		{"CMake Error at /usr/share/cmake-3.28/Modules/ExternalProject.cmake:2900 (message):\n  At least one entry of URL is a path (invalid in a list)", "cmake-too-old"},
		{"CMake Error at CMakeLists.txt:15 (ExternalProject_Add):\n  At least one entry of URL is a path (invalid in a list)", "cmake-too-old"},
		{"CMake Error at /usr/share/cmake-3.22/Modules/ExternalProject.cmake:2806 (message):\n  error: could not download https://example.com/x.zip", "cmake-too-old"},

		// a table's columns (text before the gap narrower than a console), a pad before nothing
		{"x.h:1:1: error: parameter packs not expa" + strings.Repeat(" ", 20) + "nded with '...'", "cuda-gcc-parameter-packs"},
		{"/usr/include/c++/11/bits/std_function.h:530:146: error: parameter packs not expa" + strings.Repeat(" ", 88), "cuda-gcc-parameter-packs"},
	})
}

// unpadRows joins a padded console copy's rows and leaves other lines alone.
func TestUnpadRows(t *testing.T) {
	row := strings.Repeat("x", 79) + "a"
	for _, c := range []struct{ in, want string }{
		{row + strings.Repeat(" ", 40) + "bc", row + "bc"},
		{row + strings.Repeat(" ", 40) + row + strings.Repeat(" ", 40) + "d", row + row + "d"},
		{row + strings.Repeat("\t", 20) + "bc", row + "bc"},
		{"short" + strings.Repeat(" ", 40) + "bc", ""},
		{row + "       bc", ""}, // 7 blanks: a column gap, not a pad
		{row + strings.Repeat(" ", 40), ""},
	} {
		if got := unpadRows(c.in); got != c.want {
			t.Errorf("unpadRows(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
