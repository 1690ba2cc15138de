package runcmd

import (
	"fmt"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/runner/plan"
)

// run's plan, its reasons and runner-ups, in English and Chinese, fitting
// or not, against goldens (recorded when the plan moved onto the one
// finding printer, from the printer before it; -update rewrites them).
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
			golden(t, fmt.Sprintf("printplan-%s-fits-%v.txt", l, fits), got.String())
		}
	}
}
