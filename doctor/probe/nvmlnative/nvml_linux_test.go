//go:build linux

package nvmlnative

import (
	"strings"
	"testing"
)

// A machine without the driver's library: the child reports
// ERROR_LIBRARY_NOT_FOUND (12) with dlopen's own reason, so doctor can say
// "install the NVIDIA driver" instead of guessing.
func TestQueryLibraryMissing(t *testing.T) {
	r := query("libllamactl-no-such-nvml.so.1")
	if r.Status != "ERROR_LIBRARY_NOT_FOUND" || r.Code != 12 || r.Call != "dlopen(libllamactl-no-such-nvml.so.1)" {
		t.Fatalf("report = %+v, want ERROR_LIBRARY_NOT_FOUND (12) from dlopen", r)
	}
	if !strings.Contains(r.Error, "libllamactl-no-such-nvml.so.1") {
		t.Errorf("error %q does not carry dlopen's reason", r.Error)
	}
}

// A library that loads but is not NVML (libc has none of its symbols): the
// first call is reported as ERROR_FUNCTION_NOT_FOUND, never a crash.
func TestQueryNotNVML(t *testing.T) {
	r := query("libc.so.6")
	if r.Status != "ERROR_FUNCTION_NOT_FOUND" || r.Code != 13 || r.Call != "nvmlInit_v2" {
		t.Fatalf("report = %+v, want ERROR_FUNCTION_NOT_FOUND (13) from nvmlInit_v2", r)
	}
}
