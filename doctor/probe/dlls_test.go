package probe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/machine"
)

// Every DLL of facts.json is recorded, found or not: an empty list is
// "searched, not found" and survives the JSON round trip (as [], not null),
// so checks can tell it from "not searched".
func TestDLLsSearchedButNotFoundAreRecorded(t *testing.T) {
	s := replay(t, "win-amd-rx7900-opencl-requested")
	if s.Windows == nil {
		t.Fatal("no Windows facts")
	}
	for _, n := range []string{"cublasLt64_13.dll", "cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "amdhip64_6.dll", "amdhip64_7.dll", "OpenCL.dll", "vulkan-1.dll"} {
		if _, ok := s.Windows.DLLs[n]; !ok {
			t.Errorf("%s was not searched (no key in %v)", n, s.Windows.DLLs)
		}
	}
	if c := s.Windows.DLLs["OpenCL.dll"]; len(c) != 1 || !strings.EqualFold(c[0], `C:\Windows\System32\OpenCL.dll`) {
		t.Errorf("OpenCL.dll = %v, want System32's", c)
	}
	for _, n := range facts.WindowsDLLs.Names {
		if n == "OpenCL.dll" {
			continue
		}
		if c, ok := s.Windows.DLLs[n]; !ok || c == nil || len(c) != 0 {
			t.Errorf("%s = %#v (present %v), want an empty list", n, c, ok)
		}
	}
	b, err := json.Marshal(s.Windows)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"vulkan-1.dll":[]`) {
		t.Errorf("not found is not written as []: %s", b)
	}
	var back machine.Windows
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if c, ok := back.DLLs["amdhip64_7.dll"]; !ok || len(c) != 0 {
		t.Errorf("after the round trip amdhip64_7.dll = %v (present %v)", c, ok)
	}
}

// The CUDA 11 runtime is cudart64_110.dll (named after 11.0), not cudart64_11.dll.
func TestDLLNamesCUDA11(t *testing.T) {
	has := map[string]bool{}
	for _, n := range facts.WindowsDLLs.Names {
		has[n] = true
	}
	if !has["cudart64_110.dll"] || has["cudart64_11.dll"] {
		t.Errorf("facts.json windows_dlls = %v", facts.WindowsDLLs.Names)
	}
}
