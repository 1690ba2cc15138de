package gguf_test

import (
	"testing"

	parser "github.com/gpustack/gguf-parser-go"

	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// TestDifferentialGGUFParserGo checks our reader against gpustack's
// gguf-parser-go (a test-only dependency) on every generated model: the
// same tensors (name, type, dims, offset, size) and hyperparameters.
func TestDifferentialGGUFParserGo(t *testing.T) {
	for _, cfg := range testConfigs {
		c := ggufwrite.Small(cfg)
		t.Run(c.Arch+"-"+c.Type, func(t *testing.T) {
			p, _ := writeModel(t, cfg)
			ours, err := gguf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := parser.ParseGGUFFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(ours.Tensors) != len(theirs.TensorInfos) {
				t.Fatalf("tensor count %d vs %d", len(ours.Tensors), len(theirs.TensorInfos))
			}
			if ours.HeaderSize != theirs.TensorDataStartOffset {
				t.Errorf("data offset %d vs %d", ours.HeaderSize, theirs.TensorDataStartOffset)
			}
			for i, o := range ours.Tensors {
				th := theirs.TensorInfos[i]
				if o.Name != th.Name || uint32(o.Type) != uint32(th.Type) || o.Offset != th.Offset || o.Bytes != th.Bytes() {
					t.Errorf("tensor %d: ours %s %s off %d %d B; theirs %s %s off %d %d B", i, o.Name, o.Type, o.Offset, o.Bytes, th.Name, th.Type, th.Offset, th.Bytes())
				}
				for j, d := range o.Dims {
					if j >= len(th.Dimensions) || th.Dimensions[j] != d {
						t.Errorf("tensor %s dims %v vs %v", o.Name, o.Dims, th.Dimensions)
						break
					}
				}
			}
			m, err := ours.Model()
			if err != nil {
				t.Fatal(err)
			}
			a := theirs.Architecture()
			if uint64(m.Layers) != a.BlockCount || m.EmbeddingLength != a.EmbeddingLength || m.HeadCount != a.AttentionHeadCount ||
				m.HeadCountKV[0] != a.AttentionHeadCountKV || m.ContextLength != a.MaximumContextLength || uint64(a.ExpertCount) != m.ExpertCount {
				t.Errorf("architecture: ours %+v\ntheirs %+v", m, a)
			}
			if m.SlidingWindow != a.AttentionSlidingWindow {
				t.Errorf("sliding window %d vs %d", m.SlidingWindow, a.AttentionSlidingWindow)
			}
			tk := theirs.Tokenizer()
			if m.Tokenizer.Model != tk.Model || m.Tokenizer.VocabSize != tk.TokensLength {
				t.Errorf("tokenizer %+v vs %s/%d", m.Tokenizer, tk.Model, tk.TokensLength)
			}
			var total uint64
			for _, ti := range theirs.TensorInfos {
				total += ti.Bytes()
			}
			if total != m.Weights.Total {
				t.Errorf("total bytes %d vs %d", m.Weights.Total, total)
			}
		})
	}
}

// Reading speed, ours vs gguf-parser-go, on the same file (see docs/run.md).
func BenchmarkReadOurs(b *testing.B) {
	p, _ := writeModel(b, ggufwrite.Config{Arch: "qwen3moe", Vocab: 8000})
	b.ResetTimer()
	for b.Loop() {
		f, err := gguf.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Model(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadGGUFParserGo(b *testing.B) {
	p, _ := writeModel(b, ggufwrite.Config{Arch: "qwen3moe", Vocab: 8000})
	b.ResetTimer()
	for b.Loop() {
		f, err := parser.ParseGGUFFile(p)
		if err != nil {
			b.Fatal(err)
		}
		_ = f.Architecture()
		_ = f.Tokenizer()
	}
}
