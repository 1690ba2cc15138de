package matrixcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/matrix"
)

type cudaOptions struct {
	IO      *ui.IOStreams
	Matrix  *matrix.Matrix
	Version string
}

func newCUDACmd(f *cmdutil.Factory, m *matrix.Matrix) *cobra.Command {
	opts := &cudaOptions{IO: f.IO, Matrix: m}
	return &cobra.Command{
		Use:   "cuda VERSION",
		Short: "What a CUDA toolkit needs (driver, host compiler) and which GPUs it can target",
		Long: `Show one CUDA toolkit's facts: the driver it ships with (NVIDIA Table 3),
the driver floor of its major family (minor-version compatibility), the real
sm_ targets nvcc accepts, deprecated targets, the gcc/clang/MSVC versions its
host_config.h accepts, and which MSVC STL releases accept it.

VERSION is a release ("12.4.1" = 12.4 Update 1), a minor ("12.4", its newest
update) or what nvcc --version prints ("12.4.131").`,
		Example: `  llamactl matrix cuda 12.4
  llamactl matrix cuda --json 13.0.2`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Version = args[0]
			return runCUDA(opts)
		},
	}
}

func runCUDA(opts *cudaOptions) error {
	m := matrixOf(opts.Matrix)
	t, ok := m.Toolkit(opts.Version)
	if !ok {
		return cmdutil.UsageErrorf("CUDA %q is not a toolkit version the matrix knows (known: %s)\nRun 'llamactl matrix cuda 12.4', or 'nvcc --version' to see the installed one.",
			opts.Version, strings.Join(m.Minors(), " "))
	}
	r := m.Report(opts.Version, t)
	if opts.IO.JSON {
		return ui.WriteJSON(opts.IO.Out, r)
	}
	p := ui.NewPrinter(opts.IO)
	p.Heading(fmt.Sprintf("CUDA %s (%s)", r.Version, r.Label))
	rows := [][]string{}
	drv := func(s string) string {
		if s == "" {
			return "N/A"
		}
		return "≥ " + s
	}
	rows = append(rows, []string{"driver for everything (Table 3)", "Linux " + drv(r.Driver.Linux) + ", Windows " + drv(r.Driver.Windows)})
	rows = append(rows, []string{fmt.Sprintf("driver floor (%d.x family)", r.FamilyFloor.Major), "Linux ≥ " + r.FamilyFloor.Linux + ", Windows ≥ " + r.FamilyFloor.Windows + " (limited features, no PTX JIT)"})
	rows = append(rows, []string{"real GPU targets", strings.Join(r.SM, " ")})
	if len(r.DeprecatedSM) > 0 {
		rows = append(rows, []string{"deprecated (warns)", strings.Join(r.DeprecatedSM, " ")})
	}
	if len(r.ArchSpecific) > 0 {
		rows = append(rows, []string{"arch-specific targets", strings.Join(r.ArchSpecific, " ")})
	}
	rows = append(rows, []string{"gcc", hostText(r.GCC)}, []string{"clang", hostText(r.Clang)})
	if r.MSVC != nil {
		rows = append(rows, []string{"MSVC (cl.exe)", fmt.Sprintf("%s to %s (_MSC_VER %d ≤ v < %d)", r.MSVC.CLMin, r.MSVC.CLMax, r.MSVC.MSCVerMin, r.MSVC.MSCVerMaxExclusive)})
	} else {
		rows = append(rows, []string{"MSVC (cl.exe)", "not in the sources"})
	}
	var refuse []string
	for _, s := range r.STL {
		if !s.Accepts {
			refuse = append(refuse, fmt.Sprintf("%s (needs CUDA ≥ %s)", s.Release, s.RequiresCUDA))
		}
	}
	if len(refuse) > 0 {
		rows = append(rows, []string{"MSVC STL refuses it", strings.Join(refuse, "; ")})
	}
	p.Table([]string{"fact", "value"}, rows)
	if r.Uncertain && len(r.UncertainFields) > 0 {
		p.Line(ui.Warn, "uncertain in the sources: "+strings.Join(r.UncertainFields, ", "), r.UncertainReasons...)
	}
	if r.Notes != "" {
		p.Line(ui.Info, r.Notes)
	}
	if opts.IO.Verbose {
		p.Line(ui.Info, "sources", r.Sources...)
	} else {
		p.Println(p.Dim("source: " + r.Source + " (--verbose lists all)"))
	}
	return nil
}

func hostText(h *matrix.HostLimit) string {
	if h == nil {
		return "not in the sources"
	}
	s := fmt.Sprintf("up to major %d", h.MaxMajor)
	if h.Documented != "" && h.Documented != fmt.Sprint(h.MaxMajor) {
		s += fmt.Sprintf(" (documented: %s)", h.Documented)
	}
	if h.Inferred {
		s += " (inferred from neighbouring releases)"
	}
	return s
}
