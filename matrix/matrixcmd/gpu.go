package matrixcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/matrix"
)

type gpuOptions struct {
	IO     *ui.IOStreams
	Matrix *matrix.Matrix
	Name   string
}

// gpuDoc is the --json document of `matrix gpu` (schema 1).
type gpuDoc struct {
	Schema int `json:"schema"`
	matrix.GPULookup
	CUDAArchitecture string `json:"cuda_architecture,omitempty"` // "89-real"
}

func newGPUCmd(f *cmdutil.Factory, m *matrix.Matrix) *cobra.Command {
	opts := &gpuOptions{IO: f.IO, Matrix: m}
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
	if strings.TrimSpace(opts.Name) == "" {
		return cmdutil.UsageErrorf("the GPU name is empty\nRun 'llamactl matrix gpu \"NVIDIA GeForce RTX 4090\"', or 'nvidia-smi -L' to see your GPU's name.")
	}
	m := matrixOf(opts.Matrix)
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
				det = append(det, "matched "+l.Name+" ("+matchWords(l.Match)+")")
			}
			if l.Match == matrix.MatchShortForm && len(l.Closest) > 0 {
				det = append(det, "also the same CC: "+strings.Join(l.Closest, ", "))
			}
			det = append(det, "build for it with CMAKE_CUDA_ARCHITECTURES="+doc.CUDAArchitecture)
			src := "source: " + l.Source
			if l.Uncertain {
				src += " (marked uncertain in the data)"
			}
			det = append(det, src)
			p.Line(ui.OK, fmt.Sprintf("%s has compute capability %s (%s)", l.Name, l.ComputeCapability, l.Arch), det...)
		} else {
			var det []string
			if len(l.Closest) > 0 {
				det = append(det, "closest: "+strings.Join(l.Closest, "; "))
			}
			det = append(det, "nvidia-smi --query-gpu=name,compute_cap --format=csv shows the CC; then: llamactl matrix resolve --cc X.Y")
			p.Line(ui.Err, fmt.Sprintf("%q is not a GPU the matrix can name with certainty", opts.Name), det...)
		}
	}
	if !l.Found {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}

func matchWords(m string) string {
	switch m {
	case matrix.MatchNormalized:
		return "same name up to case and vendor words"
	case matrix.MatchShortForm:
		return "short form; every GPU it can mean has this CC"
	}
	return m
}
