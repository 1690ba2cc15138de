package probe

import (
	"slices"
	"testing"
)

// /usr/local/cuda is resolved to the real toolkit directory, and the link
// itself is kept, so a check can say where it points.
func TestToolkitLinkKept(t *testing.T) {
	s := replay(t, "linux-distro-12.0-and-cuda-12.8")
	tk := toolkitByVersion(s, "12.8")
	if tk == nil || tk.Root != "/usr/local/cuda-12.8" || !slices.Equal(tk.Links, []string{"/usr/local/cuda"}) {
		t.Fatalf("12.8 toolkit = %+v, want root /usr/local/cuda-12.8 with link /usr/local/cuda", tk)
	}
	if d := toolkitByVersion(s, "12.0"); d == nil || len(d.Links) != 0 {
		t.Errorf("distro toolkit = %+v, want no link", d)
	}
	// Found through the link on PATH (/usr/local/cuda/bin/nvcc) too.
	s = replay(t, "linux-ubuntu-11.5-and-12.5")
	tk = toolkitByVersion(s, "12.5")
	if tk == nil || tk.Root != "/usr/local/cuda-12.5" || !slices.Contains(tk.Links, "/usr/local/cuda") {
		t.Errorf("12.5 toolkit = %+v", tk)
	}
}
