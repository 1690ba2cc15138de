package placeholder

import "testing"

func TestFill(t *testing.T) {
	for _, c := range []struct {
		s    string
		kv   []any
		want string
	}{
		{"the compute buffer did not fit: -ub {old} → {new}", []any{"old", 512, "new", 256}, "the compute buffer did not fit: -ub 512 → 256"},
		{"use CUDA ≥ {first}", []any{"first", "12.8"}, "use CUDA ≥ 12.8"},
		{"{a} and {a}", []any{"a", 1}, "1 and 1"},
		{"{missing} stays", []any{"other", "x"}, "{missing} stays"},
		{"no placeholders", []any{"a", 1}, "no placeholders"},
		{"{a}", nil, "{a}"},
		{"{a}{b}", []any{"a", 1, "b"}, "1{b}"},          // trailing name without value
		{"{a}", []any{"a", 1, "a", 2}, "1"},             // first value wins
		{"{a} {b}", []any{"a", "{b}", "b", 2}, "{b} 2"}, // one pass: values are not filled again
	} {
		if got := Fill(c.s, c.kv...); got != c.want {
			t.Errorf("Fill(%q, %v) = %q, want %q", c.s, c.kv, got, c.want)
		}
	}
}

func TestMapReplacer(t *testing.T) {
	r := MapReplacer(map[string]string{"arch": "sm_100", "min_cuda": "12.8", "nvcc_version": "11.8.89"})
	if got := r.Replace("nvcc {nvcc_version} does not know {arch}: use CUDA ≥ {min_cuda} ({unknown})"); got != "nvcc 11.8.89 does not know sm_100: use CUDA ≥ 12.8 ({unknown})" {
		t.Errorf("got %q", got)
	}
	if got := MapReplacer(nil).Replace("{x}"); got != "{x}" {
		t.Errorf("empty map changed the text: %q", got)
	}
}
