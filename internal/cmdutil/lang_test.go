package cmdutil

import (
	"strings"
	"testing"
)

// ChooseLang: --lang, then the environment; a bad --lang is exit 2 with the
// example; a console that cannot show Chinese gets English and a note,
// except with --json (which is English anyway).
func TestChooseLang(t *testing.T) {
	f, _, errOut := NewTest(map[string]string{"LANG": "zh_CN.UTF-8"}, nil)
	if l, err := f.ChooseLang("", "x"); err != nil || l != "zh-CN" {
		t.Errorf("LANG: %q %v", l, err)
	}
	if l, err := f.ChooseLang("en", "x"); err != nil || l != "en" {
		t.Errorf("--lang en: %q %v", l, err)
	}
	if _, err := f.ChooseLang("xx", "llamactl run m.gguf --lang zh-CN"); ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "llamactl run m.gguf --lang zh-CN") {
		t.Errorf("bad --lang: %v", err)
	}
	f.IO.ASCII = true
	if l, _ := f.ChooseLang("zh-CN", "x"); l != "en" || !strings.Contains(errOut.String(), "chcp 65001") {
		t.Errorf("ASCII console: %q, note %q", l, errOut)
	}
	f, _, errOut = NewTest(nil, nil)
	f.IO.ASCII, f.IO.JSON = true, true
	if l, _ := f.ChooseLang("zh-CN", "x"); l != "zh-CN" || errOut.Len() != 0 {
		t.Errorf("--json: %q, note %q", l, errOut)
	}
}
