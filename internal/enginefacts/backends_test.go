package enginefacts

import "testing"

func TestBackendRegName(t *testing.T) {
	if backends.Source == "" {
		t.Error("backends.json cites no source")
	}
	for backend, want := range map[string]string{"cuda": "CUDA", "hip": "ROCm", "vulkan": "Vulkan", "opencl": "OpenCL", "cpu": "CPU", "metal": ""} {
		if got := BackendRegName(backend); got != want {
			t.Errorf("BackendRegName(%q) = %q, want %q", backend, got, want)
		}
	}
}
