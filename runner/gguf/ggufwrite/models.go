package ggufwrite

import (
	"fmt"

	"github.com/llamactl/llamactl/runner/gguf"
)

// Config describes a small random model. Zero fields take the defaults of
// Small. Tensor names and shapes follow llama.cpp's loader for each
// architecture (the GGUF tensor-name scheme).
type Config struct {
	Arch          string // llama, qwen2, qwen3, gemma2, gemma3, qwen3moe
	Layers        int
	Embd          uint64
	Heads         uint64
	HeadsKV       uint64
	FF            uint64
	Vocab         int
	Ctx           uint64
	Type          string // weight type of 2-D tensors: F16, Q8_0, Q4_K, F32
	Experts       uint64 // MoE: expert count
	ExpertsUsed   uint64
	FFExp         uint64
	SlidingWindow uint64
	TiedOutput    bool
	Pooling       uint32 // llama.cpp pooling type (1 mean, 2 cls, 3 last): an embedding model
	Seed          uint64
	Name          string
}

// Small returns cfg with defaults filled in: a few-MB model that loads fast.
func Small(cfg Config) Config {
	if cfg.Arch == "" {
		cfg.Arch = "llama"
	}
	def := func(p *uint64, v uint64) {
		if *p == 0 {
			*p = v
		}
	}
	if cfg.Layers == 0 {
		cfg.Layers = 4
	}
	def(&cfg.Embd, 256)
	def(&cfg.Heads, 4)
	def(&cfg.HeadsKV, 2)
	def(&cfg.FF, 512)
	def(&cfg.Ctx, 4096)
	if cfg.Vocab == 0 {
		cfg.Vocab = 1024
	}
	if cfg.Type == "" {
		cfg.Type = "F16"
	}
	if cfg.Arch == "qwen3moe" {
		def(&cfg.Experts, 8)
		def(&cfg.ExpertsUsed, 2)
		def(&cfg.FFExp, 256)
	}
	if cfg.Arch == "gemma2" || cfg.Arch == "gemma3" {
		def(&cfg.SlidingWindow, 256)
		cfg.TiedOutput = true // gemma ties output to token_embd
	}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("llamactl-test-%s-%s", cfg.Arch, cfg.Type)
	}
	return cfg
}

// Model builds the GGUF description of cfg.
func Model(cfg Config) (*File, error) {
	cfg = Small(cfg)
	wt, ok := gguf.TypeByName(cfg.Type)
	if !ok {
		return nil, fmt.Errorf("ggufwrite: unknown type %q", cfg.Type)
	}
	f32 := gguf.GGMLType(0)
	a := cfg.Arch
	hd := cfg.Embd / cfg.Heads
	kvd := hd * cfg.HeadsKV
	kv := []KV{
		{"general.architecture", a},
		{"general.name", cfg.Name},
		{"general.type", "model"},
		{"general.file_type", fileType(cfg.Type)},
		{"general.quantization_version", uint32(2)},
		{a + ".block_count", uint32(cfg.Layers)},
		{a + ".context_length", uint32(cfg.Ctx)},
		{a + ".embedding_length", uint32(cfg.Embd)},
		{a + ".feed_forward_length", uint32(cfg.FF)},
		{a + ".attention.head_count", uint32(cfg.Heads)},
		{a + ".attention.head_count_kv", uint32(cfg.HeadsKV)},
		{a + ".attention.layer_norm_rms_epsilon", float32(1e-6)},
		{a + ".rope.freq_base", float32(10000)},
	}
	switch a {
	case "llama":
		kv = append(kv, KV{a + ".rope.dimension_count", uint32(hd)})
	case "qwen3", "qwen3moe", "gemma2", "gemma3":
		kv = append(kv, KV{a + ".attention.key_length", uint32(hd)}, KV{a + ".attention.value_length", uint32(hd)})
	}
	if cfg.Experts > 0 {
		kv = append(kv, KV{a + ".expert_count", uint32(cfg.Experts)}, KV{a + ".expert_used_count", uint32(cfg.ExpertsUsed)},
			KV{a + ".expert_feed_forward_length", uint32(cfg.FFExp)})
	}
	if cfg.SlidingWindow > 0 {
		kv = append(kv, KV{a + ".attention.sliding_window", uint32(cfg.SlidingWindow)})
	}
	if cfg.Pooling > 0 {
		kv = append(kv, KV{a + ".pooling_type", cfg.Pooling})
	}
	if a == "gemma2" {
		kv = append(kv, KV{a + ".attn_logit_softcapping", float32(50)}, KV{a + ".final_logit_softcapping", float32(30)})
	}
	kv = append(kv, tokenizerKVs(cfg.Vocab)...)

	var ts []Tensor
	add := func(name string, t gguf.GGMLType, dims ...uint64) {
		ts = append(ts, Tensor{Name: name, Dims: dims, Type: t})
	}
	// K-quants need rows that are multiples of 256; token_embd stays in the
	// weight type (llama.cpp dequantises rows on lookup).
	add("token_embd.weight", wt, cfg.Embd, uint64(cfg.Vocab))
	for i := 0; i < cfg.Layers; i++ {
		p := fmt.Sprintf("blk.%d.", i)
		add(p+"attn_norm.weight", f32, cfg.Embd)
		add(p+"attn_q.weight", wt, cfg.Embd, hd*cfg.Heads)
		add(p+"attn_k.weight", wt, cfg.Embd, kvd)
		add(p+"attn_v.weight", wt, cfg.Embd, kvd)
		add(p+"attn_output.weight", wt, hd*cfg.Heads, cfg.Embd)
		if a == "qwen2" {
			add(p+"attn_q.bias", f32, hd*cfg.Heads)
			add(p+"attn_k.bias", f32, kvd)
			add(p+"attn_v.bias", f32, kvd)
		}
		if a == "qwen3" || a == "qwen3moe" || a == "gemma3" {
			add(p+"attn_q_norm.weight", f32, hd)
			add(p+"attn_k_norm.weight", f32, hd)
		}
		if a == "gemma2" || a == "gemma3" {
			add(p+"post_attention_norm.weight", f32, cfg.Embd)
			add(p+"post_ffw_norm.weight", f32, cfg.Embd)
		}
		add(p+"ffn_norm.weight", f32, cfg.Embd)
		if cfg.Experts > 0 {
			add(p+"ffn_gate_inp.weight", f32, cfg.Embd, cfg.Experts)
			add(p+"ffn_gate_exps.weight", wt, cfg.Embd, cfg.FFExp, cfg.Experts)
			add(p+"ffn_up_exps.weight", wt, cfg.Embd, cfg.FFExp, cfg.Experts)
			add(p+"ffn_down_exps.weight", wt, cfg.FFExp, cfg.Embd, cfg.Experts)
		} else {
			add(p+"ffn_gate.weight", wt, cfg.Embd, cfg.FF)
			add(p+"ffn_up.weight", wt, cfg.Embd, cfg.FF)
			add(p+"ffn_down.weight", wt, cfg.FF, cfg.Embd)
		}
	}
	add("output_norm.weight", f32, cfg.Embd)
	if !cfg.TiedOutput {
		add("output.weight", wt, cfg.Embd, uint64(cfg.Vocab))
	}
	return &File{KVs: kv, Tensors: ts, Seed: cfg.Seed}, nil
}

func fileType(t string) uint32 {
	switch t {
	case "F32":
		return 0
	case "F16":
		return 1
	case "Q8_0":
		return 7
	case "Q4_K":
		return 15 // Q4_K_M
	case "Q6_K":
		return 18
	}
	return 1
}

// tokenizerKVs is a SentencePiece-style ("llama") vocabulary: unk, bos,
// eos, the 256 byte-fallback tokens, then pieces, so any text tokenizes.
func tokenizerKVs(n int) []KV {
	toks := []string{"<unk>", "<s>", "</s>"}
	types := []int32{2, 3, 3} // UNKNOWN, CONTROL, CONTROL
	for b := 0; b < 256; b++ {
		toks = append(toks, fmt.Sprintf("<0x%02X>", b))
		types = append(types, 6) // BYTE
	}
	seen := map[string]bool{}
	for _, t := range toks {
		seen[t] = true
	}
	alpha := []rune("etaoinshrdlucmfwypvbgkjqxzETAOINSHRDLUCMFWYPVBGKJQXZ0123456789.,!?")
	piece := func(s string) {
		if len(toks) < n && !seen[s] {
			seen[s] = true
			toks = append(toks, s)
			types = append(types, 1) // NORMAL
		}
	}
	piece("▁")
	for _, c := range alpha {
		piece(string(c))
		piece("▁" + string(c))
	}
	for _, c := range alpha {
		for _, d := range alpha {
			piece(string(c) + string(d))
			piece("▁" + string(c) + string(d))
		}
	}
	scores := make([]float32, len(toks))
	for i := range scores {
		scores[i] = -float32(i)
	}
	return []KV{
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", toks},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.unknown_token_id", uint32(0)},
		{"tokenizer.ggml.bos_token_id", uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(2)},
		{"tokenizer.ggml.add_bos_token", true},
	}
}
