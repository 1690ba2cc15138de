package doctorcmd

import (
	"strings"

	"github.com/llamactl/llamactl/doctor"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

// parseLang maps a --lang or LLAMACTL_LANG value onto a supported language;
// ok is false for a value llamactl has no translation for.
func parseLang(v string) (lang string, ok bool) {
	v = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(v), "_", "-"))
	switch v {
	case "en", "en-us", "en-gb", "c", "posix":
		return doctor.LangEN, true
	case "zh-cn", "zh", "zh-hans", "zh-sg", "zh-hans-cn":
		return doctor.LangZhCN, true
	}
	return "", false
}

// localeLang reads a POSIX locale value (LC_ALL, LC_MESSAGES, LANG):
// zh_CN, zh-CN, zh_SG and zh_Hans (with any .UTF-8 or @modifier) are
// Simplified Chinese; everything else, including zh_TW, is English.
func localeLang(v string) string {
	v = strings.ReplaceAll(strings.TrimSpace(v), "-", "_")
	if i := strings.IndexAny(v, ".@"); i >= 0 {
		v = v[:i]
	}
	for _, p := range []string{"zh_CN", "zh_SG", "zh_Hans"} {
		if strings.EqualFold(v, p) || strings.HasPrefix(strings.ToLower(v), strings.ToLower(p)+"_") {
			return doctor.LangZhCN
		}
	}
	return doctor.LangEN
}

// chooseLang is the language of the human output: --lang, else
// LLAMACTL_LANG, else the first set of LC_ALL, LC_MESSAGES, LANG (POSIX
// precedence), else English. A bad --lang is a usage error; a bad
// LLAMACTL_LANG is ignored (the report still prints, in English or by
// locale) so an environment typo never blocks doctor.
func chooseLang(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		l, ok := parseLang(flag)
		if !ok {
			return "", cmdutil.UsageErrorf("unknown language %q for --lang: choose zh-CN or en (for example: llamactl doctor --lang zh-CN)", flag)
		}
		return l, nil
	}
	if getenv == nil {
		return doctor.LangEN, nil
	}
	if l, ok := parseLang(getenv("LLAMACTL_LANG")); ok {
		return l, nil
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			return localeLang(v), nil
		}
	}
	return doctor.LangEN, nil
}
