package runcmd

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/shellquote"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/plan"
)

// legacyPrintPlan is printPlan before the plan and its runner-ups went
// through the one finding printer (ui.Printer.Finding), kept to prove the
// bytes unchanged.
func legacyPrintPlan(f *cmdutil.Factory, o *Options, d Doc) {
	t, pt := o.t, o.pt
	p := ui.NewPrinter(f.IO)
	pl := d.Plan
	p.Heading(ui.Safe(t.T("plan.heading", "file", filepath.Base(d.Model.Path), "arch", d.Model.Architecture, "layers", d.Model.Layers, "size", fmt.Sprintf("%.0f", d.Model.SizeMiB)), true))
	status := ui.OK
	if !d.Fits {
		status = ui.Err
	}
	reasons := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		reasons[i] = pt.Line(r)
	}
	p.Line(status, fmt.Sprintf("-ngl %d  -c %d  -b %d  -ub %d  -t %d  -fa %s  KV %s/%s", pl.NGL, pl.Ctx, pl.Batch, pl.UBatch, pl.Threads, pl.FlashAttn, pl.CacheK, pl.CacheV), reasons...)
	rows := [][]string{{t.T("table.host"), f1(d.Predicted.Host.ModelMiB), f1(d.Predicted.Host.ContextMiB), f1(d.Predicted.Host.ComputeMiB), fmt.Sprintf("%d", d.Predicted.HostFreeMiB)}}
	for _, dv := range d.Predicted.Devices {
		rows = append(rows, []string{ui.Safe(dv.ID+" "+dv.Name, true), f1(dv.ModelMiB), f1(dv.ContextMiB), f1(dv.ComputeMiB), fmt.Sprintf("%d", dv.FreeMiB)})
	}
	p.Table([]string{t.T("table.predicted"), t.T("table.model"), t.T("table.context"), t.T("table.compute"), t.T("table.free")}, rows)
	if len(d.Alternatives) > 0 {
		p.Println(pt.T("run.runner-ups"))
		for _, a := range d.Alternatives {
			tot := a.Predicted.Host.Total()
			for _, dv := range a.Predicted.Devices {
				tot += dv.Total()
			}
			st := ui.Skip
			if !a.Fits {
				st = ui.Err
			}
			p.Line(st, fmt.Sprintf("-ngl %d -c %d KV %s: %.0f MiB: %s", a.Plan.NGL, a.Plan.Ctx, a.Plan.CacheK, tot, pt.Line(a.Why)))
		}
	}
	p.Println(ui.Safe(t.T("engine", "path", d.Engine.Path, "version", d.Engine.Version), true))
	// Quoted for this machine's shell, so it can be pasted and run as is.
	p.Println(ui.Safe(t.T("command", "command", shellquote.Line(runtime.GOOS, filepath.Base(d.Engine.Path), d.Argv...)), true))
}

// run's plan, its reasons and runner-ups print byte for byte as before, in
// English and Chinese, fitting or not.
func TestPrintPlanBytesUnchanged(t *testing.T) {
	d := Doc{Engine: EngineDoc{Path: "/opt/llama/llama-server", Version: "b5000"},
		Model:   ModelDoc{Path: "/m/tiny.gguf", Architecture: "llama", Layers: 22, SizeMiB: 638},
		Plan:    plan.Plan{NGL: 99, Ctx: 4096, Batch: 2048, UBatch: 512, Threads: 8, FlashAttn: "auto", CacheK: "f16", CacheV: "f16"},
		Argv:    []string{"-m", "/m/tiny.gguf", "-ngl", "99"},
		Reasons: []string{"the whole model fits in GPU memory", "context 4096 (the model's training context is 2048)"},
		Alternatives: []plan.Alternative{{Plan: plan.Plan{NGL: 20, Ctx: 8192, CacheK: "q8_0"}, Fits: true, Why: "fewer layers on the GPU"},
			{Plan: plan.Plan{NGL: 99, Ctx: 32768, CacheK: "f16"}, Fits: false, Why: "does not fit"}},
		Fits: true}
	for _, l := range []string{lang.EN, lang.ZhCN} {
		for _, fits := range []bool{true, false} {
			d.Fits = fits
			f, got, _ := cmdutil.NewTest(nil, nil)
			o := &Options{t: texts(l), pt: plan.Texts(l)}
			printPlan(f, o, d)
			g, want, _ := cmdutil.NewTest(nil, nil)
			legacyPrintPlan(g, o, d)
			if got.String() != want.String() {
				t.Errorf("%s fits %v:\n got:\n%s\nwant:\n%s", l, fits, got, want)
			}
		}
	}
}
