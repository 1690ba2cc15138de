package probe

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/host"

	"github.com/llamactl/llamactl/machine"
)

// gopsutilHost reads CPU, memory and disk through gopsutil.
type gopsutilHost struct{ diskDir string }

// cpuFlagsThatMatter are the instruction-set flags llama.cpp's CPU backend
// dispatches on; the full list is long and says nothing more to a reader.
var cpuFlagsThatMatter = map[string]bool{
	"avx": true, "avx2": true, "avx512f": true, "avx512bw": true, "avx512vl": true, "avx512_vnni": true,
	"avx512_bf16": true, "avx_vnni": true, "f16c": true, "fma": true, "sse3": true, "ssse3": true,
	"sse4_1": true, "sse4_2": true, "amx_tile": true, "amx_int8": true, "amx_bf16": true,
	"neon": true, "asimd": true, "sve": true, "dotprod": true, "asimddp": true, "i8mm": true,
}

func (h gopsutilHost) Info(ctx context.Context) (machine.OSInfo, error) {
	var o machine.OSInfo
	var errs []error
	if hi, err := host.InfoWithContext(ctx); err == nil {
		o.Hostname = hi.Hostname
		o.Version = hi.KernelVersion
		if hi.Platform != "" {
			o.Name = strings.TrimSpace(hi.Platform + " " + hi.PlatformVersion)
		}
		if hi.OS == "windows" {
			o.Version = hi.PlatformVersion
		}
	} else {
		errs = append(errs, err)
	}
	if ci, err := cpu.InfoWithContext(ctx); err == nil && len(ci) > 0 {
		o.CPUModel = strings.TrimSpace(ci[0].ModelName)
		for _, fl := range ci[0].Flags {
			if cpuFlagsThatMatter[strings.ToLower(fl)] {
				o.CPUFlags = append(o.CPUFlags, strings.ToLower(fl))
			}
		}
	} else if err != nil {
		errs = append(errs, err)
	}
	if n, err := cpu.CountsWithContext(ctx, false); err == nil {
		o.PhysicalCores = n
	}
	if n, err := cpu.CountsWithContext(ctx, true); err == nil {
		o.LogicalCores = n
	}
	if m, err := machine.HostMemory(ctx); err == nil {
		o.RAMTotalMiB = m.TotalMiB
		o.RAMFreeMiB = m.AvailableMiB
	} else {
		errs = append(errs, err)
	}
	dir := h.diskDir
	if dir == "" {
		dir, _ = os.UserCacheDir()
	}
	for dir != "" {
		if u, err := disk.UsageWithContext(ctx, dir); err == nil {
			o.DiskFreeMiB = u.Free >> 20
			break
		}
		parent := dirName(goosHost(), dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if u, err := os.UserHomeDir(); err == nil {
		o.HomeDir = u
	}
	return o, errors.Join(errs...)
}
