package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

func TestNVMLNoDriver(t *testing.T) {
	// Recorded on this project's Debian CI machine: libnvidia-ml present, no GPU.
	r := &proc.Replay{Commands: map[string]proc.Recording{"/bin/llamactl __probe nvml": {Stdout: testutil.Fixture(t, "runner", "probe-nvml-debian-no-gpu.json")}}}
	rep, err := NVML(context.Background(), r, "/bin/llamactl")
	if err != nil || rep.Status != "ERROR_DRIVER_NOT_LOADED" {
		t.Fatalf("%+v %v", rep, err)
	}
	devs := []Device{{ID: "CUDA0", FreeMiB: 100}}
	if got, m := MergeNVML(devs, rep); got[0].FreeMiB != 100 || m.Used || m.NVMLGPUs != 0 {
		t.Errorf("no-driver report changed devices: %+v %+v", got, m)
	}
	r.Commands["/bin/llamactl __probe nvml"] = proc.Recording{Stdout: "segfault", ExitCode: 139}
	if _, err := NVML(context.Background(), r, "/bin/llamactl"); err == nil {
		t.Error("a crashed probe must be an error")
	}
}

func TestMergeNVML(t *testing.T) {
	devs := ParseDevices(testutil.Fixture(t, "runner", "gpu-backend-not-loaded-false-warning-regression-llamacpp-22778-win.log"))
	// NVML's view of the same GPU (free memory lower: another process grew).
	var rep nvmlnative.Report
	json.Unmarshal([]byte(`{"schema":1,"status":"ok","gpus":[{"index":0,"name":"NVIDIA GeForce RTX 4090 Laptop GPU","total_mib":16376,"free_mib":14000}]}`), &rep)
	got, m := MergeNVML(devs, &rep)
	if got[0].FreeMiB != 14000 || got[0].TotalMiB != 16375 || !m.Used || devs[0].FreeMiB != 15046 {
		t.Errorf("merged %+v (input %+v) %+v", got, devs, m)
	}
	rep.GPUs = append(rep.GPUs, rep.GPUs[0])
	if got, m := MergeNVML(devs, &rep); got[0].FreeMiB != 15046 || m.Used || m.NVMLGPUs != 2 || m.EngineCUDA != 1 {
		t.Errorf("count mismatch must keep the engine's view: %+v %+v", got, m)
	}
}
