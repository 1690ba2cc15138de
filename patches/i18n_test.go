package patches

import (
	"testing"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// patches.zh-CN.json translates every patch's title and reason and every
// text of text.en.json, with the same placeholders and no English sentence
// left; a reason filled in English comes back in Chinese.
func TestZhCNOverlay(t *testing.T) {
	zh, err := zhCN()
	if err != nil {
		t.Fatal(err)
	}
	r := Default()
	testutil.CheckOverlay(t, r.Texts(), zh, nil,
		`"build 0, commit unknown"`) // a tool's message, quoted
	testutil.CheckTextCatalog(t, patchesZhCN)
	testutil.CheckTextCatalog(t, textEN)
	testutil.CheckLines(t, r.Texts(), zh, r.Translator(lang.ZhCN).Line, nil)

	tr := r.Translator(lang.ZhCN)
	en := Text("reason.proactive") + "; " + Text("reason.fallback", "toolset", "14.40")
	if got := tr.Reason(en); got != "本机满足条件；没有安装低于 14.40 的 MSVC 工具集，改用后备方案" {
		t.Errorf("reason %q -> %q", en, got)
	}
	p, _ := r.Get("msvc-stl-cuda")
	if got := tr.Title(p.ID, p.Title); got != zh["msvc-stl-cuda.title"] {
		t.Errorf("title %q", got)
	}
	part := map[string]string{"msvc-stl-cuda.why": zh["msvc-stl-cuda.why"]}
	pt := r.TranslatorWith(lang.ZhCN, part)
	if pt.Title(p.ID, p.Title) != p.Title || pt.Why(p.ID, p.Why) != zh["msvc-stl-cuda.why"] {
		t.Error("per-text fallback")
	}
	if got := r.Translator(lang.EN).Reason(en); got != en {
		t.Errorf("English translator changed %q", got)
	}
}
