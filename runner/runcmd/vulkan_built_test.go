package runcmd

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
	"github.com/llamactl/llamactl/runner/launch"
)

// TestVulkanBuiltEngine runs the llama-server that scripts/stages/60-vulkan.sh
// built from the real llama.cpp tree with the Vulkan backend, on Mesa's
// lavapipe device: `llamactl run` offloads layers to the Vulkan device and
// the device memory it planned is what the engine reports (5 % or 16 MiB).
// LLAMACTL_VULKAN_ENGINE is the folder with the built llama-server (a
// wrapper that starts it with the lavapipe driver); unset, the test skips.
func TestVulkanBuiltEngine(t *testing.T) {
	dir := os.Getenv("LLAMACTL_VULKAN_ENGINE")
	if dir == "" {
		t.Skip("LLAMACTL_VULKAN_ENGINE is set by scripts/stages/60-vulkan.sh")
	}
	model := genModel(t, t.TempDir(), ggufwrite.Config{Arch: "llama", Type: "Q8_0"})
	o, out := realOptions(t, dir, model)
	o.Prompt, o.NPredict = "Hello world", 8
	// lavapipe compiles ggml-vulkan's pipelines with LLVM on first use: slow on 2 busy cores.
	o.ReadyTimeout = 8 * time.Minute
	o.HTTP = launch.NetHTTP{Client: &http.Client{Timeout: 8 * time.Minute}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var d Doc
	if err := json.Unmarshal([]byte(out.String()), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d.Completion == nil || d.Completion.TokensPredicted != 8 {
		t.Errorf("completion = %+v", d.Completion)
	}
	if d.Actual == nil {
		t.Fatal("no engine report")
	}
	t.Logf("plan: -ngl %d; engine: %d of %d layers offloaded", d.Plan.NGL, d.Actual.OffloadedLayers, d.Actual.TotalLayers)
	if d.Plan.NGL <= 0 || d.Actual.OffloadedLayers <= 0 {
		t.Fatalf("no layers offloaded to the Vulkan device: plan -ngl %d, engine offloaded %d", d.Plan.NGL, d.Actual.OffloadedLayers)
	}
	if len(d.Predicted.Devices) == 0 {
		t.Fatal("the plan has no device")
	}
	for _, pd := range d.Predicted.Devices {
		a, ok := d.Actual.Devices[pd.ID]
		if !ok {
			a, ok = d.Actual.Devices[pd.Name]
		}
		if !ok {
			t.Errorf("device %s (%s) is in the plan, not in the engine's report %v", pd.ID, pd.Name, d.Actual.Devices)
			continue
		}
		t.Logf("%s MiB predicted/engine: model %.2f/%.2f context %.2f/%.2f compute %.2f/%.2f", pd.ID,
			pd.ModelMiB, a.ModelMiB, pd.ContextMiB, a.ContextMiB, pd.ComputeMiB, a.ComputeMiB)
		if !withinTolerance(pd.Total(), a.Total()) {
			t.Errorf("%s: predicted %.2f MiB, engine %.2f MiB", pd.ID, pd.Total(), a.Total())
		}
	}
	// The host's compute: the staging buffer in the device's pinned host
	// memory (Vulkan_Host compute: the graph's inputs) and the output rows.
	// This tree's scheduler keeps 8 bytes per n_embd and token fewer there
	// than sid's engine, whose figure the model keeps (plan.HostStagingMiB):
	// the 2 % or 8 MiB, and never under by more than rounding.
	hp, ha := d.Predicted.Host.ComputeMiB, d.Actual.Host.ComputeMiB
	t.Logf("host compute (Vulkan_Host staging + output) predicted/engine %.2f/%.2f MiB (buffers %v)", hp, ha, hostCompute(d.Actual.Buffers))
	if !deviceTolerance(hp, ha) || hp < ha-0.1 {
		t.Errorf("host compute: predicted %.2f MiB, engine %.2f MiB", hp, ha)
	}
}
