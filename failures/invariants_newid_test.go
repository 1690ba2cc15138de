package failures

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The IDs of issue #15: causes the neighbourhood (prebuilt llama.cpp,
// ollama, koboldcpp, GPT4All, llama-cpp-python wheels, llamafile, docker)
// hits constantly, each recognised by an invariant of its own.
var newIDs = []string{"cpu-instruction-unsupported", "glibc-too-old", "docker-gpu-runtime-missing", "llamafile-ape-binfmt", "llamafile-exe-too-large"}

// Each log names the expected ID and only it, with the expected confidence.
func TestNewIDSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// a program that checks the CPU first says which feature is missing
		{"LLModel ERROR: CPU does not support AVX", "cpu-instruction-unsupported", false},
		{`time=2024-02-23T23:00:37.256+08:00 level=WARN source=gpu.go:128 msg="CPU does not have AVX or AVX2, disabling GPU support."`, "cpu-instruction-unsupported", false},
		{`level=WARN source=gpu.go:226 msg="CPU does not have minimum vector extensions, GPU inference disabled" required=avx detected="no vector extensions"`, "cpu-instruction-unsupported", false},
		// the faulting instruction is a VEX (AVX, AVX2, FMA, F16C) or EVEX (AVX-512) one:
		// Go's runtime prints its bytes (0xc4/0xc5 and 0x62 are only those prefixes in
		// 64-bit mode), gdb its disassembly
		{"SIGILL: illegal instruction\nPC=0x7f3c2a1b4c5d m=4 sigcode=2\ninstruction bytes: 0x62 0xf1 0xfd 0x48 0x11 0x44 0x24 0x1", "cpu-instruction-unsupported", false},
		{"SIGILL: illegal instruction\nPC=0xa893c4 m=9 sigcode=2\ninstruction bytes: 0xc4 0xe2 0x7d 0x18 0x5 0x2c 0x3f 0x2", "cpu-instruction-unsupported", false},
		{"Thread 1 \"llama-cli\" received signal SIGILL, Illegal instruction.\n0x00007ffff7e3b4a0 in ggml_init () from /usr/lib/libggml.so\n(gdb) x/i $pc\n=> 0x7ffff7e3b4a0 <ggml_init+64>:\tvmovupd %zmm0,0x40(%rsp)", "cpu-instruction-unsupported", false},
		// SIGILL by itself, in the words of shells, Go, Python, IDEs, docker and the kernel
		{"Illegal instruction (core dumped)", "cpu-instruction-unsupported", true},
		{"/run.sh: line 5:     6 Illegal instruction     (core dumped) python3 -m wyoming_faster_whisper --uri 'tcp://0.0.0.0:10300'", "cpu-instruction-unsupported", true},
		{"zsh: illegal hardware instruction  ./llama-cli -m model.gguf", "cpu-instruction-unsupported", true},
		{"llama runner process has terminated: signal: illegal instruction (core dumped)", "cpu-instruction-unsupported", true},
		{"2023/09/29 09:11:12 llama.go:320: llama runner exited with error: signal: illegal instruction", "cpu-instruction-unsupported", true},
		{"Fatal Python error: Illegal instruction", "cpu-instruction-unsupported", true},
		{"Process finished with exit code 132 (interrupted by signal 4: SIGILL)", "cpu-instruction-unsupported", true},
		{"Apr 17 01:25:10 host kernel: traps: llama-server[4012] trap invalid opcode ip:7f1c2e0a1b2c sp:7ffd3a4b5c60 error:0 in libggml-cpu.so[7f1c2e000000+200000]", "cpu-instruction-unsupported", true},
		// Windows: STATUS_ILLEGAL_INSTRUCTION as hex, signed and unsigned
		{"Error: llama runner process has terminated: exit status 0xc000001d", "cpu-instruction-unsupported", true},
		{"OSError: [WinError -1073741795] Windows Error 0xc000001d", "cpu-instruction-unsupported", true},
		{"Process exited with code 3221225501", "cpu-instruction-unsupported", true},
		{"Exception code: STATUS_ILLEGAL_INSTRUCTION", "cpu-instruction-unsupported", true},
		// a non-x86 CPU: SIGILL, but nothing says which instruction: at most probable
		{"Linux raspberrypi 6.1.0-rpi7-rpi-v8 #1 SMP PREEMPT aarch64 GNU/Linux\n./llama-cli -m model.gguf\nIllegal instruction", "cpu-instruction-unsupported", true},

		// glibc's loader names the symbol version the system lacks
		{"Error: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.33' not found (required by /opt/LM-Studio/resources/app/.webpack/main/watcher.node)", "glibc-too-old", false},
		{"OSError: /lib64/libm.so.6: version `GLIBC_2.29' not found (required by /home/u/.local/lib/python3.8/site-packages/llama_cpp/lib/libllama.so)", "glibc-too-old", false},
		{"./llama-server: /lib/x86_64-linux-gnu/libc.so.6: version ‘GLIBC_2.38’ not found (required by ./llama-server)", "glibc-too-old", false},
		{"./llama-server: /lib64/libc.so.6: version `GLIBC_2.27.1' not found (required by ./libggml.so)", "glibc-too-old", false},
		// getcpu: glibc 2.29's, but the line does not name glibc
		{"OSError: /tmp/_MEIUwJ6Ds/koboldcpp_cublas.so: undefined symbol: getcpu", "glibc-too-old", true},

		// docker's daemon without the NVIDIA runtime, with and without the driver's name
		{`docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].`, "docker-gpu-runtime-missing", false},
		{`Error response from daemon: could not select device driver "nvidia" with capabilities: [[gpu]]`, "docker-gpu-runtime-missing", false},
		{"could not select device driver with capabilities: [[gpu]]", "docker-gpu-runtime-missing", false},
		{"docker: Error response from daemon: unknown or invalid runtime name: nvidia.", "docker-gpu-runtime-missing", false},

		// binfmt_misc's other handlers and the APE code's own message inside WSL
		{"run-detectors: unable to find an interpreter for ./Meta-Llama-3-8B-Instruct.Q6_K.llamafile", "llamafile-ape-binfmt", false},
		{"run-detectors: unable to find an interpreter for /home/u/bin/llamafile", "llamafile-ape-binfmt", false},
		{"error: APE is running on WIN32 inside WSL. You need to run: sudo sh -c 'echo -1 > /proc/sys/fs/binfmt_misc/WSLInterop'", "llamafile-ape-binfmt", false},

		// Windows refuses an executable over 4 GB in the words of PowerShell (English,
		// Chinese) and of the loader; a cut-off download says the same: probable
		{"ResourceUnavailable: Program 'mistral-7b-instruct-v0.2.Q5_K_M.llamafile.exe' failed to run: An error occurred trying to start process 'E:\\AI\\mistral-7b-instruct-v0.2.Q5_K_M.llamafile.exe' with working directory 'E:\\AI'. The specified executable is not a valid application for this OS platform.At line:1 char:1", "llamafile-exe-too-large", true},
		{"程序“llava-v1.5-7b-q4.llamafile.exe”无法运行: 指定的可执行文件不是此操作系统平台的有效应用程序。所在位置 行:1 字符: 1", "llamafile-exe-too-large", true},
		{"C:\\models\\wizardcoder-python-13b.llamafile.exe is not a valid Win32 application.", "llamafile-exe-too-large", true},
	})
}

// ollama runs on without its GPU runners: the finding is a warning, not an error.
func TestNewIDOllamaNoAVXIsAWarning(t *testing.T) {
	d := Default().DiagnoseString(`level=WARN source=gpu.go:128 msg="CPU does not have AVX or AVX2, disabling GPU support."` + "\n")
	if len(d.Findings) != 1 || d.Findings[0].Severity != SeverityWarning {
		t.Fatalf("got %+v", d.Findings)
	}
}

// The same words for something else: none of the new IDs may be named.
func TestNewIDNearMisses(t *testing.T) {
	for _, log := range []string{
		// a compiler that crashed with SIGILL is not the program's CPU code
		"c++: internal compiler error: Illegal instruction signal terminated program cc1plus",
		"clang: error: unable to execute command: Illegal instruction (core dumped)",
		// a GPU kernel's fault is CUDA's error 715, not the CPU's
		"CUDA error: an illegal instruction was encountered",
		"ggml_cuda_compute_forward: MUL_MAT failed\nCUDA error: an illegal instruction was encountered\n  current device: 0, in function ggml_cuda_compute_forward at ggml-cuda.cu:2365",
		// numbers that only look like the codes
		"error: 132 errors generated.",
		"Process exited with code 1320",
		// exit code 132 alone: a program may return 132 itself, and a runtime's own
		// crash (LM Studio's) exits so too; without SIGILL or "illegal instruction" said
		// nothing is named
		"llama-server exited with code 132",
		"the address 0xc000001d00 is not mapped",
		// llama.cpp's system_info lists the features the binary was compiled with, not the CPU's
		"system_info: n_threads = 4 / 4 | AVX = 1 | AVX2 = 0 | AVX512 = 0 | FMA = 0 | F16C = 1 |",
		// a DLL whose initialiser failed: the CPU is one cause of many (c10.dll and friends)
		"OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading \"C:\\venv\\lib\\site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.",
		// libstdc++'s and the C++ ABI's versions are another cause (an older libstdc++ first on the path)
		"/home/u/miniconda3/bin/../lib/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by ./llama-server)",
		"ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `CXXABI_1.3.13' not found (required by libllama.so)",
		"./main: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_PRIVATE' not found (required by ./libfoo.so)",
		"OSError: libllama.so: undefined symbol: getcpu_cache",
		// other runtimes and capabilities; a Windows program handed to WINE
		"docker: Error response from daemon: unknown or invalid runtime name: runsc.",
		"run-detectors: unable to find an interpreter for ./setup.exe",
		// zsh older than 5.9 refuses APE files: another cause
		"zsh: exec format error: ./mistral-7b-instruct-v0.1-Q4_K_M-main.llamafile",
		// another program Windows will not run
		"ResourceUnavailable: Program 'setup.exe' failed to run: The specified executable is not a valid application for this OS platform.",
	} {
		d := Default().DiagnoseString(log + "\n")
		for _, f := range d.Findings {
			for _, id := range newIDs {
				if f.ID == id {
					t.Errorf("%q: got %+v, want none of %v", log, brief(d.Findings), newIDs)
				}
			}
		}
	}
}

// The fix texts say what llamactl really does: every build flag the fix of
// cpu-instruction-unsupported names is one of llamactl build's, and its
// commands include the build the fix names.
func TestNewIDFixNamesRealFlags(t *testing.T) {
	src, err := os.ReadFile("../build/buildcmd/buildcmd.go")
	if err != nil {
		t.Fatal(err)
	}
	e, ok := Default().Entry("cpu-instruction-unsupported")
	if !ok {
		t.Fatal("cpu-instruction-unsupported missing")
	}
	flags := regexp.MustCompile(`--([a-z][a-z-]+)`).FindAllStringSubmatch(e.Fix, -1)
	if len(flags) < 3 {
		t.Fatalf("flags %v: expected --portable, --lock and --cmake-arg", flags)
	}
	for _, f := range flags {
		if !strings.Contains(string(src), `"`+f[1]+`"`) {
			t.Errorf("the fix names --%s, which llamactl build does not define", f[1])
		}
	}
	for _, id := range newIDs {
		e, _ := Default().Entry(id)
		if strings.Contains(e.Fix, "llamactl build") && !strings.Contains(strings.Join(e.Commands, "\n"), "llamactl build") {
			t.Errorf("%s: the fix names llamactl build but the commands do not", id)
		}
	}
}
