package cli

import (
	_ "embed"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/runner/gguf"
)

// The sentences the command tree prints itself (version, usage errors,
// cobra's and pflag's own errors) by stable key: data/text.en.json, and
// data/text.zh-CN.json translating them. cobra's and pflag's errors are
// English strings; cliTexts(...).Line reads them back into their key and
// values and fills the translation.

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// cliTexts is the catalog of internal/cli's texts in l.
func cliTexts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

// argsLang is the language a command line asks for, read from args before
// cobra parses them (an error can come before any flag is parsed): --lang
// VALUE or --lang=VALUE before "--", else LLAMACTL_LANG and the locale. A
// bad --lang value, or a console that cannot show Chinese, is English here:
// the command itself reports either.
func argsLang(f *cmdutil.Factory, args []string) string {
	flag := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "--lang" && i+1 < len(args) {
			flag = args[i+1]
			i++
		} else if v, ok := strings.CutPrefix(a, "--lang="); ok {
			flag = v
		}
	}
	l, err := lang.Choose(flag, f.Getenv, "")
	if err != nil {
		return lang.EN
	}
	ascii := f.IO != nil && f.IO.ASCII
	return lang.Shown(l, ascii, io.Discard)
}

// commandLang is the language of cmd's output: its --lang (its own, a
// parent's or the root's hidden one) when given, else LLAMACTL_LANG and the
// locale (lang.Choose). note says whether a console that cannot show
// Chinese gets lang.Shown's note on stderr.
func commandLang(f *cmdutil.Factory, cmd *cobra.Command, note bool) (string, error) {
	flag := ""
	for _, fl := range []*pflag.Flag{cmd.Flags().Lookup("lang"), cmd.Root().PersistentFlags().Lookup("lang")} {
		if fl != nil && fl.Changed {
			flag = fl.Value.String()
			break
		}
	}
	l, err := lang.Choose(flag, f.Getenv, "llamactl "+strings.TrimPrefix(cmd.CommandPath()+" ", "llamactl ")+"--lang zh-CN")
	if err != nil {
		return lang.EN, err
	}
	out := io.Discard
	if note && f.IO != nil && f.IO.ErrOut != nil {
		out = f.IO.ErrOut
	}
	ascii := f.IO != nil && f.IO.ASCII
	return lang.Shown(l, ascii, out), nil
}

// localizeError is a command's error message in l: the domain errors it
// carries whose packages have texts for them (an unusable snapshot input,
// machine.LoadError; a file that is not a usable GGUF model, gguf's) in
// their translation, the rest of the message (the command's own words,
// translated by the command) as it is.
func localizeError(ee *cmdutil.ExitError, l string) string {
	msg := ee.Message
	if l == lang.EN {
		return msg
	}
	var le *machine.LoadError
	switch {
	case errors.As(ee, &le):
		msg = strings.Replace(msg, le.Error(), loadErrorIn(le, l), 1)
	case strings.HasSuffix(msg, ". "+machine.LoadHint):
		// a command that kept only the words ("--snapshot: " + its text)
		reason := strings.TrimSuffix(msg, ". "+machine.LoadHint)
		prefix := ""
		if i := strings.Index(reason, ": "); i > 0 && strings.HasPrefix(reason, "--") {
			prefix, reason = reason[:i+2], reason[i+2:]
		}
		msg = prefix + loadErrorIn(&machine.LoadError{Reason: reason, Hint: machine.LoadHint}, l)
	}
	// A model that cannot be read: the commands pass gguf's message on as
	// its words, a line of its own; each line one of gguf's texts explains
	// in full is translated.
	c := lang.FromFiles(l, gguf.TextEN, gguf.TextZhCN)
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		lines[i] = c.Line(line)
	}
	return strings.Join(lines, "\n")
}

// loadErrorIn is e's message in l: its reason and next step read back into
// machine's texts (machine.LoadTextEN) and rendered in l. A part no text
// explains (a JSON parser's message) stays as it is.
func loadErrorIn(e *machine.LoadError, l string) string {
	c := lang.FromFiles(l, machine.LoadTextEN, machine.LoadTextZhCN)
	if !c.Translated() {
		return e.Error()
	}
	r := c.Line(e.Reason)
	if rest, ok := strings.CutPrefix(e.Reason, e.Path+": "); ok && r == e.Reason {
		r = e.Path + "：" + c.Line(rest) // a zip's problem after its path
	}
	if e.Hint == "" {
		return r
	}
	return r + "。" + c.Line(e.Hint)
}
