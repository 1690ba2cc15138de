// Command genmodel writes a small generated GGUF model (runner/gguf/ggufwrite)
// that llama.cpp loads, for the test stages and for trying llamactl run:
//
//	go run ./scripts/genmodel -arch llama -layers 8 -embd 512 -type Q8_0 -o model.gguf
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

func main() {
	var c ggufwrite.Config
	out := flag.String("o", "model.gguf", "output file")
	flag.StringVar(&c.Arch, "arch", "llama", "llama, qwen2, qwen3, gemma2, gemma3, qwen3moe")
	flag.IntVar(&c.Layers, "layers", 0, "blocks (default 4)")
	flag.Uint64Var(&c.Embd, "embd", 0, "embedding length (default 256)")
	flag.Uint64Var(&c.Heads, "heads", 0, "attention heads (default 4)")
	flag.Uint64Var(&c.HeadsKV, "heads-kv", 0, "KV heads (default 2)")
	flag.Uint64Var(&c.FF, "ff", 0, "feed-forward length (default 512)")
	flag.IntVar(&c.Vocab, "vocab", 0, "vocabulary size (default 1024)")
	flag.Uint64Var(&c.Ctx, "ctx", 0, "trained context (default 4096)")
	flag.StringVar(&c.Type, "type", "", "weight type: F16, Q8_0, Q4_K, F32 (default F16)")
	flag.Parse()
	f, err := ggufwrite.Model(c)
	if err == nil {
		err = f.WriteFile(*out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genmodel:", err)
		os.Exit(1)
	}
}
