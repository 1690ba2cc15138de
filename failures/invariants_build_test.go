package failures

import "testing"

// Build-time invariants of batch 5 (issue #15): each cause by what names it
// in any tool's words (MSBuild's import error code, CMake's message across
// versions, glslc's optimizer, a tool's name in any not-found shape), with
// the confidence the evidence allows.
func TestInvariantBuildSignatures(t *testing.T) {
	for _, c := range []struct {
		log, id  string
		probable bool
	}{
		// MSBuild cannot import CUDA's BuildCustomizations: the error code in any
		// language of Visual Studio, or the English sentence without it
		{`C:\src\x\x.vcxproj(40,5): error MSB4019: The imported project "C:\Program Files (x86)\MSBuild\Microsoft.Cpp\v4.0\V140\BuildCustomizations\CUDA 8.0.props" was not found. Confirm that the path in the <Import> declaration is correct, and that the file exists on disk.`, "cuda-vs-integration-missing", false},
		{`C:\src\x\x.vcxproj(61,5): error MSB4019: Das importierte Projekt "C:\Program Files\Microsoft Visual Studio\2022\Community\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 12.4.targets" wurde nicht gefunden.`, "cuda-vs-integration-missing", false},
		{`C:\src\x\x.vcxproj : error  : The imported project "C:\Program Files\Microsoft Visual Studio\2022\Community\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 12.1.props" was not found.`, "cuda-vs-integration-missing", false},
		// CMake's probe for a default CUDA architecture, as 3.18-3.20 and 3.21+ word it
		{"CMake Error at C:/Program Files/CMake/share/cmake-3.19/Modules/CMakeDetermineCUDACompiler.cmake:559 (message):\n  Failed to find a working CUDA architecture.", "cuda-arch-detect-failed", false},
		{"  Failed to detect a default CUDA architecture.", "cuda-arch-detect-failed", false},
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
	} {
		d := Default().DiagnoseString(c.log + "\n")
		if len(d.Findings) != 1 || d.Findings[0].ID != c.id || (d.Findings[0].Confidence == ConfidenceProbable) != c.probable {
			t.Errorf("%q: got %+v, want %s (probable %v)", c.log, brief(d.Findings), c.id, c.probable)
		}
	}
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
	} {
		if d := Default().DiagnoseString(log + "\n"); len(d.Findings) != 0 {
			t.Errorf("%q: got %+v, want nothing", log, brief(d.Findings))
		}
	}
}
