package ggufwrite

import (
	"bytes"
	"testing"
)

func TestF16(t *testing.T) {
	cases := map[float32]uint16{0: 0, 1: 0x3c00, 0.5: 0x3800, -2: 0xc000, 0.001: 0x1418, 1e9: 0x7bff, 1e-9: 0}
	for in, want := range cases {
		if got := f16(in); got != want {
			t.Errorf("f16(%g) = %#04x, want %#04x", in, got, want)
		}
	}
}

func TestDeterministicAndSplit(t *testing.T) {
	f, err := Model(Config{Arch: "llama", Layers: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	f.Write(&a)
	f.Write(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seed must give the same file")
	}
	parts := f.Split(3)
	n := 0
	for i, p := range parts {
		n += len(p.Tensors)
		if i > 0 && len(p.KVs) != 3 {
			t.Errorf("part %d carries %d metadata pairs, want only the split keys", i, len(p.KVs))
		}
	}
	if n != len(f.Tensors) || len(parts[0].KVs) != len(f.KVs)+3 {
		t.Errorf("split lost tensors or metadata: %d of %d", n, len(f.Tensors))
	}
	if _, err := Model(Config{Type: "Q9_9"}); err == nil {
		t.Error("unknown weight type accepted")
	}
}
