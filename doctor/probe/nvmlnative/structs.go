//go:build linux || windows

package nvmlnative

// nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) and nvmlMemory_t, as NVML's
// nvml.h lays them out (all fields naturally aligned).
// Fields llamactl does not read are blank: they only hold the layout.
type pciInfo struct {
	_     [16]byte // busIdLegacy
	_     uint32   // domain
	_     uint32   // bus
	_     uint32   // device
	_     uint32   // pciDeviceId
	_     uint32   // pciSubSystemId
	busID [32]byte
}

type memInfo struct {
	total, free uint64
	_           uint64 // used
}

func cstr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
