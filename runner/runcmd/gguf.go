// Package runcmd holds the `llamactl run` and `llamactl gguf` commands.
package runcmd

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
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

// GGUFOptions are the inputs of `llamactl gguf`, checked in RunE before
// runF (tests) or runGGUF runs.
type GGUFOptions struct {
	F     *cmdutil.Factory
	Model string
	// Lang is --lang as given; t is the catalog chosen from it (English
	// with --json).
	Lang string
	t    *lang.Catalog
}

// NewCmdGGUF builds `llamactl gguf MODEL`; runF, when given, receives the
// checked options instead of running (tests).
func NewCmdGGUF(f *cmdutil.Factory, runF ...func(*GGUFOptions) error) *cobra.Command {
	o := &GGUFOptions{F: f}
	cmd := &cobra.Command{
		Use:   "gguf MODEL.gguf",
		Short: "Show a GGUF model's architecture, layers, quantization and vocabulary",
		Long: `Read a GGUF model's header (never its weights) and print what sizing it needs:
architecture, layers and their sizes, the quantization mix, context length and vocabulary.

  llamactl gguf model.gguf
  llamactl gguf model.gguf --json`,
		// One model: cobra's Args check, so the root adds the usage line
		// (internal/cli TestArgumentErrorsShowTheUsageLine).
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := f.ChooseLang(o.Lang, "llamactl gguf model.gguf --lang zh-CN")
			if err != nil {
				return err
			}
			if f.IO.JSON {
				l = lang.EN
			}
			o.Model, o.t = args[0], texts(l)
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](o)
			}
			return runGGUF(o)
		},
	}
	cmdutil.AddLangFlag(cmd, &o.Lang)
	return cmd
}

// openModel reads a model and turns every failure into an error that says
// what to do.
func openModel(t *lang.Catalog, path string) (*gguf.File, gguf.Model, error) {
	gf, err := gguf.OpenModel(path)
	if err != nil {
		if info, serr := os.Stat(path); serr == nil && info.IsDir() {
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%s", t.T("err.model-folder", "path", path))
		}
		switch {
		case errors.Is(err, safefile.ErrNotRegular):
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%v", err)
		case errors.Is(err, os.ErrNotExist):
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%s", t.T("err.model-missing", "path", path))
		case errors.Is(err, gguf.ErrNotGGUF), errors.Is(err, gguf.ErrTruncated), errors.Is(err, gguf.ErrUnsupported),
			errors.Is(err, gguf.ErrLimit), errors.Is(err, gguf.ErrCorrupt):
			return nil, gguf.Model{}, cmdutil.UsageErrorf("%s", t.T("err.model-incomplete", "err", err))
		}
		return nil, gguf.Model{}, cmdutil.UsageErrorf("%s", t.T("err.model-unreadable", "path", path, "err", err))
	}
	m, err := gf.Model()
	if err != nil {
		return nil, gguf.Model{}, cmdutil.UsageErrorf("%s: %v", path, err)
	}
	return gf, m, nil
}

// runGGUF reads the model and writes it as JSON or as a table.
func runGGUF(o *GGUFOptions) error {
	gf, m, err := openModel(o.t, o.Model)
	if err != nil {
		return err
	}
	io := o.F.IO
	if io.JSON {
		return ui.WriteJSON(io.Out, GGUFDoc{Schema: 1, Path: o.Model, SizeBytes: gf.FileSize, Version: gf.Version,
			Tensors: len(gf.Tensors), Metadata: len(gf.KVs), Parts: gf.Shards, Model: m})
	}
	p := ui.NewPrinter(io)
	title := m.Name
	if title == "" {
		title = o.Model
	}
	p.Heading(ui.Safe(title, true)) // a model's metadata is not trusted to be text
	rows := append(ggufShapeRows(o.t, gf, m), ggufExtraRows(o.t, m)...)
	for _, r := range rows {
		for i := range r {
			r[i] = ui.Safe(r[i], true)
		}
	}
	p.Table(nil, rows)
	if io.Verbose {
		p.Println()
		ggufLayerTable(p, o.t, m.Weights)
	}
	for _, w := range m.Warnings {
		p.Line(ui.Warn, ui.Safe(w, true))
	}
	return nil
}

// ggufShapeRows are the rows every model has: architecture, type, size,
// layers and their sizes, output and token embedding, context, dimensions.
func ggufShapeRows(t *lang.Catalog, gf *gguf.File, m gguf.Model) [][]string {
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
		perLayer = t.T("gguf.per-layer-value", "avg", mibStr(sum/uint64(m.Layers)), "min", mibStr(minL), "max", mibStr(maxL))
	}
	kv := "-"
	if len(m.HeadCountKV) > 0 {
		kv = strconv.FormatUint(m.HeadCountKV[0], 10)
	}
	size := t.T("gguf.size-value", "size", mibStr(m.Weights.Total), "tensors", len(gf.Tensors), "version", gf.Version)
	if gf.Shards > 1 {
		size = t.T("gguf.size-split", "size", mibStr(m.Weights.Total), "tensors", len(gf.Tensors), "version", gf.Version, "parts", gf.Shards)
	}
	output := mibStr(m.Weights.Output)
	if m.Weights.TiedOutput {
		output = t.T("gguf.tied", "size", output)
	}
	return [][]string{
		{t.T("gguf.architecture"), m.Architecture},
		{t.T("gguf.file-type"), orDash(m.FileType)},
		{t.T("gguf.size"), size},
		{t.T("gguf.layers"), strconv.Itoa(m.Layers)},
		{t.T("gguf.per-layer"), perLayer},
		{t.T("gguf.output"), output},
		{t.T("gguf.token-embd"), t.T("gguf.token-embd-value", "size", mibStr(m.Weights.TokenEmbd))},
		{t.T("gguf.context"), strconv.FormatUint(m.ContextLength, 10)},
		{t.T("gguf.dims"), t.T("gguf.dims-value", "embedding", m.EmbeddingLength, "heads", m.HeadCount, "kv", kv, "dim", m.KeyLength)},
	}
}

// ggufExtraRows are the rows only some models have (sliding window,
// experts, MLA, embedding), then the vocabulary and the quantization mix.
func ggufExtraRows(t *lang.Catalog, m gguf.Model) [][]string {
	var rows [][]string
	if m.SlidingWindow > 0 {
		n := 0
		for _, s := range m.SWALayers {
			if s {
				n++
			}
		}
		rows = append(rows, []string{t.T("gguf.sliding-window"), t.T("gguf.sliding-window-value", "window", m.SlidingWindow, "n", n, "layers", m.Layers)})
	}
	if m.ExpertCount > 0 {
		rows = append(rows, []string{t.T("gguf.experts"), t.T("gguf.experts-value", "n", m.ExpertCount, "used", m.ExpertUsed)})
	}
	if m.KVLoraRank > 0 {
		rows = append(rows, []string{"MLA kv_lora_rank", strconv.FormatUint(m.KVLoraRank, 10)})
	}
	if m.Embedding {
		rows = append(rows, []string{t.T("gguf.embedding-model"), t.T("gguf.embedding-value", "pooling", orDash(m.Pooling))})
	}
	hash := m.Tokenizer.TokensHash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	rows = append(rows, []string{t.T("gguf.vocabulary"), t.T("gguf.vocabulary-value", "model", orDash(m.Tokenizer.Model), "n", m.Tokenizer.VocabSize, "hash", orDash(hash))})
	for i, mix := range m.Weights.TypeMix() {
		k := ""
		if i == 0 {
			k = t.T("gguf.quant-mix")
		}
		rows = append(rows, []string{k, mix})
	}
	return rows
}

// ggufLayerTable is --verbose's table of every layer's size (and its
// experts' share).
func ggufLayerTable(p *ui.Printer, t *lang.Catalog, w gguf.Weights) {
	var lr [][]string
	for i, b := range w.Layer {
		row := []string{strconv.Itoa(i), mibStr(b)}
		if len(w.LayerExperts) > i {
			row = append(row, mibStr(w.LayerExperts[i]))
		}
		lr = append(lr, row)
	}
	h := []string{t.T("gguf.layer"), t.T("gguf.size")}
	if len(w.LayerExperts) > 0 {
		h = append(h, t.T("table.experts"))
	}
	p.Table(h, lr)
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
