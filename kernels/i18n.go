package kernels

import (
	_ "embed"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/placeholder"
)

// Translations of the probe's human output. data/messages.zh-CN.json holds
// the translated texts under flat stable keys: "<message key>.summary",
// ".fix", "count.<noun>.one", ".other", "detail.<key>" and "stage.<name>".
// A text it lacks stays English, one text at a time; IDs, commands and
// --json output are never translated.

//go:embed data/messages.zh-CN.json
var messagesZhCN []byte

var zhCN = sync.OnceValues(func() (map[string]string, error) {
	return lang.ParseOverlay("kernels/data/messages.zh-CN.json", messagesZhCN)
})

// Stages are the probe's stage names, in the order they run.
var Stages = []string{StageCompile, StageLink, StageLoad, StageRun, StageVerify, StageEnumerate, StageBuild, StageAccept}

// Texts is data/messages.json's human texts by the overlay's keys.
func Texts() map[string]string {
	t := loadTables()
	out := map[string]string{}
	for k, m := range t.messages {
		out[k+".summary"] = m.Summary
		if m.Fix != "" {
			out[k+".fix"] = m.Fix
		}
	}
	for noun, f := range t.counts {
		out["count."+noun+".one"], out["count."+noun+".other"] = f.One, f.Other
	}
	for k, d := range t.details {
		out["detail."+k] = d
	}
	for _, s := range Stages {
		out["stage."+s] = s
	}
	return out
}

// Translator renders probe findings and stage texts in one language.
type Translator struct {
	cat *lang.Catalog
	ft  *failures.Translator
}

// NewTranslator is the translator into l (lang.ZhCN); English, an unknown
// language or a broken overlay gives English.
func NewTranslator(l string) *Translator {
	var tr map[string]string
	if l == lang.ZhCN {
		tr, _ = zhCN()
	}
	return NewTranslatorWith(l, tr)
}

// NewTranslatorWith is a translator with the overlay tr (tests).
func NewTranslatorWith(l string, tr map[string]string) *Translator {
	return &Translator{cat: lang.NewCatalog(l, Texts(), tr), ft: failures.Default().Translator(l)}
}

// Finding is f with its summary and fix text in the translator's language,
// filled with its facts (a stage name, a reason or a failure's title
// translated too). f itself is not changed.
func (t *Translator) Finding(f Finding) Finding {
	if !t.cat.Translated() {
		return f
	}
	facts := map[string]string{}
	for k, v := range f.Facts {
		facts[k] = t.Line(v)
	}
	id := f.FailureID
	if id == "" {
		id = f.Facts["failure_id"] // a probe finding as doctor lists it (DoctorFindings)
	}
	if e, ok := failures.Default().Entry(id); ok && facts["kb_title"] == e.Title {
		facts["kb_title"] = t.ft.Finding(failures.Finding{ID: e.ID, Title: e.Title}).Title
	}
	if facts["stage"] != "" {
		facts["stage"] = t.Stage(f.Facts["stage"])
	}
	r := placeholder.MapReplacer(facts)
	if t.cat.HasTranslation(f.Message + ".summary") {
		f.Summary = r.Replace(t.cat.Template(f.Message + ".summary"))
	}
	if f.Fix != nil && t.cat.HasTranslation(f.Message+".fix") {
		fx := *f.Fix // the commands slice is shared, never changed
		fx.Text = r.Replace(t.cat.Template(f.Message + ".fix"))
		f.Fix = &fx
	}
	return f
}

// Stage is a stage's name in the translator's language.
func (t *Translator) Stage(name string) string {
	if t.cat.Has("stage." + name) {
		return t.cat.Template("stage." + name)
	}
	return name
}

// stageLine is one line of a probe finding's details (stageLines): the
// mark, the stage, its detail and its duration.
var stageLine = regexp.MustCompile(`^([✓✗-]) ([a-z]+)(?:: (.*?))?( \([0-9.]+[mµn]?s\))?$`)

// Detail translates a line of a probe finding's details: a stage line's
// stage name and detail (the tool's own words, such as the CUDA runtime's
// error, stay), or any other line as Line does.
func (t *Translator) Detail(s string) string {
	if !t.cat.Translated() {
		return s
	}
	m := stageLine.FindStringSubmatch(s)
	if m == nil || !slices.Contains(Stages, m[2]) {
		return t.Line(s)
	}
	out := m[1] + " " + t.Stage(m[2])
	if m[3] != "" {
		out += ": " + t.StageDetail(m[3])
	}
	return out + m[4]
}

// StageDetail translates a stage's detail like Line, except a tool's words
// that only look like a count text, which stay.
func (t *Translator) StageDetail(d string) string {
	if notACount(d) {
		return d
	}
	return t.Line(d)
}

var countText = regexp.MustCompile(`^(.+) (?:devices?|platforms?)$`)

// notACount says whether d only looks like a count text: the tool's "no
// CUDA-capable device" is not "{count} device" (a count is a number).
func notACount(d string) bool {
	m := countText.FindStringSubmatch(d)
	return m != nil && strings.Trim(m[1], "0123456789") != ""
}

// Line translates a stage detail or a fact filled from one of the texts
// (counts and details nest); any other line stays as it is.
func (t *Translator) Line(s string) string { return t.cat.Line(s) }
