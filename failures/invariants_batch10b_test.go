package failures

import "testing"

// The invariants added for batch 10's runtime dev logs (issue #15, h-tune10b):
// each rule in the words of another tool, release or language too; probable
// ones carry their evidence lines.
func TestBatch10bSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// a loader naming a GGUF file's architecture as unsupported (GPT4All's
		// wording of llama.cpp's unknown architecture), in another program's words too
		{"Error loading Qwen_Qwen3.5-0.8B-Q4 0.gguf: Unsupported model architecture: qwen35", "model-arch-unsupported", false},
		{`Failed to load model "C:\models\gemma-3n-E4B-it-Q4_K_M.gguf": unsupported model architecture: 'gemma3n'`, "model-arch-unsupported", false},
		// GPT4All: no backend implementation accepts the .gguf file (its architecture, or no GGUF at all)
		{`   - "Could not load model due to invalid format for starcoder2-15b-Q4_0.gguf"`, "model-arch-unsupported", true},
		{"[Warning] modelLoadingError: Could not load model due to invalid format for Phi-3.5-mini-instruct-Q4_0.gguf", "model-arch-unsupported", true},

		// ggml-opencl's older 'Unsupported GPU: NAME' right after it selected the device
		{"ggml_opencl: selecting platform: 'NVIDIA CUDA'\nggml_opencl: selecting device: 'NVIDIA GeForce RTX 4070 Laptop GPU (OpenCL 3.0 CUDA)'\nUnsupported GPU: NVIDIA GeForce RTX 4070 Laptop GPU", "opencl-unsupported-gpu", false},
		{"ggml_opencl: selecting platform: 'AMD Accelerated Parallel Processing'\nggml_opencl: selecting device: 'gfx1030'\nUnsupported GPU: gfx1030", "opencl-unsupported-gpu", false},
		{"ggml_opencl: selecting device: 'Mali-G78 r0p0'\nUnsupported GPU: Mali-G78 r0p0", "opencl-unsupported-gpu", false},

		// the 'no usable GPU found' warning with any option's name (llamafile's, the short flag)
		{"warning: no usable GPU found, --gpu-latyers option will be ignored", "gpu-backend-not-loaded", true},
		{"warning: no usable GPU found, -ngl option will be ignored", "gpu-backend-not-loaded", true},
		// LM Studio cannot load the engine module of a GPU runtime (it, or a library it needs, is missing)
		{`Failed to load LLM engine from path: C:\Users\sato_\.lmstudio\extensions\backends\llama.cpp-win-x86_64-amd-rocm-avx2-1.34.1\llm_engine_rocm.node. The specified module could not be found.`, "gpu-backend-not-loaded", true},
		{`🥲 Failed to load the model Failed to load LLM engine from path: C:\Users\u\.lmstudio\extensions\backends\llama.cpp-win-x86_64-nvidia-cuda12-avx2-1.50.2\llm_engine_cuda12.node. 找不到指定的模块。`, "gpu-backend-not-loaded", true},
		{`Failed to load LLM engine from path: C:\Users\u\.cache\lm-studio\extensions\backends\win-llama-vulkan-lm-1.12\llm_engine_vulkan.node. Das angegebene Modul wurde nicht gefunden.`, "gpu-backend-not-loaded", true},

		// Windows' crash record of a program faulting in an MSVCP140.dll older than 14.40
		// (event XML, the event's text in English and German, WER's problem signature)
		{"<Data>llama-box.exe</Data>\n<Data>0.0.0.0</Data>\n<Data>674fb3c7</Data>\n<Data>MSVCP140.dll</Data>\n<Data>14.29.30139.0</Data>\n<Data>61b17c25</Data>\n<Data>c0000005</Data>", "vc-runtime-dll-missing", true},
		{"Faulting application name: llama-server.exe, version: 0.0.0.0, time stamp: 0x66a1b2c3\nFaulting module name: MSVCP140.dll, version: 14.36.32532.0, time stamp: 0x04a30cf0\nException code: 0xc0000005", "vc-runtime-dll-missing", true},
		{"Name der fehlerhaften Anwendung: ollama.exe, Version: 0.0.0.0\nName des fehlerhaften Moduls: MSVCP140.dll, Version: 14.32.31332.0, Zeitstempel: 0x62a1c1f4\nAusnahmecode: 0xc0000005", "vc-runtime-dll-missing", true},
		{"Problem Event Name:\tAPPCRASH\nFault Module Name:\tMSVCP140.dll\nFault Module Version:\t14.29.30139.0\nException Code:\tc0000005", "vc-runtime-dll-missing", true},

		// Windows refusing a bind with WSAEACCES while a client's connection to the
		// port is accepted and dropped: another process holds the port (either order)
		{"C:\\Users\\win>ollama list\nError: Head \"http://127.0.0.1:11434/\": EOF\n\nC:\\Users\\win>ollama serve\nError: listen tcp 127.0.0.1:11434: bind: An attempt was made to access a socket in a way forbidden by its access permissions.", "server-port-in-use", true},
		{"ERROR:    [Errno 10013] error while attempting to bind on address ('127.0.0.1', 8000): an attempt was made to access a socket in a way forbidden by its access permissions\n$ curl http://127.0.0.1:8000/health\ncurl: (52) Empty reply from server", "server-port-in-use", true},
		{"Error: listen tcp 127.0.0.1:11434: bind: 以一种访问权限不允许的方式做了一个访问套接字的尝试。\nPS C:\\> ollama list\nError: Get \"http://127.0.0.1:11434/api/tags\": read tcp 127.0.0.1:51234->127.0.0.1:11434: wsarecv: 远程主机强迫关闭了一个现有的连接。", "server-port-in-use", true},
	})
}

// Near-misses: the same words for something else, or one of the two signals
// alone. The ID in each case must not be named.
func TestBatch10bNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// an ML script's own list of architectures (no GGUF file), a projector given as the model
		{"ValueError: Unsupported model architecture: vgg19", "model-arch-unsupported"},
		{"raise ValueError(f\"Unsupported model architecture: {arch}\")", "model-arch-unsupported"},
		{"Error loading mmproj-model-f16.gguf: Unsupported model architecture: clip", "model-arch-unsupported"},
		// GPT4All on an old GGML .bin (a format change, not an architecture), or a file that failed after its architecture was accepted
		{"Could not load model due to invalid format for ggml-gpt4all-j-v1.3-groovy.bin", "model-arch-unsupported"},
		{"Could not load model due to invalid model file for mistral-7b-openorca.Q4_0.gguf", "model-arch-unsupported"},

		// nvcc's unsupported architecture, another program's 'Unsupported GPU' with no OpenCL device
		// selected, an Adreno that ggml-opencl accepted
		{"nvcc fatal   : Unsupported gpu architecture 'compute_89'", "opencl-unsupported-gpu"},
		{"Unsupported GPU: NVIDIA GeForce GT 710", "opencl-unsupported-gpu"},
		{"ggml_opencl: selecting device: 'QUALCOMM Adreno(TM) 740'\nggml_opencl: Adreno large buffer enabled", "opencl-unsupported-gpu"},

		// a --gpu-layers warning for another reason; LM Studio's CPU runtime (no GPU backend in
		// its folder, even with 'hip' in the user's name) or another error on a GPU runtime
		{"warning: --gpu-layers option will be ignored: no model loaded", "gpu-backend-not-loaded"},
		{`Failed to load LLM engine from path: C:\Users\chip\.lmstudio\extensions\backends\llama.cpp-win-x86_64-avx2-1.34.1\llm_engine.node. The specified module could not be found.`, "gpu-backend-not-loaded"},
		{`Failed to load LLM engine from path: C:\Users\u\.lmstudio\extensions\backends\llama.cpp-win-x86_64-amd-rocm-avx2-1.34.1\llm_engine_rocm.node. A dynamic link library (DLL) initialization routine failed.`, "gpu-backend-not-loaded"},

		// a fault in a current MSVCP140.dll, in VCRUNTIME140.dll (mostly the program's own bad
		// pointer), in the Universal CRT
		{"Faulting module name: MSVCP140.dll, version: 14.40.33810.0, time stamp: 0x6614e1c8\nException code: 0xc0000005", "vc-runtime-dll-missing"},
		{"Faulting module name: VCRUNTIME140.dll, version: 14.29.30139.0, time stamp: 0x61b17c25\nException code: 0xc0000005", "vc-runtime-dll-missing"},
		{"<Data>MSVCP140.dll</Data>\n<Data>14.42.34433.0</Data>\n<Data>c0000005</Data>", "vc-runtime-dll-missing"},
		{"<Data>ucrtbase.dll</Data>\n<Data>10.0.19041.789</Data>\n<Data>c0000409</Data>", "vc-runtime-dll-missing"},

		// WSAEACCES on a bind while the client is refused (a port range Windows reserves: nothing
		// listens), the client's dropped connection alone, 10013 on an outgoing connection
		{"Error: listen tcp 127.0.0.1:11434: bind: An attempt was made to access a socket in a way forbidden by its access permissions.\nError: Head \"http://127.0.0.1:11434/\": dial tcp 127.0.0.1:11434: connectex: No connection could be made because the target machine actively refused it.", "server-port-in-use"},
		{"Error: Head \"http://127.0.0.1:11434/\": EOF", "server-port-in-use"},
		{"Error: Head \"http://127.0.0.1:11434/\": read tcp 127.0.0.1:11114->127.0.0.1:11434: wsarecv: An existing connection was forcibly closed by the remote host.", "server-port-in-use"},
		{"Error: Head \"http://127.0.0.1:11434/\": EOF\nWARNING: Retrying after connection broken by 'NewConnectionError(': Failed to establish a new connection: [WinError 10013] An attempt was made to access a socket in a way forbidden by its access permissions')'", "server-port-in-use"},
	})
}
