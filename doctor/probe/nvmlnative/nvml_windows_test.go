//go:build windows

package nvmlnative

import (
	"os"
	"path/filepath"
	"testing"
)

// A Windows machine without an NVIDIA driver has no nvml.dll: that is the
// "no driver" fact (LIBRARY_NOT_FOUND), not an error doctor "could not learn".
func TestNoNVMLDLLIsNoError(t *testing.T) {
	sys := filepath.Join(os.Getenv("SystemRoot"), "System32", "nvml.dll")
	if _, err := os.Stat(sys); err == nil {
		t.Skip("this machine has nvml.dll")
	}
	r := Query()
	if r.Status != CodeName(12) || r.Error != "" || r.Library != "" {
		t.Errorf("report = %+v, want %s without an error", r, CodeName(12))
	}
}
