package lang

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/placeholder"
)

// Catalog is one package's human texts by stable key: the English
// templates and, for another language, the overlay that translates them
// ({name} placeholders, the same keys). A key the overlay lacks falls back
// to English, one text at a time. --json output never goes through it.
type Catalog struct {
	lang   string
	en, tr map[string]string

	once sync.Once
	res  []template
}

type template struct {
	key   string
	re    *regexp.Regexp
	names []string
	lit   int // characters outside the placeholders
}

// NewCatalog is the catalog of en in lang with the overlay tr (nil, or lang
// English: the texts stay English).
func NewCatalog(lang string, en, tr map[string]string) *Catalog {
	if lang == "" || lang == EN || len(tr) == 0 {
		return &Catalog{lang: EN, en: en}
	}
	return &Catalog{lang: lang, en: en, tr: tr}
}

// Lang is the catalog's language (EN when it has no overlay).
func (c *Catalog) Lang() string { return c.lang }

// Translated says whether the catalog renders another language than English.
func (c *Catalog) Translated() bool { return c != nil && c.tr != nil }

// Template is key's text in the catalog's language, else in English, else "".
func (c *Catalog) Template(key string) string {
	if c == nil {
		return ""
	}
	if s, ok := c.tr[key]; ok && s != "" {
		return s
	}
	return c.en[key]
}

// English is key's English text, "" when the catalog lacks it.
func (c *Catalog) English(key string) string {
	if c == nil {
		return ""
	}
	return c.en[key]
}

// Has says whether key is a text of the catalog.
func (c *Catalog) Has(key string) bool {
	if c == nil {
		return false
	}
	_, ok := c.en[key]
	return ok
}

// HasTranslation says whether the overlay translates key.
func (c *Catalog) HasTranslation(key string) bool {
	if c == nil {
		return false
	}
	return c.tr[key] != ""
}

// T is key's text filled from name, value pairs; an unknown key is itself.
func (c *Catalog) T(key string, kv ...any) string {
	s := c.Template(key)
	if s == "" {
		return key
	}
	return placeholder.Fill(s, kv...)
}

// Line translates a line that was filled from one of the English
// templates: the template's key and values are recovered by matching, each
// value is translated the same way when it is itself a filled template, and
// the translation is filled with them. A line no template produced, or any
// line of an English catalog, is returned as it is.
func (c *Catalog) Line(s string) string { return c.line(s, 2) }

func (c *Catalog) line(s string, depth int) string {
	if !c.Translated() || s == "" {
		return s
	}
	c.once.Do(c.compile)
	if tr, ok := c.tr[c.exact(s)]; ok && tr != "" {
		return tr
	}
	for _, t := range c.res {
		tr, ok := c.tr[t.key]
		if !ok || tr == "" {
			continue
		}
		m := t.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		kv := make([]any, 0, 2*len(t.names))
		for i, n := range t.names {
			v := m[i+1]
			if depth > 0 {
				v = c.value(v, depth-1)
			}
			kv = append(kv, n, v)
		}
		return placeholder.Fill(tr, kv...)
	}
	return s
}

// value translates a value captured from a line: a filled template, or
// filled templates joined with "; " (a list of reasons: each part is
// tried first, so one template cannot swallow the whole list).
func (c *Catalog) value(v string, depth int) string {
	if strings.Contains(v, "; ") {
		parts := strings.Split(v, "; ")
		all := true
		for i, p := range parts {
			tr := c.line(p, depth)
			all = all && tr != p
			parts[i] = tr
		}
		if all {
			return strings.Join(parts, "；")
		}
	}
	return c.line(v, depth)
}

// exact is the key of a template without placeholders whose text is s.
func (c *Catalog) exact(s string) string {
	for k, en := range c.en {
		if en == s && !strings.Contains(en, "{") {
			return k
		}
	}
	return ""
}

var phRE = regexp.MustCompile(`\{[a-z_][a-z0-9_]*\}`)

// compile turns every English template with a placeholder into a regexp,
// the one with the most literal text first: of two templates that both
// match a line, the one that explains more of it wins.
func (c *Catalog) compile() {
	for k, en := range c.en {
		locs := phRE.FindAllStringIndex(en, -1)
		if len(locs) == 0 {
			continue
		}
		lit := len(en)
		var b strings.Builder
		var names []string
		b.WriteString("^")
		prev := 0
		for _, l := range locs {
			b.WriteString(regexp.QuoteMeta(en[prev:l[0]]))
			b.WriteString("(.*?)")
			names = append(names, en[l[0]+1:l[1]-1])
			lit -= l[1] - l[0]
			prev = l[1]
		}
		b.WriteString(regexp.QuoteMeta(en[prev:]))
		b.WriteString("$")
		if lit < 3 { // "{warning}": it would match any line
			continue
		}
		c.res = append(c.res, template{key: k, re: regexp.MustCompile("(?s)" + b.String()), names: names, lit: lit})
	}
	sort.Slice(c.res, func(i, j int) bool {
		if c.res[i].lit != c.res[j].lit {
			return c.res[i].lit > c.res[j].lit
		}
		return c.res[i].key < c.res[j].key
	})
}

// ParseOverlay reads a text catalog file ({"locale": ..., "text": {key:
// text}}), the format of every data/*.zh-CN.json.
func ParseOverlay(name string, data []byte) (map[string]string, error) {
	var doc struct {
		Locale string            `json:"locale"`
		Text   map[string]string `json:"text"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if doc.Locale != "" {
		if _, ok := Parse(doc.Locale); !ok {
			return nil, fmt.Errorf("%s: unknown locale %q", name, doc.Locale)
		}
	}
	return doc.Text, nil
}

// FromFiles is the catalog of a package's embedded text files in l: en is
// its data/text.en.json, zh its data/text.zh-CN.json. A broken file is a
// build-time defect its package's tests catch; here it panics.
func FromFiles(l string, en, zh []byte) *Catalog {
	e, err := ParseOverlay("text.en.json", en)
	if err != nil {
		panic(err)
	}
	var tr map[string]string
	if l == ZhCN && zh != nil {
		if tr, err = ParseOverlay("text.zh-CN.json", zh); err != nil {
			panic(err)
		}
	}
	return NewCatalog(l, e, tr)
}
