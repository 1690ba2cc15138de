package machine

import (
	"context"
	"os"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v4/mem"
)

// Memory is the host RAM this process may use, in MiB.
type Memory struct {
	TotalMiB     uint64
	AvailableMiB uint64
}

// HostMemory is the one reader of host RAM, shared by doctor (the
// snapshot's os.ram_*_mib) and run (the plan's RAM budget): gopsutil's
// figures lowered to a cgroup v2 memory limit when one applies.
func HostMemory(ctx context.Context) (Memory, error) {
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return Memory{}, err
	}
	return CapByCgroup(Memory{TotalMiB: vm.Total >> 20, AvailableMiB: vm.Available >> 20}, os.ReadFile), nil
}

// CapByCgroup lowers m to what a cgroup v2 memory limit (a container or a
// systemd slice; see the kernel's Documentation/admin-guide/cgroup-v2.rst,
// memory.max and memory.current) leaves, which gopsutil does not apply:
// the total to the limit, the available RAM to the limit less what the
// group already uses. read is os.ReadFile outside tests.
func CapByCgroup(m Memory, read func(string) ([]byte, error)) Memory {
	b, err := read("/sys/fs/cgroup/memory.max")
	if err != nil {
		return m
	}
	limit, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil { // "max": no limit
		return m
	}
	if mib := limit >> 20; mib < m.TotalMiB || m.TotalMiB == 0 {
		m.TotalMiB = mib
	}
	if b, err := read("/sys/fs/cgroup/memory.current"); err == nil {
		if used, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && used < limit {
			limit -= used
		}
	}
	if mib := limit >> 20; mib < m.AvailableMiB {
		m.AvailableMiB = mib
	}
	return m
}
