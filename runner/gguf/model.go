package gguf

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Model is what sizing a launch needs from a GGUF: architecture
// hyperparameters, per-layer
// weight bytes and a tokenizer summary.
type Model struct {
	Architecture string `json:"architecture"`
	Name         string `json:"name,omitempty"`
	Type         string `json:"type,omitempty"` // general.type: model, adapter, mmproj...
	FileType     string `json:"file_type,omitempty"`

	Layers          int    `json:"layers"`
	ContextLength   uint64 `json:"context_length"`
	EmbeddingLength uint64 `json:"embedding_length"`
	FeedForward     uint64 `json:"feed_forward_length,omitempty"`
	HeadCount       uint64 `json:"head_count"`
	// HeadCountKV is per layer (a scalar in the file is broadcast; 0 means
	// the layer has no KV cache).
	HeadCountKV   []uint64 `json:"head_count_kv"`
	KeyLength     uint64   `json:"key_length"`
	ValueLength   uint64   `json:"value_length"`
	SlidingWindow uint64   `json:"sliding_window,omitempty"`
	// SWALayers marks layers that use the sliding window (from the file's
	// pattern or the architecture's known pattern).
	SWALayers   []bool `json:"swa_layers,omitempty"`
	KVLoraRank  uint64 `json:"kv_lora_rank,omitempty"` // MLA
	ExpertCount uint64 `json:"expert_count,omitempty"`
	ExpertUsed  uint64 `json:"expert_used_count,omitempty"`
	ExpertFF    uint64 `json:"expert_feed_forward_length,omitempty"`
	Pooling     string `json:"pooling,omitempty"`
	Causal      bool   `json:"causal"`
	Embedding   bool   `json:"embedding_model"`

	Tokenizer Tokenizer `json:"tokenizer"`
	Weights   Weights   `json:"weights"`
	Warnings  []string  `json:"warnings,omitempty"`
}

// Tokenizer summarises the vocabulary so a draft model can be checked
// against its target.
type Tokenizer struct {
	Model      string `json:"model"`
	Pre        string `json:"pre,omitempty"`
	VocabSize  uint64 `json:"vocab_size"`
	TokensHash string `json:"tokens_sha256,omitempty"`
	BOS        *int64 `json:"bos_token_id,omitempty"`
	EOS        *int64 `json:"eos_token_id,omitempty"`
	PAD        *int64 `json:"pad_token_id,omitempty"`
	UNK        *int64 `json:"unk_token_id,omitempty"`
}

// Weights groups tensor bytes the way llama.cpp places them.
type Weights struct {
	Total uint64 `json:"total_bytes"`
	// Layer[i] is all of blk.i.*; LayerExperts[i] the part in MoE expert
	// tensors (ffn_*_exps), which --cpu-moe keeps on the host.
	Layer        []uint64 `json:"layer_bytes"`
	LayerExperts []uint64 `json:"layer_expert_bytes,omitempty"`
	TokenEmbd    uint64   `json:"token_embd_bytes"`
	// Output is output_norm + output (or, with tied embeddings, the copy
	// of token_embd llama.cpp creates for the output device).
	Output      uint64 `json:"output_bytes"`
	TiedOutput  bool   `json:"tied_output"`
	Other       uint64 `json:"other_bytes"`
	LargestRows uint64 `json:"largest_tensor_bytes"`
	// LargestLayerTensor is the biggest tensor inside the blocks: with
	// partial offload llama.cpp copies CPU-resident weights of this size
	// into the GPU's compute buffer for large batches.
	LargestLayerTensor uint64 `json:"largest_layer_tensor_bytes"`
	// Types maps a ggml type name to its tensor count and bytes.
	Types map[string]TypeUse `json:"types"`
}

// TypeUse is one line of the quant mix.
type TypeUse struct {
	Tensors int    `json:"tensors"`
	Bytes   uint64 `json:"bytes"`
}

var blkRE = regexp.MustCompile(`^blk\.(\d+)\.`)

// maxLayers bounds block_count so a hostile file cannot make us allocate.
const maxLayers = 1 << 12

// Model derives the sizing facts from the metadata and tensor table.
func (f *File) Model() (Model, error) {
	m := Model{Causal: true}
	arch, ok := f.str("general.architecture")
	if !ok || arch == "" {
		return m, fmt.Errorf("%w: general.architecture is missing", ErrCorrupt)
	}
	m.Architecture = arch
	m.Name, _ = f.str("general.name")
	m.Type, _ = f.str("general.type")
	if ft, ok := f.uint("general.file_type"); ok {
		m.FileType = fileTypeName(ft)
	}
	a := arch + "."
	nl, _ := f.uint(a + "block_count")
	// Layer count from the tensors too: some files (clip) have no block_count.
	maxBlk := -1
	for _, t := range f.Tensors {
		if mm := blkRE.FindStringSubmatch(t.Name); mm != nil {
			if n, err := strconv.Atoi(mm[1]); err == nil && n > maxBlk {
				maxBlk = n
			}
		}
	}
	if nl == 0 {
		nl = uint64(maxBlk + 1)
	}
	if nl > maxLayers || maxBlk >= maxLayers {
		return m, fmt.Errorf("%w: %d layers (limit %d)", ErrLimit, max(nl, uint64(maxBlk+1)), maxLayers)
	}
	if uint64(maxBlk+1) > nl {
		return m, fmt.Errorf("%w: tensor blk.%d beyond block_count %d", ErrCorrupt, maxBlk, nl)
	}
	m.Layers = int(nl)
	m.ContextLength, _ = f.uint(a + "context_length")
	m.EmbeddingLength, _ = f.uint(a + "embedding_length")
	m.FeedForward, _ = f.firstUint(a + "feed_forward_length")
	m.HeadCount, _ = f.firstUint(a + "attention.head_count")
	m.HeadCountKV = f.perLayer(a+"attention.head_count_kv", m.Layers, m.HeadCount)
	m.KVLoraRank, _ = f.uint(a + "attention.kv_lora_rank")
	def := uint64(0)
	if m.HeadCount > 0 {
		def = m.EmbeddingLength / m.HeadCount
	}
	m.KeyLength = f.uintOr(a+"attention.key_length", def)
	m.ValueLength = f.uintOr(a+"attention.value_length", def)
	m.SlidingWindow, _ = f.uint(a + "attention.sliding_window")
	m.SWALayers = f.swaLayers(arch, m.Layers, m.SlidingWindow)
	m.ExpertCount, _ = f.uint(a + "expert_count")
	m.ExpertUsed, _ = f.uint(a + "expert_used_count")
	m.ExpertFF, _ = f.uint(a + "expert_feed_forward_length")
	if v, ok := f.Get(a + "attention.causal"); ok && v.Type == TypeBool {
		m.Causal = v.B
	}
	if p, ok := f.uint(a + "pooling_type"); ok {
		m.Pooling = poolingName(p)
	}
	m.Embedding = !m.Causal || (m.Pooling != "" && m.Pooling != "none") || slices.Contains(archFacts().EmbedArchs, arch)
	m.Tokenizer = f.tokenizer()
	if vs, ok := f.uint(a + "vocab_size"); ok && m.Tokenizer.VocabSize == 0 {
		m.Tokenizer.VocabSize = vs
	}
	m.Weights = f.weights(m.Layers)
	if m.Weights.TiedOutput {
		m.Weights.Output += m.Weights.TokenEmbd
	}
	for _, t := range f.Tensors {
		if t.SizeUnknown {
			m.Warnings = append(m.Warnings, fmt.Sprintf("tensor %s has ggml type %d, unknown to llamactl: its size is taken from the file layout", t.Name, uint32(t.Type)))
			break
		}
	}
	return m, nil
}

//go:embed archfacts.json
var archJSON []byte

// archFacts are per-architecture facts kept as data (archfacts.json).
var archFacts = sync.OnceValue(func() (af struct {
	Source       string            `json:"source"`
	SWAPeriod    map[string]uint64 `json:"swa_period"`
	EmbedArchs   []string          `json:"embedding_architectures"`
	PoolingTypes []string          `json:"pooling_types"`
	FileTypes    map[string]string `json:"file_types"`
}) {
	if err := json.Unmarshal(archJSON, &af); err != nil {
		panic("gguf: embedded archfacts.json: " + err.Error()) // build-time data; tested
	}
	return af
})

func (f *File) swaLayers(arch string, n int, window uint64) []bool {
	if window == 0 || n == 0 {
		return nil
	}
	out := make([]bool, n)
	if v, ok := f.Get(arch + ".attention.sliding_window_pattern"); ok {
		if v.Arr != nil && len(v.Arr.Values) == n {
			for i, x := range v.Arr.Values {
				out[i] = x.B
			}
			return out
		}
		if p, ok := v.Uint(); ok && p > 0 {
			for i := range out {
				out[i] = uint64(i)%p < p-1
			}
			return out
		}
	}
	// The architecture's pattern: period p, layer l is global
	// when l%p == p-1.
	p, ok := archFacts().SWAPeriod[arch]
	if !ok {
		return nil
	}
	for i := range out {
		out[i] = uint64(i)%p < p-1
	}
	return out
}

func (f *File) weights(nl int) Weights {
	w := Weights{Layer: make([]uint64, nl), Types: map[string]TypeUse{}}
	hasOutput := false
	var experts []uint64
	for _, t := range f.Tensors {
		w.Total += t.Bytes
		tu := w.Types[t.Type.String()]
		tu.Tensors++
		tu.Bytes += t.Bytes
		w.Types[t.Type.String()] = tu
		if t.Bytes > w.LargestRows {
			w.LargestRows = t.Bytes
		}
		if mm := blkRE.FindStringSubmatch(t.Name); mm != nil {
			i, _ := strconv.Atoi(mm[1])
			if i < nl {
				w.Layer[i] += t.Bytes
				w.LargestLayerTensor = max(w.LargestLayerTensor, t.Bytes)
				if strings.Contains(t.Name, "_exps.") || strings.HasSuffix(t.Name, "_exps") {
					if experts == nil {
						experts = make([]uint64, nl)
					}
					experts[i] += t.Bytes
				}
			}
			continue
		}
		switch {
		case strings.HasPrefix(t.Name, "token_embd."):
			w.TokenEmbd += t.Bytes
		case strings.HasPrefix(t.Name, "output."):
			hasOutput = true
			w.Output += t.Bytes
		case strings.HasPrefix(t.Name, "output_norm."):
			w.Output += t.Bytes
		default:
			w.Other += t.Bytes
		}
	}
	w.LayerExperts = experts
	w.TiedOutput = !hasOutput && w.TokenEmbd > 0
	return w
}

func (f *File) tokenizer() Tokenizer {
	var t Tokenizer
	t.Model, _ = f.str("tokenizer.ggml.model")
	t.Pre, _ = f.str("tokenizer.ggml.pre")
	if v, ok := f.Get("tokenizer.ggml.tokens"); ok && v.Arr != nil {
		t.VocabSize = v.Arr.Len
		t.TokensHash = v.Arr.Hash
	}
	id := func(k string) *int64 {
		v, ok := f.Get("tokenizer.ggml." + k + "_token_id")
		if !ok {
			return nil
		}
		if u, ok := v.Uint(); ok {
			x := int64(u)
			return &x
		}
		if v.Type >= TypeInt8 && v.Type <= TypeInt64 {
			x := v.I
			return &x
		}
		return nil
	}
	t.BOS, t.EOS, t.PAD, t.UNK = id("bos"), id("eos"), id("padding"), id("unknown")
	return t
}

func (f *File) str(k string) (string, bool) {
	v, ok := f.Get(k)
	if !ok || v.Type != TypeString {
		return "", false
	}
	return v.S, true
}

func (f *File) uint(k string) (uint64, bool) {
	v, ok := f.Get(k)
	if !ok {
		return 0, false
	}
	return v.Uint()
}

func (f *File) uintOr(k string, d uint64) uint64 {
	if u, ok := f.uint(k); ok {
		return u
	}
	return d
}

// firstUint reads a scalar or the first element of a per-layer array.
func (f *File) firstUint(k string) (uint64, bool) {
	v, ok := f.Get(k)
	if !ok {
		return 0, false
	}
	if v.Arr != nil {
		for _, x := range v.Arr.Values {
			if u, ok := x.Uint(); ok && u > 0 {
				return u, true
			}
		}
		return 0, false
	}
	return v.Uint()
}

// perLayer broadcasts a scalar or reads a per-layer array; missing = def.
func (f *File) perLayer(k string, n int, def uint64) []uint64 {
	out := make([]uint64, n)
	v, ok := f.Get(k)
	for i := range out {
		out[i] = def
		if !ok {
			continue
		}
		if v.Arr != nil {
			if i < len(v.Arr.Values) {
				out[i], _ = v.Arr.Values[i].Uint()
			}
		} else if u, isNum := v.Uint(); isNum {
			out[i] = u
		}
	}
	return out
}

func poolingName(p uint64) string {
	if names := archFacts().PoolingTypes; p < uint64(len(names)) {
		return names[p]
	}
	return fmt.Sprintf("pooling%d", p)
}

// fileTypeName names general.file_type (llama.cpp enum llama_ftype).
func fileTypeName(ft uint64) string {
	if n, ok := archFacts().FileTypes[strconv.FormatUint(ft, 10)]; ok {
		return n
	}
	return fmt.Sprintf("ftype%d", ft)
}

// TypeMix returns the quant mix sorted by bytes, largest first.
func (w Weights) TypeMix() []string {
	type kv struct {
		name string
		TypeUse
	}
	var l []kv
	for k, v := range w.Types {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].Bytes != l[j].Bytes {
			return l[i].Bytes > l[j].Bytes
		}
		return l[i].name < l[j].name
	})
	out := make([]string, len(l))
	for i, x := range l {
		pct := 0.0
		if w.Total > 0 {
			pct = 100 * float64(x.Bytes) / float64(w.Total)
		}
		out[i] = fmt.Sprintf("%s %.1f%% (%d tensors)", x.name, pct, x.Tensors)
	}
	return out
}
