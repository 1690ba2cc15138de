//go:build linux || windows

package nvmlnative

// nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) and nvmlMemory_t, as NVML's
// nvml.h lays them out (all fields naturally aligned).
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
