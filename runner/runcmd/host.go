package runcmd

import (
	"context"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/runner/plan"
)

// SystemHost reads available RAM (machine.HostMemory, cgroup-aware) and core
// counts (gopsutil).
func SystemHost(ctx context.Context) (plan.Host, error) {
	var h plan.Host
	m, err := machine.HostMemory(ctx)
	if err != nil {
		return h, err
	}
	h.AvailableMiB = m.AvailableMiB
	if n, err := cpu.CountsWithContext(ctx, false); err == nil {
		h.PhysicalCores = n
	}
	if n, err := cpu.CountsWithContext(ctx, true); err == nil {
		h.LogicalCores = n
	}
	if h.PhysicalCores == 0 {
		h.PhysicalCores = h.LogicalCores
	}
	return h, nil
}
