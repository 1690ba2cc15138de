package lang

import (
	"errors"
	"strings"
	"testing"
)

func TestChoose(t *testing.T) {
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
