package plan

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
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
	models := map[string]*gguf.Model{}
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
		{"tree", m1, 99, 2048, 512, 1, true, 4.01, ""},
		{"tree", g3, 99, 4096, 512, 1, false, 13.51, ""},
		{"tree", q3, 2, 3072, 256, 1, true, 3.01, ""},
	} {
		name := fmt.Sprintf("%s/%s-%d/ngl%d-c%d-ub%d-np%d-fa%v-%s", c.engine, c.cfg.Arch, c.cfg.Embd, c.ngl, c.ctx, c.ub, c.np, c.fa, c.kv)
		key := fmt.Sprintf("%+v", c.cfg)
		if models[key] == nil {
			models[key] = genModel(t, c.cfg)
		}
		m := models[key]
		if c.kv == "" {
			c.kv = "f16"
		}
		p := Params{NGL: c.ngl, Ctx: c.ctx, UBatch: c.ub, Parallel: c.np, FlashAttn: c.fa, CacheK: c.kv, CacheV: c.kv, OpOffload: true}
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
