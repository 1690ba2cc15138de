// Package matrixcmd is `llamactl matrix`: questions to the CUDA
// compatibility matrix (GPU → compute capability, toolkit facts, resolve).
package matrixcmd

import (
	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/matrix"
)

// NewCmd builds `llamactl matrix` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Look up a GPU's compute capability, a CUDA toolkit's needs, or which CUDA to use",
		Long: `Ask the built-in CUDA compatibility matrix, the facts llamactl builds with.

  llamactl matrix gpu "RTX 4060 Laptop GPU"      compute capability of a GPU
  llamactl matrix cuda 12.4                      what CUDA 12.4 needs and supports
  llamactl matrix resolve --gpu "RTX 4090" --driver 560.94 --msvc 19.41
                                                 which CUDA and CMAKE_CUDA_ARCHITECTURES to use

Every fact names its source; see docs/matrix.md.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	l := &langOption{getenv: f.Getenv}
	cmd.PersistentFlags().StringVar(&l.flag, "lang", "", "language of the human output: zh-CN or en (default: LLAMACTL_LANG, then LC_ALL/LC_MESSAGES/LANG); --json always stays English")
	cmd.AddCommand(newGPUCmd(f, nil, l), newCUDACmd(f, nil, l), newResolveCmd(f, nil, l))
	return cmd
}

// langOption is the --lang flag all subcommands share, with the
// environment it falls back to (internal/lang, as doctor does).
type langOption struct {
	flag   string
	getenv func(string) string
}

// view is m in the language of the human output. --json output uses m
// itself: its texts stay English whatever the language.
func (l *langOption) view(m *matrix.Matrix, sub string) (*matrix.Matrix, error) {
	if l == nil {
		return m, nil
	}
	code, err := lang.Choose(l.flag, l.getenv, "llamactl matrix "+sub+" --lang zh-CN")
	if err != nil {
		return nil, cmdutil.UsageError(err)
	}
	if code == lang.EN {
		return m, nil
	}
	return m.WithLang(code), nil
}

// matrixOf lets tests hand in a matrix loaded from testdata.
func matrixOf(m *matrix.Matrix) *matrix.Matrix {
	if m != nil {
		return m
	}
	return matrix.Default()
}
