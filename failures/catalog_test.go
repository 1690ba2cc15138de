package failures

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

// catalogMessage is one of llama.cpp's or ggml's own messages, as
// data/llamacpp-messages.json states it (see its comment).
type catalogMessage struct {
	Format     string   `json:"format"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Args       []string `json:"args"`
	Prefix     string   `json:"prefix"`
	Before     []string `json:"before"`
	Source     []string `json:"source"`
	ID         string   `json:"id"`
	Confidence string   `json:"confidence"`
	Note       string   `json:"note"`
}

type catalogFile struct {
	Schema int `json:"schema"`
	Tree   struct {
		Tag    string `json:"tag"`
		Commit string `json:"commit"`
	} `json:"tree"`
	Messages []catalogMessage `json:"messages"`
}

// placeholderRe is a printf conversion (C's length modifiers included) or a
// CMake ${VAR} reference.
var placeholderRe = regexp.MustCompile(`%[-+ #0]*(?:\*|[0-9]+)?(?:\.[0-9]+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp]|\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

func loadCatalog(t *testing.T) catalogFile {
	t.Helper()
	b, err := os.ReadFile("data/llamacpp-messages.json")
	if err != nil {
		t.Fatal(err)
	}
	var c catalogFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var raw struct {
		Schema   int             `json:"schema"`
		Comment  string          `json:"comment"`
		Tree     json.RawMessage `json:"tree"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw.Tree, &c.Tree); err != nil {
		t.Fatal(err)
	}
	md := json.NewDecoder(strings.NewReader(string(raw.Messages)))
	md.DisallowUnknownFields()
	if err := md.Decode(&c.Messages); err != nil {
		t.Fatal(err)
	}
	c.Schema = raw.Schema
	if c.Schema != 1 || len(c.Messages) < 40 {
		t.Fatalf("schema %d, %d messages", c.Schema, len(c.Messages))
	}
	return c
}

// instantiate fills the format's placeholders with the entry's args, in
// order ("%%" prints "%").
func (m catalogMessage) instantiate() (string, bool) {
	i := 0
	ok := true
	s := placeholderRe.ReplaceAllStringFunc(strings.ReplaceAll(m.Format, "%%", "\x00"), func(string) string {
		if i >= len(m.Args) {
			ok = false
			return ""
		}
		i++
		return m.Args[i-1]
	})
	return strings.ReplaceAll(s, "\x00", "%"), ok && i == len(m.Args)
}

func (m catalogMessage) log() (string, bool) {
	msg, ok := m.instantiate()
	lines := append(append([]string{}, m.Before...), m.Prefix+msg)
	return strings.Join(lines, "\n") + "\n", ok
}

func (m catalogMessage) name() string {
	return m.File + ":" + strconv.Itoa(m.Line) + " " + cut(m.Format, 50)
}

// Every catalog entry, instantiated with realistic values and printed the
// way the tree prints it, makes explain name exactly its ID with its
// confidence, or nothing at all for the look-alikes.
func TestCatalogMessagesNamed(t *testing.T) {
	c := loadCatalog(t)
	kb := Default()
	for _, m := range c.Messages {
		t.Run(m.name(), func(t *testing.T) {
			log, ok := m.log()
			if !ok {
				t.Fatalf("%d args for the placeholders of %q", len(m.Args), m.Format)
			}
			if m.ID != "" {
				if _, known := kb.byID[m.ID]; !known {
					t.Fatalf("unknown failure ID %q", m.ID)
				}
				if m.Confidence != ConfidenceCertain && m.Confidence != ConfidenceProbable {
					t.Fatalf("confidence %q", m.Confidence)
				}
			} else if m.Confidence != "" || m.Note == "" {
				t.Fatalf("an entry that names nothing needs no confidence and a note saying why: %+v", m)
			}
			d := kb.DiagnoseString(log)
			var got []string
			for _, f := range d.Findings {
				got = append(got, f.ID+"/"+f.Confidence)
			}
			want := []string(nil)
			if m.ID != "" {
				want = []string{m.ID + "/" + m.Confidence}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("explain names %v, want %v\nlog:\n%s", got, want, log)
			}
		})
	}
}

// sourceFragments are the literals of the entry that must occur in its file:
// its Source list, or the format's text between placeholders as a C or
// CMake string literal writes it (quotes and backslashes escaped).
func (m catalogMessage) sourceFragments() []string {
	if len(m.Source) > 0 {
		return m.Source
	}
	var out []string
	for _, f := range placeholderRe.Split(m.Format, -1) {
		if len(strings.TrimSpace(f)) < 4 {
			continue
		}
		out = append(out, strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(f))
	}
	return out
}

// The catalog stays true to the real llama.cpp tree
// (scripts/deps.d/30-llamacpp-src.sh): every entry's literal fragments occur
// in its file, one of them within a few lines of the line it names.
func TestCatalogMatchesTree(t *testing.T) {
	c := loadCatalog(t)
	dir := testutil.RealLlamaTree(t)
	if info, err := os.ReadFile(dir + ".json"); err == nil && !strings.Contains(string(info), c.Tree.Commit) {
		t.Logf("the tree in %s is not commit %s (%s): line numbers may have moved", dir, c.Tree.Commit, strings.TrimSpace(string(info)))
	}
	files := map[string][]string{}
	for _, m := range c.Messages {
		lines, ok := files[m.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(m.File)))
			if err != nil {
				t.Errorf("%s: %v", m.name(), err)
				continue
			}
			lines = strings.Split(string(b), "\n")
			files[m.File] = lines
		}
		frags := m.sourceFragments()
		if len(frags) == 0 {
			t.Errorf("%s: no literal to look for", m.name())
			continue
		}
		whole := strings.Join(lines, "\n")
		near := false
		for _, f := range frags {
			if !strings.Contains(whole, f) {
				t.Errorf("%s: %q is not in %s", m.name(), f, m.File)
			}
			for n := m.Line - 1; n >= 0 && n < len(lines) && n < m.Line+4; n++ {
				if strings.Contains(lines[n], f) {
					near = true
				}
			}
		}
		if !near {
			t.Errorf("%s: none of %q is at %s:%d (or the 4 lines after it)", m.name(), frags, m.File, m.Line)
		}
	}
}

// catalogWrappers print a catalog line the way llama.cpp's own logger
// (common/log.cpp, with --log-prefix --log-timestamps, coloured or not) and
// a Windows console write it.
var catalogWrappers = []struct {
	name string
	wrap func(line string) string
}{
	{"log-prefix", func(l string) string { return "0.00.812.337 E " + l }},
	{"log-colors", func(l string) string { return "\x1b[34m0.00.812.337\x1b[0m \x1b[31mE " + l + "\x1b[0m" }},
	{"crlf", func(l string) string { return l + "\r" }},
}

// The same messages, printed through those wrappers, name the same thing.
func TestCatalogMessagesWrapped(t *testing.T) {
	c := loadCatalog(t)
	kb := Default()
	for _, m := range c.Messages {
		if len(m.Before) > 0 {
			continue // CMake's own lines, not the engine's logger
		}
		msg, _ := m.instantiate()
		want := ""
		if m.ID != "" {
			want = m.ID + "/" + m.Confidence
		}
		for _, w := range catalogWrappers {
			d := kb.DiagnoseString(w.wrap(m.Prefix+msg) + "\n")
			var got []string
			for _, f := range d.Findings {
				got = append(got, f.ID+"/"+f.Confidence)
			}
			if strings.Join(got, ",") != want {
				t.Errorf("%s, %s: explain names %v, want %q", m.name(), w.name, got, want)
			}
		}
	}
}
