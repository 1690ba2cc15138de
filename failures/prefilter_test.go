package failures

import (
	"strings"
	"testing"
)

// The prefilter may let through lines that do not contain a needle, never
// reject one that does.
func FuzzPrefilterNeverRejects(f *testing.F) {
	f.Add("nvcc fatal : unsupported gpu", "xx nvcc fatal : unsupported gpu architecture")
	f.Add("abc", "abc")
	f.Add("error lnk1181", "link : fatal error lnk1181: cannot open")
	f.Fuzz(func(t *testing.T, needle, line string) {
		if !strings.Contains(line, needle) {
			return
		}
		var set trigramSet
		set.fill(line)
		if !set.mayContain(sampleTrigrams(needle)) {
			t.Fatalf("needle %q rejected in %q", needle, line)
		}
	})
}

func TestPrefilterRejectsMost(t *testing.T) {
	var set trigramSet
	set.fill("[12/80] building cuda object ggml/src/ggml-cuda/acc.cu.o")
	rejected := 0
	for _, e := range Default().entries {
		for _, s := range e.Signature {
			if !set.mayContain(s.grams) {
				rejected++
			}
		}
	}
	if rejected < 100 {
		t.Errorf("prefilter rejected only %d signatures on an ordinary line", rejected)
	}
}
