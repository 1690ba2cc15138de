package failures

import "testing"

// The invariants added for batch 14's dev logs (issue #15, turn 8): each
// names the expected ID with the expected confidence; near misses below.
func TestBatch14Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// MSVC's linker missing from a Build Tools install without the C++
		// workload (jberezanski/ChocolateyPackages#147), in cmd's words
		{"'link.exe' is not recognized as an internal or external command,\noperable program or batch file.", "msvc-env-missing", false},
		{"'LINK.EXE' n’est pas reconnu en tant que commande interne\nou externe, un programme exécutable ou un fichier de commandes.", "msvc-env-missing", false},
		{"'lib.exe' is not recognized as an internal or external command,", "msvc-env-missing", false},
		// vcpkg finding no vcvarsall.bat (microsoft/vcpkg#759)
		{"C:\\Dev\\Lib\\vcpkg>vcpkg install sdl2\nCould not detect vcvarsall.bat.\nThe following paths were examined:\n    VC/Auxiliary/Build/vcvarsall.bat", "msvc-env-missing", false},
		// a build script asking for the Vulkan SDK (LrGenius/LrGeniusAI#237: llama-cpp-sys-2's build.rs)
		{"thread 'main' panicked at llama-cpp-sys-2-0.1.154/build.rs:886:58:\nPlease install Vulkan SDK and ensure that VULKAN_SDK env variable is set: NotPresent", "vulkan-sdk-not-found", false},
		{"error: please install the Vulkan SDK first", "vulkan-sdk-not-found", false},
		// the 2023 loader's own "failed to open" (nomic-ai/gpt4all#165), like whisper's
		{"llama_model_load: loading model from 'gpt4all-lora-unfiltered-quantized.bin' - please wait ...\nllama_model_load: failed to open 'gpt4all-lora-unfiltered-quantized.bin'", "model-file-not-found", true},
		// Wine's binfmt_misc handler taking a llamafile (mozilla-ai/llamafile#201)
		{`err:module:import_dll Library API-MS-Win-Core-Synch-l1-2-0.dll (which is needed by L"Z:\\home\\u\\Downloads\\mistral-7b-instruct-v0.2.Q4_K_M.llamafile") not found`, "llamafile-ape-binfmt", false},
		{`0024:err:module:LdrInitializeThunk Main exe initialization for L"Z:\\home\\u\\llava-v1.5-7b-q4.llamafile" failed, status c0000135`, "llamafile-ape-binfmt", false},
		// a program saying the CPU lacks AVX (sst/opencode#93, Bun's words)
		{"CPU lacks AVX support. Please consider upgrading to a newer CPU.\npanic(main thread): Segmentation fault at address 0x38465000000", "cpu-instruction-unsupported", false},
		{"Your CPU does not support AVX2 instructions.", "cpu-instruction-unsupported", false},
	})
	checkNotNamed(t, []nearMiss{
		// coreutils' link and lib as words are not MSVC's tools
		{"bash: link: command not found", "msvc-env-missing"},
		{"'library.exe' is not recognized as an internal or external command,", "msvc-env-missing"},
		{"Found vcvarsall.bat at C:/Program Files/Microsoft Visual Studio/2022/Community/VC/Auxiliary/Build/vcvarsall.bat", "msvc-env-missing"},
		{"-- Vulkan SDK found: C:/VulkanSDK/1.3.296.0 (please install the Vulkan SDK's debug layers for validation)", "vulkan-sdk-not-found"},
		{"llama_model_load: failed to open output file 'out.gguf' for writing", "model-file-not-found"},
		{`err:module:import_dll Library VCRUNTIME140.dll (which is needed by L"C:\\Program Files\\app\\app.exe") not found`, "llamafile-ape-binfmt"},
		{"CPU lacks AVX support; using the portable kernels instead.", "cpu-instruction-unsupported"},
	})
}

// Intel's compute runtime printing its Small BAR warning is a vendor ICD that
// loaded: zero platforms there is that driver's regression
// (intel/compute-runtime#831), not a missing ICD.
func TestOpenCLNoPlatformNotWhenTheICDSpoke(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		{"root@vm:/# clinfo\nWARNING: Small BAR detected for device 0000:01:00.0\nNumber of platforms                               0", "opencl-no-platform"},
	})
	checkNamed(t, []invCase{
		{"root@vm:/# clinfo\nNumber of platforms                               0", "opencl-no-platform", false},
	})
}

// The concepts layer's "missing" shape in the words build scripts use to ask
// for what is missing (turn 8): please install, make sure X is installed,
// could not / failed to detect, Rust's env::VarError NotPresent; link.exe is
// MSVC's noun. All probable; the noun reported found is not a report.
func TestConceptMissingShapesTurn8(t *testing.T) {
	checkNamed(t, []invCase{
		{"error: VULKAN_SDK: NotPresent", "vulkan-sdk-not-found", true},
		{`ERROR: failed to detect vcvarsall.bat under C:\Program Files (x86)\Microsoft Visual Studio`, "msvc-env-missing", true},
		{"RuntimeError: make sure nvcc is installed and on the PATH", "cuda-toolkit-not-found", true},
		{"link.exe not found", "msvc-env-missing", true},
		{"Please install the HIP SDK and set HIP_PATH", "hip-sdk-not-found", true},
	})
	checkNotNamed(t, []nearMiss{
		{"-- Vulkan SDK found: C:/VulkanSDK/1.3.296.0 (please install the Vulkan SDK's debug layers for validation)", "vulkan-sdk-not-found"},
		{"-- Found Vulkan: /usr/lib/x86_64-linux-gnu/libvulkan.so (found version \"1.3.275\") found components: glslc", "vulkan-sdk-not-found"},
		{"Visual Studio detected: using vcvarsall.bat from C:/BuildTools", "msvc-env-missing"},
	})
}
