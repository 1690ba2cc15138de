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
		FFNBytesPerFF       float64 `json:"ffn_bytes_per_ff"`
		LogitsBytesPerVocab float64 `json:"logits_bytes_per_vocab"`
		BytesPerEmbd        float64 `json:"bytes_per_embd"`
		ConstantBytes       float64 `json:"constant_bytes"`
		FAMaskBytesPerKV    float64 `json:"fa_mask_bytes_per_kv"`
		NoFABytesPerHeadKV  float64 `json:"nofa_bytes_per_head_kv"`
		NoFAMaskBytesPerKV  float64 `json:"nofa_mask_bytes_per_kv"`
		// The host staging buffer (hostStagingBytes): per n_embd, per
		// token, per token and KV cache; V row indices without FA.
		HostStagingBytesPerEm       float64 `json:"host_staging_bytes_per_embd"`
		HostStagingBytesPerToken    float64 `json:"host_staging_bytes_per_token"`
		HostStagingBytesPerTokCache float64 `json:"host_staging_bytes_per_token_per_cache"`
		NoFAVIndexBytesPerEmbdV     float64 `json:"nofa_v_index_bytes_per_embd_v"`
		HostStagingSource           string  `json:"host_staging_source"`
		// With pipeline parallelism (pipelineStagingBytes): each copy of
		// the inputs per n_embd and per token, the CPU nodes per n_embd.
		PipelineInputBytesPerEmbd  float64 `json:"pipeline_input_bytes_per_embd"`
		PipelineInputBytesPerToken float64 `json:"pipeline_input_bytes_per_token"`
		PipelineNodeBytesPerEmbd   float64 `json:"pipeline_node_bytes_per_embd"`
		PipelineSource             string  `json:"host_staging_pipeline_source"`
		// Each device's compute buffer with pipeline parallelism
		// (pipelineDeviceBytes): where its rule comes from.
		PipelineDeviceSource string `json:"pipeline_device_source"`
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
	// Copies is how many copies of the graph inputs ggml's scheduler keeps
	// in host memory: 4 with pipeline parallelism, else 1 (0 reads as 1).
	// Predict sets it (PipelineCopies); HostStagingMiB reads it.
	Copies int
	// SingleCopy: the devices cannot hold the pipeline-parallel compute
	// buffers, so the engine retries without pipeline parallelism
	// (src/llama-context.cpp: "retrying without pipeline parallelism");
	// predict one copy. The planner sets it (planner.evaluate).
	SingleCopy bool
}

// SchedMaxCopies is GGML_SCHED_MAX_COPIES, the copies of the graph inputs
// ggml's scheduler keeps with pipeline parallelism (ggml/CMakeLists.txt's
// default, ggml/src/ggml-backend.cpp ggml_backend_sched_new: n_copies =
// parallel ? GGML_SCHED_MAX_COPIES : 1; the engine logs it as "sched
// copies = 4").
const SchedMaxCopies = 4

// PipelineCopies is the scheduler's n_copies for p on nDev devices: the
// conditions under which src/llama-context.cpp enables pipeline
// parallelism. More than one device, every layer and the output offloaded
// (n_gpu_layers > n_layer), split by layer (not -sm none: p.Only), the KV
// cache on the devices (llamactl never passes -nkvo) and no tensor
// overrides (--n-cpu-moe is one). The devices must support async compute
// and events: CUDA, Vulkan, Metal, SYCL and RPC do (their
// ggml_backend_dev_get_props), except a CUDA build with
// GGML_CUDA_NO_PEER_COPY, which is not modelled. When the larger compute
// buffers do not fit a device the engine retries without ("compute buffer
// allocation failed, retrying without pipeline parallelism"); the plan
// keeps the pipeline-parallel host figure then, which is never under.
func PipelineCopies(m *gguf.Model, p Params, nDev int) int {
	if nDev > 1 && p.NGL > m.Layers && p.Only <= 0 && p.NCPUMoE == 0 && !p.SingleCopy {
		return SchedMaxCopies
	}
	return 1
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

// kvKinds are the KV caches of the model at p: the cells of each (one
// cache, or a global and a sliding-window one), largest first.
func kvKinds(m *gguf.Model, p Params) (cells []uint64, embdV []float64) {
	idx := map[uint64]int{}
	for l := 0; l < m.Layers; l++ {
		c := layerCells(m, l, p)
		i, ok := idx[c]
		if !ok {
			i = len(cells)
			idx[c] = i
			cells, embdV = append(cells, c), append(embdV, 0)
		}
		if l < len(m.HeadCountKV) {
			embdV[i] = math.Max(embdV[i], float64(m.HeadCountKV[l])*float64(m.ValueLength))
		}
	}
	return cells, embdV
}

// HostStagingMiB is the compute buffer llama.cpp allocates in host memory
// for the CPU backend's part of the graph when a device runs the rest:
// with a GPU it is the device's pinned host buffer type, printed as
// "CUDA_Host compute buffer" or "Vulkan_Host compute buffer"
// (src/llama-context.cpp puts it there "for faster transfer of the
// intermediate state"), else "CPU compute buffer". It holds the graph's
// inputs, which the scheduler keeps on the CPU (ggml/src/ggml-backend.cpp):
// per token of the ubatch, each KV cache's mask row (F16 with flash
// attention, F32 without), the input embedding twice (inp_embd and the
// token-embedding rows, src/llama-graph.cpp), the ids and each cache's K/V
// row indices, and without flash attention one 8-byte index per V element
// (V is stored transposed: src/llama-kv-cache.cpp). It does not depend on
// -ngl or on the vocabulary. A quantized KV cache adds its Hadamard
// rotation matrices (kvRotBytes). The constants are fitted on the Vulkan
// engine (coefficients.json host_staging_source).
//
// With pipeline parallelism (p.Copies > 1) the scheduler keeps p.Copies
// copies of every graph input and never lets the allocator reuse them
// (pipelineStagingBytes).
func HostStagingMiB(m *gguf.Model, p Params) float64 {
	if p.Copies > 1 {
		return pipelineStagingBytes(m, p) / mib
	}
	c := Coef().Compute
	ub := float64(min(uint64(p.UBatch), p.Ctx))
	cells, embdV := kvKinds(m, p)
	mask := c.FAMaskBytesPerKV
	if !p.FlashAttn {
		mask = c.NoFAMaskBytesPerKV
	}
	per := c.HostStagingBytesPerEm*float64(m.EmbeddingLength) + c.HostStagingBytesPerToken
	for i, n := range cells {
		per += mask*float64(n) + c.HostStagingBytesPerTokCache
		if !p.FlashAttn {
			per += c.NoFAVIndexBytesPerEmbdV * embdV[i]
		}
	}
	return (ub*per + kvRotBytes(m, p)) / mib
}

// pipelineStagingBytes is the host compute buffer with pipeline
// parallelism: ggml_backend_sched_split_graph (ggml/src/ggml-backend.cpp)
// makes n_copies copies of each graph input (a tensor flagged
// GGML_TENSOR_FLAG_INPUT, which the scheduler assigns to the CPU backend)
// and marks them as outputs so that ggml-alloc never reuses their memory.
// The inputs, per token of the ubatch (src/llama-graph.cpp,
// src/llama-kv-cache.cpp, and sid's inp_mixed_* inputs): the embeddings
// input (F32, n_embd); the token ids twice (I32), the positions (I32) and
// the embedding slots (I64): 20 bytes; per KV
// cache the K and V row indices (I64 each; without flash attention V's
// are per element, n_embd_v_gqa of them) and the KQ mask row: F16 with
// flash attention, F32 without, of the cache's cells per stream (each
// slot has its own stream unless the KV cache is unified, which llamactl
// does not ask for); the output ids (I32, one per slot at reserve); the
// rotation matrices of a quantized KV cache. Each copy also holds 4 more
// bytes per n_embd and token (measured, like the single-copy buffer's),
// and the CPU's own nodes, the two token-embedding lookups, 8 bytes per
// n_embd and token once (coefficients.json
// host_staging_pipeline_source). Fits all 21 recorded cases within
// 0.01 MiB (runner/plan/testdata/pipeline, TestHostStagingPipeline).
func pipelineStagingBytes(m *gguf.Model, p Params) float64 {
	c := Coef().Compute
	ub := float64(min(uint64(p.UBatch), p.Ctx))
	embd := float64(m.EmbeddingLength)
	streams := float64(max(p.Parallel, 1))
	cells, embdV := kvKinds(m, p)
	mask, vIdx := 2.0, 8.0 // F16 mask row, one V index per token
	per := c.PipelineInputBytesPerEmbd*embd + c.PipelineInputBytesPerToken
	for i, n := range cells {
		if !p.FlashAttn {
			mask, vIdx = 4, 8*embdV[i]
		}
		per += 8 + vIdx + mask*float64(n)/streams
	}
	inputs := ub*per + 4*streams + kvRotBytes(m, p)
	return float64(p.Copies)*inputs + c.PipelineNodeBytesPerEmbd*embd*ub
}

// pipelineDeviceBytes is the compute buffer of one device (a GPU or an RPC
// worker) that holds the layers on[l] of the graph when the devices run as
// a pipeline (p.Copies > 1); first: it holds layer 0, last: the output
// layer. comp is the single-copy compute buffer (computeBytes).
//
// ggml_backend_sched_split_graph (ggml/src/ggml-backend.cpp) cuts the
// graph into one split per run of nodes on a backend; every tensor a
// split reads from another backend (a split input) gets n_copies copies in
// the split's backend, each flagged input and output
// (https://github.com/ggml-org/llama.cpp/blob/v0.5.0/ggml/src/ggml-backend.cpp#L1398-L1419),
// and the copies are put first among the graph's leafs (#L1547-L1575):
// ggml-alloc allocates leafs before any node
// (https://github.com/ggml-org/llama.cpp/blob/v0.5.0/ggml/src/ggml-alloc.c#L723-L728)
// and never frees an output (#L691-L696). The graph is not allocated once per
// copy: the rest of the split is allocated as with one copy, but can no
// longer reuse the inputs' memory. With layer split each device runs one
// split; its inputs, per token of the ubatch (sid's engine, GGML_SCHED_DEBUG
// prints them): the hidden state from the previous device (F32, n_embd; on
// the first device sid's engine sends three such rows, inp_mixed_embd,
// the token rows and embd, and the I64 inp_mixed_slots), the positions
// (I32), and per KV cache kind among its layers the K and V row indices
// and the KQ mask row (as in pipelineStagingBytes); once, the rotation
// matrices of a quantized cache and on the last device the output ids.
// The rest is bounded by the single-copy buffer, or by a layer's feed-
// forward peak (its input, normed input and residual, n_embd each, and
// the gate, up and product, n_ff each, F32, plus one n_embd row the
// allocator leaves unused: measured), whichever is larger. Recorded on
// sid's engine and the v0.5.0 tree with 2-3 workers: never under, over by
// at most the single-copy model's own excess (TestPipelineDeviceCompute).
func pipelineDeviceBytes(m *gguf.Model, p Params, on []bool, first, last bool, comp float64) float64 {
	ub := float64(min(uint64(p.UBatch), p.Ctx))
	embd := float64(m.EmbeddingLength)
	ff := float64(m.FeedForward)
	if m.ExpertUsed > 0 && m.ExpertFF > 0 {
		ff = math.Max(ff, float64(m.ExpertUsed*m.ExpertFF))
	}
	rest := math.Max(comp, ub*4*(3*ff+4*embd))
	return pipelineInputBytes(m, p, on, first, last) + rest
}

// pipelineInputBytes are the p.Copies copies of a pipeline device's split
// inputs (pipelineDeviceBytes), which the allocator never reuses: a floor
// of its compute buffer.
func pipelineInputBytes(m *gguf.Model, p Params, on []bool, first, last bool) float64 {
	ub := float64(min(uint64(p.UBatch), p.Ctx))
	embd := float64(m.EmbeddingLength)
	streams := float64(max(p.Parallel, 1))
	per := 4*embd + 4 // the hidden state, the positions
	if first {
		per = 12*embd + 8 + 4
	}
	kinds := map[uint64]bool{}
	for l, ok := range on {
		if !ok || kinds[layerCells(m, l, p)] || l >= len(m.HeadCountKV) || m.HeadCountKV[l] == 0 {
			continue
		}
		n := layerCells(m, l, p)
		kinds[n] = true
		mask, vIdx := 2.0, 8.0
		if !p.FlashAttn {
			mask, vIdx = 4, 8*float64(m.HeadCountKV[l])*float64(m.ValueLength)
		}
		per += 8 + vIdx + mask*float64(n)/streams
	}
	once := 0.0
	if len(kinds) > 0 {
		once += kvRotBytes(m, p)
	}
	if last {
		once += 4 * streams
	}
	return float64(max(p.Copies, 1)) * (ub*per + once)
}

// PipelineFloorMiB is, per device, the least the engine's pipeline-parallel
// reserve allocates on it: its model and KV buffers and the copies of its
// split's inputs (pipelineInputBytes); nil without pipeline parallelism.
// When a device's free memory is below it the engine surely retries
// without pipeline parallelism.
func PipelineFloorMiB(m *gguf.Model, p Params, nDev int, splitWeights []float64) []float64 {
	p.Copies = PipelineCopies(m, p, nDev)
	if p.Copies <= 1 {
		return nil
	}
	_, devs := Predict(m, p, nDev, splitWeights, Calibration{})
	pl := Place(m, p.NGL, splitWeights)
	out := make([]float64, nDev)
	for d := range out {
		on := make([]bool, m.Layers)
		any := false
		for l, ld := range pl.Layer {
			on[l] = ld == d
			any = any || on[l]
		}
		if any {
			out[d] = devs[d].ModelMiB + devs[d].ContextMiB + pipelineInputBytes(m, p, on, len(pl.Layer) > 0 && pl.Layer[0] == d, pl.Output == d)/mib
		}
	}
	return out
}

// kvRotBytes are the Hadamard rotation matrices a quantized KV cache adds
// to the graph's inputs (src/llama-kv-cache.cpp build_input_k_rot,
// build_input_v_rot, llama.cpp PR #21038): for a quantized K whose head
// size is a multiple of 64, an F32 square of the largest power of two
// (at least 64) dividing it; for a quantized V likewise, 64×64. What
// coefficients.json once measured as "0.08 MiB, not explained" (head size
// 128: 64 + 16 KiB).
func kvRotBytes(m *gguf.Model, p Params) float64 {
	b := 0.0
	if quantKV(p.CacheK) && m.KeyLength > 0 && m.KeyLength%64 == 0 {
		n := uint64(64)
		for m.KeyLength%(n*2) == 0 {
			n *= 2
		}
		b += float64(n*n) * 4
	}
	if quantKV(p.CacheV) && m.ValueLength > 0 && m.ValueLength%64 == 0 {
		b += 64 * 64 * 4
	}
	return b
}

// quantKV says whether a KV cache type is quantized (q8_0, q4_0...).
func quantKV(t string) bool {
	switch t {
	case "", "f16", "f32", "bf16":
		return false
	}
	return true
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
		// predicted, TestRealRPCSplitOverWorkers, where the engine retried
		// without pipeline parallelism).
		holds := make([][]bool, nDev)
		for l, d := range pl.Layer {
			if d >= 0 {
				if holds[d] == nil {
					holds[d] = make([]bool, m.Layers)
				}
				holds[d][l] = true
			}
		}
		p.Copies = PipelineCopies(m, p, nDev)
		for d := range devs {
			switch {
			case p.Copies > 1 && holds[d] != nil:
				// A pipeline: each device keeps p.Copies copies of its
				// split's inputs (pipelineDeviceBytes), the computeDev's
				// comp included.
				first := len(pl.Layer) > 0 && pl.Layer[0] == d
				dev := pipelineDeviceBytes(m, p, holds[d], first, d == pl.Output, comp*mib) / mib
				if d == computeDev {
					dev -= comp
				}
				devs[d].ComputeMiB += dev
			case holds[d] != nil && d != computeDev:
				devs[d].ComputeMiB += comp
			}
		}
		// The CPU backend's part of the graph, in the device's pinned
		// host memory (CUDA_Host, Vulkan_Host compute buffer), with the
		// scheduler's copies of the inputs when the devices run as a
		// pipeline.
		host.ComputeMiB += HostStagingMiB(m, p)
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
