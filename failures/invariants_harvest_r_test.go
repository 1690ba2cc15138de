package failures

import "testing"

// Harvest (issue #15, h-harvest-r): run-time causes in the words other tools,
// versions and languages print them, from public threads whose cause the
// thread established. Each form names the expected ID with the expected
// confidence.
func TestHarvestRSignatures(t *testing.T) {
	checkNamed(t, []invCase{
		// ggml's "CUDA error N at FILE:LINE: out of memory" where __FILE__ is a
		// Windows path, which the location stripper does not take
		// (QwenLM/qwen.cpp#55 on Linux; Windows build paths as in LostRuins/koboldcpp#612)
		{`CUDA error 2 at C:\llama.cpp\ggml-cuda.cu:6301: out of memory`, "gpu-out-of-memory", false},
		{`CUDA error 2 at d:\a\koboldcpp\koboldcpp\ggml-cuda.cu:7184: out of memory`, "gpu-out-of-memory", false},
		{"CUDA error 2 at /home/qwen.cpp/third_party/ggml/src/ggml-cuda.cu:7196: out of memory\ncurrent device: 0", "gpu-out-of-memory", false},

		// the same older ggml line for HIP's invalid device function (98),
		// after the ROCm device lines that make it AMD's
		{"ggml_init_cublas: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 6600, compute capability 10.3\nCUDA error 98 at D:\\a\\koboldcpp\\ggml-cuda.cu:7446: invalid device function", "hip-invalid-device-function", false},
		{"  Device 0: AMD Radeon RX 7900 XTX, compute capability 11.0, VMM: no\nCUDA error 98 at C:\\llama.cpp\\ggml-cuda.cu:7446: invalid device function\ncurrent device: 0", "hip-invalid-device-function", false},

		// nvcuda.dll without a driver API function the program needs: a driver
		// older than its CUDA (trexminer/T-Rex#118, NVlabs/instant-ngp#1132)
		{"The procedure entry point cuDevicePrimaryCtxReset_v2 could not be located in the dynamic link library nvcuda.dll", "cuda-driver-too-old", true},
		{`Der Prozedureinstiegspunkt "cuGetProcAddress_v2" wurde in der DLL "C:\Windows\SYSTEM32\nvcuda.dll" nicht gefunden.`, "cuda-driver-too-old", true},

		// vLLM: no GPU memory left for the KV cache (vllm-project/vllm#10439, QwenLM/Qwen3#12)
		{"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", "gpu-out-of-memory", true},
		{"vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.", "gpu-out-of-memory", true},
		// vLLM's KV cache smaller than the model's context
		// (basalam/product-catalog-generator#10, vllm-project/vllm#2418)
		{"    raise ValueError(\nValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (3664). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.", "gpu-out-of-memory", true},
		// PyTorch's caching allocator at the device's limit (Comfy-Org/ComfyUI#2021, AIFSH/ComfyUI-ChatTTS#9)
		{"torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\nCurrently allocated     : 6.89 GiB\nRequested               : 320.00 MiB\nDevice limit            : 23.69 GiB\nFree (according to CUDA): 2.94 MiB", "gpu-out-of-memory", true},
		{"OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory) Currently allocated : 12.20 GiB Requested : 1.88 GiB Device limit : 16.00 GiB Free (according to CUDA): 0 bytes", "gpu-out-of-memory", true},
		// text-generation-inference's warmup (huggingface/text-generation-inference#755, #1164, #710)
		{"Error: Warmup(Generation(\"Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`\"))", "gpu-out-of-memory", true},
		{"Not enough memory to handle 16000 total tokens with 2 prefill tokens. You need to decrease `--max-batch-total-tokens` or `--max-batch-prefill-tokens`", "gpu-out-of-memory", true},
		// SGLang's KV cache pool (sgl-project/sglang#322, #4330)
		{"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "gpu-out-of-memory", true},
		// TensorFlow's BFC allocator failing an op's tensor on the GPU (knaw-huc/loghi#55)
		{"2026-08-17 09:07:50.044545: W external/local_xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator (GPU_0_bfc) ran out of memory trying to allocate 34.10MiB (rounded to 35758080)requested by op StatefulPartitionedCall/model/batch_normalization_36_1/moments/SquaredDifference", "gpu-out-of-memory", true},

		// the Chinese shell's "Illegal instruction (core dumped)" (hiroi-sora/PaddleOCR-json#170)
		{"非法指令（核心已转储）", "cpu-instruction-unsupported", true},
		// and German's (glibc po/de.po: "Illegal instruction" is "Ungültiger Maschinenbefehl")
		{"Ungültiger Maschinenbefehl (Speicherabzug geschrieben)", "cpu-instruction-unsupported", true},
		// Spanish, French and Portuguese (glibc po/es.po, po/fr.po, po/pt_BR.po)
		{"Instrucción ilegal (`core' generado)", "cpu-instruction-unsupported", true},
		{"Instruction non permise (core dumped)", "cpu-instruction-unsupported", true},
		{"Instrução ilegal (imagem do núcleo gravada)", "cpu-instruction-unsupported", true},

		// llama.cpp's converter without the Hugging Face architecture
		// (ggml-org/llama.cpp#15284, #13805; the older script: #6718, #5142)
		{"python convert_hf_to_gguf.py  zai-org/GLM-4.5V/ --outfile GLM-4.5V-q8.gguf --outtype q8_0\nINFO:hf-to-gguf:Loading model: GLM-4.5V\nINFO:hf-to-gguf:Model architecture: Glm4vMoeForConditionalGeneration\nERROR:hf-to-gguf:Model Glm4vMoeForConditionalGeneration is not supported", "model-arch-unsupported", true},
		{"ERROR:hf-to-gguf:Model M2M100ForConditionalGeneration is not supported", "model-arch-unsupported", true},
		{"  File \"convert-hf-to-gguf.py\", line 246, in _get_model_architecture\n    raise NotImplementedError(f'Architecture \"{arch}\" not supported!')\nNotImplementedError: Architecture \"LlamaForCausalLM\" not supported!", "model-arch-unsupported", true},
		{"NotImplementedError: Architecture 'BitNetForCausalLM' not supported!", "model-arch-unsupported", true},
		{"INFO:hf-to-gguf:Loading model: MiniMind2\nERROR:hf-to-gguf:Model MiniMindLM is not supported", "model-arch-unsupported", true},

		// ollama create's own converter without the architecture
		// (ollama/ollama#10558, zai-org/GLM-4#769, intel/ipex-llm#12819)
		{"Error: unsupported architecture \"LlavaForConditionalGeneration\"", "model-arch-unsupported", true},
		{"(llm2) PS E:\\ollama\\DeepSeek-R1-Distill-Qwen-1.5B>ollama.exe create 15b\ntransferring model data 100%\nconverting model\nError: unsupported architecture", "model-arch-unsupported", true},

		// llama.cpp's reader at the end of a short model file (ggml-org/llama.cpp#1596, #1620)
		{"llama.cpp: loading model from ../models/ggml-vic13b-uncensored-q8_0.bin\nlibc++abi: terminating due to uncaught exception of type std::runtime_error: unexpectedly reached end of file\nzsh: abort      ./main --model ../models/ggml-vic13b-uncensored-q8_0.bin", "model-file-invalid", true},
		{"llama.cpp: loading model from ./models/ggml-model-q4_0.bin\nerror loading model: unexpectedly reached end of file\nllama_init_from_file: failed to load model", "model-file-invalid", true},
		// the GGML-era loader at a magic it does not read: a GGUF file on an
		// older build (SciSharp/LLamaSharp#148, abetlen/llama-cpp-python#902),
		// a Git LFS pointer (CVI-SZU/Linly#52)
		{"error loading model: unknown (magic, version) combination: 46554747, 00000002; is this really a GGML file?\nllama_init_from_file: failed to load model", "model-file-invalid", true},
		{"error loading model: unknown (magic, version) combination: 73726576, 206e6f69; is this really a GGML file?", "model-file-invalid", true},
	})
}

// Near misses of the harvested forms: the same words with another cause.
func TestHarvestRNearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// TensorFlow's BFC warning that says itself it is not a failure (tensorflow/tensorflow#43546)
		{"2020-09-24 21:35:23.363348: W tensorflow/core/common_runtime/bfc_allocator.cc:246] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.02GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.", "gpu-out-of-memory"},
		// host memory, not the GPU's
		{"RuntimeError: [enforce fail at alloc_cpu.cpp:83] data. DefaultCPUAllocator: not enough memory: you tried to allocate 1073741824 bytes.", "gpu-out-of-memory"},
		{"WARNING: failed to allocate 4096.00 MB of pinned memory: out of memory", "gpu-out-of-memory"},
		// the same line after NVIDIA's device lines is CUDA's 98 (no kernel
		// for the arch), and alone it says neither
		{"ggml_init_cublas: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce GTX 770, compute capability 3.0\nCUDA error 98 at C:\\llama.cpp\\ggml-cuda.cu:7446: invalid device function", "hip-invalid-device-function"},
		{`CUDA error 98 at C:\llama.cpp\ggml-cuda.cu:7446: invalid device function`, "hip-invalid-device-function"},
		// ZLUDA's nvcuda.dll lacking a HIP function (vosen/ZLUDA#185), or
		// cuBLAS's own DLL of another version (gpufit/Gpufit#104)
		{`The procedure entry point hipFuncGetAttribute could not be loacted in the dynamic link library C:\zluda\nvcuda.dll`, "cuda-driver-too-old"},
		{`The procedure entry point cublasLtGetStatusString could not be located in the dynamic link library ../cublas64_11.dll`, "cuda-driver-too-old"},
		// GPT4All's fallback note has several causes besides VRAM (an
		// unsupported GPU or quantization: nomic-ai/gpt4all#1141, #1543)
		{"Device: CPU GPU loading failed (out of VRAM?)", "gpu-out-of-memory"},
		// one Metal buffer above the device's maximum buffer length, with
		// memory free (ggml-org/llama.cpp#1815); ggml's allocator running out
		// of its own buffer (#5096); a CPU build's buffer (ggml-org/whisper.cpp#1915)
		{"ggml_metal_add_buffer: buffer 'data' size 18300780544 is larger than buffer maximum of 17179869184", "gpu-out-of-memory"},
		{"ggml_tallocr_alloc: not enough space in the buffer (needed 205520896, largest block available 201326624)\nGGML_ASSERT: ggml-alloc.c:114: !\"not enough space in the buffer\"", "gpu-out-of-memory"},
		{`GGML_ASSERT: D:\a\whisper.cpp\whisper.cpp\ggml-backend.c:460: data != NULL && "failed to allocate buffer"`, "gpu-out-of-memory"},
		// a fault, not memory exhaustion
		{"CUDA error: an illegal memory access was encountered", "gpu-out-of-memory"},
		{`CUDA error 700 at C:\llama.cpp\ggml-cuda.cu:6301: an illegal memory access was encountered`, "gpu-out-of-memory"},
		// cuDNN found, but the driver's libcuda (WSL) is what is missing
		// (OpenTalker/SadTalker#323); NVRTC missing there is a CUDA library
		// missing, named (dev facefusion-docker-8)
		{"Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing"},
		// two cuDNN copies that do not match (NVIDIA/nvidia-container-toolkit#224)
		{"Could not load library libcudnn_cnn_train.so.8. Error: /home/u/anaconda3/envs/python39/bin/../lib/libcudnn_ops_train.so.8: undefined symbol: _Z22cudnnGenericOpTensorNdILi2EE13cudnnStatus_t, version libcudnn_ops_infer.so.8", "cuda-runtime-dll-missing"},
		// a GPU shader's illegal instruction is not the CPU's (ggml-org/llama.cpp#12401)
		{":0:rocdevice.cpp            :2887: 1234 us: [pid:1 tid:0x7f] Callback: Queue 0x7f aborting with error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction. code: 0x2a", "cpu-instruction-unsupported"},
		// cuDNN 9's libraries through CTranslate2 are a separate install, not
		// the CUDA runtime (m-bain/whisperX#902; the dev corpus labels such logs
		// with no ID)
		{"Unable to load any of {libcudnn_cnn.so.9.1.0, libcudnn_cnn.so.9.1, libcudnn_cnn.so.9, libcudnn_cnn.so}\nInvalid handle. Cannot load symbol cudnnCreateConvolutionDescriptor", "cuda-runtime-dll-missing"},
		// a container's exit status 132 alone (ggml-org/llama.cpp#940, ParisNeo/lollms-webui#69
		// were SIGILL, but a program may return 132 itself): nothing is named
		{"gpt4all-ui_webui_1 exited with code 132", "cpu-instruction-unsupported"},
		{"llama.cpp: loading model from /models/ggjt-model.bin\nEXITED (132)", "cpu-instruction-unsupported"},
		// other signals in German and Chinese
		{"Speicherzugriffsfehler (Speicherabzug geschrieben)", "cpu-instruction-unsupported"},
		{"Violación de segmento (`core' generado)", "cpu-instruction-unsupported"},
		{"Erreur de segmentation (core dumped)", "cpu-instruction-unsupported"},
		{"Falha de segmentação (imagem do núcleo gravada)", "cpu-instruction-unsupported"},
		// a database's "statement not allowed" is not a signal
		{"SQL0751 Instruction non permise: COMMIT dans un trigger", "cpu-instruction-unsupported"},
		{"段错误 (核心已转储)", "cpu-instruction-unsupported"},
		{"已放弃 (核心已转储)", "cpu-instruction-unsupported"},
		// another program's model registry, or transformers' GGUF reader
		// (huggingface/transformers#32577), is not llama.cpp's converter
		{"Model gpt-4o is not supported", "model-arch-unsupported"},
		{"ValueError: Architecture gemma2 not supported", "model-arch-unsupported"},
		{"INFO:hf-to-gguf:Model architecture: Gemma4ForCausalLM", "model-arch-unsupported"},
		// the model file was read: what it lacks is its tokenizer's merges (a
		// conversion with transformers 4.45's merges format, ggml-org/llama.cpp#9692,
		// ollama/ollama#7038), not the file
		{"llama_model_load: error loading model: error loading model vocabulary: cannot find tokenizer merges in model file", "model-file-not-found"},
		{"Error: llama runner process has terminated: error loading model: error loading model vocabulary: cannot find tokenizer merges in model file\nllama_load_model_from_file: failed to load model", "model-file-not-found"},
		// the toolkit in csv or CDI mode (Jetson) refuses --gpus: the runtime
		// is there, the fix is --runtime=nvidia, not installing it
		// (NVIDIA/TensorRT-LLM#1004, NVIDIA/nvidia-container-toolkit#51)
		{"docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'csv'\ninvoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported. Please use the NVIDIA Container Runtime (e.g. specify the --runtime=nvidia flag) instead.: unknown.", "docker-gpu-runtime-missing"},
		// a CPU architecture, or the bare words without ollama's converter
		{"Error: unsupported architecture \"arm64\"", "model-arch-unsupported"},
		{"Error: unsupported architecture", "model-arch-unsupported"},
		// a download cut short is not the loader reading the file
		{"Error: max retries exceeded: unexpected EOF", "model-file-invalid"},
	})
}
