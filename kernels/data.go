package kernels

import (
	"embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/placeholder"
)

//go:embed data/*.json
var dataFS embed.FS

type archRow struct {
	SM      string `json:"sm"`
	Added   string `json:"added"`
	Removed string `json:"removed"`
}

type rule struct {
	ID      string `json:"id"`
	Pattern string `json:"pattern"`
	Source  string `json:"source"`
	re      *regexp.Regexp
}

// Message is one finding text: summary, fix and the commands to run.
type Message struct {
	Summary  string   `json:"summary"`
	Fix      string   `json:"fix"`
	Commands []string `json:"commands,omitempty"`
}

type tables struct {
	archs    map[string]archRow
	rules    []rule
	messages map[string]Message
	counts   map[string]pluralForms
	details  map[string]string
}

// pluralForms is a counted noun in CLDR plural categories.
type pluralForms struct {
	One   string `json:"one"`
	Other string `json:"other"`
}

var loadTables = sync.OnceValue(func() *tables {
	t := &tables{archs: map[string]archRow{}}
	var a struct {
		Archs []archRow `json:"archs"`
	}
	var c struct {
		Rules []rule `json:"rules"`
	}
	var m struct {
		Messages map[string]Message     `json:"messages"`
		Counts   map[string]pluralForms `json:"counts"`
		Details  map[string]string      `json:"details"`
	}
	mustJSON("data/arch.json", &a)
	mustJSON("data/classify.json", &c)
	mustJSON("data/messages.json", &m)
	for _, r := range a.Archs {
		t.archs[r.SM] = r
	}
	for _, r := range c.Rules {
		r.re = regexp.MustCompile(r.Pattern)
		t.rules = append(t.rules, r)
	}
	t.messages, t.counts, t.details = m.Messages, m.Counts, m.Details
	return t
})

// mustJSON panics on a broken embedded file: that is a build defect the
// tests catch, never user input.
func mustJSON(name string, v any) {
	b, err := dataFS.ReadFile(name)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		panic(fmt.Sprintf("kernels: embedded %s: %v", name, err))
	}
}

// Classification is the failure an output shows.
type Classification struct {
	ID      string `json:"id"`
	Excerpt string `json:"excerpt,omitempty"` // the matching line
	Line    int    `json:"line,omitempty"`    // 1-based
}

// Classify names the failure in a stage's output with the stable failure
// IDs, or returns a zero Classification: the failures knowledge base first,
// then the rules of data/classify.json, where the first rule (in data order)
// that matches any line wins.
func Classify(output string) Classification {
	// The failures knowledge base is the project's one source of failure
	// IDs; the probe's own table covers what only the probe prints (its
	// LLAMACTL lines) and nvcc messages the knowledge base lacks.
	for _, f := range failures.Default().DiagnoseString(output).Findings {
		if f.Severity == failures.SeverityError {
			c := Classification{ID: f.ID, Excerpt: strings.TrimSpace(f.Excerpt)}
			if len(f.Lines) > 0 {
				c.Line = f.Lines[0]
			}
			return c
		}
	}
	lines := strings.Split(output, "\n")
	for _, r := range loadTables().rules {
		for i, l := range lines {
			if r.re.MatchString(l) {
				return Classification{ID: r.ID, Excerpt: strings.TrimSpace(l), Line: i + 1}
			}
		}
	}
	return Classification{}
}

var (
	reArchInMsg = regexp.MustCompile(`(?:architecture|Value) '(?:compute|sm)_(\w+)'`)
	reGCCMax    = regexp.MustCompile(`gcc versions later than (\d+) are not supported`)
	reClangMax  = regexp.MustCompile(`clang version must be less than (\d+)`)
)

// archFacts returns the architecture an nvcc error names, and the CUDA
// release that added and removed it (from data/arch.json).
func archFacts(excerpt string) (arch, added, removed string) {
	m := reArchInMsg.FindStringSubmatch(excerpt)
	if m == nil {
		return "", "", ""
	}
	r := loadTables().archs[m[1]]
	return "sm_" + m[1], r.Added, r.Removed
}

// maxHostCompiler reads the newest GCC (or Clang) major nvcc accepts from
// its own host_config.h message, so the fix names a version without a table.
func maxHostCompiler(output string) (kind string, major int) {
	if m := reGCCMax.FindStringSubmatch(output); m != nil {
		fmt.Sscanf(m[1], "%d", &major)
		return "gcc", major
	}
	if m := reClangMax.FindStringSubmatch(output); m != nil {
		fmt.Sscanf(m[1], "%d", &major)
		return "clang", major - 1
	}
	return "", 0
}

// render fills a message's {placeholders}. Unknown placeholders stay
// visible rather than vanish, so a missing fact is noticed in review.
func render(key string, facts map[string]string) Message {
	m, ok := loadTables().messages[key]
	if !ok {
		return Message{Summary: key}
	}
	r := placeholder.MapReplacer(facts)
	out := Message{Summary: r.Replace(m.Summary), Fix: r.Replace(m.Fix)}
	for _, c := range m.Commands {
		out.Commands = append(out.Commands, r.Replace(c))
	}
	return out
}

// count says "1 device" / "3 devices" from data/messages.json's counts.
func count(noun string, n int) string {
	f, ok := loadTables().counts[noun]
	text := f.Other
	if n == 1 && f.One != "" {
		text = f.One
	}
	if !ok || text == "" {
		text = "{count} " + noun // visible in review, like render's unknown keys
	}
	return strings.ReplaceAll(text, "{count}", strconv.Itoa(n))
}

// detail fills a stage detail of data/messages.json.
func detail(key string, facts map[string]string) string {
	t, ok := loadTables().details[key]
	if !ok {
		return key
	}
	return placeholder.MapReplacer(facts).Replace(t)
}
