package doctorcmd

import (
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
)

// The language detection lives in internal/lang, shared with `llamactl
// matrix`; doctor.LangEN/LangZhCN have the same values as lang.EN/ZhCN.

// parseLang maps a --lang or LLAMACTL_LANG value onto a supported language.
func parseLang(v string) (string, bool) { return lang.Parse(v) }

// localeLang reads a POSIX locale value (LC_ALL, LC_MESSAGES, LANG).
func localeLang(v string) string { return lang.Locale(v) }

// chooseLang is the language of doctor's human output (lang.Choose).
func chooseLang(flag string, getenv func(string) string) (string, error) {
	l, err := lang.Choose(flag, getenv, "llamactl doctor --lang zh-CN")
	return l, cmdutil.UsageError(err)
}
