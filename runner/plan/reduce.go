package plan

import (
	"math"

	"github.com/llamactl/llamactl/runner/gguf"
)

// Reduce backs a plan off after an out-of-memory failure by what the
// failure needed: compute → smaller -ub; KV → q8_0,
// then half the context; weights → as many fewer layers as the deficit
// covers. It says what changed, or false when nothing is left to give.
func Reduce(p Plan, m *gguf.Model, stage string, needMiB float64, canQuantKV bool) (Plan, string, bool) {
	switch stage {
	case "compute":
		if p.UBatch > 64 {
			old := p.UBatch
			p.UBatch /= 2
			return p, T("reduce.compute", "old", old, "new", p.UBatch), true
		}
	case "kv":
		if p.CacheK == "f16" && canQuantKV && p.FlashAttn == "on" {
			p.CacheK, p.CacheV = "q8_0", "q8_0"
			return p, T("reduce.kv-q8"), true
		}
		if p.Ctx/2 >= 512 {
			old := p.Ctx
			p.Ctx /= 2
			p.Batch = int(min(uint64(p.Batch), p.Ctx))
			p.UBatch = min(p.UBatch, p.Batch)
			return p, T("reduce.ctx", "old", old, "new", p.Ctx), true
		}
	}
	// Weights, runtime, or nothing else left: drop layers.
	if p.NGL > 0 {
		var avg float64
		for _, b := range m.Weights.Layer {
			avg += float64(b)
		}
		if len(m.Weights.Layer) > 0 {
			avg /= float64(len(m.Weights.Layer)) * mib
		}
		drop := 1
		if avg > 0 && needMiB > 0 {
			drop = int(math.Ceil(needMiB/avg)) + 1
		}
		old := p.NGL
		p.NGL = max(p.NGL-drop, 0)
		p.TensorSplit = nil // re-split by the engine's default proportions
		return p, T("reduce.layers", "stage", stage, "old", old, "new", p.NGL), true
	}
	return p, "", false
}
