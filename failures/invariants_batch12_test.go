package failures

import "testing"

// The invariants added for batch 12's dev logs (issue #15, h-tune12): each
// log names the expected ID with the expected confidence; the probable ones
// carry their evidence lines.
func TestBatch12Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// macOS's compiler driver without the Command Line Tools (EarthScope/dataselect#9, sunnyyoung/WeChatTweak#312)
		{"xcrun: error: invalid active developer path (/Library/Developer/CommandLineTools), missing xcrun at: /Library/Developer/CommandLineTools/usr/bin/xcrun", "cxx-compiler-missing", false},
		{"$ make\nxcrun: error: invalid active developer path (/Applications/Xcode.app/Contents/Developer), missing xcrun at: /Applications/Xcode.app/Contents/Developer/usr/bin/xcrun", "cxx-compiler-missing", false},
		{"gyp: xcrun: error: invalid active developer path (/Library/Developer/CommandLineTools), missing xcrun at: /Library/Developer/CommandLineTools/usr/bin/xcrun", "cxx-compiler-missing", false},

		// the kernel's kfd skipping a GPU that needs PCIe atomics (ROCm/legacy-rocm-build#1214, #558)
		{"[    7.026427] kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics", "rocm-no-device", false},
		{"$ dmesg | grep kfd\n[    1.625730] kfd kfd: Initialized module\n[    1.626379] kfd kfd: skipped device 1002:67df, PCI rejects atomics", "rocm-no-device", false},
		{"kfd kfd: amdgpu: skipped device 1002:67ff, PCI rejects atomics 730<0", "rocm-no-device", false},

		// a core op that ggml's Metal backend implements only with SIMD-group reductions (ollama/ollama#1016)
		{"ggml_metal_graph_compute_block_invoke: error: unsupported op 'MUL_MAT'\nGGML_ASSERT: ggml-metal.m:769: !\"unsupported op\"", "metal-unsupported-gpu", true},
		{"ggml_metal_graph_compute: error: unsupported op 'RMS_NORM'", "metal-unsupported-gpu", true},

		// GCC 6's <tuple> under an nvcc that predates it (NVIDIA/nccl#102)
		{"/usr/include/c++/6/tuple:605:4: error: parameter packs not expanded with ‘...’:\n                bool>::type=true>\n    ^\n/usr/include/c++/6/tuple:605:4: note:         ‘_Elements’", "nvcc-unsupported-gcc", true},
		{"/usr/include/c++/6/tuple:483:67: error: parameter packs not expanded with '...':\n/usr/include/c++/6/tuple:483:67: note:         '_Elements'", "nvcc-unsupported-gcc", true},
		// GCC 11's <functional> stays CUDA 11.5's known bug
		{"/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with '...':\n/usr/include/c++/11/bits/std_function.h:435:145: note:         '_ArgTypes'", "cuda-gcc-parameter-packs", false},

		// CMake's CUDA compiler identification failing on Linux (ggml-org/llama.cpp#22714, #23209)
		{"  /usr/include/c++/16.1.1/type_traits(3427): error: type name is not allowed\n\n  Error limit reached.\n\n  100 errors detected in the compilation of \"CMakeCUDACompilerId.cu\".\n\n  Compilation terminated.\n\nCall Stack (most recent call first):\n  /usr/share/cmake/Modules/CMakeDetermineCompilerId.cmake:8 (CMAKE_DETERMINE_COMPILER_ID_BUILD)", "nvcc-unsupported-gcc", true},
		{"  12 errors detected in the compilation of \"CMakeCUDACompilerId.cu\".\n\nCall Stack (most recent call first):\n  /usr/share/cmake-3.31/Modules/CMakeDetermineCUDACompiler.cmake:163 (CMAKE_DETERMINE_COMPILER_ID)", "nvcc-unsupported-gcc", true},

		// the same causes in the shapes batch 12's logs quote them: a program's
		// own "cuda error" before CUDA's string (HashDAG), a console that split
		// a word (koboldcpp), Go's open error in ollama's AMD discovery
		{`ERROR /data/src/dag_tracer.cu:135: cuda error "no kernel image is available for execution on the device"`, "cuda-no-kernel-image", false},
		{`RuntimeError: 'no kernel image is available for execution on the device'`, "cuda-no-kernel-image", false},
		{`“rocBLAS error: Cannot read C:\Users\u\AppData\Local\Temp\_MEI60562\/library/TensileLibrary.dat: No such file or dire ctory “`, "rocblas-arch-unsupported", true},
		{`time=2024-09-10T21:53:24.695Z level=ERROR source=amd_linux.go:364 msg="amdgpu devices detected but permission problems block access" error="permissions not set up properly.  Either run ollama as root, or add you user account to the render group. open /dev/kfd: permission denied"`, "rocm-no-device", false},
		{"Error: open /dev/kfd: permission denied", "rocm-no-device", false},
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
		// the compiler id failing on Windows (MSVC's STL or host check), on
		// glibc's math headers, or another .cu file
		{"  1 error detected in the compilation of \"CMakeCUDACompilerId.cu\".\n  C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.1/include/crt/host_config.h", "nvcc-unsupported-gcc"},
		{"/usr/include/x86_64-linux-gnu/bits/mathcalls.h(83): error: exception specification is incompatible with that of previous function \"cospi\"\n  4 errors detected in the compilation of \"CMakeCUDACompilerId.cu\".\n  /usr/share/cmake-3.28/Modules/CMakeDetermineCompilerId.cmake:8 (CMAKE_DETERMINE_COMPILER_ID_BUILD)", "nvcc-unsupported-gcc"},
		{"  2 errors detected in the compilation of \"/home/u/src/kernel.cu\".\n/usr/bin/ld: done", "nvcc-unsupported-gcc"},
		{"  100 errors detected in the compilation of \"CMakeCUDACompilerId.cu\".", "nvcc-unsupported-gcc"},
		// a Metal op the backend may lack on any GPU (a newer model's), or a
		// CPU/CUDA backend's wording
		{"ggml_metal_graph_compute_block_invoke: error: unsupported op 'SSM_SCAN'", "metal-unsupported-gpu"},
		{"ggml_cuda_compute_forward: error: unsupported op 'MUL_MAT'", "metal-unsupported-gpu"},
		// xcrun finding the tools but not the SDK or a tool, or another developer path message
		{"xcrun: error: SDK \"iphoneos\" cannot be located", "cxx-compiler-missing"},
		{"xcrun: error: unable to find utility \"metal\", not a developer tool or in PATH", "cxx-compiler-missing"},
		{"xcode-select: note: install requested for command line developer tools", "cxx-compiler-missing"},
		// kfd initialising, or skipping a device for another reason
		{"[    1.625730] kfd kfd: Initialized module", "rocm-no-device"},
		{"kfd kfd: amdgpu: added device 1002:73bf", "rocm-no-device"},
		// another device file, or the kfd file opened fine
		{"open /dev/dri/card0: permission denied", "rocm-no-device"},
		{"opened /dev/kfd: permission granted to group render", "rocm-no-device"},
	})
}
