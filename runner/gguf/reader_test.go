package gguf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// testConfigs are the architectures the writer produces and llama.cpp
// (build 11669) loads; see runner/runcmd integration tests.
var testConfigs = []ggufwrite.Config{
	{Arch: "llama"},
	{Arch: "llama", Type: "Q8_0"},
	{Arch: "llama", Type: "Q4_K"},
	{Arch: "qwen2"},
	{Arch: "qwen3"},
	{Arch: "gemma2"},
	{Arch: "gemma3"},
	{Arch: "qwen3moe"},
}

func writeModel(t testing.TB, cfg ggufwrite.Config) (string, []byte) {
	t.Helper()
	f, err := ggufwrite.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	c := ggufwrite.Small(cfg)
	p := filepath.Join(t.TempDir(), c.Arch+"-"+c.Type+".gguf")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, buf.Bytes()
}

func TestReadGeneratedModels(t *testing.T) {
	for _, cfg := range testConfigs {
		c := ggufwrite.Small(cfg)
		t.Run(c.Arch+"-"+c.Type, func(t *testing.T) {
			p, data := writeModel(t, cfg)
			f, err := gguf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			m, err := f.Model()
			if err != nil {
				t.Fatal(err)
			}
			if m.Architecture != c.Arch || m.Layers != c.Layers || m.EmbeddingLength != c.Embd || m.HeadCount != c.Heads {
				t.Errorf("model = %s/%d layers/%d embd/%d heads, want %s/%d/%d/%d", m.Architecture, m.Layers, m.EmbeddingLength, m.HeadCount, c.Arch, c.Layers, c.Embd, c.Heads)
			}
			for i, kv := range m.HeadCountKV {
				if kv != c.HeadsKV {
					t.Errorf("layer %d head_count_kv = %d, want %d", i, kv, c.HeadsKV)
				}
			}
			if m.KeyLength != c.Embd/c.Heads || m.ContextLength != c.Ctx {
				t.Errorf("key_length %d ctx %d", m.KeyLength, m.ContextLength)
			}
			if m.Tokenizer.VocabSize != uint64(c.Vocab) || m.Tokenizer.Model != "llama" || len(m.Tokenizer.TokensHash) != 64 {
				t.Errorf("tokenizer = %+v", m.Tokenizer)
			}
			if m.Tokenizer.BOS == nil || *m.Tokenizer.BOS != 1 || *m.Tokenizer.EOS != 2 {
				t.Errorf("special ids = %+v", m.Tokenizer)
			}
			// The data section is exactly the sum of the tensors plus padding:
			// our sizes must account for every byte after the header.
			var sum uint64
			for _, l := range m.Weights.Layer {
				sum += l
			}
			tok := m.Weights.TokenEmbd
			out := m.Weights.Output
			if m.Weights.TiedOutput {
				out -= tok // the output copy is not in the file
			}
			sum += tok + out + m.Weights.Other
			if sum != m.Weights.Total {
				t.Errorf("grouped bytes %d != total %d", sum, m.Weights.Total)
			}
			dataLen := uint64(len(data)) - uint64(f.HeaderSize)
			if m.Weights.Total > dataLen || dataLen-m.Weights.Total > uint64(len(f.Tensors))*f.Alignment {
				t.Errorf("tensor bytes %d vs data section %d", m.Weights.Total, dataLen)
			}
			if c.Experts > 0 {
				if m.ExpertCount != c.Experts || len(m.Weights.LayerExperts) != c.Layers || m.Weights.LayerExperts[0] == 0 {
					t.Errorf("experts: %d %v", m.ExpertCount, m.Weights.LayerExperts)
				}
			}
			if c.Arch == "gemma3" {
				if !m.Weights.TiedOutput || len(m.SWALayers) != c.Layers || !m.SWALayers[0] || m.SlidingWindow != c.SlidingWindow {
					t.Errorf("gemma3 swa = %v window %d tied %v", m.SWALayers, m.SlidingWindow, m.Weights.TiedOutput)
				}
			}
			wantFT := map[string]string{"F16": "F16", "Q8_0": "Q8_0", "Q4_K": "Q4_K_M"}[c.Type]
			if m.FileType != wantFT {
				t.Errorf("file type %q, want %q", m.FileType, wantFT)
			}
			if _, ok := m.Weights.Types[c.Type]; !ok {
				t.Errorf("quant mix %v lacks %s", m.Weights.Types, c.Type)
			}
		})
	}
}

func TestTypeSizes(t *testing.T) {
	// Figures (block / bytes per block).
	cases := map[string][2]uint64{"F32": {1, 4}, "F16": {1, 2}, "BF16": {1, 2}, "Q4_0": {32, 18}, "Q8_0": {32, 34},
		"Q4_K": {256, 144}, "Q6_K": {256, 210}, "IQ4_XS": {256, 136}, "IQ1_M": {256, 56}, "MXFP4": {32, 17}, "Q2_K": {256, 84}}
	for name, bb := range cases {
		ty, ok := gguf.TypeByName(name)
		if !ok {
			t.Fatalf("%s missing", name)
		}
		n, err := gguf.TensorBytes(ty, []uint64{bb[0] * 4, 3})
		if err != nil || n != bb[1]*12 {
			t.Errorf("%s: %d, %v; want %d", name, n, err, bb[1]*12)
		}
	}
	q4k, _ := gguf.TypeByName("Q4_K")
	if _, err := gguf.TensorBytes(q4k, []uint64{100}); err == nil {
		t.Error("a row that is not a multiple of the block must be rejected")
	}
	if gguf.GGMLType(4).Known() || gguf.GGMLType(999).Known() {
		t.Error("removed/unknown ids must be unknown")
	}
}

func header(version uint32, nt, nkv uint64) []byte {
	b := []byte("GGUF")
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint64(b, nt)
	b = binary.LittleEndian.AppendUint64(b, nkv)
	return b
}

func TestReadErrors(t *testing.T) {
	_, model := writeModel(t, ggufwrite.Config{Arch: "llama", Layers: 1})
	strKV := func(key string, n uint64) []byte {
		b := header(3, 0, 1)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(key)))
		b = append(b, key...)
		b = binary.LittleEndian.AppendUint32(b, uint32(gguf.TypeString))
		return binary.LittleEndian.AppendUint64(b, n)
	}
	cases := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, gguf.ErrNotGGUF, "magic"},
		{"text", []byte("hello, this is not a model file"), gguf.ErrNotGGUF, `"hell"`},
		{"version1", header(1, 0, 0), gguf.ErrUnsupported, "version 1"},
		{"version9", header(9, 0, 0), gguf.ErrUnsupported, "version 9"},
		{"header only truncated", model[:20], gguf.ErrTruncated, ""},
		{"huge tensor count", header(3, 1<<40, 0), gguf.ErrLimit, "tensors"},
		{"huge kv count", header(3, 0, 1<<40), gguf.ErrLimit, "metadata"},
		{"counts beyond file", header(3, 1000, 1000), gguf.ErrTruncated, "remain"},
		{"string beyond file", strKV("a", 1<<20), gguf.ErrTruncated, "remain"},
		{"string over limit", strKV("a", 1<<40), gguf.ErrLimit, "limit"},
		{"weights cut off", model[:len(model)-100], gguf.ErrTruncated, "beyond the end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := gguf.Read(bytes.NewReader(c.data), int64(len(c.data)), gguf.Limits{})
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
		})
	}
}

// Every prefix of a real file must fail cleanly (never panic, never succeed
// with tensors beyond the end).
func TestEveryPrefixFails(t *testing.T) {
	_, model := writeModel(t, ggufwrite.Config{Arch: "qwen3", Layers: 1, Vocab: 300})
	f, err := gguf.Read(bytes.NewReader(model), int64(len(model)), gguf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < int(f.HeaderSize)+64; n++ {
		if _, err := gguf.Read(bytes.NewReader(model[:n]), int64(n), gguf.Limits{}); err == nil {
			t.Fatalf("prefix of %d bytes parsed without error", n)
		}
	}
	// With an unknown size the header alone parses (streaming from a pipe).
	if _, err := gguf.Read(bytes.NewReader(model[:f.HeaderSize]), -1, gguf.Limits{}); err != nil {
		t.Errorf("header from a stream: %v", err)
	}
}

func TestLimits(t *testing.T) {
	_, model := writeModel(t, ggufwrite.Config{Arch: "llama", Layers: 2})
	_, err := gguf.Read(bytes.NewReader(model), int64(len(model)), gguf.Limits{MaxArray: 100})
	if !errors.Is(err, gguf.ErrLimit) || !strings.Contains(err.Error(), "tokenizer.ggml.tokens") {
		t.Errorf("vocab over MaxArray: %v", err)
	}
	_, err = gguf.Read(bytes.NewReader(model), int64(len(model)), gguf.Limits{MaxTensors: 5})
	if !errors.Is(err, gguf.ErrLimit) {
		t.Errorf("tensors over MaxTensors: %v", err)
	}
	_, err = gguf.Read(bytes.NewReader(model), int64(len(model)), gguf.Limits{MaxHeader: 1000})
	if !errors.Is(err, gguf.ErrLimit) {
		t.Errorf("header over MaxHeader: %v", err)
	}
	// Small KeepArray: the vocabulary is hashed but not kept, and the hash
	// is the same as when it is kept.
	f1, _ := gguf.Read(bytes.NewReader(model), int64(len(model)), gguf.Limits{})
	f2, err := gguf.Read(bytes.NewReader(model), int64(len(model)), gguf.Limits{KeepArray: 10})
	if err != nil {
		t.Fatal(err)
	}
	v1, _ := f1.Get("tokenizer.ggml.tokens")
	v2, _ := f2.Get("tokenizer.ggml.tokens")
	if v2.Arr.Values != nil || v1.Arr.Hash != v2.Arr.Hash || v1.Arr.Len != v2.Arr.Len {
		t.Errorf("skipped array: %d values, hash %s vs %s", len(v2.Arr.Values), v1.Arr.Hash, v2.Arr.Hash)
	}
}

// Many mid-sized arrays: values are kept only up to the file-wide budget.
func TestKeptBudget(t *testing.T) {
	b := header(3, 0, 50)
	for i := 0; i < 50; i++ {
		key := fmt.Sprintf("a.%02d", i)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(key)))
		b = append(b, key...)
		b = binary.LittleEndian.AppendUint32(b, uint32(gguf.TypeArray))
		b = binary.LittleEndian.AppendUint32(b, uint32(gguf.TypeUint8))
		b = binary.LittleEndian.AppendUint64(b, 1000)
		b = append(b, make([]byte, 1000)...)
	}
	f, err := gguf.Read(bytes.NewReader(b), int64(len(b)), gguf.Limits{MaxKept: 10000})
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, kv := range f.KVs {
		if kv.Value.Arr.Len != 1000 {
			t.Fatalf("%s: length %d", kv.Key, kv.Value.Arr.Len)
		}
		kept += len(kv.Value.Arr.Values)
	}
	if kept != 10000 {
		t.Errorf("kept %d elements, want the budget of 10000", kept)
	}
}

func TestBigEndian(t *testing.T) {
	b := []byte("GGUF")
	b = binary.BigEndian.AppendUint32(b, 3)
	b = binary.BigEndian.AppendUint64(b, 0)
	b = binary.BigEndian.AppendUint64(b, 1)
	key := "general.architecture"
	b = binary.BigEndian.AppendUint64(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, uint32(gguf.TypeString))
	b = binary.BigEndian.AppendUint64(b, 5)
	b = append(b, "llama"...)
	f, err := gguf.Read(bytes.NewReader(b), int64(len(b)), gguf.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.BigEndian || f.Version != 3 {
		t.Errorf("big-endian %v version %d", f.BigEndian, f.Version)
	}
	if v, _ := f.Get(key); v.S != "llama" {
		t.Errorf("arch = %q", v.S)
	}
}

func TestTokenHashDiffers(t *testing.T) {
	_, a := writeModel(t, ggufwrite.Config{Arch: "llama", Layers: 1, Vocab: 500})
	_, b := writeModel(t, ggufwrite.Config{Arch: "llama", Layers: 1, Vocab: 501})
	fa, _ := gguf.Read(bytes.NewReader(a), -1, gguf.Limits{})
	fb, _ := gguf.Read(bytes.NewReader(b), -1, gguf.Limits{})
	ma, _ := fa.Model()
	mb, _ := fb.Model()
	if ma.Tokenizer.TokensHash == mb.Tokenizer.TokensHash {
		t.Error("different vocabularies hash the same")
	}
}

func FuzzRead(f *testing.F) {
	_, model := writeModel(f, ggufwrite.Config{Arch: "qwen3moe", Layers: 1, Vocab: 280, Embd: 64, FF: 64, FFExp: 32, Heads: 2, HeadsKV: 1})
	pf, _ := gguf.Read(bytes.NewReader(model), -1, gguf.Limits{})
	f.Add(model[:pf.HeaderSize])
	f.Add(header(3, 1, 1))
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int64{int64(len(data)), -1} {
			file, err := gguf.Read(bytes.NewReader(data), size, gguf.Limits{MaxHeader: 1 << 20})
			if err != nil {
				continue
			}
			if m, err := file.Model(); err == nil && m.Layers > 1<<12 {
				t.Fatalf("layers %d beyond the limit", m.Layers)
			}
		}
	})
}
