package matrixcmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/matrix"
)

type gpuOptions struct {
	IO     *ui.IOStreams
	Matrix *matrix.Matrix
	lang   *langOption
	Name   string
}

// gpuDoc is the --json document of `matrix gpu` (schema 1).
type gpuDoc struct {
	Schema int `json:"schema"`
	matrix.GPULookup
	CUDAArchitecture string `json:"cuda_architecture,omitempty"` // "89-real"
}

func newGPUCmd(f *cmdutil.Factory, m *matrix.Matrix, l *langOption) *cobra.Command {
	opts := &gpuOptions{IO: f.IO, Matrix: m, lang: l}
	return &cobra.Command{
		Use:   "gpu NAME",
		Short: "Compute capability of a GPU, from its nvidia-smi name or a short form",
		Long: `Look up a GPU's compute capability by the name nvidia-smi shows
("NVIDIA GeForce RTX 4060 Laptop GPU") or a short form ("RTX 4090", "4090",
"rtx 3060 laptop"). A name that could mean GPUs of different compute
capabilities, or that the matrix does not know, is reported as unknown with
the closest names: pass the CC to 'matrix resolve --cc' then.`,
		Example: `  llamactl matrix gpu "NVIDIA GeForce RTX 4090"
  llamactl matrix gpu rtx 3060 laptop
  llamactl matrix gpu --json "Tesla V100-SXM2-32GB"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = strings.Join(args, " ")
			return runGPU(opts)
		},
	}
}

func runGPU(opts *gpuOptions) error {
	m, err := opts.lang.view(matrixOf(opts.Matrix), "gpu")
	if err != nil {
		return err
	}
	if strings.TrimSpace(opts.Name) == "" {
		return cmdutil.UsageErrorf("%s", m.Text("cli.error.gpu-empty"))
	}
	l := m.LookupGPU(opts.Name)
	doc := gpuDoc{Schema: 1, GPULookup: l}
	if l.Found {
		doc.CUDAArchitecture = strings.Replace(l.ComputeCapability, ".", "", 1) + "-real"
	}
	if opts.IO.JSON {
		if err := ui.WriteJSON(opts.IO.Out, doc); err != nil {
			return err
		}
	} else {
		p := ui.NewPrinter(opts.IO)
		if l.Found {
			var det []string
			if l.Name != l.Query {
				det = append(det, m.Text("cli.gpu-matched", "name", l.Name, "how", matchWords(m, l.Match)))
			}
			if l.Match == matrix.MatchShortForm && len(l.Closest) > 0 {
				det = append(det, m.Text("cli.gpu-also-same-cc", "list", strings.Join(l.Closest, ", ")))
			}
			det = append(det, m.Text("cli.gpu-build-for", "arch", doc.CUDAArchitecture))
			key := "cli.gpu-source"
			if l.Uncertain {
				key = "cli.gpu-source-uncertain"
			}
			det = append(det, m.Text(key, "source", l.Source))
			p.Line(ui.OK, m.Text("cli.gpu-found", "name", l.Name, "cc", l.ComputeCapability, "arch", l.Arch), det...)
		} else {
			var det []string
			if len(l.Closest) > 0 {
				det = append(det, m.Text("cli.gpu-closest", "list", strings.Join(l.Closest, "; ")))
			}
			det = append(det, m.Text("cli.gpu-how-to-cc"))
			p.Line(ui.Err, m.Text("cli.gpu-unknown", "query", opts.Name), det...)
		}
	}
	if !l.Found {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}

func matchWords(m *matrix.Matrix, match string) string {
	switch match {
	case matrix.MatchNormalized:
		return m.Text("cli.match-normalized")
	case matrix.MatchShortForm:
		return m.Text("cli.match-short-form")
	}
	return match
}
