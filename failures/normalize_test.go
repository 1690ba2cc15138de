package failures

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"\x1b[31mnvcc fatal   : Unsupported gpu architecture 'compute_120'\x1b[0m\r":                                                                                        "nvcc fatal : Unsupported gpu architecture 'compute_120'",
		"2026-11-29T10:00:05.7770000Z [12/80] FAILED: foo.o":                                                                                                                "foo.o",
		"-- Could NOT find Vulkan (missing: glslc) (found version \"1.3.257\")":                                                                                             `Could NOT find Vulkan (missing: glslc) (found version "1.3.257")`,
		`  C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.2\include\crt/host_config.h(164): fatal error C1189: #error:  -- unsupported Microsoft [C:\b\x.vcxproj]`:  "fatal error C1189: #error: -- unsupported Microsoft",
		`C:\Program Files (x86)\Microsoft Visual Studio\2022\BuildTools\MSBuild\Microsoft\VC\v170\BuildCustomizations\CUDA 11.8.targets(785,9): error MSB3721: The command`: "error MSB3721: The command",
		"/usr/include/crt/host_config.h:132:2: error: #error -- unsupported GNU":                                                                                            "error: #error -- unsupported GNU",
		"warning: hvm@2.0.19: /usr/include/crt/host_config.h:132:2: error: #error -- x":                                                                                     "error: #error -- x",
		"  = note: LINK : fatal error LNK1181: non è possibile aprire il file di input 'nccl.lib'␍":                                                                         "fatal error LNK1181: non è possibile aprire il file di input 'nccl.lib'",
		"LINK : errore irreversibile LNK1181: x":                                                                                                                            "fatal error LNK1181: x",
		`C:\cuda\include\crt/host_config.h(164): 致命错误 C1189: #error:  -- unsupported`:                                                                                       "fatal error C1189: #error: -- unsupported",
		`C:\x\y.h(3): неустранимая ошибка C1189: z`:                                                                                                                         "fatal error C1189: z",
		"a.cpp:2:13: error: ‘cudaStream_t’ was not declared in this scope":                                                                                                  "error: 'cudaStream_t' was not declared in this scope",
		"1.06.520.077 E ggml_backend_cuda_buffer_type_alloc_buffer: allocating":                                                                                             "ggml_backend_cuda_buffer_type_alloc_buffer: allocating",
		"#11 1.374 -- CUDA Toolkit found":                                                                                                                                   "CUDA Toolkit found",
		"2.272 CMake Error at ggml/src/ggml-cuda/CMakeLists.txt:65 (message):":                                                                                              "CMake Error at ggml/src/ggml-cuda/CMakeLists.txt:65 (message):",
		`C:\b\ggml-cuda.vcxproj(120,5): error : nvcc fatal   : Unsupported gpu architecture 'compute_120' [C:\b\ggml-cuda.vcxproj]`:                                         "nvcc fatal : Unsupported gpu architecture 'compute_120'",
		"cargo:warning=Compiler family detection failed":                                                                                                                    "Compiler family detection failed",
		// an English word that merely starts like a localized one stays
		"errored out after 3 tries": "errored out after 3 tries",
		// a CMake location is not a compiler location
		"CMake Error at C:/Program Files/CMake/share/cmake-3.30/Modules/CMakeTestCUDACompiler.cmake:59 (message):": "CMake Error at C:/Program Files/CMake/share/cmake-3.30/Modules/CMakeTestCUDACompiler.cmake:59 (message):",
		"": "",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestNormalizeBoundsLength(t *testing.T) {
	got := Normalize(strings.Repeat("é", 10000))
	if len(got) > maxMessage {
		t.Errorf("len %d", len(got))
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"\x1b[31mnvcc fatal   : Unsupported gpu architecture 'compute_120'\x1b[0m\r",
		`C:\x\y.h(164): 致命错误 C1189: #error`, "[1/2] FAILED: a", "  = note: LINK : errore 1", "-- ", "\x1b]0;title\x07x",
		"2026-11-29T10:00:05Z 1.06.520.077 E x", "a:1:2: ", "(1): ",
		"'cl' 不是内部或外部命令，也不是可运行的程序", "由于找不到VCRUNTIME140_1.dll，无法继续执行代码。", "ollama  | x", "Apr 17 01:25:10 h o[1]: x",
		"Der Befehl \"nmake\" ist entweder falsch geschrieben oder", "/bin/sh: 1: x: not found",
		"'cl'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는 배치 파일이 아닙니다.", "Le terme «nvcc» n'est pas reconnu comme nom d'applet de commande",
		"无法将“nvcc”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。", "VCRUNTIME140_1.dll이(가) 없어 코드 실행을 진행할 수 없습니다.", "> OMP: Error #15: x",
		"Error\tC1083\tx\tp\tf\t1\t", "错误 (活动)\tE1696\t\t\t\t\t", "`` a`b ``",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Normalize(s)
		if len(got) > maxMessage {
			t.Fatalf("message too long: %d", len(got))
		}
		if strings.ContainsAny(got, "\r\n") {
			t.Fatalf("line breaks survive: %q", got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) && len(s) <= maxMessage {
			t.Fatalf("broke UTF-8: %q -> %q", s, got)
		}
		// Normalizing is idempotent enough that a second pass cannot grow it.
		if len(Normalize(got)) > len(got) {
			t.Fatalf("second pass grew %q", got)
		}
	})
}

func FuzzDiagnose(f *testing.F) {
	f.Add("nvcc fatal   : Unsupported gpu architecture 'compute_120'\n")
	f.Add("CMake Error at x.cmake:1 (message):\n  LLAMA_CUBLAS is deprecated and will be removed in the future.\n")
	f.Add("Manually-specified variables were not used by the project:\n\n    LLAMA_CUBLAS\n")
	f.Add("is not able to compile a simple test program.\n/usr/include/crt/host_config.h:132:2: error: #error -- unsupported GNU version!\n")
	f.Add("undefined reference to `cuMemCreate'\r\nLINK : fatal error LNK1181: cannot open input file 'cudart.lib'")
	f.Add("\x00\xff\xfe\n\n\n")
	f.Add("-- Building for: NMake Makefiles\nCMake Error: CMAKE_C_COMPILER not set, after EnableLanguage\n")
	f.Add("ggml_vulkan: Found 1 Vulkan devices:\nSegmentation fault\nC:\\x\nNo CMAKE_C_COMPILER could be found.\n")
	f.Add("load_backend: failed to find ggml_backend_init in ./libggml-cpu.so\n")
	kb := Default()
	f.Fuzz(func(t *testing.T, s string) {
		d := kb.DiagnoseString(s)
		if d.Findings == nil || d.UnmatchedErrors == nil {
			t.Fatal("nil slices break the JSON contract")
		}
		if len(d.Findings) > 0 && len(d.UnmatchedErrors) > 0 {
			t.Fatal("unmatched lines listed next to a diagnosis")
		}
		seen := map[string]bool{}
		for _, fd := range d.Findings {
			if seen[fd.ID] {
				t.Fatalf("duplicate finding %s", fd.ID)
			}
			seen[fd.ID] = true
			if _, ok := kb.Entry(fd.ID); !ok {
				t.Fatalf("unknown id %s", fd.ID)
			}
			for _, l := range fd.Lines {
				if l < 1 || l > d.Lines {
					t.Fatalf("line %d outside 1..%d", l, d.Lines)
				}
			}
		}
		if len(d.UnmatchedErrors) > maxUnmatched {
			t.Fatal("too many unmatched lines")
		}
	})
}

// The same failure in other words and other languages of Windows reads as one
// English form, so one signature names it.
func TestNormalizeShapes(t *testing.T) {
	for in, want := range map[string]string{
		"'cl' is not recognized as an internal or external command,":                                                    "command not found: cl",
		"'nmake' is not recognized as an internal or external command, operable program or batch file.":                 "command not found: nmake",
		"nvcc : The term 'nvcc' is not recognized as the name of a cmdlet, function, script file, or operable program.": "command not found: nvcc",
		"'CMAKE_ARGS' no se reconoce como un comando interno o externo,":                                                "command not found: CMAKE_ARGS",
		"'cl.exe' n'est pas reconnu en tant que commande interne":                                                       "command not found: cl.exe",
		"Der Befehl \"nmake\" ist entweder falsch geschrieben oder":                                                     "command not found: nmake",
		"\"cl\" не является внутренней или внешней командой, исполняемой программой или пакетным файлом.":               "command not found: cl",
		"'cl' 不是内部或外部命令，也不是可运行的程序":                                                                                      "command not found: cl",
		"'cl' は、内部コマンドまたは外部コマンド、操作可能なプログラムまたはバッチ ファイルとして認識されていません。":                                                     "command not found: cl",
		"/bin/sh: 1: vulkan-shaders-gen: not found":                                                                     "command not found: vulkan-shaders-gen",
		"bash: nvcc: command not found":                                                                    "command not found: nvcc",
		"系统找不到指定的文件。":                                                                                      "The system cannot find the file specified",
		"El sistema no puede encontrar el archivo especificado":                                            "The system cannot find the file specified",
		"Le fichier spécifié est introuvable":                                                              "The system cannot find the file specified",
		"Не удается найти указанный файл.":                                                                 "The system cannot find the file specified",
		"由于找不到VCRUNTIME140_1.dll，无法继续执行代码。":                                                                "The code execution cannot proceed because VCRUNTIME140_1.dll was not found.",
		"Die Ausführung des Codes kann nicht fortgesetzt werden, da cublas64_12.dll nicht gefunden wurde.": "The code execution cannot proceed because cublas64_12.dll was not found.",
		"报错：缺少文件libomp140.x86_64.dll":                                                                      "报错：libomp140.x86_64.dll was not found",
		"'cl'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는 배치 파일이 아닙니다.":                                             "command not found: cl",
		"nvcc : Die Benennung \"nvcc\" wurde nicht als Name eines Cmdlet, einer Funktion, einer Skriptdatei oder eines ausführbaren Programms erkannt.": "command not found: nvcc",
		"El término 'cmake' no se reconoce como nombre de un cmdlet, función, archivo de script o programa ejecutable.":                                 "command not found: cmake",
		"Le terme «nvcc» n'est pas reconnu comme nom d'applet de commande, fonction, fichier de script ou programme exécutable.":                        "command not found: nvcc",
		"Termine 'cl' non riconosciuto come nome di cmdlet, funzione, programma eseguibile o file script.":                                              "command not found: cl",
		"O termo 'nvcc' não é reconhecido como nome de cmdlet, função, arquivo de script ou programa operável.":                                         "command not found: nvcc",
		"Имя \"cl\" не распознано как имя командлета, функции, файла сценария или выполняемой программы.":                                               "command not found: cl",
		"无法将“nvcc”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。":                                                                                                        "command not found: nvcc",
		"用語 'cl' は、コマンドレット、関数、スクリプト ファイル、または操作可能なプログラムの名前として認識されません。":                                                                                   "command not found: cl",
		"'cl' 용어가 cmdlet, 함수, 스크립트 파일 또는 실행할 수 있는 프로그램 이름으로 인식되지 않습니다.":                                                                                 "command not found: cl",
		"지정된 파일을 찾을 수 없습니다.":                                                                  "The system cannot find the file specified",
		"OSError: [WinError 126] 找不到指定的模組。":                                                   "OSError: [WinError 126] The specified module could not be found.",
		"OSError: [WinError 126] Impossibile trovare il modulo specificato":                   "OSError: [WinError 126] The specified module could not be found.",
		"OSError: [WinError 126] Não foi possível encontrar o módulo especificado.":           "OSError: [WinError 126] The specified module could not be found.",
		"OSError: [WinError 126] 지정된 모듈을 찾을 수 없습니다":                                           "OSError: [WinError 126] The specified module could not be found.",
		"因為找不到 cudart64_12.dll，所以無法繼續執行程式碼。":                                                  "The code execution cannot proceed because cudart64_12.dll was not found.",
		"L'esecuzione del codice non può continuare perché non è stato trovato MSVCP140.dll.": "The code execution cannot proceed because MSVCP140.dll was not found.",
		"A execução de código não pode continuar porque VCRUNTIME140.dll não foi encontrado.": "The code execution cannot proceed because VCRUNTIME140.dll was not found.",
		"VCRUNTIME140_1.dll이(가) 없어 코드 실행을 진행할 수 없습니다.":                                        "The code execution cannot proceed because VCRUNTIME140_1.dll was not found.",
		// not shapes: left alone
		"'foo' is a string":                         "'foo' is a string",
		"-- Looking for pthread_create - not found": "Looking for pthread_create - not found",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeWrapperPrefixes(t *testing.T) {
	for in, want := range map[string]string{
		"ollama  | ggml_backend_cuda_buffer_type_alloc_buffer: allocating 35533.34 MiB on device 0: cudaMalloc failed: out of memory":            "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 35533.34 MiB on device 0: cudaMalloc failed: out of memory",
		"llama-1  | llama-server: error while loading shared libraries: libgomp.so.1: cannot open shared object file: No such file or directory": "llama-server: error while loading shared libraries: libgomp.so.1: cannot open shared object file: No such file or directory",
		"Apr 17 01:25:10 ai-pc ollama[56169]: llama_model_load: error loading model: unable to allocate backend buffer":                          "llama_model_load: error loading model: unable to allocate backend buffer",
		"[2025-02-08 01:29:29.905] [error] Error loading model.":                                                                                 "Error loading model.",
		// not wrappers
		"a | b":            "a | b",
		"Apr 17 is a date": "Apr 17 is a date",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeJSONRecords(t *testing.T) {
	for in, want := range map[string]string{
		`{"log":"CUDA error: out of memory\n","stream":"stderr","time":"2024-05-01T12:00:00Z"}`:                    "CUDA error: out of memory",
		`{"tid":"1","level":"ERR","function":"load_model","line":7,"msg":"unable to load model","model":"x.gguf"}`: "unable to load model",
		`{"time":"t","level":"ERROR","msg":"llama runner process has terminated","error":"exit status 2"}`:         "llama runner process has terminated error=exit status 2",
		`{"MESSAGE":"ggml_cuda_init: failed to initialize CUDA: unknown error","_PID":"12"}`:                       "ggml_cuda_init: failed to initialize CUDA: unknown error",
		// not a log record: kept as it is
		`{"a": 1, "b": [2, 3]}`:         `{"a": 1, "b": [2, 3]}`,
		`{ this is not json }`:          `{ this is not json }`,
		`{"msg": 12}`:                   `{"msg": 12}`,
		`{"msg":"{\"msg\":\"inner\"}"}`: `{"msg":"inner"}`, // one level only
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestUnwrapMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"**/usr/bin/sh: g++: command not found**":    "/usr/bin/sh: g++: command not found",
		"`No CUDA toolset found.`":                   "No CUDA toolset found.",
		"`` Instrucción ilegal (`core' generado) ``": "Instrucción ilegal (`core' generado)",
		"```console":       "```console",
		"``` ``":           "``` ``",
		"`foo' undeclared": "`foo' undeclared",
		"`a` and `b`":      "`a` and `b`",
		"`` ``":            "`` ``",
	} {
		if got := unwrapMarkdown(in); got != want {
			t.Errorf("unwrapMarkdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorListRow(t *testing.T) {
	for in, want := range map[string]string{
		"Error\tC1083\tCannot open include file: 'cuda_runtime.h': No such file or directory\tggml-cuda\tC:\\src\\common.cuh\t12\t": "C:\\src\\common.cuh(12): fatal error C1083: Cannot open include file: 'cuda_runtime.h': No such file or directory",
		"Error\tLNK1112\tmodule machine type 'x64' conflicts with target machine type 'x86'\t\tggml.obj\t":                          "ggml.obj : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'",
		"错误\tMSB8020\t无法找到 v143 的生成工具。\tggml\tC:\\VS\\Microsoft.CppBuild.targets\t456\t":                                            "C:\\VS\\Microsoft.CppBuild.targets(456): error MSB8020: 无法找到 v143 的生成工具。",
		"Error (active)\tE1696\tcannot open source file \"cuda_runtime.h\"\tggml\tC:\\src\\a.cu\t3\t":                               "C:\\src\\a.cu(3): error E1696: cannot open source file \"cuda_runtime.h\"",
		"Warnung\tC4819\tDie Datei enthält ein Zeichen\tggml\tC:\\src\\b.c\t1\tUnterdrückt":                                         "C:\\src\\b.c(1): warning C4819: Die Datei enthält ein Zeichen",
		// not rows: the header, a tab-separated table, a line without tabs
		"Severity\tCode\tDescription\tProject\tFile\tLine\tSuppression State": "Severity\tCode\tDescription\tProject\tFile\tLine\tSuppression State",
		"Number of platforms\t0":           "Number of platforms\t0",
		"Error C1083: no tabs here at all": "Error C1083: no tabs here at all",
	} {
		if got := errorListRow(in); got != want {
			t.Errorf("errorListRow(%q) = %q, want %q", in, got, want)
		}
	}
}
