package failures

import (
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// failures.zh-CN.json translates every text of failures.json under its
// flat key, with the same placeholders and no English sentence left; its
// lines are sorted, one text a line.
func TestZhCNOverlay(t *testing.T) {
	zh, err := zhCN()
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckOverlay(t, Default().Texts(), zh, nil)
	testutil.CheckTextCatalog(t, zhCNOverlay)
	cat := lang.NewCatalog(lang.ZhCN, Default().Texts(), zh)
	testutil.CheckLines(t, Default().Texts(), zh, cat.Line, nil)
}

// Every finding of the knowledge base comes out in Chinese: title, cause
// and fix by its ID; ID, commands, source and the English finding itself
// unchanged.
func TestTranslateEveryFinding(t *testing.T) {
	kb := Default()
	tr := kb.Translator(lang.ZhCN)
	if tr.Lang() != lang.ZhCN {
		t.Fatalf("translator language %q", tr.Lang())
	}
	for _, e := range kb.Entries() {
		en := Finding{ID: e.ID, Title: e.Title, Cause: e.Cause, Fix: e.Fix, Commands: e.Commands, Source: e.Source}
		zh := tr.Finding(en)
		for _, s := range []string{zh.Title, zh.Cause, zh.Fix} {
			if !hasHan(s) {
				t.Errorf("%s: %q is not Chinese", e.ID, s)
			}
		}
		if zh.ID != e.ID || zh.Source != e.Source || strings.Join(zh.Commands, "|") != strings.Join(e.Commands, "|") {
			t.Errorf("%s: translating changed the ID, source or commands", e.ID)
		}
		if en.Title != e.Title || en.Cause != e.Cause {
			t.Errorf("%s: translating changed the English finding", e.ID)
		}
	}
	if got := tr.Message("label_why"); got != "原因" {
		t.Errorf("label_why: %q", got)
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// Facts are filled English sentences; the translator recovers the fact
// and its value, and joins them the Chinese way.
func TestTranslateFacts(t *testing.T) {
	kb := Default()
	tr := kb.Translator(lang.ZhCN)
	f := tr.Finding(Finding{ID: "nvcc-unsupported-msvc", Facts: []string{"your nvcc is 12.2", "the log shows MSVC 19.41.34123", "an unknown fact"}})
	want := []string{"你的 nvcc 版本为 12.2", "日志显示 MSVC 为 19.41.34123", "an unknown fact"}
	if strings.Join(f.Facts, "|") != strings.Join(want, "|") {
		t.Errorf("facts %q, want %q", f.Facts, want)
	}
	if got := tr.FactSentenceFor("nvcc-unsupported-msvc", f.Facts[:2]); got != "你的 nvcc 版本为 12.2，日志显示 MSVC 为 19.41.34123，这就是原因。" {
		t.Errorf("fact sentence %q", got)
	}
	en := kb.Translator(lang.EN)
	if got, want := en.FactSentenceFor("nvcc-unsupported-msvc", []string{"your nvcc is 12.2"}), kb.FactSentenceFor("nvcc-unsupported-msvc", []string{"your nvcc is 12.2"}); got != want {
		t.Errorf("English fact sentence %q, want %q", got, want)
	}
}

// A text the overlay lacks stays English, one text at a time; English and
// unknown languages are the knowledge base itself.
func TestTranslatorFallsBackPerText(t *testing.T) {
	kb := Default()
	zh, _ := zhCN()
	part := map[string]string{}
	for k, v := range zh {
		part[k] = v
	}
	delete(part, "cuda-no-device.cause")
	delete(part, "message.label_fix")
	tr := kb.TranslatorWith(lang.ZhCN, part)
	e, _ := kb.Entry("cuda-no-device")
	f := tr.Finding(Finding{ID: e.ID, Title: e.Title, Cause: e.Cause, Fix: e.Fix})
	if f.Cause != e.Cause || f.Title != zh["cuda-no-device.title"] || f.Fix != zh["cuda-no-device.fix"] {
		t.Errorf("per-text fallback: %+v", f)
	}
	if tr.Message("label_fix") != "Fix" || tr.Message("label_why") != "原因" {
		t.Errorf("messages: %q %q", tr.Message("label_fix"), tr.Message("label_why"))
	}
	for _, l := range []string{"", lang.EN, "fr"} {
		if g := kb.Translator(l).Finding(Finding{ID: e.ID, Title: e.Title}); g.Title != e.Title {
			t.Errorf("language %q translated: %q", l, g.Title)
		}
	}
}
