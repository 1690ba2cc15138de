// Package failures is the failure knowledge base shared by explain, build and
// run: every known build or runtime failure of llama.cpp as data (stable ID,
// log signatures, cause, fix, source), and a streaming matcher that names the
// root cause of a log.
//
// The facts live in data/failures.json (one entry per stable failure ID);
// this
// package only holds the rules that combine them.
package failures

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
)

//go:embed data/failures.json
var defaultData []byte

// packFS holds the signature packs: other tools' wordings of known causes
// (CUDA's error strings, the Windows loader's messages in every language,
// CMake's modules...), one file per source, merged into the entries of
// failures.json by ID (see data/packs/README.md).
//
//go:embed data/packs
var packFS embed.FS

// Severity of a finding: errors stop a build or run, warnings do not.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Entry is one failure of the knowledge base, as the data file states it.
type Entry struct {
	ID        string      `json:"id"`
	Title     string      `json:"title"`
	Severity  string      `json:"severity,omitempty"` // error (default) or warning
	Role      string      `json:"role,omitempty"`     // "wrapper": reported only when no nested cause matched
	Stage     string      `json:"stage"`              // configure, compile, link, runtime, cli
	Platforms []string    `json:"platforms"`
	Signature []Signature `json:"signatures"`
	Derive    []Derive    `json:"derive,omitempty"`
	// SymptomOf lists failures that explain this one: when any of them
	// matched too, this finding is not reported (it is their consequence).
	SymptomOf []string `json:"symptom_of,omitempty"`
	// UnlessLog: when any line of the log matches one of these, the entry is
	// not reported (the log itself shows the signature is harmless there).
	UnlessLog []string `json:"unless_log,omitempty"`
	// RecoveredBy: a line matching one of these AFTER the entry's last
	// matched line says the program recovered (it retried another way and
	// went on), so the finding is only probable, with both lines as its
	// evidence; a signature line after it makes it certain again (the
	// retry failed too).
	RecoveredBy []string `json:"recovered_by,omitempty"`
	// Combine lists weak signals that name this failure only together: the
	// first part (the anchor, which must hold a literal) and every other part
	// within Within lines before or after it. Such a finding is reported as
	// "probable" with the matched lines as its evidence, and only when no
	// signature of the entry matched.
	Combine  []Combine `json:"combine,omitempty"`
	Cause    string    `json:"cause"`
	Fix      string    `json:"fix"`
	Commands []string  `json:"commands,omitempty"`
	Patch    string    `json:"patch,omitempty"`
	Facts    []string  `json:"facts,omitempty"` // keys of the facts table added when a snapshot is known
	Source   string    `json:"source"`

	unlessLog []*regexp.Regexp
	// unlessNeedles[i] is a literal every match of unlessLog[i] contains
	// (lower-cased; "" when none): unless_log runs on every line.
	unlessNeedles []string
	recovered     []*regexp.Regexp
	recNeedles    []string
}

// Signature is one way a failure shows in a log.
type Signature struct {
	Re       string `json:"re"`
	Then     string `json:"then,omitempty"`   // must match one of the next Within lines
	Within   int    `json:"within,omitempty"` // default 5
	Unless   string `json:"unless,omitempty"` // the same line must not match this
	Group    int    `json:"group,omitempty"`  // capture group holding a number bounded by Min/Max
	Min      *int   `json:"min,omitempty"`
	Max      *int   `json:"max,omitempty"`
	Severity string `json:"severity,omitempty"` // overrides the entry's
	// NotIn is two capture groups [a, b]: the line does not count when the
	// number in group a is one of the numbers listed in group b (ggml's "no
	// device code for CUDA arch 610 ... compiled for: 610" is a kernel this
	// architecture lacks by design, not a build for other GPUs).
	NotIn []int `json:"not_in,omitempty"`
	// UnlessPrev: the log's previous non-blank line must not match this (a
	// program that says it falls back, then prints the error it falls back
	// from: ggml_vulkan's "Failed to allocate pinned memory." before the
	// driver's ErrorOutOfDeviceMemory).
	UnlessPrev string `json:"unless_prev,omitempty"`
	// Probable: the line points at the cause without naming it (the finding
	// says "probably", with the line as evidence, unless a certain
	// signature of the entry matched too).
	Probable bool `json:"probable,omitempty"`
	// Source is the public page that states this wording (a pack's
	// signatures each carry one; failures.json's share the entry's).
	Source string `json:"source,omitempty"`

	re, then, unless   *regexp.Regexp
	unlessPrev         *regexp.Regexp
	needle, thenNeedle string // lower-case literal the line must contain (a cheap prefilter)
	// anyNeedle: when no single literal is long enough (an alternation of
	// wordings, one per language), lower-case literals one of which the
	// line must contain.
	anyNeedle []string
	grams     []uint32
}

// Combine is one set of weak signals (see Entry.Combine).
type Combine struct {
	Parts  []string `json:"parts"`
	Within int      `json:"within,omitempty"` // lines around the anchor (default and maximum 60)
	// Unless: the combination does not count when a line of that window
	// matches this (e.g. a Linux path for a Windows-only cause).
	Unless string `json:"unless,omitempty"`

	parts   []*regexp.Regexp
	needles []string
	grams   []uint32 // of the anchor's needle
	unless  *regexp.Regexp
}

// Derive names a finding inferred from another one plus a machine fact
// (e.g. "no CUDA device" inside WSL with a foreign libcuda).
type Derive struct {
	From string `json:"from"`
	When string `json:"when"`
}

// Fact is a sentence template about the machine, filled from a snapshot or
// captured from the log itself.
type Fact struct {
	Key  string `json:"key"`
	Log  string `json:"log,omitempty"` // regexp whose group 1 is the value, read from the log
	Text string `json:"text"`          // "{value}" is replaced

	logRe  *regexp.Regexp
	needle string
	grams  []uint32
}

type dataFile struct {
	Schema   int               `json:"schema"`
	Macros   map[string]string `json:"macros,omitempty"`
	Facts    []Fact            `json:"facts"`
	Messages map[string]string `json:"messages"`
	Failures []Entry           `json:"failures"`
}

// KB is a loaded, compiled knowledge base. It is immutable and safe for
// concurrent use.
type KB struct {
	entries  []Entry
	byID     map[string]int
	facts    []Fact
	messages map[string]string
	macros   map[string]string
	// concepts: the fallback layer (concepts.go); conceptNot the lines
	// that never count for it
	concepts   []concept
	conceptNot *regexp.Regexp
}

var (
	defaultOnce sync.Once
	defaultKB   *KB
)

// packSignature is a pack's signature: the entry it names, and for a
// certain one why the line states the cause (the audit of failures.json's
// certain signatures lives in testdata/confidence-audit.tsv; a pack keeps
// it next to the pattern).
type packSignature struct {
	ID string `json:"id"`
	Signature
	States string `json:"states,omitempty"`
	// Examples are logs (a line or a few, as a tool prints them) that must
	// name ID at this signature's confidence; Near are look-alikes that must
	// not name it. Tested by packs_test.go.
	Examples []string `json:"examples"`
	Near     []string `json:"near,omitempty"`
}

type packCombine struct {
	ID string `json:"id"`
	Combine
	Source   string   `json:"source"`
	Examples []string `json:"examples"`
	Near     []string `json:"near,omitempty"`
}

type packFile struct {
	Schema     int             `json:"schema"`
	Pack       string          `json:"pack"`
	Comment    string          `json:"comment"`
	Signatures []packSignature `json:"signatures"`
	Combine    []packCombine   `json:"combine,omitempty"`
}

// defaultPacks reads the embedded packs in name order.
func defaultPacks() ([][]byte, error) { return readEmbedded(packFS, "data/packs/*.json") }

// readEmbedded reads the embedded files matching pattern, in name order.
func readEmbedded(fsys embed.FS, pattern string) ([][]byte, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		b, err := fsys.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// decodeStrict decodes one data file into v: an unknown field is a mistake
// in the data, not something to ignore, and only schema 1 is read.
func decodeStrict(b []byte, v any, schema func() int) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	if n := schema(); n != 1 {
		return fmt.Errorf("unsupported schema %d", n)
	}
	return nil
}

// parsePack reads one pack file strictly: an unknown field is a mistake in
// the data, not something to ignore.
func parsePack(b []byte) (packFile, error) {
	var pf packFile
	if err := decodeStrict(b, &pf, func() int { return pf.Schema }); err != nil {
		return pf, err
	}
	if pf.Pack == "" {
		return pf, fmt.Errorf("no name")
	}
	return pf, nil
}

// mergePacks adds each pack's signatures and combinations to the entries
// they name. A pack may not invent an ID, and every signature cites its
// public source; a certain one says why its line states the cause.
func mergePacks(df *dataFile, packs [][]byte) error {
	at := map[string]int{}
	for i, e := range df.Failures {
		at[e.ID] = i
	}
	for n, b := range packs {
		pf, err := parsePack(b)
		if err != nil {
			return fmt.Errorf("pack %d: %w", n, err)
		}
		for j, ps := range pf.Signatures {
			i, ok := at[ps.ID]
			if !ok {
				return fmt.Errorf("pack %s signature %d: unknown id %q", pf.Pack, j, ps.ID)
			}
			if !strings.HasPrefix(ps.Source, "https://") {
				return fmt.Errorf("pack %s signature %d (%s): no public source", pf.Pack, j, ps.ID)
			}
			if !ps.Probable && len(ps.States) < 10 {
				return fmt.Errorf("pack %s signature %d (%s): a certain signature says how its line states the cause (states), or is probable", pf.Pack, j, ps.ID)
			}
			if len(ps.Examples) == 0 {
				return fmt.Errorf("pack %s signature %d (%s): no example", pf.Pack, j, ps.ID)
			}
			df.Failures[i].Signature = append(df.Failures[i].Signature, ps.Signature)
		}
		for j, pc := range pf.Combine {
			i, ok := at[pc.ID]
			if !ok {
				return fmt.Errorf("pack %s combine %d: unknown id %q", pf.Pack, j, pc.ID)
			}
			if !strings.HasPrefix(pc.Source, "https://") {
				return fmt.Errorf("pack %s combine %d (%s): no public source", pf.Pack, j, pc.ID)
			}
			if len(pc.Examples) == 0 {
				return fmt.Errorf("pack %s combine %d (%s): no example", pf.Pack, j, pc.ID)
			}
			df.Failures[i].Combine = append(df.Failures[i].Combine, pc.Combine)
		}
	}
	return nil
}

// Default returns the embedded knowledge base with its packs and concepts,
// loaded once.
// The data is validated by tests, so a failure here is a programming error.
func Default() *KB {
	defaultOnce.Do(func() {
		packs, err := defaultPacks()
		if err != nil {
			panic("failures: embedded packs: " + err.Error())
		}
		kb, err := Load(defaultData, packs...)
		if err != nil {
			panic("failures: embedded data: " + err.Error())
		}
		concepts, err := defaultConcepts()
		if err != nil {
			panic("failures: embedded concepts: " + err.Error())
		}
		if kb, err = kb.withConcepts(concepts); err != nil {
			panic("failures: embedded concepts: " + err.Error())
		}
		defaultKB = kb
	})
	return defaultKB
}

// Load parses and compiles a knowledge base and merges the signature packs
// into its entries.
func Load(data []byte, packs ...[]byte) (*KB, error) {
	var df dataFile
	if err := json.Unmarshal(data, &df); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if df.Schema != 1 {
		return nil, fmt.Errorf("unsupported schema %d", df.Schema)
	}
	if err := mergePacks(&df, packs); err != nil {
		return nil, err
	}
	kb := &KB{byID: map[string]int{}, messages: df.Messages, macros: df.Macros}
	not := conceptNotCounted
	if _, ok := df.Macros["not_a_report"]; !ok {
		not = strings.TrimPrefix(not, "{{not_a_report}}|")
	}
	if _, ok := df.Macros["retry"]; !ok {
		not = strings.Replace(not, "{{retry}}|", "", 1)
	}
	if x, err := expandMacros(not, df.Macros); err != nil {
		return nil, fmt.Errorf("concept exclusions: %w", err)
	} else if kb.conceptNot, err = regexp.Compile(x); err != nil {
		return nil, fmt.Errorf("concept exclusions: %w", err)
	}
	expand := func(re string) (string, error) { return expandMacros(re, df.Macros) }
	for i := range df.Facts {
		f := &df.Facts[i]
		if f.Log != "" {
			re, err := compileAnchored(f.Log)
			if err != nil {
				return nil, fmt.Errorf("fact %s: %w", f.Key, err)
			}
			f.logRe, f.needle = re, needleOf(f.Log)
			f.grams = sampleTrigrams(f.needle)
		}
	}
	kb.facts = df.Facts
	for i := range df.Failures {
		e := &df.Failures[i]
		if e.ID == "" {
			return nil, fmt.Errorf("entry %d has no id", i)
		}
		if _, dup := kb.byID[e.ID]; dup {
			return nil, fmt.Errorf("duplicate id %s", e.ID)
		}
		if e.Severity == "" {
			e.Severity = SeverityError
		}
		for j := range e.Signature {
			s := &e.Signature[j]
			var err error
			for _, p := range []*string{&s.Re, &s.Then, &s.Unless, &s.UnlessPrev} {
				if *p, err = expand(*p); err != nil {
					return nil, fmt.Errorf("%s signature %d: %w", e.ID, j, err)
				}
			}
			if s.re, err = compileAnchored(s.Re); err != nil {
				return nil, fmt.Errorf("%s signature %d: %w", e.ID, j, err)
			}
			s.needle = needleOf(s.Re)
			if s.needle == "" {
				s.anyNeedle = anyNeedleOf(s.Re)
			}
			s.grams = sampleTrigrams(s.needle)
			if s.Then != "" {
				if s.then, err = compileAnchored(s.Then); err != nil {
					return nil, fmt.Errorf("%s signature %d then: %w", e.ID, j, err)
				}
				s.thenNeedle = needleOf(s.Then)
				if s.Within <= 0 {
					s.Within = 5
				}
			}
			if s.Unless != "" {
				if s.unless, err = regexp.Compile(s.Unless); err != nil {
					return nil, fmt.Errorf("%s signature %d unless: %w", e.ID, j, err)
				}
			}
			if s.UnlessPrev != "" {
				if s.unlessPrev, err = regexp.Compile(s.UnlessPrev); err != nil {
					return nil, fmt.Errorf("%s signature %d unless_prev: %w", e.ID, j, err)
				}
			}
			if s.Group > 0 && s.Group > s.re.NumSubexp() {
				return nil, fmt.Errorf("%s signature %d: group %d does not exist", e.ID, j, s.Group)
			}
			if len(s.NotIn) > 0 && (len(s.NotIn) != 2 || s.NotIn[0] < 1 || s.NotIn[1] < 1 || s.NotIn[0] > s.re.NumSubexp() || s.NotIn[1] > s.re.NumSubexp()) {
				return nil, fmt.Errorf("%s signature %d: not_in %v is not two existing groups", e.ID, j, s.NotIn)
			}
		}
		for j, u := range e.UnlessLog {
			x, err := expand(u)
			if err != nil {
				return nil, fmt.Errorf("%s unless_log %d: %w", e.ID, j, err)
			}
			re, err := compileAnchored(x)
			if err != nil {
				return nil, fmt.Errorf("%s unless_log %d: %w", e.ID, j, err)
			}
			e.unlessLog = append(e.unlessLog, re)
			e.unlessNeedles = append(e.unlessNeedles, needleOf(x))
		}
		for j, u := range e.RecoveredBy {
			x, err := expand(u)
			if err != nil {
				return nil, fmt.Errorf("%s recovered_by %d: %w", e.ID, j, err)
			}
			re, err := compileAnchored(x)
			if err != nil {
				return nil, fmt.Errorf("%s recovered_by %d: %w", e.ID, j, err)
			}
			e.recovered = append(e.recovered, re)
			e.recNeedles = append(e.recNeedles, needleOf(x))
		}
		for j := range e.Combine {
			c := &e.Combine[j]
			if len(c.Parts) < 2 {
				return nil, fmt.Errorf("%s combine %d: fewer than two parts", e.ID, j)
			}
			for k, part := range c.Parts {
				x, err := expand(part)
				if err != nil {
					return nil, fmt.Errorf("%s combine %d part %d: %w", e.ID, j, k, err)
				}
				re, err := compileAnchored(x)
				if err != nil {
					return nil, fmt.Errorf("%s combine %d part %d: %w", e.ID, j, k, err)
				}
				c.parts = append(c.parts, re)
				c.needles = append(c.needles, needleOf(x))
			}
			if c.needles[0] == "" {
				return nil, fmt.Errorf("%s combine %d: the anchor %q has no literal", e.ID, j, c.Parts[0])
			}
			c.grams = sampleTrigrams(c.needles[0])
			if c.Within <= 0 || c.Within > maxComboWindow {
				c.Within = maxComboWindow
			}
			if c.Unless != "" {
				x, err := expand(c.Unless)
				if err != nil {
					return nil, fmt.Errorf("%s combine %d unless: %w", e.ID, j, err)
				}
				if c.unless, err = compileAnchored(x); err != nil {
					return nil, fmt.Errorf("%s combine %d unless: %w", e.ID, j, err)
				}
			}
		}
		kb.byID[e.ID] = i
	}
	kb.entries = df.Failures
	for _, e := range kb.entries {
		for _, id := range e.SymptomOf {
			if _, ok := kb.byID[id]; !ok {
				return nil, fmt.Errorf("%s is a symptom of unknown id %s", e.ID, id)
			}
		}
		for _, d := range e.Derive {
			if _, ok := kb.byID[d.From]; !ok {
				return nil, fmt.Errorf("%s derives from unknown id %s", e.ID, d.From)
			}
			if _, ok := conditions[d.When]; !ok {
				return nil, fmt.Errorf("%s derives on unknown condition %q", e.ID, d.When)
			}
		}
	}
	return kb, nil
}

var macroRe = regexp.MustCompile(`\{\{([a-z_]+)\}\}`)

// expandMacros replaces {{name}} by the data file's macro of that name, so
// one list (the words for "missing" in several languages, a set of DLL
// names) is written once.
func expandMacros(expr string, macros map[string]string) (string, error) {
	var missing string
	out := macroRe.ReplaceAllStringFunc(expr, func(m string) string {
		name := m[2 : len(m)-2]
		v, ok := macros[name]
		if !ok {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", fmt.Errorf("unknown macro {{%s}}", missing)
	}
	return out, nil
}

// compileAnchored compiles a signature regexp, which must be anchored at the
// start of the normalized message or at a boundary after a tool's prefix:
// unanchored patterns are how a matcher starts guessing.
func compileAnchored(expr string) (*regexp.Regexp, error) {
	if !strings.HasPrefix(expr, "^") && !strings.HasPrefix(expr, "(?:^|") {
		return nil, fmt.Errorf("pattern %q is not anchored (start it with ^ or (?:^|)", expr)
	}
	return regexp.Compile(expr)
}

// needleOf returns the longest literal (lower-cased) every match of expr must
// contain, used to skip most regexps on most lines of a large log.
func needleOf(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	best := longestLiteral(re.Simplify())
	if len(best) < 3 {
		return ""
	}
	return strings.ToLower(best)
}

// longestLiteral is the longest literal every match of r holds, as far as
// its concatenations and captures show it.
func longestLiteral(r *syntax.Regexp) string {
	best := ""
	switch r.Op {
	case syntax.OpLiteral:
		best = string(r.Rune)
	case syntax.OpConcat, syntax.OpCapture:
		for _, sub := range r.Sub {
			if l := longestLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
	}
	return best
}

// anyNeedleOf returns, for a pattern with no single literal of 3 bytes or
// more that every match holds, the longest literal of each branch of its
// first alternation on the path every match takes, when every branch has
// one (lower-cased): every match contains one of them. Otherwise nil.
func anyNeedleOf(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	var find func(r *syntax.Regexp) []string
	find = func(r *syntax.Regexp) []string {
		switch r.Op {
		case syntax.OpAlternate:
			var out []string
			for _, b := range r.Sub {
				l := longestLiteral(b)
				if len(l) < 3 {
					if sub := find(b); sub != nil {
						out = append(out, sub...)
						continue
					}
					return nil
				}
				out = append(out, strings.ToLower(l))
			}
			return out
		case syntax.OpConcat, syntax.OpCapture:
			for _, sub := range r.Sub {
				if n := find(sub); n != nil {
					return n
				}
			}
		}
		return nil
	}
	return find(re.Simplify())
}

// mayMatch is the signature's literal prefilter on a lower-cased line.
func (s *Signature) mayMatch(lower string, grams *trigramSet) bool {
	if s.needle != "" {
		return grams.mayContain(s.grams) && strings.Contains(lower, s.needle)
	}
	if s.anyNeedle != nil {
		for _, n := range s.anyNeedle {
			if strings.Contains(lower, n) {
				return true
			}
		}
		return false
	}
	return true
}

// Entries returns all entries sorted by ID.
func (kb *KB) Entries() []Entry {
	out := append([]Entry(nil), kb.entries...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Entry returns the entry with the given stable ID.
func (kb *KB) Entry(id string) (Entry, bool) {
	i, ok := kb.byID[id]
	if !ok {
		return Entry{}, false
	}
	return kb.entries[i], true
}

// Message returns a fixed sentence of the data file by key.
func (kb *KB) Message(key string) string { return kb.messages[key] }

// listed reports whether the signature's NotIn rule drops this match: the
// number captured by the first group is one of those the second lists.
func (s *Signature) listed(sub []string) bool {
	if len(s.NotIn) != 2 {
		return false
	}
	v := strings.TrimSpace(sub[s.NotIn[0]])
	if v == "" {
		return false
	}
	for _, item := range strings.FieldsFunc(sub[s.NotIn[1]], func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		if item == v {
			return true
		}
	}
	return false
}
