package failures

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// genericSymptoms are lines that many different causes print: crash
// signals, exit codes, a model that failed to load, a build step that
// failed, an installer that gave up, a Windows loader code with no DLL
// named. Such a line alone must never yield a certain finding (issue #15:
// a certain finding is a claim that the line itself states the cause).
var genericSymptoms = []string{
	// crash signals and exit codes
	"Segmentation fault",
	"Segmentation fault (core dumped)",
	"Aborted",
	"Aborted (core dumped)",
	"core dumped",
	"Floating point exception (core dumped)",
	"Bus error (core dumped)",
	"Killed",
	"signal: segmentation fault (core dumped)",
	"SIGSEGV: segmentation violation",
	"Thread 1 \"llama-server\" received signal SIGSEGV, Segmentation fault.",
	"terminate called after throwing an instance of 'std::runtime_error'",
	"terminate called without an active exception",
	"free(): invalid pointer",
	"double free or corruption (out)",
	"panic: runtime error: invalid memory address or nil pointer dereference",
	"exit status 1",
	"exit status 2",
	"exit code: 1",
	"Error: exit status 3221225477",
	"exit status 0xc0000005",
	"exit status 0xc0000409",
	"exit status 0xc0000135",
	"exit status 0xc0000142",
	"Process finished with exit code -1073741819 (0xC0000005)",
	"Process exited with code -1073741515",
	"The program '[1234] llama-server.exe' has exited with code -1073741819 (0xc0000005) 'Access violation'.",
	"Error: llama runner process has terminated: exit status 0xc0000409",
	"Error: llama runner process has terminated: exit status 2",
	"llama runner process has terminated: signal: segmentation fault (core dumped)",
	"Error: llama runner process no longer running: -1",
	"llama-server exited with code 3221226505",
	"llama-server --list-devices failed: exit status 0xc0000409",
	"error: process didn't exit successfully: `target/release/llama` (exit code: 101)",
	// a model that failed to load, for any reason
	"failed to load model",
	"error loading model",
	"llama_load_model_from_file: failed to load model",
	"llama_model_load_from_file_impl: failed to load model",
	"llama_init_from_gpt_params: error: failed to load model 'models/7B/ggml-model-q4_0.gguf'",
	"main: error: unable to load model",
	"common_init_from_params: failed to load model 'model.gguf'",
	"srv    load_model: failed to load model, 'model.gguf'",
	"error: failed to load model 'models/model.gguf'",
	"Error: llama runner process has terminated: error loading model",
	"llama_model_load: error loading model: llama_model_loader: failed to load model from model.gguf",
	"Failed to load model: Error loading model.",
	"Failed to load the model",
	"ValueError: Failed to load model from file: model.gguf",
	"ValueError: Failed to create llama_context",
	"failed to create context with model 'model.gguf'",
	"llama_init_from_model: failed to initialize the context",
	"llama_new_context_with_model: failed to initialize the context",
	// a GPU operation that failed without saying why
	"CUDA error: unspecified launch failure",
	"CUDA error: an illegal memory access was encountered",
	"CUDA error: unknown error",
	"ggml_cuda_compute_forward: ADD failed",
	"GGML_ASSERT(ctx->mem_buffer != NULL) failed",
	"ggml_vulkan: No devices found.",
	"warning: no usable GPU found, --gpu-layers option will be ignored",
	"Available devices: ",
	"llama_model_load_from_file_impl: no backends are loaded. hint: use ggml_backend_load() or ggml_backend_load_all() to load a backend before calling this function",
	// a compute or backend buffer that did not fit, on a device or in host memory
	"ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 2147483648",
	"ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 2147483648",
	"llama_model_load: error loading model: unable to allocate backend buffer",
	"llama_init_from_model: failed to initialize the context: std::bad_alloc",
	"ggml_vulkan: Device memory allocation of size 4294967296 failed.",
	"ggml_vulkan: device lost on AMD Radeon RX 6600 (RADV NAVI23)",
	"ggml_backend_cuda_graph_compute: op not supported",
	// a configure or build step that failed, whatever the reason
	"CMake Error at CMakeLists.txt:12 (project):",
	"CMake Error at CMakeLists.txt:55 (message):",
	"CMake Error at ggml/src/CMakeLists.txt:42 (message):",
	"CMake Error at vendor/llama.cpp/ggml/src/ggml-cuda/CMakeLists.txt:151 (message):",
	"-- Configuring incomplete, errors occurred!",
	"Configuring incomplete, errors occurred!",
	"CMake Generate step failed.  Build files cannot be regenerated correctly.",
	"Build failed",
	"Build FAILED.",
	"BUILD FAILED",
	"ninja: build stopped: subcommand failed.",
	"FAILED: ggml/src/CMakeFiles/ggml-base.dir/ggml.c.o",
	"make: *** [Makefile:146: all] Error 2",
	"make[2]: *** [ggml/src/CMakeFiles/ggml.dir/build.make:76: ggml/src/CMakeFiles/ggml.dir/ggml.c.o] Error 1",
	"gmake: *** [all] Error 2",
	"collect2: error: ld returned 1 exit status",
	"clang: error: linker command failed with exit code 1 (use -v to see invocation)",
	"error MSB3073: The command \"setlocal\" exited with code 1.",
	"C:\\Program Files\\Microsoft Visual Studio\\2022\\Community\\MSBuild\\Microsoft\\VC\\v170\\Microsoft.CppCommon.targets(254,5): error MSB8066: Custom build for 'ggml.vcxproj' exited with code 1.",
	"error MSB3721: The command \"\"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin\\nvcc.exe\" -c ggml-cuda.cu\" exited with code 1.",
	"*** CMake build failed",
	"error: command '/usr/bin/cmake' failed with exit code 1",
	// an installer that gave up
	"error: subprocess-exited-with-error",
	"× Building wheel for llama-cpp-python (pyproject.toml) did not run successfully.",
	"│ exit code: 1",
	"Failed building wheel for llama-cpp-python",
	"ERROR: Failed building wheel for llama-cpp-python",
	"ERROR: Could not build wheels for llama-cpp-python, which is required to install pyproject.toml-based projects",
	"ERROR: Failed to build installable wheels for some pyproject.toml based projects (llama-cpp-python)",
	"note: This error originates from a subprocess, and is likely not a problem with pip.",
	"npm ERR! code 1",
	// a library that did not load, with no DLL named as missing
	"DLL load failed",
	"ImportError: DLL load failed: The specified module could not be found.",
	"ImportError: DLL load failed while importing _C: The specified module could not be found.",
	"ImportError: DLL load failed while importing llama_cpp: A dynamic link library (DLL) initialization routine failed.",
	"ImportError",
	"ImportError: cannot import name 'Llama' from 'llama_cpp'",
	"OSError: [WinError 126] The specified module could not be found",
	"OSError: [WinError 193] %1 is not a valid Win32 application",
	"OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed",
	"FileNotFoundError: Could not find module 'C:\\llama\\llama.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
	"RuntimeError: Failed to load shared library 'C:\\venv\\Lib\\site-packages\\llama_cpp\\lib\\llama.dll': Could not find module 'C:\\venv\\Lib\\site-packages\\llama_cpp\\lib\\llama.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
	"load_backend: failed to load C:\\llama\\ggml-cuda.dll",
	"ggml_backend_load_best: failed to load C:\\llama\\ggml-cpu-haswell.dll",
	"The code execution cannot proceed because a required DLL was not found.",
	"error while loading shared libraries",
	// a service that failed, with no reason
	"Error: 500 Internal Server Error",
	"Traceback (most recent call last):",
	"RuntimeError: ",
}

// TestGenericSymptomsNeverCertain: no signature names a cause with
// certainty from a line that only says something failed.
func TestGenericSymptomsNeverCertain(t *testing.T) {
	kb := Default()
	for _, line := range genericSymptoms {
		// as printed, behind a tool's location prefix, and in a CRLF log
		for _, form := range []string{line, "main.cpp:42: " + line, line + "\r\n"} {
			for _, f := range kb.DiagnoseString(form).Findings {
				if f.Confidence == ConfidenceCertain {
					t.Errorf("%q: %s is certain from a generic symptom line (make the signature probable, or require what names the cause)", form, f.ID)
				}
			}
		}
	}
}

// TestCertainSignaturesRejectGenericSymptoms checks every certain
// signature's regexp (the first line of a two-line one too) against the
// same lines, normalized as the matcher sees them, so that a certain
// signature that would only be saved by another entry's guard is caught
// as well.
func TestCertainSignaturesRejectGenericSymptoms(t *testing.T) {
	kb := Default()
	for _, e := range kb.Entries() {
		for i, s := range e.Signature {
			if s.Probable || s.Then != "" {
				continue
			}
			for _, line := range genericSymptoms {
				msg := Normalize(line)
				if !s.re.MatchString(msg) || (s.unless != nil && s.unless.MatchString(msg)) {
					continue
				}
				t.Errorf("%s signature %d (%s) is certain and matches the generic line %q", e.ID, i, s.Re, strings.TrimSpace(line))
			}
		}
	}
}

// TestConfidenceAudit: every certain signature of the data file has its
// line in testdata/confidence-audit.tsv (ID, the pattern as the data file
// writes it with " THEN " and its second line, and the verdict "states the
// cause: ..."), and every line of the audit names a certain signature that
// still exists. A new certain signature needs its line: if the matched line
// only points at the cause (a crash, an exit code, a generic failure), mark
// the signature probable instead.
func TestConfidenceAudit(t *testing.T) {
	var df dataFile
	if err := json.Unmarshal(defaultData, &df); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/confidence-audit.tsv")
	if err != nil {
		t.Fatal(err)
	}
	audited := map[[2]string]bool{}
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || !strings.HasPrefix(f[2], "states the cause: ") || len(f[2]) < len("states the cause: ")+10 {
			t.Errorf("confidence-audit.tsv:%d: want ID<TAB>pattern<TAB>states the cause: <why>, got %q", i+1, line)
			continue
		}
		audited[[2]string{f[0], f[1]}] = true
	}
	certain := map[[2]string]bool{}
	for _, e := range df.Failures {
		for _, s := range e.Signature {
			if s.Probable {
				continue
			}
			key := s.Re
			if s.Then != "" {
				key += " THEN " + s.Then
			}
			k := [2]string{e.ID, key}
			certain[k] = true
			if !audited[k] {
				t.Errorf("%s: certain signature %q has no line in testdata/confidence-audit.tsv: add one that says how the line states the cause, or make it probable", e.ID, key)
			}
		}
	}
	for k := range audited {
		if !certain[k] {
			t.Errorf("confidence-audit.tsv: %s %q is not a certain signature of the data file (changed, removed or made probable): update the line", k[0], k[1])
		}
	}
}
