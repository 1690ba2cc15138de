package lang

import "testing"

var (
	testEN = map[string]string{
		"fit":   "{device} needs {need} MiB",
		"nofit": "does not fit: {why}",
		"plain": "no GPU",
		"bare":  "{warning}",
		"only":  "only in English",
	}
	testZH = map[string]string{
		"fit":   "{device} 需要 {need} MiB",
		"nofit": "放不下：{why}",
		"plain": "没有 GPU",
		"bare":  "{warning}",
	}
)

// T and Template take the translation, else English; Line recovers the
// template and its values from an English line, translating nested values
// and "; "-joined lists; an English catalog changes nothing.
func TestCatalog(t *testing.T) {
	zh := NewCatalog(ZhCN, testEN, testZH)
	if !zh.Translated() || zh.Lang() != ZhCN || !zh.HasTranslation("fit") || zh.HasTranslation("only") {
		t.Fatal("zh catalog")
	}
	if got := zh.T("fit", "device", "CUDA0", "need", 12); got != "CUDA0 需要 12 MiB" {
		t.Errorf("T: %q", got)
	}
	if got := zh.T("only"); got != "only in English" {
		t.Errorf("fallback: %q", got)
	}
	if got := zh.T("missing"); got != "missing" {
		t.Errorf("unknown key: %q", got)
	}
	for in, want := range map[string]string{
		"no GPU":                           "没有 GPU",
		"does not fit: CUDA0 needs 12 MiB": "放不下：CUDA0 需要 12 MiB",
		"does not fit: a needs 1 MiB; b needs 2 MiB": "放不下：a 需要 1 MiB；b 需要 2 MiB",
		"does not fit: something else":               "放不下：something else",
		"anything at all":                            "anything at all",
		"only in English":                            "only in English",
	} {
		if got := zh.Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
	en := NewCatalog(EN, testEN, testZH)
	if en.Translated() || en.Line("no GPU") != "no GPU" || en.T("plain") != "no GPU" {
		t.Error("English catalog translated")
	}
	if c := NewCatalog(ZhCN, testEN, nil); c.Translated() || c.Lang() != EN {
		t.Error("a catalog without an overlay is English")
	}
	if _, err := ParseOverlay("x", []byte(`{"locale":"fr","text":{}}`)); err == nil {
		t.Error("unknown locale accepted")
	}
}

// Line never panics and never changes a line in English.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"does not fit: a needs 1 MiB; b needs 2 MiB", "no GPU", "{need}", ""} {
		f.Add(s)
	}
	zh, en := NewCatalog(ZhCN, testEN, testZH), NewCatalog(EN, testEN, testZH)
	f.Fuzz(func(t *testing.T, s string) {
		_ = zh.Line(s)
		if got := en.Line(s); got != s {
			t.Errorf("English Line(%q) = %q", s, got)
		}
	})
}
