// Package plan sizes a model to a machine: it predicts llama.cpp's memory
// per device and host for a set of parameters (memory.go) and searches for
// the fastest parameters that fit (plan.go). It is pure: the model facts,
// devices and engine capabilities come in as values.
package plan

import (
	_ "embed"
	"encoding/json"
	"math"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/runner/gguf"
)

//go:embed data/coefficients.json
var coefJSON []byte

// Coefficients are the memory model's constants (coefficients.json).
type Coefficients struct {
	Source  string `json:"source"`
	Compute struct {
		FFNBytesPerFF         float64 `json:"ffn_bytes_per_ff"`
		LogitsBytesPerVocab   float64 `json:"logits_bytes_per_vocab"`
		BytesPerEmbd          float64 `json:"bytes_per_embd"`
		ConstantBytes         float64 `json:"constant_bytes"`
		FAMaskBytesPerKV      float64 `json:"fa_mask_bytes_per_kv"`
		NoFABytesPerHeadKV    float64 `json:"nofa_bytes_per_head_kv"`
		NoFAMaskBytesPerKV    float64 `json:"nofa_mask_bytes_per_kv"`
		HostStagingBytesPerEm float64 `json:"host_staging_bytes_per_embd"`
	} `json:"compute"`
	KVBytesPerElement    map[string]float64 `json:"kv_bytes_per_element"`
	DeviceOverheadMiB    float64            `json:"device_overhead_mib"`
	DeviceMarginMiB      float64            `json:"device_margin_mib"`
	DeviceMarginFraction float64            `json:"device_margin_fraction"`
	// Backends override overhead and margin per ggml backend (the device
	// ID without its index: "Vulkan", "CUDA", "RPC"), measured where a
	// device of that backend could run here.
	Backends           map[string]BackendCoef `json:"backends"`
	HostMarginMiB      float64                `json:"host_margin_mib"`
	HostMarginFraction float64                `json:"host_margin_fraction"`
	CtxFloor           uint64                 `json:"ctx_floor"`
	Batch              int                    `json:"batch"`
	UBatch             int                    `json:"ubatch"`
}

// BackendCoef is one backend's device overhead and margin, with how they
// were measured.
type BackendCoef struct {
	OverheadMiB    float64 `json:"overhead_mib"`
	MarginMiB      float64 `json:"margin_mib"`
	MarginFraction float64 `json:"margin_fraction"`
	OpOffload      bool    `json:"op_offload"`
	Measured       string  `json:"measured"`
}

// BackendOf is the ggml backend of a device ID: "Vulkan0" -> "Vulkan".
func BackendOf(id string) string { return strings.TrimRight(id, "0123456789") }

// Backend returns the coefficients of the backend of device id: the
// backend's own entry, else the defaults (CUDA's modelled values).
func (c Coefficients) Backend(id string) BackendCoef {
	if b, ok := c.Backends[BackendOf(id)]; ok {
		return b
	}
	return BackendCoef{OverheadMiB: c.DeviceOverheadMiB, MarginMiB: c.DeviceMarginMiB, MarginFraction: c.DeviceMarginFraction, OpOffload: true}
}

// Coef returns the embedded coefficients.
var Coef = sync.OnceValue(func() Coefficients {
	var c Coefficients
	if err := json.Unmarshal(coefJSON, &c); err != nil {
		panic("plan: embedded coefficients.json: " + err.Error()) // build-time data; tested
	}
	return c
})

const mib = 1 << 20

// Params are the launch parameters the memory model depends on.
type Params struct {
	NGL       int    // layers offloaded, counting the output layer (L+1 = all)
	Ctx       uint64 // total context (all slots)
	UBatch    int
	Parallel  int  // slots (sequences)
	FlashAttn bool // flash attention on
	CacheK    string
	CacheV    string
	NCPUMoE   int // the first N layers keep their experts on the host
	// Only, when > 0, puts everything on device Only-1 (a single GPU:
	// no inter-device copies); 0 splits across all devices.
	Only int
	// OpOffload: the devices' backend runs big batches itself (op offload,
	// llama.cpp's --op-offload, ggml_backend_offload_op), so at -ngl 0 the graph's compute buffer is still allocated on
	// the main device. True for GPU backends (CUDA, Vulkan, ROCm...), false
	// for RPC workers and without devices.
	OpOffload bool
}

// Mem is memory in MiB by llama.cpp's classes.
type Mem struct {
	ModelMiB   float64 `json:"model_mib"`
	ContextMiB float64 `json:"context_mib"`
	ComputeMiB float64 `json:"compute_mib"`
}

// Total is model + context + compute.
func (m Mem) Total() float64 { return m.ModelMiB + m.ContextMiB + m.ComputeMiB }

// Calibration scales predicted classes by what the engine reported before
// (actual/predicted), learned per model and engine build.
type Calibration struct {
	Compute float64 `json:"compute,omitempty"`
	Context float64 `json:"context,omitempty"`
}

// KnownCacheType says whether a KV cache type can be sized.
func KnownCacheType(t string) bool { _, ok := Coef().KVBytesPerElement[t]; return ok }

// pad256 rounds n up to a multiple of 256, saturating instead of wrapping
// to 0 near the top of uint64.
func pad256(n uint64) uint64 {
	if n > math.MaxUint64-255 {
		return math.MaxUint64 / 256 * 256
	}
	return (n + 255) / 256 * 256
}

// MaxCtx is the largest context llama.cpp accepts: -c is read as a 32-bit
// int (common/arg.cpp) and n_ctx is a uint32_t (include/llama.h).
const MaxCtx = math.MaxInt32

// layerCells is the number of KV cells layer l holds (llama.cpp's
// src/llama-kv-cache-iswa.cpp: SWA layers
// keep min(n_ctx_seq, pad256(n_swa·n_seq + n_ubatch)) per stream).
func layerCells(m *gguf.Model, l int, p Params) uint64 {
	par := uint64(max(p.Parallel, 1))
	seq := pad256(p.Ctx / par)
	if m.SlidingWindow > 0 && l < len(m.SWALayers) && m.SWALayers[l] {
		swa := pad256(m.SlidingWindow + uint64(p.UBatch))
		return min(seq, swa) * par
	}
	return seq * par
}

// kvLayerBytes is the KV cache of one layer.
func kvLayerBytes(m *gguf.Model, l int, p Params) float64 {
	if l >= len(m.HeadCountKV) || m.HeadCountKV[l] == 0 {
		return 0
	}
	sk, sv := Coef().KVBytesPerElement[p.CacheK], Coef().KVBytesPerElement[p.CacheV]
	if sk == 0 {
		sk = 2
	}
	if sv == 0 {
		sv = 2
	}
	dk, dv := float64(m.KeyLength), float64(m.ValueLength)
	hkv := float64(m.HeadCountKV[l])
	if m.KVLoraRank > 0 {
		// MLA since llama.cpp#19067: K only (kv_lora_rank + rope dims), 1 head.
		dv = 0
	}
	return float64(layerCells(m, l, p)) * hkv * (dk*sk + dv*sv)
}

// computeBytes models the worst-case graph reserve for the device
// that runs the whole graph.
func computeBytes(m *gguf.Model, p Params) float64 {
	c := Coef().Compute
	ff := float64(m.FeedForward)
	if m.ExpertUsed > 0 && m.ExpertFF > 0 {
		ff = math.Max(ff, float64(m.ExpertUsed*m.ExpertFF))
	}
	// One KQ mask per kind of KV cache the model has (global, SWA).
	kinds := map[uint64]bool{}
	for l := 0; l < m.Layers; l++ {
		kinds[layerCells(m, l, p)] = true
	}
	nkv := 0.0
	for c := range kinds {
		nkv += float64(c)
	}
	// Peak of the graph: the attention+FFN phase or the logits phase,
	// whichever is larger (the allocator reuses memory between them).
	attn := c.FAMaskBytesPerKV * nkv
	if !p.FlashAttn {
		// Without FA the KQ matrix: this term over-estimates build 11669
		// by 15-45 % (docs/run.md); FA is what the planner chooses.
		attn = (c.NoFABytesPerHeadKV*float64(m.HeadCount) + c.NoFAMaskBytesPerKV) * nkv
	}
	per := math.Max(c.FFNBytesPerFF*ff+attn, c.LogitsBytesPerVocab*float64(m.Tokenizer.VocabSize)) +
		c.BytesPerEmbd*float64(m.EmbeddingLength) + c.ConstantBytes
	ub := float64(min(uint64(p.UBatch), p.Ctx))
	return ub * per
}

// Placement is where each layer lives: -1 host, else a device index.
type Placement struct {
	Layer  []int
	Output int
}

// Place assigns layers to devices the way llama.cpp does for -ngl (2026
// semantics: the output layer first, then blocks from the end),
// splitting GPU layers across devices by the given proportions.
func Place(m *gguf.Model, ngl int, weights []float64) Placement {
	pl := Placement{Layer: make([]int, m.Layers), Output: -1}
	for i := range pl.Layer {
		pl.Layer[i] = -1
	}
	if ngl <= 0 || len(weights) == 0 {
		return pl
	}
	n := min(ngl, m.Layers+1)
	start := m.Layers + 1 - n // first offloaded index; index Layers = output
	var sum float64
	for _, w := range weights {
		sum += w
	}
	dev := func(i int) int { // cumulative split
		if sum <= 0 {
			return 0
		}
		frac := float64(i-start) / float64(n)
		acc := 0.0
		for d, w := range weights {
			acc += w / sum
			if frac < acc {
				return d
			}
		}
		return len(weights) - 1
	}
	for i := start; i < m.Layers; i++ {
		pl.Layer[i] = dev(i)
	}
	pl.Output = dev(m.Layers)
	return pl
}

// Predict returns the memory llama.cpp will report per device and host.
// splitWeights are the per-device proportions (free memory by default).
func Predict(m *gguf.Model, p Params, nDev int, splitWeights []float64, cal Calibration) (host Mem, devs []Mem) {
	devs = make([]Mem, nDev)
	if nDev == 0 {
		p.NGL = 0
	}
	pl := Place(m, p.NGL, splitWeights)
	at := func(d int) *Mem {
		if d < 0 {
			return &host
		}
		return &devs[d]
	}
	w := m.Weights
	host.ModelMiB += float64(w.TokenEmbd+w.Other) / mib // input layer stays on the CPU
	outBytes := w.Output
	if w.TiedOutput && pl.Output < 0 {
		outBytes -= w.TokenEmbd // on the CPU the tied output shares token_embd
	}
	at(pl.Output).ModelMiB += float64(outBytes) / mib
	for l := 0; l < m.Layers; l++ {
		b := float64(w.Layer[l])
		if pl.Layer[l] >= 0 && l < p.NCPUMoE && l < len(w.LayerExperts) {
			host.ModelMiB += float64(w.LayerExperts[l]) / mib
			b -= float64(w.LayerExperts[l])
		}
		at(pl.Layer[l]).ModelMiB += b / mib
		at(pl.Layer[l]).ContextMiB += kvLayerBytes(m, l, p) / mib
	}
	comp := computeBytes(m, p) / mib
	if cal.Compute > 0 {
		comp *= cal.Compute
	}
	computeDev := pl.Output
	if computeDev < 0 && p.OpOffload && nDev > 0 {
		// -ngl 0 on a GPU backend: the graph still runs big batches on the
		// main device, which holds the compute buffer (measured on the
		// Vulkan engine: docs/run.md).
		computeDev = max(p.Only-1, 0)
	}
	if computeDev >= 0 {
		devs[computeDev].ComputeMiB += comp
		if p.NGL < m.Layers+1 || p.NCPUMoE > 0 {
			// Partial offload: big batches run on the GPU with CPU-resident
			// weights copied in, one tensor at a time (op-offload).
			devs[computeDev].ComputeMiB += float64(w.LargestLayerTensor) / mib
		}
		// Every other device that holds layers runs its part of the graph
		// at the same ubatch: its own compute buffer of the same size
		// (measured with two RPC workers: 17.01 and 16.01 MiB for 16.02
		// predicted, TestRealRPCSplitOverWorkers).
		holds := make([]bool, nDev)
		for _, d := range pl.Layer {
			if d >= 0 {
				holds[d] = true
			}
		}
		for d := range devs {
			if holds[d] && d != computeDev {
				devs[d].ComputeMiB += comp
			}
		}
		// Host staging for CPU ops and copies (CUDA_Host compute buffer).
		host.ComputeMiB += float64(min(uint64(p.UBatch), p.Ctx)) * Coef().Compute.HostStagingBytesPerEm * float64(m.EmbeddingLength) / mib
	} else {
		host.ComputeMiB += comp
	}
	// Output (logits) buffer: one row per sequence at reserve.
	host.ComputeMiB += float64(max(p.Parallel, 1)) * float64(m.Tokenizer.VocabSize) * 4 / mib
	if cal.Context > 0 {
		host.ContextMiB *= cal.Context
		for i := range devs {
			devs[i].ContextMiB *= cal.Context
		}
	}
	return host, devs
}
