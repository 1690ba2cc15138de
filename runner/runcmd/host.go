package runcmd

import (
	"context"
	"os"
	"strconv"
	"strings"

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
	return capByCgroup(h, os.ReadFile), nil
}

// capByCgroup lowers available RAM to what a cgroup v2 memory limit (a
// container or systemd slice) leaves, which gopsutil does not apply (§9.1).
func capByCgroup(h plan.Host, read func(string) ([]byte, error)) plan.Host {
	b, err := read("/sys/fs/cgroup/memory.max")
	if err != nil {
		return h
	}
	limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil { // "max": no limit
		return h
	}
	if b, err := read("/sys/fs/cgroup/memory.current"); err == nil {
		if used, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && used < limit {
			limit -= used
		}
	}
	if mib := limit >> 20; mib < h.AvailableMiB {
		h.AvailableMiB = mib
	}
	return h
}
