package doctor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Translations of the human report. An overlay holds only translated texts
// under the English catalog's stable IDs (never commands, which stay as in
// checks.json); a text it lacks falls back to English, one text at a time.
// --json output is never translated: its IDs are the stable interface.

// Languages of the human output.
const (
	LangEN   = "en"
	LangZhCN = "zh-CN"
)

//go:embed data/checks.zh-CN.json
var zhCNJSON []byte

// Overlay is a translation of checks.json's texts, keyed like it.
type Overlay struct {
	Schema        int                          `json:"schema"`
	Lang          string                       `json:"lang"`
	Source        string                       `json:"source,omitempty"`
	Sections      map[string]string            `json:"sections,omitempty"`
	SectionsLinux map[string]string            `json:"sections_linux,omitempty"`
	SkipReasons   map[string]string            `json:"skip_reasons,omitempty"`
	Reasons       map[string]string            `json:"selection_reasons,omitempty"`
	RunMessages   map[string]OverlayMessage    `json:"run_messages,omitempty"`
	UI            map[string]string            `json:"ui,omitempty"`
	ValueTexts    map[string]string            `json:"value_texts,omitempty"`
	DetailTexts   map[string]string            `json:"detail_texts,omitempty"`
	Checks        map[string]OverlayCheck      `json:"checks,omitempty"`
	Values        map[string]map[string]string `json:"values,omitempty"`
}

// OverlayCheck is one check's translated title, help and finding texts.
type OverlayCheck struct {
	Title    string                    `json:"title,omitempty"`
	Help     string                    `json:"help,omitempty"`
	Messages map[string]OverlayMessage `json:"messages,omitempty"`
}

// OverlayMessage is a finding's translated summary and fix text. Languages
// without a plural distinction (zh-CN) leave One out.
type OverlayMessage struct {
	Summary string  `json:"summary,omitempty"`
	Fix     string  `json:"fix,omitempty"`
	One     *Plural `json:"one,omitempty"`
}

var (
	ovOnce sync.Once
	ovZhCN *Overlay
	ovErr  error
)

// LoadOverlay returns the embedded overlay of a language (nil for English
// or a language without one).
func LoadOverlay(lang string) (*Overlay, error) {
	if lang != LangZhCN {
		return nil, nil
	}
	ovOnce.Do(func() {
		var o Overlay
		if err := json.Unmarshal(zhCNJSON, &o); err != nil {
			ovErr = fmt.Errorf("doctor/data/checks.zh-CN.json: %w", err)
			return
		}
		ovZhCN = &o
	})
	return ovZhCN, ovErr
}

// Translator renders the human report's texts in one language.
type Translator struct {
	Lang string
	ov   *Overlay
	// matrix translates the compatibility matrix's lines (ForSnapshot).
	matrix map[string]string
}

// NewTranslator is the translator of lang ("en" or "" is English). An
// unknown language or a broken overlay gives English: the report must
// always print.
func NewTranslator(lang string) *Translator {
	ov, err := LoadOverlay(lang)
	if err != nil || ov == nil {
		return &Translator{Lang: LangEN}
	}
	return &Translator{Lang: lang, ov: ov}
}

// pick is the translation when there is one, else the English text.
func pick(tr, en string) string {
	if tr != "" {
		return tr
	}
	return en
}

// values translates a placeholder value the checks fill with English words
// ({what} of skip_reasons "not-recorded"; under "*", a value of any
// placeholder such as "unknown"; a value filled from a value text such as
// "1.3.290.0 at C:\VulkanSDK"), else keeps it.
func (t *Translator) values(kv vars) vars {
	if t.ov == nil || (len(t.ov.Values) == 0 && len(t.ov.ValueTexts) == 0) {
		return kv
	}
	out := append(vars(nil), kv...)
	for i := 0; i+1 < len(out); i += 2 {
		if v, ok := t.ov.Values[out[i]][out[i+1]]; ok {
			out[i+1] = v
		} else if v, ok := t.ov.Values["*"][out[i+1]]; ok {
			out[i+1] = v // a value of any placeholder ("unknown")
		} else {
			out[i+1] = t.valueText(out[i+1])
		}
	}
	return out
}

var (
	valueREOnce sync.Once
	valueREs    []reasonRE
)

// valueText translates a value filled from one of checks.json's
// value_texts (recovering its placeholders' values like Reason does); any
// other value is returned as it is.
func (t *Translator) valueText(v string) string {
	if t.ov == nil || len(t.ov.ValueTexts) == 0 {
		return v
	}
	valueREOnce.Do(func() {
		Catalog()
		for _, k := range sortedKeys(catValues) {
			re, names := templateRE(catValues[k])
			valueREs = append(valueREs, reasonRE{key: k, re: re, names: names})
		}
	})
	if tr, kv, ok := readBack(valueREs, t.ov.ValueTexts, v); ok {
		return kv.replacerPairs().fill(tr)
	}
	return v
}

// Finding returns f with its summary, fix text and skip reason in the
// translator's language, filled with the values the check used. Commands,
// IDs, details and facts are left as they are.
func (t *Translator) Finding(f Finding) Finding {
	if t.ov == nil {
		return f
	}
	r := t.values(vars(f.Args)).replacerPairs()
	cat, key, _ := strings.Cut(f.Message, "/")
	var om OverlayMessage
	switch {
	case cat == "skip":
		tr, ok := t.ov.SkipReasons[key]
		if !ok || f.Status != Skipped {
			return f
		}
		f.SkippedBecause = r.fill(tr)
		f.Summary = f.SkippedBecause
		return f
	case cat == "meta":
		om = t.ov.RunMessages[key]
	default:
		om = t.ov.Checks[cat].Messages[key]
	}
	sum, fix := om.Summary, om.Fix
	if om.One != nil && vars(f.Args).pluralOne() {
		sum, fix = pick(om.One.Summary, sum), pick(om.One.Fix, fix)
	}
	if sum != "" {
		f.Summary = r.fill(sum)
	}
	if fix != "" && f.Fix != nil {
		fx := *f.Fix // the commands slice is shared, never changed
		fx.Text = r.fill(fix)
		f.Fix = &fx
	}
	return f
}

// Title is a check's title.
func (t *Translator) Title(c CheckInfo) string {
	if t.ov == nil {
		return c.Title
	}
	return pick(t.ov.Checks[c.ID].Title, c.Title)
}

// SectionTitle is SectionTitleFor in the translator's language.
func (t *Translator) SectionTitle(sec, goos string) string {
	en := SectionTitleFor(sec, goos)
	if t.ov == nil || en == "" {
		return en
	}
	if catSecLinux[sec] != "" && goos != "windows" {
		return pick(t.ov.SectionsLinux[sec], en)
	}
	return pick(t.ov.Sections[sec], en)
}

// UI is a text of the report around the findings (checks.json "ui"),
// filled with name, value pairs.
func (t *Translator) UI(key string, kv ...string) string {
	Catalog()
	en, ok := catUI[key]
	if !ok {
		return "internal: no ui text " + key
	}
	if t.ov != nil {
		en = pick(t.ov.UI[key], en)
	}
	return vars(kv).replacerPairs().fill(en)
}

// Count is a UI text with a {count} plural: key.one when n is 1, else
// key.other.
func (t *Translator) Count(key string, n int) string {
	if t.ov != nil { // the translation's own forms first (zh-CN has only "other")
		if tr := t.ov.UI[key+".one"]; n == 1 && tr != "" {
			return vars{"{count}", "1"}.fill(tr)
		}
		if tr := t.ov.UI[key+".other"]; tr != "" {
			return vars{"{count}", fmt.Sprint(n)}.fill(tr)
		}
	}
	if n == 1 {
		if _, ok := catUI[key+".one"]; ok {
			return t.UI(key+".one", "count", "1")
		}
	}
	return t.UI(key+".other", "count", fmt.Sprint(n))
}

var (
	reasonREOnce sync.Once
	reasonREs    []reasonRE
	// detailREs read back detail lines (checks.json "detail_texts").
	detailREs []reasonRE
)

type reasonRE struct {
	key   string
	re    *regexp.Regexp
	names []string
}

// templateRE matches a text filled from an English template, capturing each
// placeholder's value.
func templateRE(tmpl string) (*regexp.Regexp, []string) {
	var b strings.Builder
	var names []string
	b.WriteString("^")
	rest := tmpl
	for {
		i := strings.Index(rest, "{")
		j := strings.Index(rest[max(i, 0):], "}")
		if i < 0 || j < 0 {
			break
		}
		j += i
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		b.WriteString("(.*?)")
		names = append(names, rest[i+1:j])
		rest = rest[j+1:]
	}
	b.WriteString(regexp.QuoteMeta(rest))
	b.WriteString("$")
	return regexp.MustCompile(b.String()), names
}

// Reason translates a selection reason (or a detail line that is one): the
// selection keeps only the English text, so the key and values are
// recovered by matching every English reason template. A detail line
// filled from one of checks.json's detail_texts is translated the same
// way. Any other line is returned as it is.
func (t *Translator) Reason(line string) string {
	if tr, ok := t.matrix[line]; ok {
		return tr
	}
	if t.ov == nil {
		return line
	}
	reasonREOnce.Do(func() {
		Catalog()
		for _, k := range sortedKeys(catReasons) {
			re, names := templateRE(catReasons[k])
			reasonREs = append(reasonREs, reasonRE{key: k, re: re, names: names})
		}
		for _, k := range sortedKeys(catDetails) {
			re, names := templateRE(catDetails[k])
			detailREs = append(detailREs, reasonRE{key: k, re: re, names: names})
		}
	})
	if tr, kv, ok := readBack(reasonREs, t.ov.Reasons, line); ok {
		return t.values(kv).replacerPairs().fill(tr)
	}
	if tr, kv, ok := readBack(detailREs, t.ov.DetailTexts, line); ok {
		return t.values(kv).replacerPairs().fill(tr)
	}
	return line
}

// readBack finds the first template of res with a translation in tr that
// line was filled from: that translation and the placeholders' values.
func readBack(res []reasonRE, tr map[string]string, line string) (string, vars, bool) {
	for _, r := range res {
		t, ok := tr[r.key]
		if !ok {
			continue
		}
		m := r.re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var kv vars
		for i, n := range r.names {
			kv = append(kv, n, m[i+1])
		}
		return t, kv, true
	}
	return "", nil, false
}
