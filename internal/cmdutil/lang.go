package cmdutil

import (
	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/lang"
)

// LangUsage is the help of every command's --lang flag.
const LangUsage = "language of the human output: zh-CN or en (default: LLAMACTL_LANG, then LC_ALL/LC_MESSAGES/LANG); --json always stays English"

// AddLangFlag registers --lang on cmd, into *v.
func AddLangFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "lang", "", LangUsage)
}

// ChooseLang is the language of a command's human output (lang.Choose); a
// bad --lang is a usage error showing example. With --json the language is
// not used, so a console that cannot show Chinese says nothing then; else
// such a console gets English and a note (lang.Shown).
func (f *Factory) ChooseLang(flag, example string) (string, error) {
	l, err := lang.Choose(flag, f.Getenv, example)
	if err != nil {
		return "", UsageError(err)
	}
	if f.IO != nil && !f.IO.JSON {
		l = lang.Shown(l, f.IO.ASCII, f.IO.ErrOut)
	}
	return l, nil
}
