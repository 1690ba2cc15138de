package enginefacts

import "testing"

func TestOpenCLAccepts(t *testing.T) {
	cases := []struct {
		name, vendor, typ, oclc string
		want                    bool
	}{
		{"QUALCOMM Adreno(TM) 740", "QUALCOMM", "GPU", "OpenCL C 3.0 Adreno(TM) 740", true},
		{"Intel(R) Iris(R) Xe Graphics", "Intel(R) Corporation", "GPU", "OpenCL C 3.0 ", true},
		{"gfx1100", "Advanced Micro Devices, Inc.", "GPU", "OpenCL C 2.0 ", false},
		{"NVIDIA GeForce RTX 4090", "NVIDIA Corporation", "GPU", "OpenCL C 1.2 ", false},
		{"Intel(R) Core(TM) i7", "Intel(R) Corporation", "CPU", "OpenCL C 3.0 ", false},
		{"Intel(R) HD Graphics 4000", "Intel(R) Corporation", "GPU", "OpenCL C 1.2 ", false},
		{"Intel(R) UHD Graphics", "Intel(R) Corporation", "GPU", "", false},
	}
	for _, c := range cases {
		if got, why := OpenCLAccepts(c.name, c.vendor, c.typ, c.oclc); got != c.want || why == "" {
			t.Errorf("%s: got %v (%q), want %v", c.name, got, why, c.want)
		}
	}
}

func TestOpenCLVendorSupported(t *testing.T) {
	if !OpenCLVendorSupported("Adreno 650", "") || OpenCLVendorSupported("pthread-skylake", "The pocl project") {
		t.Fatal("vendor filter wrong")
	}
}
