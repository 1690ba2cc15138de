package plan

import (
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/placeholder"
)

//go:embed data/text.en.json
var textJSON []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// Texts is the plan's sentences in l (lang.ZhCN), for the human output:
// T's keys, and Line to translate a reason or a change T filled in
// English. English, or a language without a translation, is English.
func Texts(l string) *lang.Catalog { return lang.FromFiles(l, textJSON, textZhCN) }

var texts = sync.OnceValue(func() map[string]string {
	var doc struct {
		Text map[string]string `json:"text"`
	}
	if err := json.Unmarshal(textJSON, &doc); err != nil {
		panic("plan: embedded text.en.json: " + err.Error()) // build-time data; tested
	}
	return doc.Text
})

// T returns the sentence for key with {name} placeholders filled from
// name/value pairs. Sentences live in data/text.en.json so a translation
// can follow; an unknown key returns the key itself (and a test fails).
func T(key string, kv ...any) string {
	s, ok := texts()[key]
	if !ok {
		return key
	}
	return placeholder.Fill(s, kv...)
}
