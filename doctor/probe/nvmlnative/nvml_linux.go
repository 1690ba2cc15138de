//go:build linux

package nvmlnative

import (
	"github.com/ebitengine/purego"
)

// The NVML functions Query calls, bound at run time by purego (no cgo: the
// release builds are CGO_ENABLED=0). Return values are nvmlReturn_t; handles
// (nvmlDevice_t) are opaque pointers.
type linuxAPI struct {
	init          func() int32
	shutdown      func() int32
	driverVersion func(buf *byte, n uint32) int32
	cudaVersion   func(v *int32) int32
	count         func(n *uint32) int32
	handle        func(i uint32, h *uintptr) int32
	name          func(h uintptr, buf *byte, n uint32) int32
	uuid          func(h uintptr, buf *byte, n uint32) int32
	pci           func(h uintptr, p *pciInfo) int32
	cc            func(h uintptr, major, minor *int32) int32
	memory        func(h uintptr, m *memInfo) int32
}

// bind looks each symbol up; a missing one is left nil and reported as
// ERROR_FUNCTION_NOT_FOUND (13) when it is needed.
func bind(lib uintptr) *linuxAPI {
	a := &linuxAPI{}
	for name, fptr := range map[string]any{
		"nvmlInit_v2":                        &a.init,
		"nvmlShutdown":                       &a.shutdown,
		"nvmlSystemGetDriverVersion":         &a.driverVersion,
		"nvmlSystemGetCudaDriverVersion_v2":  &a.cudaVersion,
		"nvmlDeviceGetCount_v2":              &a.count,
		"nvmlDeviceGetHandleByIndex_v2":      &a.handle,
		"nvmlDeviceGetName":                  &a.name,
		"nvmlDeviceGetUUID":                  &a.uuid,
		"nvmlDeviceGetPciInfo_v3":            &a.pci,
		"nvmlDeviceGetCudaComputeCapability": &a.cc,
		"nvmlDeviceGetMemoryInfo":            &a.memory,
	} {
		if sym, err := purego.Dlsym(lib, name); err == nil && sym != 0 {
			purego.RegisterFunc(fptr, sym)
		}
	}
	return a
}

const errFunctionNotFound = 13 // NVML_ERROR_FUNCTION_NOT_FOUND

// Query asks NVML by dlopening libnvidia-ml.so.1 (the soname the driver
// installs; never a path from the current directory) through purego, so a
// CGO_ENABLED=0 binary still reads it.
func Query() *Report { return query("libnvidia-ml.so.1") }

func query(soname string) *Report {
	r := &Report{Schema: 1, Library: soname}
	lib, err := purego.Dlopen(soname, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		reason := err.Error()
		if reason == "" { // dlerror's text is not always available without cgo
			reason = "not found in the dynamic linker's search path"
		}
		r.Status, r.Code, r.Call, r.Error = CodeName(12), 12, "dlopen("+soname+")", soname+": "+reason
		return r
	}
	// The library stays loaded: this runs once in a short-lived child.
	a := bind(lib)
	if a.init == nil {
		return fail(r, "nvmlInit_v2", errFunctionNotFound)
	}
	if c := a.init(); c != 0 {
		return fail(r, "nvmlInit_v2", int(c))
	}
	if a.shutdown != nil {
		defer a.shutdown()
	}
	if a.driverVersion != nil {
		buf := make([]byte, 96)
		if a.driverVersion(&buf[0], uint32(len(buf))) == 0 {
			r.DriverVersion = cstr(buf)
		}
	}
	if a.cudaVersion != nil {
		var v int32
		if a.cudaVersion(&v) == 0 {
			r.CUDADriverVersion = int(v)
		}
	}
	if a.count == nil {
		return fail(r, "nvmlDeviceGetCount_v2", errFunctionNotFound)
	}
	var n uint32
	if c := a.count(&n); c != 0 {
		return fail(r, "nvmlDeviceGetCount_v2", int(c))
	}
	for i := uint32(0); i < n; i++ {
		g := GPU{Index: int(i)}
		var h uintptr
		if a.handle == nil {
			g.Error = "nvmlDeviceGetHandleByIndex_v2: " + CodeName(errFunctionNotFound)
			r.GPUs = append(r.GPUs, g)
			continue
		}
		if c := a.handle(i, &h); c != 0 {
			g.Error = "nvmlDeviceGetHandleByIndex_v2: " + CodeName(int(c))
			r.GPUs = append(r.GPUs, g)
			continue
		}
		if a.name != nil {
			buf := make([]byte, 96)
			if a.name(h, &buf[0], uint32(len(buf))) == 0 {
				g.Name = cstr(buf)
			}
		}
		if a.uuid != nil {
			buf := make([]byte, 96)
			if a.uuid(h, &buf[0], uint32(len(buf))) == 0 {
				g.UUID = cstr(buf)
			}
		}
		if a.pci != nil {
			var p pciInfo
			if a.pci(h, &p) == 0 {
				g.PCIBusID = cstr(p.busID[:])
			}
		}
		if a.cc != nil {
			var ma, mi int32
			if a.cc(h, &ma, &mi) == 0 {
				g.CCMajor, g.CCMinor = int(ma), int(mi)
			}
		}
		if a.memory == nil {
			g.Error = "nvmlDeviceGetMemoryInfo: " + CodeName(errFunctionNotFound)
		} else {
			var m memInfo
			if c := a.memory(h, &m); c == 0 {
				g.TotalMiB, g.FreeMiB = m.total>>20, m.free>>20
			} else {
				g.Error = "nvmlDeviceGetMemoryInfo: " + CodeName(int(c))
			}
		}
		r.GPUs = append(r.GPUs, g)
	}
	r.Status = "ok"
	return r
}
