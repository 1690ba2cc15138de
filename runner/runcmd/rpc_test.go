//go:build !windows

package runcmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/launch"
)

// startWorker starts a real ggml-rpc-server on 127.0.0.1 serving a Vulkan
// device capped at capMiB, and stops it (its process group) at the end.
func startWorker(t *testing.T, dir string, capMiB int) (endpoint string, cmd *exec.Cmd) {
	t.Helper()
	port, err := launch.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	endpoint = fmt.Sprintf("127.0.0.1:%d", port)
	cmd = exec.Command(filepath.Join(dir, "ggml-rpc-server"), "-H", "127.0.0.1", "-p", fmt.Sprint(port), "-d", "Vulkan0")
	cmd.Env = append(os.Environ(), fmt.Sprintf("VK_FAKE_TOTAL_MIB=%d", capMiB), "GGML_VK_VISIBLE_DEVICES=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, _ := os.Create(filepath.Join(t.TempDir(), "worker.log"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	for i := 0; i < 200; i++ {
		if c, err := net.DialTimeout("tcp", endpoint, time.Second); err == nil {
			c.Close()
			return endpoint, cmd
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("worker on %s never listened", endpoint)
	return "", nil
}

// runOnWorkers runs llamactl run (--json) with real RPC workers, one per
// Vulkan device size in MiB, and the local CPU, predicting n tokens.
func runOnWorkers(t *testing.T, n int, mib ...int) Doc {
	t.Helper()
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	t.Setenv("GGML_VK_VISIBLE_DEVICES", "") // the client machine: CPU only
	model := genModel(t, t.TempDir(), vulkanModels()[0])
	o, out := realOptions(t, dir, model)
	for _, m := range mib {
		ep, _ := startWorker(t, dir, m)
		o.RPC = append(o.RPC, ep)
	}
	o.Prompt, o.NPredict, o.ReadyTimeout = "Hello", n, 4*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	return decodeDoc(t, out.String())
}

// Two real RPC workers on 127.0.0.1 (Vulkan devices of 48 and 64 MiB) and
// the local CPU: llamactl run learns their free memory through the engine,
// splits the layers by it, and each worker's model and KV buffers are
// (model, KV and compute) within 2 % or 8 MiB of the prediction.
func TestRealRPCSplitOverWorkers(t *testing.T) {
	d := runOnWorkers(t, 4, 48, 64)
	if len(d.Predicted.Devices) != 2 || len(d.Plan.TensorSplit) != 2 {
		t.Fatalf("devices %+v, split %v: the model was not split over both workers", d.Predicted.Devices, d.Plan.TensorSplit)
	}
	if d.Completion == nil || d.Completion.TokensPredicted != 4 {
		t.Errorf("completion %+v", d.Completion)
	}
	for _, p := range d.Predicted.Devices {
		act := ActualOf(*d.Actual, p)
		t.Logf("%s %s (%d MiB free): predicted/engine model %.2f/%.2f context %.2f/%.2f compute %.2f/%.2f", p.ID, p.Name, p.FreeMiB,
			p.ModelMiB, act.ModelMiB, p.ContextMiB, act.ContextMiB, p.ComputeMiB, act.ComputeMiB)
		if act.ModelMiB == 0 {
			t.Errorf("%s holds no layers", p.Name)
		}
		if !deviceTolerance(p.ModelMiB, act.ModelMiB) || !deviceTolerance(p.ContextMiB, act.ContextMiB) || !deviceTolerance(p.ComputeMiB, act.ComputeMiB) {
			t.Errorf("%s: model/context/compute predicted %.2f/%.2f/%.2f, engine %.2f/%.2f/%.2f", p.Name, p.ModelMiB, p.ContextMiB, p.ComputeMiB, act.ModelMiB, act.ContextMiB, act.ComputeMiB)
		}
	}
	t.Logf("split -ts %v, %d attempts", d.Plan.TensorSplit, len(d.Attempts))
}

// Two real RPC workers of 80 MiB: too small for the model alone, large
// enough for the engine's pipeline-parallel buffers (sched copies = 4).
// The host's compute buffer then holds four copies of the graph inputs;
// the plan predicts it (plan.PipelineCopies) within 0.1 MiB, and each
// worker's own larger compute buffer, never under.
func TestRealRPCPipelineHostStaging(t *testing.T) {
	d := runOnWorkers(t, 2, 80, 80)
	if len(d.Plan.TensorSplit) != 2 || d.Actual == nil {
		t.Fatalf("split %v, actual %+v: not split over both workers", d.Plan.TensorSplit, d.Actual)
	}
	pred, act := d.Predicted.Host.ComputeMiB, d.Actual.Host.ComputeMiB
	t.Logf("host compute predicted/engine %.2f/%.2f MiB, sched copies %d, retried %v, -ts %v", pred, act, d.Actual.SchedCopies, d.Actual.PipelineRetried, d.Plan.TensorSplit)
	if d.Actual.SchedCopies != 4 || d.Actual.PipelineRetried {
		t.Fatalf("the engine ran without pipeline parallelism (sched copies %d, retried %v)", d.Actual.SchedCopies, d.Actual.PipelineRetried)
	}
	if math.Abs(pred-act) > 0.1 {
		t.Errorf("host compute predicted %.2f MiB, engine %.2f MiB", pred, act)
	}
	// Each worker's own compute buffer (plan.pipelineDeviceBytes): never
	// under, over by at most 15 MiB with flash attention
	// (TestPipelineDeviceCompute's bounds, docs/distributed.md), 46 without.
	limit := 15.0
	if d.Plan.FlashAttn != "on" {
		limit = 46
	}
	for _, p := range d.Predicted.Devices {
		a := ActualOf(*d.Actual, p)
		t.Logf("%s: compute predicted/engine %.2f/%.2f MiB", p.Name, p.ComputeMiB, a.ComputeMiB)
		if over := p.ComputeMiB - a.ComputeMiB; a.ComputeMiB == 0 || over < -0.005 || over > limit {
			t.Errorf("%s: compute predicted %.2f MiB, engine %.2f MiB", p.Name, p.ComputeMiB, a.ComputeMiB)
		}
	}
}

// A worker that is not there: a clear error naming it and the fix, at once.
func TestRealRPCUnreachableWorker(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	port, _ := launch.FreePort()
	model := genModel(t, t.TempDir(), vulkanModels()[0])
	o, _ := realOptions(t, dir, model)
	o.RPC = []string{fmt.Sprintf("127.0.0.1:%d", port)}
	o.DryRun = true
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), o.RPC[0]) || !strings.Contains(err.Error(), "llamactl rpc serve") {
		t.Errorf("err = %v", err)
	}
	o.Lang, o.t, o.F.IO.JSON = "zh-CN", nil, false // the same failure, explained in Chinese
	err = Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), "无法连接 RPC worker "+o.RPC[0]) || testutil.EnglishLeft(err.Error()) != "" {
		t.Errorf("zh-CN: err = %v", err)
	}
}

// A worker killed while the model is served: run ends with a clear error,
// does not hang, and leaves no engine behind.
func TestRealRPCWorkerKilledMidRun(t *testing.T) {
	testutil.RealEngines(t)
	dir := testutil.VulkanEngineDir(t)
	t.Setenv("GGML_VK_VISIBLE_DEVICES", "")
	a, wa := startWorker(t, dir, 256)
	model := genModel(t, t.TempDir(), vulkanModels()[0])
	o, _ := realOptions(t, dir, model)
	o.F.IO.JSON = false
	o.RPC, o.Server, o.ReadyTimeout = []string{a}, true, 4*time.Minute
	port, _ := launch.FreePort()
	o.Port = port
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), o) }()
	h := launch.NetHTTP{}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(4 * time.Minute)
	for {
		st, _, err := h.Do(context.Background(), "GET", url+"/health", nil)
		if err == nil && st == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server never became healthy")
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = syscall.Kill(-wa.Process.Pid, syscall.SIGKILL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	_, _, _ = h.Do(ctx, "POST", url+"/completion", []byte(`{"prompt":"Hello","n_predict":4}`))
	cancel()
	select {
	case err := <-done:
		var ee *cmdutil.ExitError
		if err == nil || !errors.As(err, &ee) || ee.Code == 0 {
			t.Errorf("run after the worker died: %v", err)
		} else {
			t.Logf("run ended: exit %d: %.300s", ee.Code, err)
			if !strings.Contains(err.Error(), a) {
				t.Errorf("the error does not name the worker %s: %v", a, err)
			}
		}
	case <-time.After(90 * time.Second):
		t.Fatal("run hangs after its RPC worker was killed")
	}
	for i := 0; i < 20 && enginesFor(model) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if n := enginesFor(model); n > 0 {
		t.Errorf("%d engine processes left", n)
	}
}
