// Package lang picks the language of llamactl's human output (doctor,
// matrix): --lang, else LLAMACTL_LANG, else the POSIX locale, else (on
// Windows, which sets no LANG) the user's display language. --json output
// never depends on it.
package lang

import (
	"fmt"
	"strings"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/ui"
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

// uiLanguage is the operating system's display language for the user
// (Windows: GetUserPreferredUILanguages), "" where there is none to ask.
var uiLanguage = systemUILanguage

// Choose is the language of the human output: flag (--lang), else
// LLAMACTL_LANG, else the first set of LC_ALL, LC_MESSAGES, LANG (POSIX
// precedence), else the Windows display language, else English. A bad flag is a usage error that shows
// example (a command line with --lang zh-CN); a bad LLAMACTL_LANG is
// ignored so an environment typo never blocks a command.
func Choose(flag string, getenv func(string) string, example string) (string, error) {
	if flag != "" {
		l, ok := Parse(flag)
		if !ok {
			return "", cmdutil.UsageErrorf("unknown language %q for --lang: choose zh-CN or en (for example: %s)", flag, example)
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
	if v := uiLanguage(); v != "" {
		return Locale(v), nil
	}
	return EN, nil
}

// Shown is the language the output can be shown in: Chinese needs a
// console that shows UTF-8. On a Windows console that refused the switch
// to UTF-8 (ui.IOStreams.ASCII) the output is English, and a note on
// stderr says how to get Chinese.
func Shown(l string, io *ui.IOStreams) string {
	if l != ZhCN || io == nil || !io.ASCII {
		return l
	}
	fmt.Fprintln(io.ErrOut, "llamactl: this console cannot show Chinese (its code page is not UTF-8 and could not be switched): the output is in English. "+
		"Run 'chcp 65001' first or use Windows Terminal, or save the output: llamactl ... > out.txt")
	return EN
}
