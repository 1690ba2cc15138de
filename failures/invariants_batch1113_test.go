package failures

import "testing"

// The invariants added for batches 11 and 13's dev logs (issue #15,
// h-tune1113): each log names the expected ID with the expected confidence;
// the probable ones carry their evidence lines.
func TestBatch1113Signatures(t *testing.T) {
	checkNamed(t, []invCase{
		// a CUDA library asked for by its unversioned Linux name (facefusion/facefusion-docker#8)
		{"Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing", false},
		{"OSError: libcudart.so: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing", false},
		{"ImportError: libcublas.so: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing", false},
		// TensorFlow's loader warning, printed on machines without a GPU too, stays probable
		{"2021-01-01 12:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudart.so'; dlerror: libcudart.so: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing", true},
		// NVRTC's builtins library (cupy/cupy#4396, NVIDIA/numba-cuda#196, WisconsinAIVision/yolact_edge#186)
		{"RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.1.\n  Make sure that libnvrtc-builtins.so.11.1 is installed correctly.", "cuda-runtime-dll-missing", false},
		{"nvrtc: error: failed to open nvrtc-builtins64_111.dll.\n  Make sure that nvrtc-builtins64_111.dll is installed correctly.", "cuda-runtime-dll-missing", false},
		{"  what():  nvrtc: error: failed to open libnvrtc-builtins.so.12.8.", "cuda-runtime-dll-missing", false},
		// ... and its status code alone (NVIDIA/cutile-python#57, kunzmi/managedCuda#121, openmm/openmm#1485)
		{"cupy_backends.cuda.libs.nvrtc.NVRTCError: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE (7)", "cuda-runtime-dll-missing", true},
		{"numba.cuda.cudadrv.error.NvrtcError: Failed to call nvrtcCompileProgram: NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", "cuda-runtime-dll-missing", true},
		{"ManagedCuda.NVRTC.NVRTCException: ErrorBuiltinOperationFailure: Builtin operation failure.", "cuda-runtime-dll-missing", true},
		{"Exception: Error compiling program: nvrtc: error: failed to load builtins", "cuda-runtime-dll-missing", true},

		// cuBLAS cannot create its handle on a full device (ggml-org/llama.cpp#10080, tensorflow/tensorflow#9489, QwenLM/Qwen#120)
		{"/src/llama.cpp/ggml/src/ggml-cuda.cu:70: CUDA error\nCUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n  current device: 0, in function cublas_handle at /src/llama.cpp/ggml/src/ggml-cuda/common.cuh:663\n  cublasCreate_v2(&cublas_handles[device])", "gpu-out-of-memory", true},
		{"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`", "gpu-out-of-memory", true},
		{"2017-09-23 14:37:55.418: E tensorflow/stream_executor/cuda/cuda_blas.cc:366] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED", "gpu-out-of-memory", true},
		{"CUBLAS failure 1: CUBLAS_STATUS_NOT_INITIALIZED ; GPU=1 ; hostname=host ; expr=cublasCreate(&cuHandle)", "gpu-out-of-memory", true},

		// an nvcc older than 11.3 on ggml-cuda's constexpr __device__ variables (ggml-org/llama.cpp#10652, NVIDIA/libcudacxx#409)
		{"/home/u/llama.cpp/ggml/src/ggml-cuda/common.cuh(337): error: A __device__ variable cannot be marked constexpr\n\n1 error detected in the compilation of \"/tmp/tmpxft_000a50bd_00000000-9_acc.compute_75.cpp1.ii\".", "cuda-toolkit-too-old", true},
		{"include/neural-graphics-primitives/random_val.cuh(31): error: A __device__ variable cannot be marked constexpr", "cuda-toolkit-too-old", true},

		// the shell's SIGILL report in other languages (ggml-org/whisper.cpp#610: Spanish)
		{"whisper_model_load: mem required  =  215.00 MB (+    6.00 MB per decoder)\nInstrucción ilegal (`core' generado)", "cpu-instruction-unsupported", true},
		{"./main: Instruction illégale (core dumped)", "cpu-instruction-unsupported", true},
		{"Ungültiger Maschinenbefehl (Speicherabzug geschrieben)", "cpu-instruction-unsupported", true},
		{"Instrução ilegal (imagem do núcleo gravada)", "cpu-instruction-unsupported", true},
		{"Istruzione non consentita (core dump creato)", "cpu-instruction-unsupported", true},
		{"Недопустимая инструкция (стек памяти сброшен на диск)", "cpu-instruction-unsupported", true},
		{"非法指令 (核心已转储)", "cpu-instruction-unsupported", true},
		{"不正な命令です (コアダンプ)", "cpu-instruction-unsupported", true},

		// a crash in an MSVCP140.dll older than 14.40: WER's Report.wer in any
		// language (gpustack/gpustack#861) and the Event Viewer in Chinese and Japanese
		{"EventType=APPCRASH\nSig[0].Name=应用程序名\nSig[0].Value=llama-box.exe\nSig[3].Name=故障模块名称\nSig[3].Value=MSVCP140.dll\nSig[4].Name=故障模块版本\nSig[4].Value=14.34.31931.0\nSig[6].Name=异常代码\nSig[6].Value=c0000005", "vc-runtime-dll-missing", true},
		{"EventType=APPCRASH\nSig[3].Name=Fault Module Name\nSig[3].Value=msvcp140.dll\nSig[4].Name=Fault Module Version\nSig[4].Value=14.29.30139.0", "vc-runtime-dll-missing", true},
		{"错误应用程序名称: llama-server.exe，版本: 0.0.0.0\n错误模块名称: MSVCP140.dll，版本: 14.32.31332.0，时间戳: 0x62a1c1f4\n异常代码: 0xc0000005", "vc-runtime-dll-missing", true},
		{"障害が発生しているモジュールの名前: MSVCP140.dll、バージョン: 14.36.32532.0、タイム スタンプ: 0x04a30cf0", "vc-runtime-dll-missing", true},
		{"问题签名:\n故障模块名称:\tMSVCP140.dll\n故障模块版本:\t14.34.31931.0", "vc-runtime-dll-missing", true},
	})
}

// Near misses of batches 11 and 13's dev logs: look-alikes of the new
// signatures. The ID in each case must not be named.
func TestBatch1113NearMisses(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		// the linker, not the loader; cuDNN's own library; a library that loaded
		{"/usr/bin/ld: cannot find -lcudart: No such file or directory", "cuda-runtime-dll-missing"},
		{"Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory", "cuda-runtime-dll-missing"},
		{"Found libnvrtc.so at /usr/local/cuda/lib64/libnvrtc.so", "cuda-runtime-dll-missing"},
		// NVRTC's other errors are the program's source, not a missing library
		{"NVRTCError: NVRTC_ERROR_COMPILATION (6)\nkernel.cu(3): error: identifier \"foo\" is undefined", "cuda-runtime-dll-missing"},
		{"nvrtc: error: invalid value for --gpu-architecture (-arch)", "cuda-runtime-dll-missing"},
		// cuBLAS's status from another call than the handle's creation, or another status
		{"CUBLASError: the library was not initialized (code 1, CUBLAS_STATUS_NOT_INITIALIZED)", "gpu-out-of-memory"},
		{"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`", "gpu-out-of-memory"},
		{"CUDA error: CUBLAS_STATUS_NOT_INITIALIZED\n  current device: 0, in function ggml_cuda_mul_mat at ggml-cuda.cu:1200\n  cublasSgemm_v2(handle, ...)", "gpu-out-of-memory"},
		// other constexpr complaints of nvcc
		{"kernel.cu(12): error: calling a constexpr __host__ function(\"max\") from a __device__ function(\"k\") is not allowed. The experimental flag '--expt-relaxed-constexpr' can be used to allow this.", "cuda-toolkit-too-old"},
		// a compiler or assembler saying "illegal instruction" in another language
		{"gcc: interner Compilerfehler: Ungültiger Maschinenbefehl signal terminated program cc1plus", "cpu-instruction-unsupported"},
		{"cc1plus: 内部编译器错误：非法指令", "cpu-instruction-unsupported"},
		// a crash in MSVCP140.dll 14.40 or later, in another module, or an app version in Sig[1]
		{"Sig[3].Name=故障模块名称\nSig[3].Value=MSVCP140.dll\nSig[4].Name=故障模块版本\nSig[4].Value=14.42.34433.0", "vc-runtime-dll-missing"},
		{"Sig[3].Name=故障模块名称\nSig[3].Value=ggml-cuda.dll\nSig[4].Name=故障模块版本\nSig[4].Value=14.34.0.0", "vc-runtime-dll-missing"},
		{"Sig[0].Value=MSVCP140.dll\nSig[1].Value=14.34.31931.0", "vc-runtime-dll-missing"},
		{"错误模块名称: ucrtbase.dll，版本: 10.0.19041.789", "vc-runtime-dll-missing"},
	})
}

// The shells' report in other languages is the whole line (with the core
// dump note at most): the words inside a sentence are not it.
func TestIllegalInstructionShellShapeOnly(t *testing.T) {
	checkNotNamed(t, []nearMiss{
		{"error: instrucción ilegal en la línea 3 del script", "cpu-instruction-unsupported"},
		{"a instrução ilegal foi removida do script", "cpu-instruction-unsupported"},
		{"Fehler: ungültiger Maschinenbefehl im Skript entfernt", "cpu-instruction-unsupported"},
	})
}
