package runcmd

import (
	"context"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/llamactl/llamactl/runner/plan"
)

// SystemHost reads available RAM and core counts with gopsutil.
func SystemHost(ctx context.Context) (plan.Host, error) {
	var h plan.Host
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return h, err
	}
	h.AvailableMiB = vm.Available >> 20
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
