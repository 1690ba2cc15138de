package plan

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/runner/engine"
	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/launch"
)

func genModel(t *testing.T, cfg ggufwrite.Config) *gguf.Model {
	t.Helper()
	f, err := ggufwrite.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	gf, err := gguf.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), gguf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := gf.Model()
	if err != nil {
		t.Fatal(err)
	}
	return &m
}

// modelCache generates each distinct model of a table once.
type modelCache map[string]*gguf.Model

func (mc modelCache) get(t *testing.T, cfg ggufwrite.Config) *gguf.Model {
	t.Helper()
	key := fmt.Sprintf("%+v", cfg)
	if mc[key] == nil {
		mc[key] = genModel(t, cfg)
	}
	return mc[key]
}

// kvOr16 is a case's KV cache type, f16 when the case leaves it empty.
func kvOr16(kv string) string {
	if kv == "" {
		return "f16"
	}
	return kv
}

// The host staging buffer ("Vulkan_Host compute buffer size") as the real
// engines printed it for llamactl's generated models (llama-server -lv 4,
// Mesa lavapipe, scripts/vk-run). sid: Debian sid's ggml-vulkan 0.27, the
// engine the coefficients are fitted on; tree: the llama.cpp v0.5.0 tree
// built with --backend vulkan by scripts/stages/60-vulkan.sh, whose
// scheduler keeps 8 bytes per n_embd and token less on the host (the model
// keeps sid's larger figure: never under).
func TestHostStagingMeasured(t *testing.T) {
	m1 := ggufwrite.Config{Arch: "llama", Layers: 8, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"}
	m2 := ggufwrite.Config{Arch: "llama", Layers: 6, Embd: 256, FF: 768, Vocab: 8192, Type: "F16"}
	m3 := ggufwrite.Config{Arch: "llama", Layers: 4, Embd: 1024, Heads: 8, HeadsKV: 4, FF: 2048, Vocab: 2048, Type: "Q8_0"}
	q3 := ggufwrite.Config{Arch: "qwen3", Layers: 4, Embd: 768, Heads: 8, HeadsKV: 2, FF: 1536, Vocab: 4096, Type: "Q4_K"}
	g3 := ggufwrite.Config{Arch: "gemma3", Layers: 6, Embd: 512, FF: 1024, Vocab: 4096, Type: "Q8_0"} // SWA 256: two KV caches
	models := modelCache{}
	for _, c := range []struct {
		engine string
		cfg    ggufwrite.Config
		ngl    int
		ctx    uint64
		ub, np int
		fa     bool
		mib    float64 // the engine's figure
		kv     string  // the KV cache type (f16 when empty)
	}{
		{"sid", m1, 99, 1024, 512, 4, true, 5.02, ""},
		{"sid", m1, 99, 2048, 512, 4, true, 6.02, ""},
		{"sid", m1, 99, 4096, 512, 4, true, 8.02, ""},
		{"sid", m1, 99, 2048, 512, 4, false, 9.01, ""},
		{"sid", m1, 99, 2048, 256, 4, true, 3.01, ""},
		{"sid", m1, 0, 2048, 512, 4, true, 6.02, ""},
		{"sid", m1, 4, 2048, 512, 4, true, 6.02, ""},
		{"sid", m1, 3, 1024, 512, 4, false, 7.01, ""},
		{"sid", m2, 99, 2048, 512, 4, true, 4.02, ""},
		{"sid", m2, 99, 2048, 512, 4, false, 6.51, ""},
		{"sid", m2, 0, 2048, 512, 4, true, 4.02, ""},
		{"sid", m2, 99, 1536, 128, 1, false, 1.38, ""},
		{"sid", m3, 99, 2048, 512, 4, true, 10.02, ""},
		{"sid", m3, 99, 2048, 512, 4, false, 14.01, ""},
		{"sid", m3, 99, 1024, 128, 4, true, 2.25, ""},
		{"sid", m3, 2, 2048, 512, 4, true, 10.02, ""},
		{"sid", m3, 0, 4096, 512, 4, true, 12.02, ""},
		{"sid", q3, 99, 2048, 512, 4, true, 8.02, ""},
		{"sid", q3, 3, 1024, 512, 4, false, 8.76, ""},
		{"sid", q3, 99, 2048, 512, 4, false, 10.76, ""},
		{"sid", q3, 2, 3072, 256, 1, true, 4.51, ""},
		{"sid", g3, 99, 2048, 512, 1, true, 6.78, ""},
		{"sid", g3, 99, 4096, 512, 1, false, 15.52, ""},
		{"sid", g3, 0, 1024, 256, 1, true, 2.76, ""},
		{"sid", m1, 99, 4096, 512, 1, true, 8.10, "q8_0"},
		{"sid", m1, 99, 2048, 256, 1, true, 3.09, "q8_0"},
		{"sid", m3, 99, 2048, 512, 1, true, 10.10, "q8_0"},
		{"sid", m1, 99, 2048, 512, 1, true, 6.08, "q8_0/f16"}, // K rotation only (128x128): testdata/pipeline/vk-m1-*-q8k.log
		{"sid", q3, 99, 2048, 512, 1, true, 8.02, "q8_0"},     // head size 96, no rotation: testdata/pipeline/vk-q3-*-q8.log
		{"tree", m1, 99, 2048, 512, 1, true, 4.01, ""},
		{"tree", g3, 99, 4096, 512, 1, false, 13.51, ""},
		{"tree", q3, 2, 3072, 256, 1, true, 3.01, ""},
	} {
		name := fmt.Sprintf("%s/%s-%d/ngl%d-c%d-ub%d-np%d-fa%v-%s", c.engine, c.cfg.Arch, c.cfg.Embd, c.ngl, c.ctx, c.ub, c.np, c.fa, c.kv)
		m := models.get(t, c.cfg)
		c.kv = kvOr16(c.kv)
		ck, cv, ok := strings.Cut(c.kv, "/")
		if !ok {
			cv = ck
		}
		p := Params{NGL: c.ngl, Ctx: c.ctx, UBatch: c.ub, Parallel: c.np, FlashAttn: c.fa, CacheK: ck, CacheV: cv, OpOffload: true}
		got := HostStagingMiB(m, p)
		want := c.mib
		if c.engine == "tree" {
			want += float64(c.ub) * 8 * float64(c.cfg.Embd) / mib
		}
		// the engine prints two decimals
		if math.Abs(got-want) > 0.015 {
			t.Errorf("%s: predicted %.3f MiB, engine %.2f MiB", name, got, c.mib)
		}
		// Predict puts it, and one output row per sequence, on the host
		host, devs := Predict(m, p, 1, []float64{1}, Calibration{})
		rows := float64(c.np) * float64(m.Tokenizer.VocabSize) * 4 / mib
		if len(devs) != 1 || math.Abs(host.ComputeMiB-got-rows) > 1e-9 {
			t.Errorf("%s: host compute %.3f MiB, staging %.3f + output %.3f", name, host.ComputeMiB, got, rows)
		}
	}
}

// The host compute buffer when several devices hold layers, as sid's
// engine printed it (runner/plan/testdata/pipeline, recorded by its
// record.sh with 1-3 RPC workers and the local Vulkan device): with
// pipeline parallelism ("sched copies = 4") the scheduler's input copies
// (pipelineStagingBytes), without it the single-copy figure. Each case
// within 0.015 MiB (the engine prints two decimals); Predict decides
// pipeline parallelism as the engine did.
func TestHostStagingPipeline(t *testing.T) {
	m1 := ggufwrite.Config{Arch: "llama", Layers: 8, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"}
	m3 := ggufwrite.Config{Arch: "llama", Layers: 4, Embd: 1024, Heads: 8, HeadsKV: 4, FF: 2048, Vocab: 2048, Type: "Q8_0"}
	q3 := ggufwrite.Config{Arch: "qwen3", Layers: 4, Embd: 768, Heads: 8, HeadsKV: 2, FF: 1536, Vocab: 4096, Type: "Q4_K"}
	g3 := ggufwrite.Config{Arch: "gemma3", Layers: 6, Embd: 512, FF: 1024, Vocab: 4096, Type: "Q8_0"}
	models := modelCache{}
	for _, c := range []struct {
		file     string
		cfg      ggufwrite.Config
		nDev     int // devices holding layers
		ngl      int
		ctx      uint64
		ub, np   int
		fa       bool
		kv       string
		only     int  // -sm none -mg only-1
		pipeline bool // the engine ran with sched copies = 4
	}{
		{"m1-c2048-ub512-np1", m1, 2, 99, 2048, 512, 1, true, "", 0, true},
		{"m1-c2048-ub512-np4", m1, 2, 99, 2048, 512, 4, true, "", 0, true},
		{"m1-c2048-ub512-np2", m1, 2, 99, 2048, 512, 2, true, "", 0, true},
		{"m1-c4096-ub512-np1", m1, 2, 99, 4096, 512, 1, true, "", 0, true},
		{"m1-c1024-ub512-np1", m1, 2, 99, 1024, 512, 1, true, "", 0, true},
		{"m1-c2048-ub256-np1", m1, 2, 99, 2048, 256, 1, true, "", 0, true},
		{"m1-c2048-ub128-b256-np1", m1, 2, 99, 2048, 128, 1, true, "", 0, true},
		{"m1-c2048-ub512-np1-nofa", m1, 2, 99, 2048, 512, 1, false, "", 0, true},
		{"m1-c2048-ub512-np4-nofa", m1, 2, 99, 2048, 512, 4, false, "", 0, true},
		{"m1-c2048-ub512-np1-q8", m1, 2, 99, 2048, 512, 1, true, "q8_0", 0, true},
		{"m1-c2048-ub512-np1-3w", m1, 3, 99, 2048, 512, 1, true, "", 0, true},
		{"m1-c2048-ub512-np1-vk", m1, 2, 99, 2048, 512, 1, true, "", 0, true}, // a worker and the local Vulkan device
		{"m3-c2048-ub512-np1", m3, 2, 99, 2048, 512, 1, true, "", 0, true},
		{"m3-c2048-ub256-np4", m3, 2, 99, 2048, 256, 4, true, "", 0, true},
		{"m3-c2048-ub512-np1-q8", m3, 2, 99, 2048, 512, 1, true, "q8_0", 0, true},
		{"q3-c2048-ub512-np1", q3, 2, 99, 2048, 512, 1, true, "", 0, true},
		{"q3-c3072-ub256-np1-nofa", q3, 2, 99, 3072, 256, 1, false, "", 0, true},
		{"q3-c2048-ub512-np1-q8", q3, 2, 99, 2048, 512, 1, true, "q8_0", 0, true}, // head size 96: no rotation
		{"g3-c2048-ub512-np1", g3, 2, 99, 2048, 512, 1, true, "", 0, true},
		{"g3-c4096-ub512-np1-nofa", g3, 2, 99, 4096, 512, 1, false, "", 0, true},
		{"g3-c1024-ub256-np1", g3, 2, 99, 1024, 256, 1, true, "", 0, true},
		{"single-m1-c2048-ub512-np1", m1, 1, 99, 2048, 512, 1, true, "", 0, false},
		{"smnone-m1-c2048-ub512-np1", m1, 2, 99, 2048, 512, 1, true, "", 2, false},
		// workers of 48 MiB: the pipeline-parallel reserve failed, the
		// engine retried with one copy (Predict keeps the larger figure)
		{"retry-m1-c2048-ub512-np1", m1, 2, 99, 2048, 512, 1, true, "", 0, false},
		// The real llama.cpp v0.5.0 tree, built for the CPU with RPC (stage
		// 40's build), with its own workers: its graph has no inp_mixed_*
		// inputs, so each copy holds 8 bytes per n_embd and 12 per token
		// fewer (the model keeps sid's larger figure: never under).
		{"tree-m1-c2048-ub512-np1", m1, 2, 99, 2048, 512, 1, true, "", 0, true},
		{"tree-m1-c4096-ub512-np4", m1, 2, 99, 4096, 512, 4, true, "", 0, true},
		{"tree-m1-c2048-ub256-np1-nofa", m1, 2, 99, 2048, 256, 1, false, "", 0, true},
		{"tree-m3-c2048-ub512-np1-q8", m3, 2, 99, 2048, 512, 1, true, "q8_0", 0, true},
		{"tree-g3-c2048-ub512-np1", g3, 2, 99, 2048, 512, 1, true, "", 0, true},
		{"tree-single-m1-c2048-ub512-np1", m1, 1, 99, 2048, 512, 1, true, "", 0, false},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "pipeline", c.file+".log"))
		if err != nil {
			t.Fatal(err)
		}
		rep := launch.ParseLog(bytes.NewReader(b))
		engine, ok := rep.Buffers["compute/CPU/compute"]
		if !ok || rep.SchedCopies == 0 || (rep.SchedCopies == SchedMaxCopies) != c.pipeline {
			t.Fatalf("%s: host compute %v, sched copies %d", c.file, rep.Buffers, rep.SchedCopies)
		}
		m := models.get(t, c.cfg)
		kv := kvOr16(c.kv)
		p := Params{NGL: c.ngl, Ctx: c.ctx, UBatch: c.ub, Parallel: c.np, FlashAttn: c.fa, CacheK: kv, CacheV: kv, Only: c.only}
		if got := PipelineCopies(m, p, c.nDev); got != rep.SchedCopies && !(rep.PipelineRetried && got == SchedMaxCopies) {
			t.Errorf("%s: PipelineCopies %d, the engine's sched copies %d", c.file, got, rep.SchedCopies)
		}
		p.Copies = rep.SchedCopies
		got := HostStagingMiB(m, p)
		want := engine
		if strings.HasPrefix(c.file, "tree-") {
			per := 8 * float64(c.cfg.Embd)
			if c.pipeline {
				per += 12
			}
			want += float64(p.Copies) * float64(c.ub) * per / mib
		}
		if math.Abs(got-want) > 0.015 {
			t.Errorf("%s: predicted %.3f MiB, engine %.2f MiB", c.file, got, engine)
		}
		t.Logf("%s: predicted %.4f MiB, engine %.2f MiB (copies %d)", c.file, got, engine, p.Copies)
		if rep.PipelineRetried {
			continue
		}
		// Predict puts it, and one output row per slot, on the host.
		w := make([]float64, c.nDev)
		for i := range w {
			w[i] = 1
		}
		host, _ := Predict(m, p, c.nDev, w, Calibration{})
		rows := float64(c.np) * float64(m.Tokenizer.VocabSize) * 4 / mib
		if math.Abs(host.ComputeMiB-got-rows) > 1e-9 {
			t.Errorf("%s: Predict's host compute %.3f MiB, staging %.3f + output %.3f", c.file, host.ComputeMiB, got, rows)
		}
	}
}

// The conditions of src/llama-context.cpp under which the engine runs
// the devices as a pipeline.
func TestPipelineCopies(t *testing.T) {
	m := genModel(t, ggufwrite.Config{Arch: "llama", Layers: 8, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"})
	all := Params{NGL: 9, Ctx: 2048, UBatch: 512, Parallel: 1, FlashAttn: true, CacheK: "f16", CacheV: "f16"}
	for _, c := range []struct {
		name string
		p    func(Params) Params
		nDev int
		want int
	}{
		{"two devices, every layer and the output", func(p Params) Params { return p }, 2, 4},
		{"three devices", func(p Params) Params { return p }, 3, 4},
		{"one device", func(p Params) Params { return p }, 1, 1},
		{"no device", func(p Params) Params { return p }, 0, 1},
		{"the output layer on the CPU (-ngl 8)", func(p Params) Params { p.NGL = 8; return p }, 2, 1},
		{"one device chosen (-sm none)", func(p Params) Params { p.Only = 1; return p }, 2, 1},
		{"experts on the CPU (--n-cpu-moe: tensor overrides)", func(p Params) Params { p.NCPUMoE = 2; return p }, 2, 1},
	} {
		if got := PipelineCopies(m, c.p(all), c.nDev); got != c.want {
			t.Errorf("%s: %d copies, want %d", c.name, got, c.want)
		}
	}
}

// Each device's own compute buffer when the devices run as a pipeline
// (pipelineDeviceBytes), against every pipeline-parallel recording of
// runner/plan/testdata/pipeline: the RPC workers (and the local Vulkan
// device) as the engine printed them, device i being the i-th of --rpc
// (then Vulkan0), which Place gives the same layers as the engine did
// (checked through the model and KV buffers). Never under; over by at
// most maxOver MiB, the single-copy compute model's own excess on these
// small models plus the first device's rows that the v0.5.0 tree does
// not send (two n_embd rows per token and copy) and, without flash
// attention, computeBytes' KQ term (docs/run.md).
func TestPipelineDeviceCompute(t *testing.T) {
	m1 := ggufwrite.Config{Arch: "llama", Layers: 8, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"}
	m3 := ggufwrite.Config{Arch: "llama", Layers: 4, Embd: 1024, Heads: 8, HeadsKV: 4, FF: 2048, Vocab: 2048, Type: "Q8_0"}
	q3 := ggufwrite.Config{Arch: "qwen3", Layers: 4, Embd: 768, Heads: 8, HeadsKV: 2, FF: 1536, Vocab: 4096, Type: "Q4_K"}
	g3 := ggufwrite.Config{Arch: "gemma3", Layers: 6, Embd: 512, FF: 1024, Vocab: 4096, Type: "Q8_0"}
	models := modelCache{}
	worst, worstFA, worstTree := 0.0, 0.0, 0.0
	for _, c := range []struct {
		file   string
		cfg    ggufwrite.Config
		ctx    uint64
		ub, np int
		fa     bool
		kv     string
		devs   []string // the engine's devices, in order
	}{
		{"m1-c2048-ub512-np1", m1, 2048, 512, 1, true, "", nil},
		{"m1-c2048-ub512-np4", m1, 2048, 512, 4, true, "", nil},
		{"m1-c2048-ub512-np2", m1, 2048, 512, 2, true, "", nil},
		{"m1-c4096-ub512-np1", m1, 4096, 512, 1, true, "", nil},
		{"m1-c1024-ub512-np1", m1, 1024, 512, 1, true, "", nil},
		{"m1-c2048-ub256-np1", m1, 2048, 256, 1, true, "", nil},
		{"m1-c2048-ub128-b256-np1", m1, 2048, 128, 1, true, "", nil},
		{"m1-c2048-ub512-np1-nofa", m1, 2048, 512, 1, false, "", nil},
		{"m1-c2048-ub512-np4-nofa", m1, 2048, 512, 4, false, "", nil},
		{"m1-c2048-ub512-np1-q8", m1, 2048, 512, 1, true, "q8_0", nil},
		{"m1-c2048-ub512-np1-3w", m1, 2048, 512, 1, true, "", []string{"RPC[127.0.0.1:50052]", "RPC[127.0.0.1:50053]", "RPC[127.0.0.1:50054]"}},
		{"m1-c2048-ub512-np1-vk", m1, 2048, 512, 1, true, "", []string{"RPC[127.0.0.1:50052]", "Vulkan0"}},
		{"m3-c2048-ub512-np1", m3, 2048, 512, 1, true, "", nil},
		{"m3-c2048-ub256-np4", m3, 2048, 256, 4, true, "", nil},
		{"m3-c2048-ub512-np1-q8", m3, 2048, 512, 1, true, "q8_0", nil},
		{"q3-c2048-ub512-np1", q3, 2048, 512, 1, true, "", nil},
		{"q3-c3072-ub256-np1-nofa", q3, 3072, 256, 1, false, "", nil},
		{"q3-c2048-ub512-np1-q8", q3, 2048, 512, 1, true, "q8_0", nil},
		{"g3-c2048-ub512-np1", g3, 2048, 512, 1, true, "", nil},
		{"g3-c4096-ub512-np1-nofa", g3, 4096, 512, 1, false, "", nil},
		{"g3-c1024-ub256-np1", g3, 1024, 256, 1, true, "", nil},
		{"tree-m1-c2048-ub512-np1", m1, 2048, 512, 1, true, "", nil},
		{"tree-m1-c4096-ub512-np4", m1, 4096, 512, 4, true, "", nil},
		{"tree-m1-c2048-ub256-np1-nofa", m1, 2048, 256, 1, false, "", nil},
		{"tree-m3-c2048-ub512-np1-q8", m3, 2048, 512, 1, true, "q8_0", nil},
		{"tree-g3-c2048-ub512-np1", g3, 2048, 512, 1, true, "", nil},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "pipeline", c.file+".log"))
		if err != nil {
			t.Fatal(err)
		}
		rep := launch.ParseLog(bytes.NewReader(b))
		if rep.SchedCopies != SchedMaxCopies {
			t.Fatalf("%s: sched copies %d", c.file, rep.SchedCopies)
		}
		if c.devs == nil {
			c.devs = []string{"RPC[127.0.0.1:50052]", "RPC[127.0.0.1:50053]"}
		}
		m := models.get(t, c.cfg)
		kv := kvOr16(c.kv)
		p := Params{NGL: 99, Ctx: c.ctx, UBatch: c.ub, Parallel: c.np, FlashAttn: c.fa, CacheK: kv, CacheV: kv}
		w := make([]float64, len(c.devs))
		for i := range w {
			w[i] = 1
		}
		_, devs := Predict(m, p, len(c.devs), w, Calibration{})
		for i, id := range c.devs {
			act, ok := rep.Devices[id]
			if !ok {
				t.Fatalf("%s: no %s in %v", c.file, id, rep.Devices)
			}
			if math.Abs(devs[i].ContextMiB-act.ContextMiB) > 0.01 {
				t.Fatalf("%s %s: KV %.2f MiB predicted, %.2f: not the engine's layers", c.file, id, devs[i].ContextMiB, act.ContextMiB)
			}
			over := devs[i].ComputeMiB - act.ComputeMiB
			t.Logf("%s %s: compute predicted %.2f MiB, engine %.2f MiB (%+.2f)", c.file, id, devs[i].ComputeMiB, act.ComputeMiB, over)
			if over < -0.005 {
				t.Errorf("%s %s: compute predicted %.2f MiB, under the engine's %.2f MiB", c.file, id, devs[i].ComputeMiB, act.ComputeMiB)
			}
			switch {
			case strings.HasPrefix(c.file, "tree-"):
				worstTree = math.Max(worstTree, over)
			case c.fa:
				worstFA = math.Max(worstFA, over)
			default:
				worst = math.Max(worst, over)
			}
		}
	}
	t.Logf("largest excess: sid %.2f MiB with flash attention, %.2f MiB without; v0.5.0 tree %.2f MiB", worstFA, worst, worstTree)
	// the bounds docs/distributed.md and coefficients.json state
	if worstFA > 14.05 || worst > 45.55 || worstTree > 20.05 {
		t.Errorf("excess %.2f MiB with flash attention, %.2f without, %.2f on the tree: over the stated bounds (14, 46, 20 MiB)", worstFA, worst, worstTree)
	}
	if !strings.Contains(Coef().Compute.PipelineDeviceSource, "ggml-backend.cpp") {
		t.Errorf("coefficients.json pipeline_device_source does not cite the scheduler")
	}
}

// The planner predicts what the engine will allocate with pipeline
// parallelism. llama 32x512 (the n_embd, context and ubatch of
// testdata/pipeline m1-c2048-ub512-np1, whose host buffer does not depend
// on the layer count) over two workers that cannot hold it alone: at 160
// MiB each they hold the pipeline-parallel buffers, so the host keeps four
// copies (18.07 MiB, as recorded) and each worker its pipeline buffer; at
// 115 MiB the engine may or may not fit them (between PipelineFloorMiB and
// the prediction): the plan still offloads everything (the engine falls
// back to one copy) and predicts the larger figures. llama 8x512 over
// workers of 48 and 64 MiB (TestRealRPCSplitOverWorkers): below the first
// worker's floor the engine surely retries with one copy (recorded:
// retry-m1-c2048-ub512-np1), and so does the prediction (host 8.10 MiB at
// -c 4096 with q8_0, TestHostStagingMeasured).
func TestPipelineFallback(t *testing.T) {
	m32 := genModel(t, ggufwrite.Config{Arch: "llama", Layers: 32, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"})
	m8 := genModel(t, ggufwrite.Config{Arch: "llama", Layers: 8, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"})
	rows := 4096 * 4.0 / mib // one output row
	for _, c := range []struct {
		m        *gguf.Model
		free     [2]uint64
		req      Request
		host     float64 // the engine's host compute buffer
		pipeline bool
	}{
		{m32, [2]uint64{160, 160}, Request{NGL: -1, Ctx: 2048, UBatch: 512, Parallel: 1, FlashAttn: "on", CacheType: "f16"}, 18.07, true},
		{m32, [2]uint64{115, 115}, Request{NGL: -1, Ctx: 2048, UBatch: 512, Parallel: 1, FlashAttn: "on", CacheType: "f16"}, 18.07, true},
		{m8, [2]uint64{48, 64}, Request{NGL: -1, Ctx: 4096, UBatch: 512, Parallel: 1, FlashAttn: "on", CacheType: "q8_0"}, 8.10, false},
	} {
		devs := []engine.Device{{ID: "RPC0", TotalMiB: c.free[0], FreeMiB: c.free[0]}, {ID: "RPC1", TotalMiB: c.free[1], FreeMiB: c.free[1]}}
		r, err := Make(c.m, devs, bigHost, c.req, gpuCaps)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Fits || r.Plan.NGL != c.m.Layers+1 || len(r.Plan.TensorSplit) != 2 {
			t.Fatalf("%v MiB workers: plan %+v, fits %v", c.free, r.Plan, r.Fits)
		}
		comp := computeBytes(c.m, Params{Ctx: r.Plan.Ctx, UBatch: r.Plan.UBatch, Parallel: 1, FlashAttn: true}) / mib
		host := r.Predicted.Host.ComputeMiB - rows
		t.Logf("%v MiB workers: host compute %.2f MiB (engine %.2f), workers %.2f and %.2f MiB (single copy %.2f)", c.free, host, c.host,
			r.Predicted.Devices[0].ComputeMiB, r.Predicted.Devices[1].ComputeMiB, comp)
		if math.Abs(host-c.host) > 0.015 {
			t.Errorf("%v MiB workers: host compute %.2f MiB, engine %.2f", c.free, host, c.host)
		}
		for _, d := range r.Predicted.Devices {
			if (d.ComputeMiB > comp+1e-9) != c.pipeline {
				t.Errorf("%v MiB workers: %s compute %.2f MiB, single copy %.2f", c.free, d.ID, d.ComputeMiB, comp)
			}
		}
	}
}
