package patches

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/lang"
)

// Translations of the patches' human texts. data/text.en.json holds why a
// patch applies (the reasons llamactl build's plan gives); the patches' own
// titles and reasons are patches.json's. data/patches.zh-CN.json translates
// both under flat keys: "<id>.title", "<id>.why" and text.en.json's keys.
// A text it lacks stays English, one text at a time; --json is never
// translated.

//go:embed data/text.en.json
var textEN []byte

//go:embed data/patches.zh-CN.json
var patchesZhCN []byte

var (
	enTexts = sync.OnceValue(func() map[string]string {
		m, err := lang.ParseOverlay("patches/data/text.en.json", textEN)
		if err != nil {
			panic(err) // build-time data; tested
		}
		return m
	})
	zhCN = sync.OnceValues(func() (map[string]string, error) {
		return lang.ParseOverlay("patches/data/patches.zh-CN.json", patchesZhCN)
	})
)

// Text is an English text of data/text.en.json filled from name, value
// pairs.
func Text(key string, kv ...any) string {
	return lang.NewCatalog(lang.EN, enTexts(), nil).T(key, kv...)
}

// Texts is every English text a translation follows, by the overlay's keys.
func (r *Registry) Texts() map[string]string {
	out := map[string]string{}
	for k, v := range enTexts() {
		out[k] = v
	}
	for _, p := range r.Patches {
		out[p.ID+".title"], out[p.ID+".why"] = p.Title, p.Why
	}
	return out
}

// Translator renders the patches' texts in one language.
type Translator struct{ cat *lang.Catalog }

// Translator is r's translator into l (lang.ZhCN); English, an unknown
// language or a broken overlay gives English.
func (r *Registry) Translator(l string) *Translator {
	var tr map[string]string
	if l == lang.ZhCN {
		tr, _ = zhCN()
	}
	return r.TranslatorWith(l, tr)
}

// TranslatorWith is a translator with the overlay tr (tests).
func (r *Registry) TranslatorWith(l string, tr map[string]string) *Translator {
	return &Translator{cat: lang.NewCatalog(l, r.Texts(), tr)}
}

// Title is a patch's title in the translator's language.
func (t *Translator) Title(id, en string) string { return t.text(id+".title", en) }

// Why is a patch's reason in the translator's language.
func (t *Translator) Why(id, en string) string { return t.text(id+".why", en) }

func (t *Translator) text(key, en string) string {
	if t.cat.HasTranslation(key) {
		return t.cat.Template(key)
	}
	return en
}

// Reason translates why a patch applies ("conditions hold on this machine;
// no MSVC toolset below 14.40 is installed, using the fallback"), part by
// part.
func (t *Translator) Reason(s string) string {
	if !t.cat.Translated() {
		return s
	}
	parts := strings.Split(s, "; ")
	for i, p := range parts {
		parts[i] = t.cat.Line(p)
	}
	return strings.Join(parts, "；")
}

// Line translates a patch's title or reason, or a text of text.en.json,
// given in English; any other line stays as it is.
func (t *Translator) Line(s string) string { return t.cat.Line(s) }
