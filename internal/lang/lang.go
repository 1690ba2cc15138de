// Package lang picks the language of llamactl's human output (doctor,
// matrix): --lang, else LLAMACTL_LANG, else the POSIX locale. --json output
// never depends on it.
package lang

import (
	"fmt"
	"strings"
)

// Languages of the human output.
const (
	EN   = "en"
	ZhCN = "zh-CN"
)

// Parse maps a --lang or LLAMACTL_LANG value onto a supported language; ok
// is false for a value llamactl has no translation for.
func Parse(v string) (lang string, ok bool) {
	v = strings.ToLower(strings.ReplaceAll(strings.TrimSpace(v), "_", "-"))
	switch v {
	case "en", "en-us", "en-gb", "c", "posix":
		return EN, true
	case "zh-cn", "zh", "zh-hans", "zh-sg", "zh-hans-cn":
		return ZhCN, true
	}
	return "", false
}

// Locale reads a POSIX locale value (LC_ALL, LC_MESSAGES, LANG): zh_CN,
// zh-CN, zh_SG and zh_Hans (with any .UTF-8 or @modifier) are Simplified
// Chinese; everything else, including zh_TW, is English.
func Locale(v string) string {
	v = strings.ReplaceAll(strings.TrimSpace(v), "-", "_")
	if i := strings.IndexAny(v, ".@"); i >= 0 {
		v = v[:i]
	}
	for _, p := range []string{"zh_CN", "zh_SG", "zh_Hans"} {
		if strings.EqualFold(v, p) || strings.HasPrefix(strings.ToLower(v), strings.ToLower(p)+"_") {
			return ZhCN
		}
	}
	return EN
}

// UnknownError is a --lang value llamactl has no texts for; commands report
// it as a usage error (exit 2).
type UnknownError struct{ Flag, Example string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown language %q for --lang: choose zh-CN or en (for example: %s)", e.Flag, e.Example)
}

// Choose is the language of the human output: flag (--lang), else
// LLAMACTL_LANG, else the first set of LC_ALL, LC_MESSAGES, LANG (POSIX
// precedence), else English. A bad flag is a usage error that shows
// example (a command line with --lang zh-CN); a bad LLAMACTL_LANG is
// ignored so an environment typo never blocks a command.
func Choose(flag string, getenv func(string) string, example string) (string, error) {
	if flag != "" {
		l, ok := Parse(flag)
		if !ok {
			return "", &UnknownError{Flag: flag, Example: example}
		}
		return l, nil
	}
	if getenv == nil {
		return EN, nil
	}
	if l, ok := Parse(getenv("LLAMACTL_LANG")); ok {
		return l, nil
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			return Locale(v), nil
		}
	}
	return EN, nil
}
