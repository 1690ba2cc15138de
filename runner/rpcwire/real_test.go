//go:build !windows

package rpcwire_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/rpcwire"
)

// Two real workers of Debian sid's ggml (RPC protocol 8): one serving a
// Vulkan device capped at 64 MiB, one the CPU. The payload goes up, comes
// back equal (Measure compares it), and is kept within half the device's
// free memory. With the stage's real-tree build (LLAMACTL_REAL_TREE_OUT),
// its worker (protocol 7) is measured too.
func TestRealRPCWire(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	bin := filepath.Join(dir, "ggml-rpc-server")
	vk := testutil.StartRPCWorker(t, bin, []string{"VK_FAKE_TOTAL_MIB=64", "GGML_VK_VISIBLE_DEVICES=0"}, "-d", "Vulkan0")
	cpu := testutil.StartRPCWorker(t, bin, []string{"GGML_VK_VISIBLE_DEVICES="}, "-d", "CPU")
	ctx := context.Background()
	for _, c := range []struct {
		ep      string
		want    int64 // bytes measured
		version string
	}{
		{vk, 32 << 20, "8.0.0"},
		{cpu, 48 << 20, "8.0.0"},
	} {
		res, err := rpcwire.MeasureEndpoint(ctx, nil, c.ep, rpcwire.Options{Bytes: 48 << 20})
		if err != nil {
			t.Fatalf("%s: %v", c.ep, err)
		}
		t.Logf("%s: protocol %s, %d MiB free of %d, %d MiB: upload %.0f MiB/s, download %.0f MiB/s, command round trip %.3f ms",
			c.ep, res.Version, res.FreeBytes>>20, res.TotalBytes>>20, res.Bytes>>20, res.UploadMiBs, res.DownloadMiB, res.CmdRTTMS)
		if res.Version != c.version || res.Bytes != c.want || res.UploadMiBs <= 0 || res.DownloadMiB <= 0 || res.CmdRTTMS <= 0 {
			t.Errorf("%s: %+v", c.ep, res)
		}
	}
	// the worker is usable after the test: measured again, same answer
	if _, err := rpcwire.MeasureEndpoint(ctx, nil, vk, rpcwire.Options{Bytes: 1 << 20, Rounds: 1}); err != nil {
		t.Errorf("a second test on %s: %v", vk, err)
	}
	if out := os.Getenv("LLAMACTL_REAL_TREE_OUT"); out != "" {
		bin := filepath.Join(out, "ggml-rpc-server")
		if _, err := os.Stat(bin); err != nil {
			bin = filepath.Join(out, "rpc-server") // its name in older trees
		}
		ep := testutil.StartRPCWorker(t, bin, nil)
		res, err := rpcwire.MeasureEndpoint(ctx, nil, ep, rpcwire.Options{})
		if err != nil || res.Version != "7.0.0" || res.Bytes != rpcwire.DefaultBytes {
			t.Errorf("the real tree's worker: %+v, %v", res, err)
		} else {
			t.Logf("real tree's worker: protocol %s, upload %.0f MiB/s, download %.0f MiB/s", res.Version, res.UploadMiBs, res.DownloadMiB)
		}
	}
}
