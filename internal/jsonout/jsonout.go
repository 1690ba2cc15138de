// Package jsonout writes llamactl's JSON documents: indented, with HTML
// characters left as they are. Commands reach it through ui.WriteJSON;
// domain packages that write files (the support report) use it directly.
package jsonout

import (
	"encoding/json"
	"io"
)

// Write writes v as indented JSON. Every top-level document llamactl
// prints carries a "schema" integer; callers put it in their struct.
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
