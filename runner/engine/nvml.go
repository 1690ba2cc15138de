package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/llamactl/llamactl/doctor/probe/nvmlnative"
	"github.com/llamactl/llamactl/internal/proc"
)

// NVML asks llamactl's own NVML child probe (`llamactl __probe nvml`,
// owned by doctor) for the GPUs' memory: NVML is authoritative for NVIDIA
// free memory, notably on Windows. self is llamactl's
// executable; a crash or hang of the driver library stays in the child.
func NVML(ctx context.Context, r proc.Runner, self string) (*nvmlnative.Report, error) {
	res, err := r.Run(ctx, proc.Cmd{Name: self, Args: []string{"__probe", "nvml"}, Timeout: 15 * time.Second})
	if err != nil {
		return nil, err
	}
	var rep nvmlnative.Report
	if err := json.Unmarshal(res.Stdout, &rep); err != nil {
		return nil, fmt.Errorf("NVML probe printed no report (exit %d): %v", res.ExitCode, err)
	}
	return &rep, nil
}

// NVMLMerge says what MergeNVML did.
type NVMLMerge struct {
	Used       bool // free memory now comes from NVML
	NVMLGPUs   int
	EngineCUDA int // when they differ, the engine's view is kept
}

// MergeNVML replaces the free memory of the engine's CUDA devices with
// NVML's when both see the same number of GPUs. The engine is then started
// with CUDA_DEVICE_ORDER=PCI_BUS_ID, so CUDA's order is NVML's (PCI bus)
// order.
func MergeNVML(devs []Device, rep *nvmlnative.Report) ([]Device, NVMLMerge) {
	if rep == nil || rep.Status != "ok" || len(rep.GPUs) == 0 {
		return devs, NVMLMerge{}
	}
	var cuda []int
	for i, d := range devs {
		if strings.HasPrefix(d.ID, "CUDA") {
			cuda = append(cuda, i)
		}
	}
	m := NVMLMerge{NVMLGPUs: len(rep.GPUs), EngineCUDA: len(cuda)}
	if len(cuda) != len(rep.GPUs) {
		return devs, m
	}
	out := append([]Device(nil), devs...)
	for k, i := range cuda {
		g := rep.GPUs[k]
		if g.Error != "" || g.TotalMiB == 0 {
			continue
		}
		out[i].FreeMiB = g.FreeMiB
		if out[i].TotalMiB == 0 {
			out[i].TotalMiB = g.TotalMiB
		}
	}
	m.Used = true
	return out, m
}
