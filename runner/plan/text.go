package plan

import (
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/llamactl/llamactl/internal/placeholder"
)

//go:embed data/text.en.json
var textJSON []byte

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
