//go:build !windows && !linux

package nvmlnative

// Query cannot reach NVML on this OS; doctor falls
// back to nvidia-smi.
func Query() *Report {
	return &Report{Schema: 1, Status: "NOT_PROBED", Error: "NVML is not read on this OS; nvidia-smi is used instead"}
}
