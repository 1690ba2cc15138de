//go:build !windows && !(linux && cgo)

package nvmlnative

// Query cannot reach NVML in a build without cgo on this OS; doctor falls
// back to nvidia-smi.
func Query() *Report {
	return &Report{Schema: 1, Status: "NOT_PROBED", Error: "this llamactl was built without cgo, which NVML needs on this OS; nvidia-smi is used instead"}
}
