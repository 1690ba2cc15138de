package gguf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/runner/gguf"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

func writeSplit(t *testing.T, dir string, cfg ggufwrite.Config, n int) []string {
	t.Helper()
	f, err := ggufwrite.Model(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, p := range f.Split(n) {
		path := filepath.Join(dir, fmt.Sprintf("model-%05d-of-%05d.gguf", i+1, n))
		if err := p.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

func TestOpenSplitModel(t *testing.T) {
	dir := t.TempDir()
	cfg := ggufwrite.Config{Arch: "qwen3", Layers: 6}
	paths := writeSplit(t, dir, cfg, 3)
	whole, _ := writeModel(t, cfg)
	fw, err := gguf.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	mw, _ := fw.Model()
	fs, err := gguf.OpenModel(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	ms, err := fs.Model()
	if err != nil {
		t.Fatal(err)
	}
	if fs.Shards != 3 || len(fs.Tensors) != len(fw.Tensors) || ms.Weights.Total != mw.Weights.Total || ms.Layers != 6 {
		t.Errorf("split: %d shards, %d tensors, %d bytes; whole: %d tensors, %d bytes", fs.Shards, len(fs.Tensors), ms.Weights.Total, len(fw.Tensors), mw.Weights.Total)
	}
	for i := range ms.Weights.Layer {
		if ms.Weights.Layer[i] != mw.Weights.Layer[i] {
			t.Errorf("layer %d: %d vs %d", i, ms.Weights.Layer[i], mw.Weights.Layer[i])
		}
	}
	// Only the first part reads as a model on its own.
	if f, _ := gguf.Open(paths[0]); len(f.Tensors) == len(fw.Tensors) {
		t.Error("the first part alone must not hold every tensor")
	}
	if _, err := gguf.OpenModel(paths[1]); err == nil || !strings.Contains(err.Error(), "pass the first part") {
		t.Errorf("second part: %v", err)
	}
	os.Remove(paths[2])
	if _, err := gguf.OpenModel(paths[0]); err == nil || !strings.Contains(err.Error(), "part 3 of 3") {
		t.Errorf("missing part: %v", err)
	}
	renamed := filepath.Join(dir, "renamed.gguf")
	os.Rename(paths[0], renamed)
	if _, err := gguf.OpenModel(renamed); err == nil || !strings.Contains(err.Error(), "NAME-00001-of-00003.gguf") {
		t.Errorf("renamed first part: %v", err)
	}
}
