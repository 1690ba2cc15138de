package doctorcmd

import (
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/ui"
)

// The language detection lives in internal/lang, shared with `llamactl
// matrix`; doctor.LangEN/LangZhCN have the same values as lang.EN/ZhCN.

// chooseLang is the language of doctor's human output (lang.Choose).
func chooseLang(flag string, getenv func(string) string) (string, error) {
	l, err := lang.Choose(flag, getenv, "llamactl doctor --lang zh-CN")
	return l, cmdutil.UsageError(err)
}

// shownLang falls back to English on a console that cannot show Chinese.
func shownLang(l string, io *ui.IOStreams) string { return lang.Shown(l, io.ASCII, io.ErrOut) }
