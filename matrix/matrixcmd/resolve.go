package matrixcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/matrix"
)

type resolveOptions struct {
	IO     *ui.IOStreams
	Matrix *matrix.Matrix
	lang   *langOption

	GPUs, CCs, Toolkits []string
	Driver, OS, MSVC    string
	GCC, Clang, Engine  string
	AvailableGCC        []int
	AvailableMSVC       []string
}

func newResolveCmd(f *cmdutil.Factory, m *matrix.Matrix, l *langOption) *cobra.Command {
	opts := &resolveOptions{IO: f.IO, Matrix: m, lang: l}
	cmd := &cobra.Command{
		Use:   "resolve [--gpu NAME|--cc X.Y]... [--driver VER] [--os windows|linux|wsl] [--msvc 19.xx] [--gcc N] [--clang N] [--toolkit VER]...",
		Short: "Pick the CUDA version and CMAKE_CUDA_ARCHITECTURES for a machine, or say what blocks it",
		Long: `Weigh the GPUs, the driver, the OS, the host compiler and the installed CUDA
toolkits, and answer: which CUDA version to build llama.cpp with (an installed
one when it fits, else the newest that does), the CMAKE_CUDA_ARCHITECTURES
value (real SASS for every GPU), the host compiler nvcc should use, and every
blocker with its fix. Exit code 1 when something blocks the build.

'llamactl doctor' fills all of this in from the machine; this command is for
asking about another machine, or "what if".`,
		Example: `  llamactl matrix resolve --gpu "RTX 4090" --driver 560.94 --os windows --msvc 19.41
  llamactl matrix resolve --cc 8.6 --cc 6.1 --gcc 12 --toolkit 11.8.89
  llamactl matrix resolve --json --gpu "GTX 1080 Ti" --toolkit 13.0`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runResolve(opts) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.GPUs, "gpu", nil, "GPU name as nvidia-smi shows it, or a short form (repeatable)")
	fl.StringArrayVar(&opts.CCs, "cc", nil, "GPU compute capability X.Y, e.g. 8.9 (repeatable; wins over names)")
	fl.StringVar(&opts.Driver, "driver", "", "NVIDIA driver version, e.g. 560.94")
	fl.StringVar(&opts.OS, "os", "", "windows, linux or wsl (default: inferred from --msvc / --gcc)")
	fl.StringVar(&opts.MSVC, "msvc", "", "cl.exe version, e.g. 19.41 or 19.41.34123")
	fl.StringVar(&opts.GCC, "gcc", "", "gcc version nvcc would use, e.g. 12 or 12.2")
	fl.StringVar(&opts.Clang, "clang", "", "clang version nvcc would use, e.g. 17")
	fl.StringArrayVar(&opts.Toolkits, "toolkit", nil, "installed CUDA toolkit, e.g. 12.4 or 12.4.131 (repeatable)")
	fl.StringVar(&opts.Engine, "engine-min-cuda", "", "minimum CUDA of the pinned llama.cpp, e.g. 12.4")
	fl.StringArrayVar(&opts.AvailableMSVC, "available-msvc", nil, "other installed MSVC toolsets, e.g. 14.39 (repeatable; lets llamactl pick -vcvars_ver)")
	fl.IntSliceVar(&opts.AvailableGCC, "available-gcc", nil, "gcc majors installed besides the default, e.g. 11,12 (lets llamactl pick -ccbin)")
	return cmd
}

func (o *resolveOptions) query() matrix.Query {
	q := matrix.Query{Driver: o.Driver, OS: o.OS, MSVC: o.MSVC, GCC: o.GCC, Clang: o.Clang,
		Toolkits: o.Toolkits, EngineMinCUDA: o.Engine, AvailableGCC: o.AvailableGCC, AvailableMSVC: o.AvailableMSVC}
	for _, g := range o.GPUs {
		q.GPUs = append(q.GPUs, matrix.GPUQuery{Name: g})
	}
	for _, c := range o.CCs {
		q.GPUs = append(q.GPUs, matrix.GPUQuery{CC: c})
	}
	return q
}

func runResolve(opts *resolveOptions) error {
	// en answers --json; m (the --lang view) words the human output and
	// the errors. Resolve is deterministic, so both answers differ only in
	// their texts.
	en := matrixOf(opts.Matrix)
	m, err := opts.lang.view(en, "resolve")
	if err != nil {
		return err
	}
	switch strings.ToLower(opts.OS) {
	case "", "windows", "linux", "wsl":
	default:
		return cmdutil.UsageErrorf("%s", m.Text("cli.error.os", "os", opts.OS))
	}
	for _, c := range opts.CCs {
		if _, ok := matrix.NormalizeCC(c); !ok {
			return cmdutil.UsageErrorf("%s", m.Text("cli.error.cc", "cc", c))
		}
	}
	res := m.Resolve(opts.query())
	for _, b := range res.Blockers {
		if b.ID == matrix.BlockInvalidQueryArg {
			return cmdutil.UsageErrorf("%s\n%s", b.Message, b.Fix)
		}
	}
	if opts.IO.JSON {
		if m != en {
			res = en.Resolve(opts.query())
		}
		if err := ui.WriteJSON(opts.IO.Out, res); err != nil {
			return err
		}
	} else {
		printResolution(ui.NewPrinter(opts.IO), m, res, opts.IO.Verbose)
	}
	if !res.OK {
		return cmdutil.Exit(cmdutil.ExitFindings)
	}
	return nil
}

func printResolution(p *ui.Printer, m *matrix.Matrix, res matrix.Resolution, verbose bool) {
	if res.CUDA.Recommended != "" {
		key := "cli.build-with"
		if !res.OK {
			key = "cli.build-with-once-fixed"
		}
		head := m.Text(key, "cuda", res.CUDA.Recommended)
		if res.CUDAArchitectures != "" {
			head += m.Text("cli.build-with-archs", "archs", res.CUDAArchitectures)
		}
		if res.HostCompiler != "" {
			head += m.Text("cli.build-with-host", "host", res.HostCompiler)
		}
		if res.MSVCToolset != "" {
			head += m.Text("cli.build-with-toolset", "toolset", res.MSVCToolset)
		}
		st := ui.OK
		if !res.OK {
			st = ui.Warn
		}
		p.Line(st, head, res.Reasons...)
		if res.CUDAArchitectures == "" {
			p.Line(ui.Info, m.Text("cli.no-gpu"))
		}
		var also []string
		for _, c := range res.CUDA.Acceptable {
			if c.Version != res.CUDA.Recommended {
				s := c.Version
				if c.Installed {
					s = m.Text("cli.installed", "version", c.Version)
				}
				also = append(also, s)
			}
		}
		if len(also) > 6 {
			also = append(also[:6], m.Text("cli.and-older", "n", len(also)-6))
		}
		if len(also) > 0 {
			p.Line(ui.Info, m.Text("cli.also-fits", "list", strings.Join(also, ", ")))
		}
	}
	printBlockers(p, m, res.Blockers)
	// Why newer toolkits were left out is the advice people look for
	// ("why not CUDA 13?"); the full list is in --verbose and --json.
	for _, c := range rejectedNewer(res, verbose) {
		p.Line(ui.Skip, m.Text("cli.does-not-fit", "cuda", c.Version), c.Reasons...)
	}
}

// printBlockers prints what stops a working CUDA build with the one
// finding printer: the blocker, its fix and, marked, an unsupported last
// resort.
func printBlockers(p *ui.Printer, m *matrix.Matrix, bs []matrix.Blocker) {
	fs := make([]finding.Finding, len(bs))
	for i, b := range bs {
		fs[i] = b.Shared()
	}
	p.Findings(fs, ui.FindingOptions{
		FixLine: func(fix string) string { return m.Text("cli.fix", "fix", fix) },
		After: func(f finding.Finding) []string {
			if lr := f.Facts["last_resort_fix"]; lr != "" {
				return []string{m.Text("cli.last-resort", "fix", lr)}
			}
			return nil
		},
	}, false)
}

// rejectedNewer returns the rejected versions newer than the recommendation,
// one per minor family line, all of them with verbose.
func rejectedNewer(res matrix.Resolution, verbose bool) []matrix.Candidate {
	if verbose || res.CUDA.Recommended == "" {
		if verbose {
			return res.Rejected
		}
		return nil
	}
	// The newest rejected release of each major is enough for advice.
	var out []matrix.Candidate
	for i := len(res.Rejected) - 1; i >= 0; i-- {
		c := res.Rejected[i]
		if c.Installed || !newer(c.Version, res.CUDA.Recommended) {
			continue
		}
		if len(out) > 0 && major(out[len(out)-1].Version) == major(c.Version) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func major(v string) int {
	var m int
	fmt.Sscanf(v, "%d", &m)
	return m
}

func newer(a, b string) bool {
	var a1, a2, b1, b2 int
	fmt.Sscanf(a, "%d.%d", &a1, &a2)
	fmt.Sscanf(b, "%d.%d", &b1, &b2)
	return a1 > b1 || a1 == b1 && a2 > b2
}
