package runcmd

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/plan"
)

// fitParams asks llama.cpp's own fitter (llama-fit-params) for -ngl at the
// given context, keeping marginMiB free on the device (--fit-target).
func fitParams(b *testing.B, dir, model string, ctx uint64, marginMiB int) int {
	b.Helper()
	cmd := exec.Command(filepath.Join(dir, "llama-fit-params"), "-m", model, "-c", fmt.Sprint(ctx), "--fit-target", fmt.Sprint(marginMiB))
	cmd.Env = os.Environ()
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("llama-fit-params: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "-ngl" {
			n, err := strconv.Atoi(f[i+1])
			if err == nil {
				return n
			}
		}
	}
	b.Fatalf("llama-fit-params printed no -ngl: %q", out)
	return 0
}

// tokensPerSecond runs the model with -ngl pinned (everything else as run
// chooses) and returns the generation speed; an out-of-memory retry fails.
func tokensPerSecond(b *testing.B, dir, model string, ngl int, ctx uint64) float64 {
	b.Helper()
	o, out := realOptions(b, dir, model)
	o.Cache.Dir = b.TempDir()
	o.NGL, o.Ctx, o.Prompt, o.NPredict, o.ReadyTimeout = ngl, ctx, "Hello", 16, 4*time.Minute
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := Run(c, o); err != nil {
		b.Fatalf("-ngl %d: %v", ngl, err)
	}
	d := decodeDoc(b, out.String())
	if len(d.Attempts) != 1 || d.Completion == nil {
		b.Fatalf("-ngl %d ran out of memory or answered nothing: attempts %+v", ngl, d.Attempts)
	}
	return d.Completion.TokensPerSecond
}

// BenchmarkRealVulkanPlanVsFitParams compares, at equal safety (both keep
// the same margin free and neither runs out of memory), the layers run's
// plan offloads and its tokens/s with llama.cpp's llama-fit-params choice,
// on the Vulkan device capped at several sizes.
//
//	LLAMACTL_REAL_ENGINES=1 go test ./runner/runcmd -run XXX -bench PlanVsFitParams -benchtime 1x
func BenchmarkRealVulkanPlanVsFitParams(b *testing.B) {
	testutil.RealEngines(b)
	dir := testutil.VulkanEngineDir(b)
	model := genModel(b, b.TempDir(), vulkanModels()[0])
	for _, capMiB := range []int{48, 64} {
		b.Run(fmt.Sprintf("cap%d", capMiB), func(b *testing.B) {
			b.Setenv("VK_FAKE_TOTAL_MIB", fmt.Sprint(capMiB))
			o, out := realOptions(b, dir, model)
			o.DryRun = true
			if err := Run(context.Background(), o); err != nil {
				b.Fatal(err)
			}
			d := decodeDoc(b, out.String())
			vk := plan.Coef().Backend("Vulkan0")
			margin := int(math.Ceil(math.Max(vk.MarginMiB, vk.MarginFraction*float64(capMiB)) + vk.OverheadMiB))
			fitNGL := fitParams(b, dir, model, d.Plan.Ctx, margin)
			for i := 0; i < b.N; i++ {
				ours := tokensPerSecond(b, dir, model, d.Plan.NGL, d.Plan.Ctx)
				theirs := tokensPerSecond(b, dir, model, fitNGL, d.Plan.Ctx)
				b.ReportMetric(float64(d.Plan.NGL), "layers_run")
				b.ReportMetric(float64(fitNGL), "layers_fit")
				b.ReportMetric(ours, "tok/s_run")
				b.ReportMetric(theirs, "tok/s_fit")
				b.Logf("cap %d MiB, ctx %d, margin %d MiB: run -ngl %d %.2f tok/s; llama-fit-params -ngl %d %.2f tok/s",
					capMiB, d.Plan.Ctx, margin, d.Plan.NGL, ours, fitNGL, theirs)
			}
		})
	}
}
