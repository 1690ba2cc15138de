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
	lang    *langOption
	Version string
}

func newCUDACmd(f *cmdutil.Factory, m *matrix.Matrix, l *langOption) *cobra.Command {
	opts := &cudaOptions{IO: f.IO, Matrix: m, lang: l}
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
	m, err := opts.lang.view(matrixOf(opts.Matrix), "cuda")
	if err != nil {
		return err
	}
	tk, ok := m.Toolkit(opts.Version)
	if !ok {
		return cmdutil.UsageErrorf("%s", m.Text("cli.cuda.unknown-version", "version", opts.Version, "known", strings.Join(m.Minors(), " ")))
	}
	r := m.Report(opts.Version, tk)
	if opts.IO.JSON {
		return ui.WriteJSON(opts.IO.Out, r)
	}
	p := ui.NewPrinter(opts.IO)
	t := m.Text
	p.Heading(t("cli.cuda.heading", "version", r.Version, "label", r.Label))
	rows := [][]string{}
	drv := func(s string) string {
		if s == "" {
			return t("cli.cuda.na")
		}
		return "≥ " + s
	}
	rows = append(rows, []string{t("cli.cuda.driver"), t("cli.cuda.driver-value", "linux", drv(r.Driver.Linux), "windows", drv(r.Driver.Windows))})
	rows = append(rows, []string{t("cli.cuda.floor", "major", r.FamilyFloor.Major), t("cli.cuda.floor-value", "linux", r.FamilyFloor.Linux, "windows", r.FamilyFloor.Windows)})
	rows = append(rows, []string{t("cli.cuda.targets"), strings.Join(r.SM, " ")})
	if len(r.DeprecatedSM) > 0 {
		rows = append(rows, []string{t("cli.cuda.deprecated"), strings.Join(r.DeprecatedSM, " ")})
	}
	if len(r.ArchSpecific) > 0 {
		rows = append(rows, []string{t("cli.cuda.arch-specific"), strings.Join(r.ArchSpecific, " ")})
	}
	rows = append(rows, []string{"gcc", hostText(m, r.GCC)}, []string{"clang", hostText(m, r.Clang)})
	if r.MSVC != nil {
		rows = append(rows, []string{t("cli.cuda.msvc"), t("cli.cuda.msvc-value", "min", r.MSVC.CLMin, "max", r.MSVC.CLMax, "msc_min", r.MSVC.MSCVerMin, "msc_max", r.MSVC.MSCVerMaxExclusive)})
	} else {
		rows = append(rows, []string{t("cli.cuda.msvc"), t("cli.cuda.unknown")})
	}
	var refuse []string
	for _, s := range r.STL {
		if !s.Accepts {
			refuse = append(refuse, t("cli.cuda.stl-needs", "release", s.Release, "need", s.RequiresCUDA))
		}
	}
	if len(refuse) > 0 {
		rows = append(rows, []string{t("cli.cuda.stl"), strings.Join(refuse, "; ")})
	}
	p.Table([]string{t("cli.cuda.fact"), t("cli.cuda.value")}, rows)
	if r.Uncertain && len(r.UncertainFields) > 0 {
		reasons := make([]string, len(r.UncertainReasons))
		for i, s := range r.UncertainReasons {
			reasons[i] = m.Note(s)
		}
		p.Line(ui.Warn, t("cli.cuda.uncertain", "fields", strings.Join(r.UncertainFields, ", ")), reasons...)
	}
	if r.Notes != "" {
		p.Line(ui.Info, m.Note(r.Notes))
	}
	if opts.IO.Verbose {
		p.Line(ui.Info, t("cli.cuda.sources"), r.Sources...)
	} else {
		p.Println(p.Dim(t("cli.cuda.source", "source", r.Source)))
	}
	return nil
}

func hostText(m *matrix.Matrix, h *matrix.HostLimit) string {
	if h == nil {
		return m.Text("cli.cuda.unknown")
	}
	s := m.Text("cli.cuda.host-max", "max", h.MaxMajor)
	if h.Documented != "" && h.Documented != fmt.Sprint(h.MaxMajor) {
		s += m.Text("cli.cuda.host-documented", "documented", h.Documented)
	}
	if h.Inferred {
		s += m.Text("note.inferred")
	}
	return s
}
