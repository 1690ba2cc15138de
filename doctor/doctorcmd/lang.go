package doctorcmd

import (
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
)

// The language detection lives in internal/lang, shared with `llamactl
// matrix`; doctor.LangEN/LangZhCN have the same values as lang.EN/ZhCN.

// chooseLang is the language of doctor's human output (lang.Choose).
func chooseLang(flag string, getenv func(string) string) (string, error) {
	l, err := lang.Choose(flag, getenv, "llamactl doctor --lang zh-CN")
	return l, cmdutil.UsageError(err)
}
