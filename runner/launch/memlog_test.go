package launch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

func TestParseLogCPU(t *testing.T) {
	r := ParseLog(strings.NewReader(testutil.Fixture(t, "runner", "llama-server-b11669-llama-f16-cpu.log")))
	if r.Host.ModelMiB != 5.51 || r.Host.ContextMiB != 8 || r.Host.ComputeMiB != 9.52 {
		t.Errorf("host = %+v", r.Host)
	}
	if r.Devices != nil {
		t.Errorf("CPU run has devices %v", r.Devices)
	}
	if r.CtxSize != 4096 || r.ListenURL != "http://127.0.0.1:18124" || r.OOM != nil {
		t.Errorf("report = %+v", r)
	}
}

// Line shapes of a CUDA run: devices and host split.
func TestParseLogCUDAShapes(t *testing.T) {
	log := `load_tensors: offloaded 37/37 layers to GPU
load_tensors:   CPU_Mapped model buffer size =   308.23 MiB
load_tensors:        CUDA0 model buffer size =  4403.49 MiB
llama_context:  CUDA_Host  output buffer size =     1.97 MiB
llama_kv_cache:      CUDA0 KV buffer size =  4096.00 MiB
llama_context:      CUDA0 compute buffer size =   258.50 MiB
llama_context:  CUDA_Host compute buffer size =    72.01 MiB
llama_context: Flash Attention was auto, set to enabled`
	r := ParseLog(strings.NewReader(log))
	if r.OffloadedLayers != 37 || r.TotalLayers != 37 || r.FlashAttn != "enabled" {
		t.Errorf("report = %+v", r)
	}
	d := r.Devices["CUDA0"]
	if d.ModelMiB != 4403.49 || d.ContextMiB != 4096 || d.ComputeMiB != 258.5 {
		t.Errorf("CUDA0 = %+v", d)
	}
	if r.Host.ModelMiB != 308.23 || r.Host.ComputeMiB != 72.01+1.97 {
		t.Errorf("host = %+v", r.Host)
	}
}

func TestParseOOMRecorded(t *testing.T) {
	log := testutil.Fixture(t, "runner", "gpu-out-of-memory-compute-buffer-multi-gpu-llamacpp-pr26297-win.log")
	o := ParseOOM(log)
	if o == nil || o.Stage != "compute" || o.Device != "CUDA1" || o.NeedMiB != 51748.72 {
		t.Fatalf("oom = %+v", o)
	}
	r := ParseLog(strings.NewReader(log))
	if r.OOM == nil || r.OOM.Stage != "compute" {
		t.Errorf("streamed oom = %+v", r.OOM)
	}
	if ParseOOM(testutil.Fixture(t, "runner", "llama-server-b11669-llama-f16-cpu.log")) != nil {
		t.Error("a clean log has no OOM")
	}
	w := ParseOOM("llama_model_load: error loading model: unable to allocate CUDA0 buffer\n")
	if w == nil || w.Stage != "weights" || w.Device != "CUDA0" {
		t.Errorf("weights oom = %+v", w)
	}
	kv := ParseOOM("llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache\n")
	if kv == nil || kv.Stage != "kv" {
		t.Errorf("kv oom = %+v", kv)
	}
}

func FuzzParseLog(f *testing.F) {
	f.Add("load_tensors:        CUDA0 model buffer size =  4403.49 MiB")
	f.Add("allocating 51748.72 MiB on device 1: cudaMalloc failed: out of memory")
	f.Add("sched_reserve: reserve took 3.11 ms, sched copies = 4\nsched_reserve: compute buffer allocation failed, retrying without pipeline parallelism")
	f.Fuzz(func(t *testing.T, s string) {
		r := ParseLog(strings.NewReader(s))
		if r.Host.Total() < 0 {
			t.Fatal("negative")
		}
	})
}

// Build 11669 splits mapped weights around repacked Q4_K tensors into
// several CPU_Mapped buffers plus CPU_REPACK: all of them count.
func TestParseLogRepackedQ4K(t *testing.T) {
	r := ParseLog(strings.NewReader(testutil.Fixture(t, "runner", "llama-completion-b11669-llama-q4k-repack.log")))
	if got := r.Host.ModelMiB; got < 1.549 || got > 1.551 {
		t.Errorf("model = %.3f MiB, want 0.14 + 1.41", got)
	}
	if r.Buffers["model/CPU_REPACK/model"] != 1.41 {
		t.Errorf("buffers = %v", r.Buffers)
	}
}

// gemma2 (interleaved SWA) has two KV caches on the same buffer type.
func TestParseLogTwoKVCaches(t *testing.T) {
	log := `llama_kv_cache_iswa: creating non-SWA KV cache, size = 4096 cells
llama_kv_cache:        CPU KV buffer size =     4.00 MiB
llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells
llama_kv_cache:        CPU KV buffer size =     0.75 MiB`
	if r := ParseLog(strings.NewReader(log)); r.Host.ContextMiB != 4.75 {
		t.Errorf("context = %v", r.Host.ContextMiB)
	}
}

func TestParseBreakdown(t *testing.T) {
	r := ParseLog(strings.NewReader(testutil.Fixture(t, "runner", "llama-completion-b11669-llama-q4k-repack.log")))
	h, ok := r.Breakdown["Host"]
	if !ok || h.SelfMiB != 17 || h.ModelMiB != 0 || h.ContextMiB != 8 || h.ComputeMiB != 9 {
		t.Errorf("host row = %+v (%v)", h, r.Breakdown)
	}
	if rp := r.Breakdown["CPU_REPACK"]; rp.ModelMiB != 1 {
		t.Errorf("repack row = %+v", rp)
	}
	// The device row shape.
	r = ParseLog(strings.NewReader("llama_memory_breakdown_print: |   - CUDA0 (RTX 4090)   | 24077 = 945 + (19187 = 17904 +  384 +  898) +  3945 |\n"))
	d := r.Breakdown["CUDA0"]
	if d.Name != "RTX 4090" || d.TotalMiB != 24077 || d.FreeMiB != 945 || d.SelfMiB != 19187 || d.ModelMiB != 17904 || d.Unaccounted != 3945 {
		t.Errorf("device row = %+v", d)
	}
}

// RPC workers' buffers are named "RPC0[host:port]" whatever the worker:
// each is kept apart by its endpoint.
func TestParseLogRPCWorkers(t *testing.T) {
	log := `load_tensors: RPC0[127.0.0.1:50152] model buffer size =    15.96 MiB
load_tensors: RPC0[127.0.0.1:50153] model buffer size =    11.70 MiB
llama_kv_cache: RPC0[127.0.0.1:50152] KV buffer size =    20.00 MiB
sched_reserve: RPC0[127.0.0.1:50153] compute buffer size =    32.04 MiB
`
	r := ParseLog(strings.NewReader(log))
	a, b := r.Devices[RPCDeviceKey("127.0.0.1:50152")], r.Devices[RPCDeviceKey("127.0.0.1:50153")]
	if a.ModelMiB != 15.96 || a.ContextMiB != 20 || b.ModelMiB != 11.70 || b.ComputeMiB != 32.04 || len(r.Devices) != 2 {
		t.Errorf("devices %+v", r.Devices)
	}
}

// Pipeline parallelism as sid's engine logs it (recorded with two RPC
// workers: runner/plan/testdata/pipeline): the scheduler's copies, and a
// pipeline-parallel reserve that did not fit and was retried without.
func TestParseLogPipelineParallel(t *testing.T) {
	read := func(name string) Report {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "plan", "testdata", "pipeline", name))
		if err != nil {
			t.Fatal(err)
		}
		return ParseLog(strings.NewReader(string(b)))
	}
	pp := read("m1-c2048-ub512-np1.log")
	if pp.SchedCopies != 4 || pp.PipelineRetried || pp.OOM != nil || pp.Buffers["compute/CPU/compute"] != 18.07 || len(pp.Devices) != 2 {
		t.Errorf("pipeline parallel: copies %d, retried %v, oom %+v, buffers %v", pp.SchedCopies, pp.PipelineRetried, pp.OOM, pp.Buffers)
	}
	re := read("retry-m1-c2048-ub512-np1.log")
	if re.SchedCopies != 1 || !re.PipelineRetried || re.Buffers["compute/CPU/compute"] != 6.02 {
		t.Errorf("retried: copies %d, retried %v, oom %+v, buffers %v", re.SchedCopies, re.PipelineRetried, re.OOM, re.Buffers)
	}
	one := read("single-m1-c2048-ub512-np1.log")
	if one.SchedCopies != 1 || one.PipelineRetried {
		t.Errorf("one device: copies %d, retried %v", one.SchedCopies, one.PipelineRetried)
	}
}
