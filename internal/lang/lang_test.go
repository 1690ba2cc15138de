package lang

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
	saved := uiLanguage
	defer func() { uiLanguage = saved }()
	uiLanguage = func() string { return "" } // whatever this machine's display language
	for _, c := range []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"", nil, EN},
		{"zh_cn", nil, ZhCN},
		{"zh-Hans", map[string]string{"LANG": "en_US.UTF-8"}, ZhCN},
		{"en", map[string]string{"LLAMACTL_LANG": "zh-CN"}, EN},
		{"", map[string]string{"LLAMACTL_LANG": "zh"}, ZhCN},
		{"", map[string]string{"LLAMACTL_LANG": "bogus", "LANG": "zh_CN.UTF-8"}, ZhCN},
		{"", map[string]string{"LC_ALL": "zh_SG.UTF-8", "LANG": "en_US"}, ZhCN},
		{"", map[string]string{"LC_MESSAGES": "C", "LANG": "zh_CN"}, EN},
		{"", map[string]string{"LANG": "zh_TW.UTF-8"}, EN},
		{"", map[string]string{"LANG": "zh_Hans_CN@pinyin"}, ZhCN},
	} {
		got, err := Choose(c.flag, func(k string) string { return c.env[k] }, "x")
		if err != nil || got != c.want {
			t.Errorf("Choose(%q, %v) = %q, %v; want %q", c.flag, c.env, got, err, c.want)
		}
	}
	_, err := Choose("fr", nil, "llamactl matrix gpu --lang zh-CN")
	var ue *UnknownError
	if !errors.As(err, &ue) || ue.Flag != "fr" || !strings.Contains(err.Error(), "llamactl matrix gpu --lang zh-CN") {
		t.Errorf("bad --lang: %v", err)
	}
}

// Windows sets no LANG: the user's display language decides, after the
// explicit settings.
func TestChooseFollowsTheWindowsDisplayLanguage(t *testing.T) {
	saved := uiLanguage
	defer func() { uiLanguage = saved }()
	for _, c := range []struct {
		ui   string
		env  map[string]string
		want string
	}{
		{"zh-CN", nil, ZhCN},
		{"zh-Hans-CN", nil, ZhCN},
		{"zh-TW", nil, EN},
		{"en-US", nil, EN},
		{"", nil, EN},
		{"zh-CN", map[string]string{"LANG": "en_US.UTF-8"}, EN},
		{"en-US", map[string]string{"LLAMACTL_LANG": "zh-CN"}, ZhCN},
	} {
		uiLanguage = func() string { return c.ui }
		if got, err := Choose("", func(k string) string { return c.env[k] }, "x"); err != nil || got != c.want {
			t.Errorf("display language %q, env %v: %q, %v; want %q", c.ui, c.env, got, err, c.want)
		}
	}
	if got, _ := Choose("en", nil, "x"); got != EN {
		t.Errorf("--lang en on a Chinese Windows: %q", got)
	}
}

// The display language is read from the real operating system: under wine
// started with a Chinese locale (scripts/wine-run, WINE_SMOKE_LANG=zh_CN.UTF-8)
// it is zh-CN; elsewhere it must at least be a language name or nothing.
func TestSystemUILanguage(t *testing.T) {
	v := systemUILanguage()
	t.Logf("display language: %q", v)
	if want := os.Getenv("LLAMACTL_TEST_UI_LANGUAGE"); want != "" && v != want {
		t.Errorf("display language %q, want %q", v, want)
	}
	if strings.ContainsAny(v, " \x00") {
		t.Errorf("not a language name: %q", v)
	}
}

// Chinese needs a console that shows UTF-8; on one that cannot, English and
// a note that says how to get Chinese.
func TestShownFallsBackToEnglishOnALegacyConsole(t *testing.T) {
	var errOut strings.Builder
	if got := Shown(ZhCN, false, &errOut); got != ZhCN || errOut.Len() != 0 {
		t.Errorf("UTF-8 output: %q, note %q", got, errOut.String())
	}
	if got := Shown(ZhCN, true, &errOut); got != EN || !strings.Contains(errOut.String(), "chcp 65001") {
		t.Errorf("legacy console: %q, note %q", got, errOut.String())
	}
	if got := Shown(EN, true, &errOut); got != EN {
		t.Errorf("English stays English: %q", got)
	}
}
