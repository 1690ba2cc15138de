package plan

import (
	"fmt"
	"math"

	"github.com/llamactl/llamactl/runner/gguf"
)

// Reduce backs a plan off after an out-of-memory failure by what the
// failure needed (autotune.md §9.6): compute → smaller -ub; KV → q8_0,
// then half the context; weights → as many fewer layers as the deficit
// covers. It says what changed, or false when nothing is left to give.
func Reduce(p Plan, m *gguf.Model, stage string, needMiB float64, canQuantKV bool) (Plan, string, bool) {
	switch stage {
	case "compute":
		if p.UBatch > 64 {
			old := p.UBatch
			p.UBatch /= 2
			return p, fmt.Sprintf("the compute buffer did not fit: -ub %d → %d", old, p.UBatch), true
		}
	case "kv":
		if p.CacheK == "f16" && canQuantKV && p.FlashAttn == "on" {
			p.CacheK, p.CacheV = "q8_0", "q8_0"
			return p, "the KV cache did not fit: KV cache f16 → q8_0", true
		}
		if p.Ctx/2 >= 512 {
			old := p.Ctx
			p.Ctx /= 2
			p.Batch = int(min(uint64(p.Batch), p.Ctx))
			p.UBatch = min(p.UBatch, p.Batch)
			return p, fmt.Sprintf("the KV cache did not fit: context %d → %d", old, p.Ctx), true
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
		return p, fmt.Sprintf("out of memory (%s): -ngl %d → %d", stage, old, p.NGL), true
	}
	return p, "", false
}
