package failures

import "testing"

// The invariants added for batch 12's dev logs (issue #15, h-tune12): each
// log names the expected ID with the expected confidence; the probable ones
// carry their evidence lines.
func TestBatch12Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// GCC 6's <tuple> under an nvcc that predates it (NVIDIA/nccl#102)
		{"/usr/include/c++/6/tuple:605:4: error: parameter packs not expanded with ‘...’:\n                bool>::type=true>\n    ^\n/usr/include/c++/6/tuple:605:4: note:         ‘_Elements’", "nvcc-unsupported-gcc", true},
		{"/usr/include/c++/6/tuple:483:67: error: parameter packs not expanded with '...':\n/usr/include/c++/6/tuple:483:67: note:         '_Elements'", "nvcc-unsupported-gcc", true},
		// GCC 11's <functional> stays CUDA 11.5's known bug
		{"/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with '...':\n/usr/include/c++/11/bits/std_function.h:435:145: note:         '_ArgTypes'", "cuda-gcc-parameter-packs", false},
	})
}

// Near misses of batch 12's dev logs: the line that named the wrong ID, and
// look-alikes of the new signatures. The ID in each case must not be named.
func TestBatch12NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// hipcc's platform probe runs nvcc and falls back to AMD (ROCm/legacy-rocm-build#5773)
		{"sh: 1: /usr/local/cuda/bin/nvcc: not found\nsh: 1: nvcc: not found\nDevice not supported - Defaulting to AMD", "cuda-toolkit-not-found"},
		// the container toolkit cannot load the host's NVML: no driver, or a
		// confined Docker (the snap on classic Ubuntu, canonical/docker-snap#148)
		{"nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown.", "cuda-no-device"},
		// Mesa's libclc bitcode for a gfx target is OpenCL's, not rocBLAS's (ggml-org/llama.cpp#1368)
		{"fatal error: cannot open file '/usr/share/clc/gfx1010-amdgcn-mesa-mesa3d.bc': No such file or directory", "rocblas-arch-unsupported"},
		// the Universal CRT's headers ship with the Windows SDK: a Visual Studio
		// without it ends so (microsoft/vcpkg#19012)
		{`D:\vcpkg\jam.h(73): fatal error C1083: Cannot open include file: 'ctype.h': No such file or directory (compiling source file lists.cpp)`, "msvc-env-missing"},
		{"md5.cpp(55): fatal error C1083: Cannot open include file: 'string.h': No such file or directory", "msvc-env-missing"},
		{"C:\\src\\ggml.c(1): fatal error C1083: Cannot open include file: 'stdio.h': No such file or directory", "msvc-env-missing"},
		{`C:\src\x.cpp(1): schwerwiegender Fehler C1083: Datei (Include) kann nicht geöffnet werden: "stdio.h": No such file or directory`, "msvc-env-missing"},
		{`C:\src\x.cpp(1): fatal error C1083: Cannot open include file: 'windows.h': No such file or directory`, "msvc-env-missing"},
		// <tuple>'s pack is not CUDA 11.5's std::function bug (NVIDIA/nccl#102)
		{"/usr/include/c++/6/tuple:605:4: error: parameter packs not expanded with '...':\n/usr/include/c++/6/tuple:605:4: note:         '_Elements'", "cuda-gcc-parameter-packs"},
		// another pack, or std::function's, is not the tuple shape
		{"/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with '...':\n/usr/include/c++/11/bits/std_function.h:435:145: note:         '_ArgTypes'", "nvcc-unsupported-gcc"},
		{"x.h:1:1: error: parameter packs not expanded with '...':\nx.h:1:1: note: 'Ts'", "nvcc-unsupported-gcc"},
	})
}
