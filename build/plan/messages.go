package plan

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/llamactl/llamactl/internal/finding"
)

// Warnings and blockers carry a stable ID; their English text is data
// (data/messages.json) so a translation can follow.

//go:embed data/messages.json
var messagesJSON []byte

// Note is one warning or blocker.
type Note struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Args are the values Text was filled with, in order (a translation
	// fills its own text with them); not part of --json.
	Args []string `json:"-"`
}

func (n Note) String() string { return n.Text }

// Shared is n in the shared finding shape (internal/finding) with status st
// (warn for a warning, error for a blocker): the message ID is n.ID, the
// summary n.Text and Args its placeholders' name, value pairs
// (data/messages.json names them), so Translator.Finding can translate it.
func (n Note) Shared(st finding.Status) finding.Finding {
	f := finding.Finding{ID: n.ID, Message: n.ID, Status: st, Summary: n.Text}
	names := messageTable()[n.ID].Args
	if n.Args != nil {
		f.Args = []string{} // filled from a message, even one without values
	}
	for i, v := range n.Args {
		name := fmt.Sprint(i)
		if i < len(names) {
			name = names[i]
		}
		f.Args = append(f.Args, name, v)
	}
	return f
}

type messageDef struct {
	Text string   `json:"text"`
	Args []string `json:"args"`
}

var (
	msgOnce sync.Once
	msgs    map[string]messageDef
)

func messageTable() map[string]messageDef {
	msgOnce.Do(func() {
		var doc struct {
			Messages map[string]messageDef `json:"messages"`
		}
		if err := json.Unmarshal(messagesJSON, &doc); err != nil {
			panic(fmt.Sprintf("build/plan: embedded messages.json: %v", err))
		}
		msgs = doc.Messages
	})
	return msgs
}

func message(id string, a ...any) Note {
	m, ok := messageTable()[id]
	if !ok {
		// A missing ID is a bug caught by TestMessagesComplete; still say something.
		return Note{ID: id, Text: fmt.Sprint(append([]any{id + ":"}, a...)...)}
	}
	args, sa := make([]string, len(a)), make([]any, len(a))
	for i, v := range a {
		args[i] = fmt.Sprint(v)
		sa[i] = args[i]
	}
	return Note{ID: id, Text: fmt.Sprintf(m.Text, sa...), Args: args}
}

// Message is the English note of a stable message ID (data/messages.json)
// filled with a, for the build steps' details.
func Message(id string, a ...any) Note { return message(id, a...) }
