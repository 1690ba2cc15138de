package runcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/plan"
)

// Real GPU-type backend: sid's ggml-vulkan on Mesa lavapipe, the device
// capped with VK_FAKE_TOTAL_MIB (scripts/deps.d/40-vk-engine.sh's shim).
// Run by scripts/stages/40-real-engines.sh.

// deviceTolerance is the acceptance rule for device memory: 2 % or 8 MiB.
func deviceTolerance(pred, act float64) bool {
	d := math.Abs(pred - act)
	return d <= 8 || d <= 0.02*act
}

func vulkanModels() []ggufwrite.Config {
	return []ggufwrite.Config{
		{Arch: "llama", Layers: 8, Embd: 512, FF: 1536, Vocab: 4096, Type: "Q8_0"},
		{Arch: "gemma3", Layers: 6, Embd: 512, FF: 1024, Vocab: 4096, Type: "Q8_0"}, // sliding window, tied output
	}
}

// runVulkan runs llamactl run --prompt on the Vulkan engine with the device
// capped at capMiB and returns its --json document.
func runVulkan(t *testing.T, dir, model string, capMiB int) (Doc, error) {
	t.Helper()
	t.Setenv("VK_FAKE_TOTAL_MIB", fmt.Sprint(capMiB))
	o, out := realOptions(t, dir, model)
	o.Prompt, o.NPredict = "Hello", 4
	o.ReadyTimeout = 4 * time.Minute // shaders compile on first use
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err := Run(ctx, o)
	var d Doc
	if err == nil {
		if jerr := json.Unmarshal([]byte(out.String()), &d); jerr != nil {
			t.Fatalf("%v\n%s", jerr, out)
		}
	}
	return d, err
}

// Every plan at several device sizes loads without running out of device
// memory, and the device memory predicted (model, context, compute: also
// the compute buffer the engine puts on the GPU at -ngl 0) is within 2 %
// or 8 MiB of what the engine reports.
func TestRealVulkanPlansFit(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	mdir := t.TempDir()
	for _, cfg := range vulkanModels() {
		model := genModel(t, mdir, cfg)
		for _, capMiB := range []int{512, 64, 27, 16} {
			t.Run(fmt.Sprintf("%s-cap%d", cfg.Arch, capMiB), func(t *testing.T) {
				d, err := runVulkan(t, dir, model, capMiB)
				if err != nil {
					t.Fatalf("run failed at a %d MiB device: %v", capMiB, err)
				}
				if len(d.Attempts) != 1 {
					t.Errorf("the plan ran out of device memory: attempts %+v", d.Attempts)
				}
				if d.Completion == nil || d.Completion.TokensPredicted != 4 {
					t.Errorf("completion %+v", d.Completion)
				}
				if len(d.Predicted.Devices) != 1 || d.Actual == nil {
					t.Fatalf("devices %+v, actual %+v", d.Predicted.Devices, d.Actual)
				}
				p := d.Predicted.Devices[0]
				a := d.Actual.Devices[p.ID]
				t.Logf("cap %d MiB: -ngl %d -c %d KV %s; %s MiB predicted/engine: model %.2f/%.2f context %.2f/%.2f compute %.2f/%.2f",
					capMiB, d.Plan.NGL, d.Plan.Ctx, d.Plan.CacheK, p.ID, p.ModelMiB, a.ModelMiB, p.ContextMiB, a.ContextMiB, p.ComputeMiB, a.ComputeMiB)
				for _, c := range []struct {
					n    string
					p, a float64
				}{{"model", p.ModelMiB, a.ModelMiB}, {"context", p.ContextMiB, a.ContextMiB}, {"compute", p.ComputeMiB, a.ComputeMiB}} {
					if !deviceTolerance(c.p, c.a) {
						t.Errorf("%s %s: predicted %.2f MiB, engine %.2f MiB", p.ID, c.n, c.p, c.a)
					}
				}
				// The host's compute: the staging buffer the engine puts in the
				// device's pinned host memory (Vulkan_Host compute: the graph's
				// inputs) and the output rows. The rule, and the
				// model's own precision on this engine (its fit: 0.02 MiB).
				if !d.Plan.NoOpOffload {
					hp, ha := d.Predicted.Host.ComputeMiB, d.Actual.Host.ComputeMiB
					t.Logf("host compute (Vulkan_Host staging + output) predicted/engine %.2f/%.2f MiB (buffers %v)", hp, ha, hostCompute(d.Actual.Buffers))
					if !deviceTolerance(hp, ha) || math.Abs(hp-ha) > 0.1 {
						t.Errorf("host compute: predicted %.2f MiB, engine %.2f MiB", hp, ha)
					}
				}
				if d.Plan.NGL == 0 && !d.Plan.NoOpOffload && a.ComputeMiB == 0 {
					t.Errorf("-ngl 0: the engine reported no compute buffer on %s; the test proves nothing about it", p.ID)
				}
				if a.Total() > float64(capMiB) {
					t.Errorf("the engine used %.1f MiB on a %d MiB device", a.Total(), capMiB)
				}
			})
		}
	}
}

// Out-of-memory recovery for real: the device reports 512 MiB free but a
// launch can allocate only 48 MiB. The first plan fails in the engine;
// run plans again for what the device held and says why.
func TestRealVulkanOOMRecovery(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	model := genModel(t, t.TempDir(), vulkanModels()[0])
	t.Setenv("VK_PROBE_TOTAL_MIB", "512")
	d, err := runVulkan(t, dir, model, 48)
	if err != nil {
		t.Fatalf("run did not recover: %v", err)
	}
	if len(d.Attempts) < 2 || d.Attempts[0].OOM == nil {
		t.Fatalf("the first plan did not run out of memory (attempts %+v): the test proves nothing", d.Attempts)
	}
	last := d.Attempts[len(d.Attempts)-2]
	if !strings.Contains(last.Change, "Vulkan0") || !strings.Contains(last.Change, "512 MiB free") {
		t.Errorf("the retry does not say why: %q", last.Change)
	}
	if d.Completion == nil || d.Completion.TokensPredicted != 4 {
		t.Errorf("completion %+v", d.Completion)
	}
	t.Logf("recovered in %d attempts: %s; final -ngl %d", len(d.Attempts), last.Change, d.Plan.NGL)
}

// The margin run keeps free on a Vulkan device is measured, not assumed:
// the plan for a device exactly as large as the engine's reported buffers
// plus the measured overhead (coefficients.json "backends.Vulkan") loads;
// a device a few MiB smaller than the buffers does not.
func TestRealVulkanOverheadMeasured(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	model := genModel(t, t.TempDir(), vulkanModels()[0])
	d, err := runVulkan(t, dir, model, 512)
	if err != nil {
		t.Fatal(err)
	}
	used := d.Actual.Devices["Vulkan0"].Total()
	over := plan.Coef().Backend("Vulkan0").OverheadMiB
	tight := int(math.Ceil(used + over))
	ngl := fmt.Sprint(d.Plan.NGL)
	for _, c := range []struct {
		cap  int
		fits bool
	}{{tight, true}, {int(used) - 4, false}} {
		o, out := realOptions(t, dir, model)
		o.Prompt, o.NPredict, o.ReadyTimeout = "Hello", 2, 4*time.Minute
		o.NGL, o.Ctx, o.CacheType = d.Plan.NGL, d.Plan.Ctx, d.Plan.CacheK
		t.Setenv("VK_FAKE_TOTAL_MIB", fmt.Sprint(c.cap))
		t.Setenv("VK_PROBE_TOTAL_MIB", "512")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := Run(ctx, o)
		cancel()
		var dd Doc
		_ = json.Unmarshal([]byte(out.String()), &dd)
		oom := err != nil || len(dd.Attempts) > 1
		t.Logf("-ngl %s, buffers %.2f MiB, device %d MiB: out of memory %v", ngl, used, c.cap, oom)
		if oom == c.fits {
			t.Errorf("device of %d MiB for %.2f MiB of buffers + %.0f MiB measured overhead: out of memory = %v", c.cap, used, over, oom)
		}
	}
}

// hostCompute are the engine's host compute and output buffers.
func hostCompute(b map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range b {
		if strings.HasPrefix(k, "compute/") && (strings.Contains(k, "_Host/") || strings.Contains(k, "/CPU")) {
			out[k] = v
		}
	}
	return out
}

func decodeDoc(t testing.TB, s string) Doc {
	t.Helper()
	var d Doc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	return d
}
