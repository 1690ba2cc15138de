// Package probecmd is `llamactl probe`: compile and run the probe kernels
// with the toolchain a build would use, and the hidden `__probe opencl`
// child that loads the OpenCL ICDs outside llamactl's own process.
package probecmd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/finding"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/kernels"
	"github.com/llamactl/llamactl/kernels/opencl"
	"github.com/llamactl/llamactl/machine"
)

// Options are the command's flags and seams.
type Options struct {
	F         *cmdutil.Factory
	Overrides kernels.Overrides
	Only      string // "", "cuda" or "opencl"
	// Gather and Select are doctor's; tests replace them with a recorded snapshot.
	Gather func(context.Context) *machine.Snapshot
	Select func(*machine.Snapshot) doctor.Selection
	// Timeouts, when set, replace kernels.DefaultTimeouts (tests).
	Timeouts *kernels.Timeouts
	// Lang is --lang: the language of the human output (zh-CN, en).
	Lang string
}

// NewCmd builds `llamactl probe`; runF, when given, replaces the run
// function (a test captures the parsed Options with it).
func NewCmd(f *cmdutil.Factory, runF ...func(*Options) error) *cobra.Command {
	opts := &Options{F: f,
		Gather: func(ctx context.Context) *machine.Snapshot { return probe.Gather(ctx, probe.System(f.Env())) },
		Select: doctor.Select,
	}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Compile and run tiny CUDA and OpenCL kernels with the toolchain a build would use",
		Long: `Compile, link, load, run and verify a tiny CUDA kernel with exactly the nvcc,
host compiler (-ccbin) and -gencode architectures 'llamactl build' would use, and
build and run an OpenCL kernel on every OpenCL device. Each stage is reported on
its own, with the failure's ID and the fix.

The flags override doctor's selection, e.g. to check a CI image:

  llamactl probe --nvcc /usr/bin/nvcc --ccbin g++-11 --arch sm_89
  llamactl probe --arch "86-real;89-real"   # quote the ; in a shell
  llamactl probe --only opencl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(runF) > 0 && runF[0] != nil {
				return runF[0](opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Overrides.NVCC, "nvcc", "", "nvcc to use instead of the selected toolkit's")
	fl.StringVar(&opts.Overrides.CCBin, "ccbin", "", "host compiler for nvcc (-ccbin) instead of the selected one")
	fl.StringVar(&opts.Overrides.Arch, "arch", "", "architectures: sm_89, compute_90, 89, 86-real;89-real (CMake spelling; quote it in a shell)")
	fl.StringVar(&opts.Only, "only", "", "run only one probe: cuda or opencl")
	cmdutil.AddLangFlag(cmd, &opts.Lang)
	return cmd
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// texts is probe's own sentences (data/text.en.json) in l.
func texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

// ReportDoc is the --json document.
type ReportDoc = kernels.Report

func run(ctx context.Context, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	l, err := o.F.ChooseLang(o.Lang, "llamactl probe --lang zh-CN")
	if err != nil {
		return err
	}
	if o.F.IO.JSON {
		l = lang.EN
	}
	t := texts(l)
	switch o.Only {
	case "", "cuda", "opencl":
	default:
		return cmdutil.UsageErrorf("%s", t.T("err.only", "value", fmt.Sprintf("%q", o.Only)))
	}
	if o.Overrides.Arch != "" {
		if _, err := kernels.ParseArchList(o.Overrides.Arch); err != nil {
			return cmdutil.UsageErrorf("%s", t.T("err.arch", "err", err))
		}
	}
	snap := o.Gather(ctx)
	sel := o.Select(snap)
	rep, err := kernels.Run(ctx, o.F.Env(), snap, sel, kernels.Options{
		Overrides:  o.Overrides,
		SkipCUDA:   o.Only == "opencl",
		SkipOpenCL: o.Only == "cuda",
		Timeouts:   o.Timeouts,
	})
	if ie := (*kernels.InputError)(nil); errors.As(err, &ie) {
		return cmdutil.UsageError(err)
	} else if err != nil {
		return err
	}
	if o.F.IO.JSON {
		if err := ui.WriteJSON(o.F.IO.Out, rep); err != nil {
			return err
		}
	} else {
		render(o.F, t, kernels.NewTranslator(l), rep)
	}
	for _, f := range rep.Findings {
		if f.Status == kernels.Error {
			return cmdutil.Exit(cmdutil.ExitFindings)
		}
	}
	return nil
}

func render(f *cmdutil.Factory, t *lang.Catalog, kt *kernels.Translator, rep kernels.Report) {
	p := ui.NewPrinter(f.IO)
	if c := rep.CUDA; c != nil {
		p.Heading(t.T("heading.cuda"))
		host := c.Plan.CCBin
		if host == "" {
			host = t.T("nvcc-default")
		}
		p.Printf("%s\n", t.T("nvcc", "version", c.NVCCVersion, "path", c.Plan.NVCC, "host", host, "archs", kernels.ArchList(c.Plan.Archs)))
		if f.IO.Verbose {
			for _, g := range c.Plan.Gencodes() {
				p.Printf("  %s\n", g)
			}
		}
		stages(p, t, kt, f.IO.Verbose, rep.Stages, "cuda")
		for _, d := range c.Devices {
			p.Printf("%s\n", t.T("device", "index", d.Index, "name", d.Name, "cc", d.CC, "mem", d.MemMiB))
		}
		p.Println()
	}
	if rep.OpenCL != nil || hasKind(rep.Stages, "opencl") {
		p.Heading(t.T("heading.opencl"))
		if o := rep.OpenCL; o != nil {
			for _, pl := range o.Platforms {
				p.Printf("%s\n", t.T("platform", "name", pl.Name, "vendor", pl.Vendor, "version", pl.Version))
				for _, d := range pl.Devices {
					p.Printf("  %s\n", t.T("cl-device", "name", d.Name, "type", d.Type, "c", d.OpenCLCVersion, "mem", d.GlobalMemMiB))
				}
				if pl.Error != "" {
					p.Printf("  %s\n", pl.Error)
				}
			}
		}
		stages(p, t, kt, f.IO.Verbose, rep.Stages, "opencl")
		p.Println()
	}
	p.Heading(t.T("heading.findings"))
	p.Findings(rep.Findings, ui.FindingOptions{
		// The stages above already show each stage's detail: a finding
		// names only its failure ID.
		Translator: finding.TranslatorFunc(func(fd finding.Finding) finding.Finding {
			fd = kt.Finding(fd)
			fd.Details = nil
			if fd.FailureID != "" {
				fd.Details = []string{t.T("failure", "id", fd.FailureID)}
			}
			return fd
		}),
		FixLine:       func(text string) string { return t.T("fix", "text", text) },
		CommandPrefix: "  ",
	}, false)
}

func hasKind(ss []kernels.StageResult, kind string) bool {
	for _, s := range ss {
		if s.Kind == kind {
			return true
		}
	}
	return false
}

func stages(p *ui.Printer, t *lang.Catalog, kt *kernels.Translator, verbose bool, ss []kernels.StageResult, kind string) {
	for _, s := range ss {
		if s.Kind != kind {
			continue
		}
		st := ui.OK
		switch {
		case s.Skipped:
			st = ui.Skip
		case !s.OK && s.Stage == kernels.StageAccept:
			st = ui.Warn
		case !s.OK:
			st = ui.Err
		}
		text := kt.Stage(s.Stage)
		if s.Device != "" {
			text = t.T("stage-on", "stage", text, "device", s.Device)
		}
		if s.Detail != "" {
			text += ": " + kt.StageDetail(s.Detail)
		}
		if verbose && s.Duration > 0 {
			text += fmt.Sprintf(" (%s)", s.Duration.Round(1e7))
		}
		var details []string
		if s.Excerpt != "" {
			details = append(details, s.Excerpt)
		}
		if s.Metrics != nil {
			details = append(details, t.T("bandwidth", "device", fmt.Sprintf("%.1f", s.Metrics["device_gbps"]), "h2d", fmt.Sprintf("%.1f", s.Metrics["h2d_gbps"]), "d2h", fmt.Sprintf("%.1f", s.Metrics["d2h_gbps"])))
		}
		if verbose && s.Command != "" {
			details = append(details, "$ "+s.Command)
		}
		if verbose && s.Output != "" {
			details = append(details, s.Output)
		}
		p.Line(st, text, details...)
	}
}

// WithOpenCLChild makes the hidden `__probe` command (doctor's, for nvml)
// also answer `__probe opencl`, so both native probes share one hidden
// command and each package keeps its own code.
func WithOpenCLChild(f *cmdutil.Factory, c *cobra.Command) *cobra.Command {
	inner := c.RunE
	c.Short = strings.TrimSuffix(c.Short, ")") + "; opencl: kernels)"
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 && args[0] == "opencl" {
			return ui.WriteJSON(f.IO.Out, opencl.Run())
		}
		if len(args) == 1 && args[0] != "nvml" {
			return cmdutil.UsageErrorf("unknown probe %q: the probes are nvml and opencl (llamactl __probe opencl)", args[0])
		}
		return inner(cmd, args)
	}
	return c
}
