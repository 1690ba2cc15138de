// Package runcmd holds the `llamactl run` and `llamactl gguf` commands.
package runcmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/safefile"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/gguf"
)

// GGUFDoc is `llamactl gguf --json` (schema 1, docs/run.md).
type GGUFDoc struct {
	Schema    int        `json:"schema"`
	Path      string     `json:"path"`
	SizeBytes int64      `json:"size_bytes"`
	Version   uint32     `json:"gguf_version"`
	Tensors   int        `json:"tensor_count"`
	Metadata  int        `json:"metadata_count"`
	Parts     int        `json:"split_parts,omitempty"`
	Model     gguf.Model `json:"model"`
}

// NewGGUFCmd builds `llamactl gguf MODEL`.
func NewGGUFCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "gguf MODEL.gguf",
		Short: "Show a GGUF model's architecture, layers, quantization and vocabulary",
		Long: `Read a GGUF model's header (never its weights) and print what sizing it needs:
architecture, layers and their sizes, the quantization mix, context length and vocabulary.

  llamactl gguf model.gguf
  llamactl gguf model.gguf --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGGUF(f, args[0])
		},
	}
}

// openModel reads a model and turns every failure into an error that says
// what to do.
func openModel(path string) (*gguf.File, gguf.Model, error) {
	gf, err := gguf.OpenModel(path)
	if err != nil {
		if info, serr := os.Stat(path); serr == nil && info.IsDir() {
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%s is a folder: pass the path of the .gguf model file in it (for a split model, its first part: ...-00001-of-0000N.gguf)", path)
		}
		switch {
		case errors.Is(err, safefile.ErrNotRegular):
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%v", err)
		case errors.Is(err, os.ErrNotExist):
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%s does not exist: pass the path of a .gguf model file", path)
		case errors.Is(err, gguf.ErrNotGGUF), errors.Is(err, gguf.ErrTruncated), errors.Is(err, gguf.ErrUnsupported),
			errors.Is(err, gguf.ErrLimit), errors.Is(err, gguf.ErrCorrupt):
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%v\nllamactl needs a complete GGUF model (download it again, or convert it with llama.cpp's convert_hf_to_gguf.py)", err)
		}
		return nil, gguf.Model{}, cmdutil.UsageErrorf("cannot read %s: %v\nCheck that the file is readable by you, or pass another .gguf model file", path, err)
	}
	m, err := gf.Model()
	if err != nil {
		return nil, gguf.Model{}, cmdutil.UsageErrorf("%s: %v", path, err)
	}
	return gf, m, nil
}

func runGGUF(f *cmdutil.Factory, path string) error {
	gf, m, err := openModel(path)
	if err != nil {
		return err
	}
	if f.IO.JSON {
		return ui.WriteJSON(f.IO.Out, GGUFDoc{Schema: 1, Path: path, SizeBytes: gf.FileSize, Version: gf.Version,
			Tensors: len(gf.Tensors), Metadata: len(gf.KVs), Parts: gf.Shards, Model: m})
	}
	p := ui.NewPrinter(f.IO)
	title := m.Name
	if title == "" {
		title = path
	}
	p.Heading(ui.Safe(title, true)) // a model's metadata is not trusted to be text
	var minL, maxL, sum uint64
	for i, b := range m.Weights.Layer {
		if i == 0 || b < minL {
			minL = b
		}
		maxL = max(maxL, b)
		sum += b
	}
	perLayer := "-"
	if m.Layers > 0 {
		perLayer = fmt.Sprintf("%s (min %s, max %s)", mibStr(sum/uint64(m.Layers)), mibStr(minL), mibStr(maxL))
	}
	kv := "-"
	if len(m.HeadCountKV) > 0 {
		kv = strconv.FormatUint(m.HeadCountKV[0], 10)
	}
	rows := [][]string{
		{"architecture", m.Architecture},
		{"file type", orDash(m.FileType)},
		{"size", fmt.Sprintf("%s in %d tensors (GGUF v%d)%s", mibStr(m.Weights.Total), len(gf.Tensors), gf.Version, parts(gf.Shards))},
		{"layers", strconv.Itoa(m.Layers)},
		{"per layer", perLayer},
		{"output layer", mibStr(m.Weights.Output) + tied(m.Weights.TiedOutput)},
		{"token embedding", mibStr(m.Weights.TokenEmbd) + " (stays on the CPU)"},
		{"context (trained)", strconv.FormatUint(m.ContextLength, 10)},
		{"embedding / heads / kv heads", fmt.Sprintf("%d / %d / %s (head dim %d)", m.EmbeddingLength, m.HeadCount, kv, m.KeyLength)},
	}
	if m.SlidingWindow > 0 {
		n := 0
		for _, s := range m.SWALayers {
			if s {
				n++
			}
		}
		rows = append(rows, []string{"sliding window", fmt.Sprintf("%d tokens on %d of %d layers", m.SlidingWindow, n, m.Layers)})
	}
	if m.ExpertCount > 0 {
		rows = append(rows, []string{"experts", fmt.Sprintf("%d, %d used per token", m.ExpertCount, m.ExpertUsed)})
	}
	if m.KVLoraRank > 0 {
		rows = append(rows, []string{"MLA kv_lora_rank", strconv.FormatUint(m.KVLoraRank, 10)})
	}
	if m.Embedding {
		rows = append(rows, []string{"embedding model", "yes (pooling " + orDash(m.Pooling) + ")"})
	}
	hash := m.Tokenizer.TokensHash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	rows = append(rows, []string{"vocabulary", fmt.Sprintf("%s, %d tokens (sha256 %s)", orDash(m.Tokenizer.Model), m.Tokenizer.VocabSize, orDash(hash))})
	for i, mix := range m.Weights.TypeMix() {
		k := ""
		if i == 0 {
			k = "quant mix"
		}
		rows = append(rows, []string{k, mix})
	}
	for _, r := range rows {
		for i := range r {
			r[i] = ui.Safe(r[i], true)
		}
	}
	p.Table(nil, rows)
	if f.IO.Verbose {
		p.Println()
		var lr [][]string
		for i, b := range m.Weights.Layer {
			row := []string{strconv.Itoa(i), mibStr(b)}
			if len(m.Weights.LayerExperts) > i {
				row = append(row, mibStr(m.Weights.LayerExperts[i]))
			}
			lr = append(lr, row)
		}
		h := []string{"layer", "size"}
		if len(m.Weights.LayerExperts) > 0 {
			h = append(h, "experts")
		}
		p.Table(h, lr)
	}
	for _, w := range m.Warnings {
		p.Line(ui.Warn, ui.Safe(w, true))
	}
	return nil
}

func parts(n int) string {
	if n > 1 {
		return fmt.Sprintf(", split in %d parts", n)
	}
	return ""
}

func tied(t bool) string {
	if t {
		return " (tied to token_embd: llama.cpp copies it to the output device)"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func mibStr(b uint64) string {
	switch {
	case b >= 10<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/1024)
}
