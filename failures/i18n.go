package failures

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/lang"
)

// Translations of explain's human output. The overlay
// (data/failures.<lang>.json) holds the translated texts under flat stable
// keys: "message.<key>", "fact.<key>" and "<failure id>.title", ".cause",
// ".fix". A text it lacks stays English, one text at a time; IDs, commands,
// excerpts and --json output are never translated.

//go:embed data/failures.zh-CN.json
var zhCNOverlay []byte

var zhCN = sync.OnceValues(func() (map[string]string, error) {
	return lang.ParseOverlay("failures/data/failures.zh-CN.json", zhCNOverlay)
})

// Texts is the knowledge base's English human texts by the overlay's keys.
func (kb *KB) Texts() map[string]string {
	out := map[string]string{}
	for k, v := range kb.messages {
		out["message."+k] = v
	}
	for _, f := range kb.facts {
		out["fact."+f.Key] = f.Text
	}
	for _, e := range kb.entries {
		out[e.ID+".title"], out[e.ID+".cause"], out[e.ID+".fix"] = e.Title, e.Cause, e.Fix
	}
	return out
}

// Translator renders findings and explain's fixed sentences in one language.
type Translator struct {
	kb  *KB
	cat *lang.Catalog
}

// Translator is kb's translator into l (lang.ZhCN); English, an unknown
// language or a broken overlay gives the English texts.
func (kb *KB) Translator(l string) *Translator {
	var tr map[string]string
	if l == lang.ZhCN {
		tr, _ = zhCN()
	}
	return kb.TranslatorWith(l, tr)
}

// TranslatorWith is a translator with the overlay tr (tests).
func (kb *KB) TranslatorWith(l string, tr map[string]string) *Translator {
	return &Translator{kb: kb, cat: lang.NewCatalog(l, kb.Texts(), tr)}
}

// Lang is the translator's language (lang.EN without a translation).
func (t *Translator) Lang() string { return t.cat.Lang() }

// Message is a fixed sentence of explain (failures.json "messages").
func (t *Translator) Message(key string) string { return t.cat.Template("message." + key) }

// Finding is f with its title, cause, fix and facts in the translator's
// language. f itself is not changed.
func (t *Translator) Finding(f Finding) Finding {
	if !t.cat.Translated() {
		return f
	}
	for _, p := range []struct {
		key string
		s   *string
	}{{".title", &f.Title}, {".cause", &f.Cause}, {".fix", &f.Fix}} {
		if t.cat.Has(f.ID + p.key) {
			*p.s = t.cat.Template(f.ID + p.key)
		}
	}
	if len(f.Facts) > 0 {
		facts := make([]string, len(f.Facts))
		for i, s := range f.Facts {
			facts[i] = t.cat.Line(s)
		}
		f.Facts = facts
	}
	return f
}

// FactSentenceFor is KB.FactSentenceFor in the translator's language, for
// facts Finding translated.
func (t *Translator) FactSentenceFor(id string, facts []string) string {
	if !t.cat.Translated() {
		return t.kb.FactSentenceFor(id, facts)
	}
	if len(facts) == 0 {
		return ""
	}
	if e, ok := t.kb.Entry(id); ok && e.Role == "wrapper" {
		return t.Message("facts_context") + "：" + strings.Join(facts, "；") + "。"
	}
	return strings.Join(facts, "，") + "，" + t.Message("which_is_why") + "。"
}
