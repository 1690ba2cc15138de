package enginefacts

import (
	_ "embed"
	"encoding/json"
)

//go:embed backends.json
var backendsJSON []byte

var backends = func() (f struct {
	Source          string            `json:"source"`
	RegisteredNames map[string]string `json:"registered_names"`
}) {
	if err := json.Unmarshal(backendsJSON, &f); err != nil {
		panic("enginefacts: backends.json: " + err.Error())
	}
	return f
}()

// BackendRegName is the name a llamactl backend (cuda, hip, ...) registers
// under in llama.cpp, as its "load_backend: loaded <X> backend" line and
// --version print it; "" for an unknown backend.
func BackendRegName(backend string) string { return backends.RegisteredNames[backend] }
