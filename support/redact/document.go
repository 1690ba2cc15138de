package redact

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Document rewrites every string of v — a pointer to a JSON-encodable value
// (a snapshot, a doctor --json document, a report) — through f, keys
// included. In every JSON object under the key "env" (a recorded
// environment) the variables with secret names (LLAMA_API_KEY, *TOKEN*,
// *PASSWORD* ... see SecretName) become <secret> whatever f does. This one
// pass serves doctor --snapshot and --json (f = (*Redactor).Secrets) and the
// support report (f = (*Redactor).String).
func Document(v any, f func(string) string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	tree = rewrite(tree, "", f)
	if b, err = json.Marshal(tree); err != nil {
		return err
	}
	// Decode into a fresh value of v's type: fields the rewrite emptied or
	// map keys it renamed must not survive from the old value.
	return replaceJSON(v, b)
}

func rewrite(v any, key string, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i, e := range t {
			t[i] = rewrite(e, "", f)
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if strings.EqualFold(key, "env") && SecretName(k) {
				if s, ok := e.(string); ok && s != "" {
					out[f(k)] = Secret
					continue
				}
			}
			out[f(k)] = rewrite(e, k, f)
		}
		return out
	}
	return v
}

// replaceJSON sets *v to the decoding of b, starting from v's zero value.
func replaceJSON(v any, b []byte) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(b, v) // reports the misuse
	}
	fresh := reflect.New(rv.Elem().Type())
	if err := json.Unmarshal(b, fresh.Interface()); err != nil {
		return err
	}
	rv.Elem().Set(fresh.Elem())
	return nil
}
