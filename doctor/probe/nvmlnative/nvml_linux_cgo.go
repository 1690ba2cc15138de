//go:build linux && cgo

package nvmlnative

import (
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Query asks NVML through go-nvml (which dlopens libnvidia-ml.so.1).
func Query() *Report {
	r := &Report{Schema: 1, Library: "libnvidia-ml.so.1"}
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		return fail(r, "nvmlInit_v2", int(ret))
	}
	defer nvml.Shutdown()
	if v, ret := nvml.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		r.DriverVersion = v
	}
	if v, ret := nvml.SystemGetCudaDriverVersion_v2(); ret == nvml.SUCCESS {
		r.CUDADriverVersion = v
	}
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return fail(r, "nvmlDeviceGetCount_v2", int(ret))
	}
	for i := 0; i < n; i++ {
		g := GPU{Index: i}
		dev, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			g.Error = "nvmlDeviceGetHandleByIndex_v2: " + CodeName(int(ret))
			r.GPUs = append(r.GPUs, g)
			continue
		}
		g.Name, _ = dev.GetName()
		g.UUID, _ = dev.GetUUID()
		if pci, ret := dev.GetPciInfo(); ret == nvml.SUCCESS {
			var b strings.Builder
			for _, c := range pci.BusId {
				if c == 0 {
					break
				}
				b.WriteByte(byte(c))
			}
			g.PCIBusID = b.String()
		}
		if ma, mi, ret := dev.GetCudaComputeCapability(); ret == nvml.SUCCESS {
			g.CCMajor, g.CCMinor = ma, mi
		}
		if m, ret := dev.GetMemoryInfo(); ret == nvml.SUCCESS {
			g.TotalMiB, g.FreeMiB = m.Total>>20, m.Free>>20
		} else {
			g.Error = "nvmlDeviceGetMemoryInfo: " + CodeName(int(ret))
		}
		r.GPUs = append(r.GPUs, g)
	}
	r.Status = "ok"
	return r
}
