package doctor

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/doctor/probe"
)

// The recorded container: /usr/local/cuda -> cuda-12.8 while nvcc on PATH is
// the distro's 12.0. doctor names the link, its target and both versions.
func TestLinkPointsElsewhere(t *testing.T) {
	s, err := probe.GatherRecording("../testdata/doctor/recordings/linux-distro-12.0-and-cuda-12.8")
	if err != nil {
		t.Fatal(err)
	}
	fs := checkCUDAPathConsistency(s)
	if len(fs) != 1 || fs[0].Message != "cuda.path-consistency/link-differs" {
		t.Fatalf("findings %+v", fs)
	}
	for _, want := range []string{"/usr/local/cuda points at /usr/local/cuda-12.8 (CUDA 12.8", "nvcc first on PATH is /usr/bin/nvcc (CUDA 12.0"} {
		if !strings.Contains(fs[0].Summary, want) {
			t.Errorf("summary %q lacks %q", fs[0].Summary, want)
		}
	}
	if fs[0].Fix == nil || len(fs[0].Fix.Commands) == 0 || fs[0].Fix.Commands[0] != "export PATH=/usr/local/cuda/bin:$PATH" {
		t.Errorf("fix %+v", fs[0].Fix)
	}
}
