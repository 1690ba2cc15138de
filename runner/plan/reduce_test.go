package plan

import (
	"strings"
	"testing"
)

func TestReduce(t *testing.T) {
	m := llama3_8B() // 136 MiB per layer
	base := Plan{NGL: 33, Ctx: 8192, Batch: 2048, UBatch: 512, FlashAttn: "on", CacheK: "f16", CacheV: "f16"}
	cases := []struct {
		stage string
		need  float64
		quant bool
		in    func(p *Plan)
		check func(p Plan) bool
		say   string
	}{
		{"compute", 51748.72, true, nil, func(p Plan) bool { return p.UBatch == 256 && p.NGL == 33 }, "-ub 512 → 256"},
		{"compute", 100, true, func(p *Plan) { p.UBatch = 64 }, func(p Plan) bool { return p.NGL == 31 }, "-ngl 33 → 31"},
		{"kv", 0, true, nil, func(p Plan) bool { return p.CacheK == "q8_0" && p.CacheV == "q8_0" && p.Ctx == 8192 }, "f16 → q8_0"},
		{"kv", 0, false, nil, func(p Plan) bool { return p.CacheK == "f16" && p.Ctx == 4096 }, "context 8192 → 4096"},
		{"weights", 1000, true, nil, func(p Plan) bool { return p.NGL == 33-9 }, "-ngl 33 → 24"}, // ceil(1000/136)+1
		{"runtime", 0, true, nil, func(p Plan) bool { return p.NGL == 32 }, "-ngl 33 → 32"},
	}
	for _, c := range cases {
		p := base
		if c.in != nil {
			c.in(&p)
		}
		got, say, ok := Reduce(p, m, c.stage, c.need, c.quant)
		if !ok || !c.check(got) || !strings.Contains(say, c.say) {
			t.Errorf("%s need %.0f: %+v %q %v", c.stage, c.need, got, say, ok)
		}
	}
	if _, _, ok := Reduce(Plan{NGL: 0, UBatch: 64, Ctx: 512}, m, "weights", 10, true); ok {
		t.Error("a CPU-only plan has nothing left to reduce")
	}
}
