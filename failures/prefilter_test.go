package failures

import (
	"reflect"
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

// TestEverySignatureHasALiteral: a signature with no literal the line must
// hold (a single one, or one per branch of its alternation of wordings) runs
// its regular expression on every line of every log. Five such pack
// signatures made explain 3.5 times slower (a 20 MB generated log: 5.3 s,
// 1.5 s once each branch had its literal); each signature
// needs a literal of three bytes or more.
func TestEverySignatureHasALiteral(t *testing.T) {
	for _, e := range Default().Entries() {
		for i, s := range e.Signature {
			if s.needle == "" && s.anyNeedle == nil {
				t.Errorf("%s signature %d (%s): no literal to prefilter lines with: every line of every log would run it", e.ID, i, s.Re)
			}
		}
	}
}

func TestAnyNeedleOf(t *testing.T) {
	for _, c := range []struct {
		re   string
		want []string
	}{
		{`^.*?(?:Не удается|Impossible de|No se puede) trouver`, []string{"не удается", "impossible de", "no se puede"}},
		{`(?:^|[\s:])(?:amdgpu detected, but no|no suitable ROCm found)\b`, []string{"amdgpu detected, but no", "no suitable rocm found"}},
		{`(?:^|\s)(?:ab|cd)x`, nil},                                      // a branch without a literal of 3 bytes
		{`(?:^|\s)(?:abc|de(?:fgh|ijk))`, []string{"abc", "fgh", "ijk"}}, // a nested alternation
		{`(?:foo|bar)?baz`, nil},                                         // an optional alternation is not on every match's path
	} {
		got := anyNeedleOf(c.re)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("anyNeedleOf(%q) = %q, want %q", c.re, got, c.want)
		}
	}
}
