//go:build windows

package nvmlnative

import (
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// loadNVML loads nvml.dll from System32 only (never the current directory
// or PATH), then the legacy NVSMI folder.
func loadNVML() (*windows.DLL, string, error) {
	const searchSystem32 = 0x00000800 // LOAD_LIBRARY_SEARCH_SYSTEM32
	if h, err := windows.LoadLibraryEx("nvml.dll", 0, searchSystem32); err == nil {
		sys, _ := windows.GetSystemDirectory()
		return &windows.DLL{Name: "nvml.dll", Handle: h}, filepath.Join(sys, "nvml.dll"), nil
	}
	pf := os.Getenv("ProgramW6432")
	if pf == "" {
		pf = os.Getenv("ProgramFiles")
	}
	legacy := filepath.Join(pf, "NVIDIA Corporation", "NVSMI", "nvml.dll")
	const searchDLLDir = 0x00000100 | 0x00001000 // LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | DEFAULT_DIRS
	h, err := windows.LoadLibraryEx(legacy, 0, searchDLLDir)
	if err != nil {
		return nil, "", err
	}
	return &windows.DLL{Name: legacy, Handle: h}, legacy, nil
}

type pciInfo struct {
	busIDLegacy    [16]byte
	domain         uint32
	bus            uint32
	device         uint32
	pciDeviceID    uint32
	pciSubSystemID uint32
	busID          [32]byte
}

type memInfo struct{ total, free, used uint64 }

func cstr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Query asks nvml.dll through x/sys/windows (go-nvml is Linux-only).
func Query() *Report {
	r := &Report{Schema: 1}
	dll, path, err := loadNVML()
	if err != nil {
		r.Status, r.Code, r.Call, r.Error = CodeName(12), 12, "LoadLibrary(nvml.dll)", err.Error()
		return r
	}
	defer dll.Release()
	r.Library = path
	call := func(name string, args ...uintptr) int {
		p, err := dll.FindProc(name)
		if err != nil {
			return 13 // ERROR_FUNCTION_NOT_FOUND
		}
		ret, _, _ := p.Call(args...)
		return int(int32(ret))
	}
	if c := call("nvmlInit_v2"); c != 0 {
		return fail(r, "nvmlInit_v2", c)
	}
	defer call("nvmlShutdown")
	buf := make([]byte, 96)
	if call("nvmlSystemGetDriverVersion", uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))) == 0 {
		r.DriverVersion = cstr(buf)
	}
	var cudaV int32
	if call("nvmlSystemGetCudaDriverVersion_v2", uintptr(unsafe.Pointer(&cudaV))) == 0 {
		r.CUDADriverVersion = int(cudaV)
	}
	var n uint32
	if c := call("nvmlDeviceGetCount_v2", uintptr(unsafe.Pointer(&n))); c != 0 {
		return fail(r, "nvmlDeviceGetCount_v2", c)
	}
	for i := uint32(0); i < n; i++ {
		g := GPU{Index: int(i)}
		var h uintptr
		if c := call("nvmlDeviceGetHandleByIndex_v2", uintptr(i), uintptr(unsafe.Pointer(&h))); c != 0 {
			g.Error = "nvmlDeviceGetHandleByIndex_v2: " + CodeName(c)
			r.GPUs = append(r.GPUs, g)
			continue
		}
		name := make([]byte, 96)
		if call("nvmlDeviceGetName", h, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name))) == 0 {
			g.Name = cstr(name)
		}
		uuid := make([]byte, 96)
		if call("nvmlDeviceGetUUID", h, uintptr(unsafe.Pointer(&uuid[0])), uintptr(len(uuid))) == 0 {
			g.UUID = cstr(uuid)
		}
		var pci pciInfo
		if call("nvmlDeviceGetPciInfo_v3", h, uintptr(unsafe.Pointer(&pci))) == 0 {
			g.PCIBusID = cstr(pci.busID[:])
		}
		var ma, mi int32
		if call("nvmlDeviceGetCudaComputeCapability", h, uintptr(unsafe.Pointer(&ma)), uintptr(unsafe.Pointer(&mi))) == 0 {
			g.CCMajor, g.CCMinor = int(ma), int(mi)
		}
		var m memInfo
		if c := call("nvmlDeviceGetMemoryInfo", h, uintptr(unsafe.Pointer(&m))); c == 0 {
			g.TotalMiB, g.FreeMiB = m.total>>20, m.free>>20
		} else {
			g.Error = "nvmlDeviceGetMemoryInfo: " + CodeName(c)
		}
		r.GPUs = append(r.GPUs, g)
	}
	r.Status = "ok"
	return r
}
