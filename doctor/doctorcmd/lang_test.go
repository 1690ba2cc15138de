package doctorcmd

import (
	"testing"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// The language comes from --lang, else LLAMACTL_LANG, else the POSIX locale
// (LC_ALL over LC_MESSAGES over LANG), else English.
func TestChooseLang(t *testing.T) {
	zh, en := doctor.LangZhCN, doctor.LangEN
	cases := []struct {
		name string
		flag string
		env  map[string]string
		want string
	}{
		{"nothing", "", nil, en},
		{"flag zh-CN", "zh-CN", nil, zh},
		{"flag zh_cn", "zh_cn", nil, zh},
		{"flag en beats env", "en", map[string]string{"LLAMACTL_LANG": "zh-CN", "LANG": "zh_CN.UTF-8"}, en},
		{"flag zh beats env", "zh-CN", map[string]string{"LLAMACTL_LANG": "en"}, zh},
		{"LLAMACTL_LANG zh-CN", "", map[string]string{"LLAMACTL_LANG": "zh-CN"}, zh},
		{"LLAMACTL_LANG en beats LANG", "", map[string]string{"LLAMACTL_LANG": "en", "LANG": "zh_CN.UTF-8"}, en},
		{"LLAMACTL_LANG unknown falls to locale", "", map[string]string{"LLAMACTL_LANG": "klingon", "LANG": "zh_CN.UTF-8"}, zh},
		{"LANG zh_CN.UTF-8", "", map[string]string{"LANG": "zh_CN.UTF-8"}, zh},
		{"LANG zh_CN.GB18030", "", map[string]string{"LANG": "zh_CN.GB18030"}, zh},
		{"LANG zh-CN", "", map[string]string{"LANG": "zh-CN"}, zh},
		{"LANG zh_SG", "", map[string]string{"LANG": "zh_SG.UTF-8"}, zh},
		{"LANG zh_Hans", "", map[string]string{"LANG": "zh_Hans"}, zh},
		{"LANG zh_Hans_CN", "", map[string]string{"LANG": "zh_Hans_CN.UTF-8"}, zh},
		{"LANG zh_TW is not Simplified", "", map[string]string{"LANG": "zh_TW.UTF-8"}, en},
		{"LANG zh_HK", "", map[string]string{"LANG": "zh_HK.UTF-8"}, en},
		{"LANG en_US", "", map[string]string{"LANG": "en_US.UTF-8"}, en},
		{"LANG C", "", map[string]string{"LANG": "C"}, en},
		{"LC_ALL beats LANG", "", map[string]string{"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, en},
		{"LC_ALL zh beats LANG en", "", map[string]string{"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, zh},
		{"LC_MESSAGES beats LANG", "", map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, zh},
		{"LC_ALL beats LC_MESSAGES", "", map[string]string{"LC_ALL": "C", "LC_MESSAGES": "zh_CN.UTF-8"}, en},
		{"empty LC_ALL is unset", "", map[string]string{"LC_ALL": "", "LANG": "zh_CN.utf8"}, zh},
		{"modifier", "", map[string]string{"LANG": "zh_CN@pinyin"}, zh},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := chooseLang(c.flag, func(k string) string { return c.env[k] })
			if err != nil || got != c.want {
				t.Errorf("chooseLang(%q, %v) = %q, %v; want %q", c.flag, c.env, got, err, c.want)
			}
		})
	}
}

// An unknown --lang is a usage error that names the choices; a nil Getenv
// is English.
func TestChooseLangBadFlag(t *testing.T) {
	_, err := chooseLang("fr", nil)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("--lang fr: %v (exit %d), want a usage error", err, cmdutil.ExitCode(err))
	}
	if got, err := chooseLang("", nil); got != doctor.LangEN || err != nil {
		t.Errorf("no env: %q %v", got, err)
	}
}
