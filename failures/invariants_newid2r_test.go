package failures

import (
	"os"
	"strings"
	"testing"
)

// The runtime IDs of issue #15's second round: a port already taken, a
// model path that names no file, a HIP runtime with no GPU, SYCL without
// Intel's GPU runtime, Metal kernels an Intel or AMD Mac GPU cannot build.
var newID2rIDs = []string{"server-port-in-use", "model-file-not-found", "rocm-no-device", "sycl-no-device", "metal-unsupported-gpu"}

// Each log names the expected ID and only it, with the expected confidence.
func TestNewID2rSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// the OS's EADDRINUSE in Go's, Python's, Node's and uvicorn's words
		{"Error: listen tcp 127.0.0.1:11434: bind: address already in use", "server-port-in-use", false},
		{"OSError: [Errno 98] Address already in use", "server-port-in-use", false},
		{"OSError: [Errno 48] Address already in use", "server-port-in-use", false},
		{"Error: listen EADDRINUSE: address already in use :::3000", "server-port-in-use", false},
		{"ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use", "server-port-in-use", false},
		// Windows: WSAEADDRINUSE by number and in the system's language
		{"ERROR:    [Errno 10048] error while attempting to bind on address ('127.0.0.1', 7860): only one usage of each socket address (protocol/network address/port) is normally permitted", "server-port-in-use", false},
		{"Error: listen tcp 127.0.0.1:11434: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.", "server-port-in-use", false},
		{"Error: listen tcp 127.0.0.1:11434: bind: Normal olarak her yuva adresi (iletişim kuralı/ağ adresi/bağlantı noktası) için yalnızca bir kullanıma izin veriliyor.", "server-port-in-use", false},
		{"Error: listen tcp 127.0.0.1:11434: bind: Normalerweise darf jede Socketadresse (Protokoll, Netzwerkadresse oder Anschluss) nur jeweils einmal verwendet werden.", "server-port-in-use", false},
		{"Error: listen tcp 127.0.0.1:11434: bind: Une seule utilisation de chaque adresse de socket (protocole/adresse réseau/port) est habituellement autorisée.", "server-port-in-use", false},
		{"Error: listen tcp 127.0.0.1:11434: bind: 通常每个套接字地址(协议/网络地址/端口)只允许使用一次。", "server-port-in-use", false},
		{"Error: listen tcp 127.0.0.1:11434: bind: 通常、各ソケット アドレスに対してプロトコル、ネットワーク アドレス、またはポートのどれか 1 つのみを使用できます。", "server-port-in-use", false},
		{"OSError: [WinError 10048] Only one usage of each socket address is normally permitted", "server-port-in-use", false},
		{"bind() failed: WSAEADDRINUSE", "server-port-in-use", false},
		// glibc's strerror(EADDRINUSE) in other locales
		{"OSError: [Errno 98] Die Adresse wird bereits verwendet", "server-port-in-use", false},
		{"OSError: [Errno 98] 地址已在使用", "server-port-in-use", false},
		// llama-server says only that it could not bind: probable
		{"0.00.016.729 E srv         start: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 18124\n0.00.016.881 E srv  llama_server: exiting due to HTTP server error", "server-port-in-use", true},
		{`{"timestamp":1712345678,"level":"ERROR","function":"main","line":3080,"message":"couldn't bind to server socket","hostname":"127.0.0.1","port":8080}`, "server-port-in-use", true},

		// the loader says the path does not exist
		{"gguf_init_from_file: failed to open GGUF file '/tmp/nonexist-model.gguf' (No such file or directory)\nllama_model_load: error loading model: llama_model_loader: failed to load model from /tmp/nonexist-model.gguf", "model-file-not-found", false},
		{"gguf_init_from_file: failed to open 'models/7B/ggml-model-q4_0.gguf': 'No such file or directory'", "model-file-not-found", false},
		{"llama_model_load: error loading model: failed to open models/7B/ggml-model-f16.gguf: No such file or directory", "model-file-not-found", false},
		{"llama_model_load: error loading model: failed to open C:\\models\\mistral-7b.Q4_K_M.gguf: No such file or directory", "model-file-not-found", false},
		{"ValueError: Model path does not exist: ./models/llama-2-7b-chat.Q4_K_M.gguf", "model-file-not-found", false},
		{"FileNotFoundError: [Errno 2] No such file or directory: 'models/ggml-base.en.bin'", "model-file-not-found", false},
		{"Error: open /home/u/models/qwen2.5-7b-q4_k_m.gguf: no such file or directory", "model-file-not-found", false},
		{"Error: open C:\\Users\\ana\\models\\phi-3.gguf: The system cannot find the file specified.", "model-file-not-found", false},
		{"Error: open C:\\Users\\ana\\models\\phi-3.gguf: Das System kann die angegebene Datei nicht finden.", "model-file-not-found", false},
		// whisper.cpp does not say why: probable
		{"whisper_init_from_file_with_params_no_state: loading model from 'models/ggml-base.en.bin'\nwhisper_init_from_file_with_params_no_state: failed to open 'models/ggml-base.en.bin'\nerror: failed to initialize whisper context", "model-file-not-found", true},
		{"whisper_model_load: loading model from 'models/ggml-tiny.bin'\nwhisper_model_load: failed to open 'models/ggml-tiny.bin'", "model-file-not-found", true},

		// HIP's, PyTorch's, rocBLAS's and rocminfo's words for no device
		{"ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected", "rocm-no-device", false},
		{"hipGetDeviceCount failed: hipErrorNoDevice", "rocm-no-device", false},
		{"RuntimeError: No HIP GPUs are available", "rocm-no-device", false},
		{"rocBLAS error: Could not initialize Tensile host: No devices found", "rocm-no-device", false},
		{"ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\nuser is not member of \"render\" group", "rocm-no-device", false},
		{"ROCk module is NOT loaded, possibly no GPU devices\nUnable to open /dev/kfd read-write: No such file or directory", "rocm-no-device", false},
		// the HSA runtime's resource error beside the render group: probable
		{"Failed to get user name to check for render group membership\nhsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_info/src/rocminfo/rocminfo.cc:1306\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.", "rocm-no-device", true},

		// SYCL without Intel's GPU runtime
		{"ZE_LOADER_DEBUG_TRACE:Load Library of libze_intel_gpu.so.1 failed with libze_intel_gpu.so.1: cannot open shared object file: No such file or directory", "sycl-no-device", false},
		{"terminate called after throwing an instance of 'sycl::_V1::runtime_error'\n  what():  No device of requested type available. Please check https://software.intel.com/content/www/us/en/develop/articles/intel-oneapi-dpcpp-system-requirements.html -1 (PI_ERROR_DEVICE_NOT_FOUND)", "sycl-no-device", false},
		{"Found 0 SYCL devices:", "sycl-no-device", false},

		// Apple's GPU shader compiler cannot build ggml's kernel for the GPU
		{"ggml_metal_init: loaded kernel_mul_mm_f16_f32                         0x0 | th_max =    0 | th_width =    0\nggml_metal_init: load pipeline error: Error Domain=CompilerError Code=2 \"SC compilation failure\nThere is a call to an undefined label\" UserInfo={NSLocalizedDescription=SC compilation failure\nllama_new_context_with_model: ggml_metal_init() failed", "metal-unsupported-gpu", false},
		// ggml's current wording names the pipeline, not why: probable
		{"ggml_metal_library_compile_pipeline: failed to compile pipeline: base = 'kernel_mul_mm_f16_f32', name = 'kernel_mul_mm_f16_f32_bci=0_bco=1'", "metal-unsupported-gpu", true},
		// Metal's init failed on an Intel GPU, nothing says why: probable
		{"ggml_metal_init: allocating\nggml_metal_init: found device: Intel Iris Graphics\nggml_metal_init: picking default device: Intel Iris Graphics\nggml_metal_init: loading '(null)'\nggml_metal_init: error: Error Domain=NSCocoaErrorDomain Code=258 \"The file name is invalid.\"\nwhisper_init_state: ggml_metal_init() failed", "metal-unsupported-gpu", true},
	})
}

// Look-alikes from other causes: the ID must stay silent (another may speak).
func TestNewID2rNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// a port Windows reserves (Hyper-V's excluded ranges, WSAEACCES 10013), a
		// privileged port, an address this machine lacks, a refused connection
		{"Error: listen tcp 127.0.0.1:11434: bind: An attempt was made to access a socket in a way forbidden by its access permissions.", "server-port-in-use"},
		{"Error: listen tcp 0.0.0.0:80: bind: permission denied", "server-port-in-use"},
		{"Error: listen tcp 192.168.1.50:8080: bind: cannot assign requested address", "server-port-in-use"},
		{"Error: Head \"http://127.0.0.1:11434/\": dial tcp 127.0.0.1:11434: connect: connection refused", "server-port-in-use"},
		{"main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 15", "server-port-in-use"},
		{"error: 10048 bytes written", "server-port-in-use"},
		// the file exists but is no model; other files that do not exist
		{"gguf_init_from_file: invalid magic characters 'vers'", "model-file-not-found"},
		{"gguf_init_from_file: failed to open GGUF file '/models/x.gguf' (Permission denied)", "model-file-not-found"},
		{"./llama-server: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory", "model-file-not-found"},
		{"error: failed to open file 'prompt.txt'", "model-file-not-found"},
		{"FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'", "model-file-not-found"},
		{"error: failed to open 'samples/jfk.wav' as WAV file", "model-file-not-found"},
		{"The system cannot find the file specified.", "model-file-not-found"},
		// CUDA's no-device, a GPU ROCm has no kernels for, the HSA error alone
		{"ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected", "rocm-no-device"},
		{"rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1103", "rocm-no-device"},
		{"rocBLAS error: Could not initialize Tensile host:\nUnknown exception thrown", "rocm-no-device"},
		{"hipErrorInvalidDeviceFunction", "rocm-no-device"},
		{"Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.", "rocm-no-device"},
		// the NPU's Level Zero driver missing is harmless; devices found
		{"ZE_LOADER_DEBUG_TRACE:Load Library of libze_intel_vpu.so.1 failed with libze_intel_vpu.so.1: cannot open shared object file: No such file or directory", "sycl-no-device"},
		{"Found 1 SYCL devices:", "sycl-no-device"},
		{"Found 10 SYCL devices:", "sycl-no-device"},
		// Metal out of memory, Metal's shader source not found on Apple Silicon
		{"ggml_metal_init: found device: Apple M1 Pro\nggml_metal_init: error: could not use bundle path to find ggml-metal.metal, falling back to trying cwd\nllama_new_context_with_model: ggml_metal_init() failed", "metal-unsupported-gpu"},
		{"ggml_backend_metal_buffer_type_alloc_buffer: error: failed to allocate buffer, size =  4096.00 MiB", "metal-unsupported-gpu"},
	})
}

// The fixes name only flags llamactl really has: llamactl run's --port and
// --server, llamactl build's --backend and --cmake-arg, and the commands
// they name.
func TestNewID2rFixNamesRealFlags(t *testing.T) {
	src := map[string]string{}
	for cmd, path := range map[string]string{"run": "../runner/runcmd/run.go", "build": "../build/buildcmd/buildcmd.go"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		src[cmd] = string(b)
	}
	for _, id := range newID2rIDs {
		e, ok := Default().Entry(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		for _, line := range append([]string{e.Fix}, e.Commands...) {
			for _, cmd := range []string{"run", "build"} {
				i := strings.Index(line, "llamactl "+cmd+" ")
				if i < 0 {
					continue
				}
				for _, f := range strings.Fields(line[i:]) {
					f = strings.TrimRight(f, ",.;)")
					if !strings.HasPrefix(f, "--") {
						continue
					}
					name, _, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
					if !strings.Contains(src[cmd], `"`+name+`"`) {
						t.Errorf("%s: %q names --%s, which llamactl %s does not define", id, line, name, cmd)
					}
				}
			}
		}
	}
	// on macOS llama.cpp turns Metal on by default: --backend cpu alone keeps it
	e, _ := Default().Entry("metal-unsupported-gpu")
	if !strings.Contains(strings.Join(e.Commands, "\n"), "--cmake-arg GGML_METAL=OFF") {
		t.Errorf("metal-unsupported-gpu: the build command must turn GGML_METAL off: %v", e.Commands)
	}
}
