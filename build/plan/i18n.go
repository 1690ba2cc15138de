package plan

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/finding"
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

// verbRE is a %s verb of a message text, with fmt's optional explicit
// argument index ("%[1]s" repeats the first value).
var verbRE = regexp.MustCompile(`%(?:\[([1-9][0-9]*)\])?s`)

// named is m's text with each %s (or %[n]s) replaced by the {arg} it is
// filled from, counting the way fmt does.
func named(m messageDef) string {
	next := 0
	return verbRE.ReplaceAllStringFunc(m.Text, func(v string) string {
		i := next
		if sm := verbRE.FindStringSubmatch(v); sm[1] != "" {
			n, _ := strconv.Atoi(sm[1])
			i = n - 1
		}
		next = i + 1
		if i < len(m.Args) {
			return "{" + m.Args[i] + "}"
		}
		return v
	})
}

// Translator renders the plan's texts in one language.
type Translator struct {
	cat *lang.Catalog
	// lines is cat without the templates that would claim any line
	// (lineless): the catalog Line reads lines back with.
	lines *lang.Catalog
	pat   *patches.Translator
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
	en := Texts()
	back := map[string]string{}
	for k, v := range en {
		if !lineless[k] {
			back[k] = v
		}
	}
	return &Translator{cat: lang.NewCatalog(l, en, tr), lines: lang.NewCatalog(l, back, tr), pat: patches.Default().Translator(l)}
}

// lineless are the messages Line never reads a line back as: "{id}:
// {title} ({reason})" would match any English sentence with a colon and a
// parenthesis, and render it half translated. The plan fills them by ID.
var lineless = map[string]bool{"text-patch": true}

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
			kv = append(kv, m.Args[i], t.items(fmt.Sprint(v)))
		}
	}
	return t.cat.T(id, kv...)
}

// choiceSep starts each choice of a blocker's list ("Choices:" then
// "\n    - ..." per choice).
const choiceSep = "\n    - "

// items translates a value: a line, or a list of choices each of which is
// a line.
func (t *Translator) items(v string) string {
	if !strings.Contains(v, choiceSep) {
		return t.Line(v)
	}
	parts := strings.Split(v, choiceSep)
	for i, p := range parts {
		parts[i] = t.Line(p)
	}
	return strings.Join(parts, choiceSep)
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

// Finding is a note as a finding (Note.Shared) with its summary in the
// translator's language, like Note; it makes the translator a
// finding.Translator for the one printer.
func (t *Translator) Finding(f finding.Finding) finding.Finding {
	n := Note{ID: f.Message, Text: f.Summary}
	if f.Args != nil {
		n.Args = []string{}
	}
	for i := 1; i < len(f.Args); i += 2 {
		n.Args = append(n.Args, f.Args[i])
	}
	f.Summary = t.Note(n)
	return f
}

// Patch is an applied patch's title and reason in the translator's
// language.
func (t *Translator) Patch(ap AppliedPatch) (title, reason string) {
	title, reason = t.pat.Title(ap.ID, ap.Title), t.pat.Reason(ap.Reason)
	if title == ap.Title { // a fix the plan makes itself (Vulkan headers)
		title = t.Line(ap.Title)
	}
	if reason == ap.Reason {
		reason = t.Line(ap.Reason)
	}
	return title, reason
}

// Line translates a line filled from one of the messages (a reason, a
// step's detail) or a patch's title; any other line goes through Extra,
// else stays.
func (t *Translator) Line(s string) string {
	if !t.cat.Translated() {
		return s
	}
	if tr := t.lines.Line(s); tr != s {
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
