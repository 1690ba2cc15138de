package plan

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/patches"
)

// Translations of the plan's human text. data/messages.zh-CN.json holds the
// translated texts by the same stable IDs, with {arg} (the names of
// messages.json's "args") where English has %s. A text it lacks stays
// English, one text at a time; --json keeps the English notes.

//go:embed data/messages.zh-CN.json
var messagesZhCN []byte

var zhCN = sync.OnceValues(func() (map[string]string, error) {
	return lang.ParseOverlay("build/plan/data/messages.zh-CN.json", messagesZhCN)
})

// Texts is messages.json's English texts with {arg} for each %s: the
// catalog a translation follows.
func Texts() map[string]string {
	out := map[string]string{}
	for id, m := range messageTable() {
		out[id] = named(m)
	}
	return out
}

// named is m's text with its %s replaced by {arg}, in order.
func named(m messageDef) string {
	parts := strings.Split(m.Text, "%s")
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(p)
		if i < len(parts)-1 {
			if i < len(m.Args) {
				b.WriteString("{" + m.Args[i] + "}")
			} else {
				b.WriteString("%s")
			}
		}
	}
	return b.String()
}

// Translator renders the plan's texts in one language.
type Translator struct {
	cat *lang.Catalog
	pat *patches.Translator
	// Extra translates a reason the plan did not write (doctor's selection
	// reasons); nil keeps it.
	Extra func(string) string
}

// NewTranslator is the translator into l (lang.ZhCN); "", English or an
// unknown language gives English.
func NewTranslator(l string) *Translator {
	var tr map[string]string
	if l == lang.ZhCN {
		tr, _ = zhCN()
	}
	return NewTranslatorWith(l, tr)
}

// NewTranslatorWith is a translator with the overlay tr (tests).
func NewTranslatorWith(l string, tr map[string]string) *Translator {
	return &Translator{cat: lang.NewCatalog(l, Texts(), tr), pat: patches.Default().Translator(l)}
}

// Lang is the translator's language (lang.EN without a translation).
func (t *Translator) Lang() string { return t.cat.Lang() }

// T is message id filled with a, in order.
func (t *Translator) T(id string, a ...any) string {
	m, ok := messageTable()[id]
	if !ok {
		return message(id, a...).Text
	}
	if !t.cat.Translated() {
		return message(id, a...).Text
	}
	kv := make([]any, 0, 2*len(a))
	for i, v := range a {
		if i < len(m.Args) {
			kv = append(kv, m.Args[i], t.Line(fmt.Sprint(v)))
		}
	}
	return t.cat.T(id, kv...)
}

// Note is a warning's or blocker's text in the translator's language: by
// its ID and values, or, for a note read back without them, by matching
// its English text.
func (t *Translator) Note(n Note) string {
	if !t.cat.Translated() {
		return n.Text
	}
	if _, ok := messageTable()[n.ID]; ok && n.Args != nil {
		a := make([]any, len(n.Args))
		for i, v := range n.Args {
			a[i] = v
		}
		return t.T(n.ID, a...)
	}
	return t.Line(n.Text)
}

// Patch is an applied patch's title and reason in the translator's
// language.
func (t *Translator) Patch(ap AppliedPatch) (title, reason string) {
	return t.pat.Title(ap.ID, ap.Title), t.pat.Reason(ap.Reason)
}

// Line translates a line filled from one of the messages (a reason, a
// step's detail) or a patch's title; any other line goes through Extra,
// else stays.
func (t *Translator) Line(s string) string {
	if !t.cat.Translated() {
		return s
	}
	if tr := t.cat.Line(s); tr != s {
		return tr
	}
	if tr := t.pat.Line(s); tr != s {
		return tr
	}
	if t.Extra != nil {
		return t.Extra(s)
	}
	return s
}
