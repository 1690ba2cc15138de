package failures

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

// Concepts are the fallback layer of explain (data/concepts/*.json): a
// cause's noun (the DLL, tool, environment variable, API or file the cause
// is about: "nvcc", "MSVCP140.dll") next to a failure shape (not found,
// cannot load, not recognized, unsupported, too old, out of memory ... in
// several languages) on one line names the cause as probable, whatever tool
// printed the line. The layer speaks only when nothing else did: no finding
// of severity error from the signatures and combinations, and the concept
// lines of the log name exactly one ID (two IDs are ambiguous: silence).

//go:embed data/concepts
var conceptFS embed.FS

// conceptSpec is one concept as data/concepts/*.json states it.
type conceptSpec struct {
	ID         string   `json:"id"`
	Anchor     string   `json:"anchor"`
	Shape      string   `json:"shape"`
	Unless     string   `json:"unless,omitempty"`
	Source     string   `json:"source"`
	Comment    string   `json:"comment,omitempty"`
	Examples   []string `json:"examples"`
	NearMisses []string `json:"near_misses"`
}

type conceptFile struct {
	Schema   int               `json:"schema"`
	Comment  string            `json:"comment,omitempty"`
	Shapes   map[string]string `json:"shapes,omitempty"`
	Concepts []conceptSpec     `json:"concepts"`
}

// concept is a compiled conceptSpec.
type concept struct {
	entry                 int // index of the ID's entry
	anchor, shape, unless *regexp.Regexp
	// literal prefilters (lower-case) of the anchor and of the shape: a
	// line that holds none of a set's literals cannot match
	anchorLits, shapeLits literals
}

// literals is a regexp's prefilter: every match holds one of them (all is
// false), or no literal is known for it (all is true: every line passes).
type literals struct {
	all   bool
	lits  []string
	grams [][]uint32
}

func literalsOf(expr string) literals {
	var l literals
	if n := needleOf(expr); n != "" {
		l.lits = []string{n}
	} else if l.lits = anyNeedleOf(expr); l.lits == nil {
		return literals{all: true}
	}
	for _, n := range l.lits {
		l.grams = append(l.grams, sampleTrigrams(n))
	}
	return l
}

// may reports whether the lower-cased line holds one of the literals; the
// line's trigrams rule out most of them with a few bit tests.
func (l *literals) may(lower string, grams *trigramSet) bool {
	if l.all {
		return true
	}
	for i, n := range l.lits {
		if grams.mayContain(l.grams[i]) && strings.Contains(lower, n) {
			return true
		}
	}
	return false
}

// mayMatch is the concept's literal prefilter on a lower-cased line.
func (c *concept) mayMatch(lower string, grams *trigramSet) bool {
	return c.anchorLits.may(lower, grams) && c.shapeLits.may(lower, grams)
}

// conceptHit is the first line of a log a concept of one ID matched.
type conceptHit struct {
	line int
	text string
}

// minConceptExamples is the fewest examples and near misses a concept has.
const minConceptExamples = 2

// conceptNotCounted: lines that never count for a concept, whatever their
// words: what {{not_a_report}} excludes (a test's PASS line, a sentence
// about what something avoids), a logger's debug, trace or info level, a
// compiler's or script's note, pip's index resolution (a package not on
// the index is not a tool missing from the machine) and CMake's "Found X:"
// lines (a package found, whatever optional component it lacks), and a
// line where the program goes on without what it lacks: an installer's or
// script's check that falls back, retries, uses something else, installs or
// downloads it now, disables or skips a feature ("nvcc not found, using the
// prebuilt wheel", "No NVIDIA GPU found. Installing the CPU-only version.",
// "Vulkan SDK not found; the Vulkan backend is disabled"), a file that "will
// be created", a hint's condition ("set CUDA_HOME if nvcc is not found")
// and a row of a help text or usage ("  -DGGML_CUDA=ON   needs nvcc ...").
const conceptNotCounted = `{{not_a_report}}|(?i:\blevel=(?:DEBUG|TRACE|INFO)\b)|^\[[DIT]\] |^(?:DEBUG|TRACE|INFO)\b[: ]|^[DI]\d{4} \d\d:\d\d|(?i:^note:|\bnote: |could not find a version that satisfies|no matching distribution found)|^Found [^\s:]+: |\bfound components:|` + conceptGoesOn

// conceptGoesOn: the program goes on without what it lacks (see
// conceptNotCounted).
const conceptGoesOn = `{{retry}}|^\s*--?[A-Za-z][\w.-]*(?:=\S*|\s\S+)?\s{2,}\S|(?i:[,;:.]\s+(?:using|installing|downloading|re-?downloading|searching|skipping|ignoring|continuing|connecting|offloading|running without)\b|\binstead\b|\bwill be used\b|\bdisabl(?:ed|ing)\b|\brunning without\b|\bcontinuing\b|\bwill be (?:created|downloaded|generated|installed|written|skipped|ignored)\b|\bdoes(?:n't| not) exist yet\b|\b(?:if|in case)\b[^.;:]{0,60}?\b(?:not|isn't|aren't|cannot|can't)\b)`

// defaultConcepts reads the embedded concept files in name order.
func defaultConcepts() ([][]byte, error) { return readEmbedded(conceptFS, "data/concepts/*.json") }

// parseConcepts reads one concept file strictly (decodeStrict).
func parseConcepts(b []byte) (conceptFile, error) {
	var cf conceptFile
	err := decodeStrict(b, &cf, func() int { return cf.Schema })
	return cf, err
}

// withConcepts returns a copy of kb with the concepts of files (each one
// data/concepts/*.json) compiled in place of its own. The shapes of all the
// files form one table: a name is defined once, never as one of
// failures.json's macros; a shape may use those macros, a concept's shape
// and unless both.
func (kb *KB) withConcepts(files [][]byte) (*KB, error) {
	parsed := make([]conceptFile, len(files))
	table := map[string]string{}
	for k, v := range kb.macros {
		table[k] = v
	}
	shapeFile := map[string]int{}
	for n, b := range files {
		cf, err := parseConcepts(b)
		if err != nil {
			return nil, fmt.Errorf("concepts %d: %w", n, err)
		}
		parsed[n] = cf
		for name, re := range cf.Shapes {
			if !macroRe.MatchString("{{" + name + "}}") {
				return nil, fmt.Errorf("concepts %d: shape name %q is not [a-z_]+", n, name)
			}
			if _, ok := kb.macros[name]; ok {
				return nil, fmt.Errorf("concepts %d: shape %q is also a macro of failures.json", n, name)
			}
			if m, ok := shapeFile[name]; ok {
				return nil, fmt.Errorf("concepts %d: shape %q is defined in concepts %d too", n, name, m)
			}
			x, err := expandMacros(re, kb.macros)
			if err != nil {
				return nil, fmt.Errorf("concepts %d shape %s: %w", n, name, err)
			}
			if _, err := regexp.Compile(x); err != nil {
				return nil, fmt.Errorf("concepts %d shape %s: %w", n, name, err)
			}
			shapeFile[name] = n
			table[name] = "(?:" + x + ")"
		}
	}
	out := *kb
	out.concepts = nil
	for n, cf := range parsed {
		for j, cs := range cf.Concepts {
			c, err := kb.compileConcept(cs, table)
			if err != nil {
				return nil, fmt.Errorf("concepts %d concept %d (%s): %w", n, j, cs.ID, err)
			}
			out.concepts = append(out.concepts, c)
		}
	}
	return &out, nil
}

func (kb *KB) compileConcept(cs conceptSpec, table map[string]string) (concept, error) {
	var c concept
	ei, ok := kb.byID[cs.ID]
	if !ok {
		return c, fmt.Errorf("unknown id %q", cs.ID)
	}
	c.entry = ei
	if !strings.HasPrefix(cs.Source, "https://") {
		return c, fmt.Errorf("no public source")
	}
	if len(cs.Examples) < minConceptExamples || len(cs.NearMisses) < minConceptExamples {
		return c, fmt.Errorf("%d examples and %d near misses (at least %d of each)", len(cs.Examples), len(cs.NearMisses), minConceptExamples)
	}
	if cs.Anchor == "" || cs.Shape == "" {
		return c, fmt.Errorf("no anchor or no shape")
	}
	anchor, err := expandMacros(cs.Anchor, table)
	if err != nil {
		return c, fmt.Errorf("anchor: %w", err)
	}
	if c.anchor, err = regexp.Compile(anchor); err != nil {
		return c, fmt.Errorf("anchor: %w", err)
	}
	if c.anchorLits = literalsOf(anchor); c.anchorLits.all {
		return c, fmt.Errorf("the anchor %q holds no literal of 3 characters or more (in every branch)", cs.Anchor)
	}
	shape, err := expandMacros(cs.Shape, table)
	if err != nil {
		return c, fmt.Errorf("shape: %w", err)
	}
	if c.shape, err = regexp.Compile(shape); err != nil {
		return c, fmt.Errorf("shape: %w", err)
	}
	c.shapeLits = literalsOf(shape)
	if cs.Unless != "" {
		u, err := expandMacros(cs.Unless, table)
		if err != nil {
			return c, fmt.Errorf("unless: %w", err)
		}
		if c.unless, err = regexp.Compile(u); err != nil {
			return c, fmt.Errorf("unless: %w", err)
		}
	}
	return c, nil
}

// matchConcepts runs the concepts on one reading of line m.n: the first
// line each ID's concepts match is kept. Once two IDs matched the layer is
// silent whatever comes next, so it stops looking.
func (m *matcher) matchConcepts(raw, msg, lower string) {
	if len(m.kb.concepts) == 0 || len(m.conceptHits) > 1 {
		return
	}
	excluded := -1 // unknown
	for i := range m.kb.concepts {
		c := &m.kb.concepts[i]
		if _, done := m.conceptHits[c.entry]; done {
			continue
		}
		if !c.mayMatch(lower, &m.grams) || !c.anchor.MatchString(msg) || !c.shape.MatchString(msg) {
			continue
		}
		// unless vetoes the line as normalized or as written (a prefix
		// such as "sudo: " is gone from the normalized line)
		if c.unless != nil && (c.unless.MatchString(msg) || c.unless.MatchString(raw)) {
			continue
		}
		if excluded < 0 {
			excluded = 0
			if m.kb.conceptNot.MatchString(msg) || m.kb.conceptNot.MatchString(raw) {
				excluded = 1
			}
		}
		if excluded == 1 {
			return
		}
		if m.conceptHits == nil {
			m.conceptHits = map[int]conceptHit{}
		}
		m.conceptHits[c.entry] = conceptHit{line: m.n, text: excerpt(raw)}
	}
}

// conceptFinding is the layer's answer once the log is read: the one ID its
// lines named, as probable, when the findings hold no error, the ID's
// unless_log did not match and no finding explains it (symptom_of).
func (m *matcher) conceptFinding(findings []Finding) (Finding, bool) {
	if len(m.conceptHits) != 1 {
		return Finding{}, false
	}
	for _, f := range findings {
		if f.Severity == SeverityError {
			return Finding{}, false
		}
	}
	var ei int
	var h conceptHit
	for k, v := range m.conceptHits {
		ei, h = k, v
	}
	if m.unless[ei] {
		return Finding{}, false
	}
	e := m.kb.entries[ei]
	named := map[string]bool{}
	for _, f := range findings {
		if f.ID == e.ID {
			return Finding{}, false
		}
		named[f.ID] = true
	}
	if symptom(e, named) {
		return Finding{}, false
	}
	return m.kb.finding(e, &hit{entry: ei, sev: e.Severity, lines: []int{h.line}, excerpt: h.text,
		first: h.line, probable: true, evidence: []string{h.text}, basis: BasisConcept}), true
}
