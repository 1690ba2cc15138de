package recorded

import "testing"

func TestBody(t *testing.T) {
	for in, want := range map[string]string{
		"# source: x\n# tool: nvcc\n# ---\nCuda compilation tools\n": "Cuda compilation tools\n",
		"Cuda compilation tools\n":                                   "Cuda compilation tools\n",
		"# a header without its end\nline\n":                         "# a header without its end\nline\n",
		"#include <cuda.h>\n# ---\n":                                 "#include <cuda.h>\n# ---\n",
	} {
		if got := Body(in); got != want {
			t.Errorf("Body(%q) = %q, want %q", in, got, want)
		}
	}
}
