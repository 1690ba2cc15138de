package failures

import (
	"bufio"
	"errors"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/llamactl/llamactl/internal/textenc"
)

// Diagnosis is what a log says: the findings (root causes first) and, when
// nothing matched, the first lines that look like errors.
type Diagnosis struct {
	Findings        []Finding `json:"findings"`
	UnmatchedErrors []LogLine `json:"unmatched_errors"`
	// Lines is the number of lines read.
	Lines int `json:"lines"`
	// LogFacts are values captured from the log (e.g. the nvcc version CMake
	// printed), keyed like the facts table.
	LogFacts map[string]string `json:"log_facts,omitempty"`
}

// Finding is one recognised failure in a log.
type Finding struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Severity string   `json:"severity"`
	Cause    string   `json:"cause"`
	Fix      string   `json:"fix"`
	Commands []string `json:"commands,omitempty"`
	Patch    string   `json:"patch"`
	Lines    []int    `json:"lines"`
	Excerpt  string   `json:"excerpt"`
	Source   string   `json:"source"`
	// Facts about this machine (or read from the log) that explain the failure.
	Facts []string `json:"facts,omitempty"`
	// Confidence is "certain" when a signature names the cause itself and
	// "probable" when the cause is inferred from indirect evidence (weak
	// signals combined); Evidence then lists what it was inferred from.
	Confidence string   `json:"confidence"`
	Evidence   []string `json:"evidence,omitempty"`
	// Basis is what named it: "signature" (a line of the entry's own
	// signatures), "combination" (weak signals of the entry taken together)
	// or "concept" (the fallback layer: the cause's noun in a failure shape,
	// data/concepts).
	Basis string `json:"basis"`
}

// What a finding is based on (Finding.Basis).
const (
	BasisSignature   = "signature"
	BasisCombination = "combination"
	BasisConcept     = "concept"
)

// Confidence levels of a finding.
const (
	ConfidenceCertain  = "certain"
	ConfidenceProbable = "probable"
)

// LogLine is one line of the input, numbered from 1.
type LogLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Limits that keep memory bounded whatever the log.
const (
	maxLineBytes    = 64 << 10     // longer lines are cut; the rest is skipped
	maxLinesPerHit  = 20           // line numbers kept per finding
	maxExcerptLine  = 400          // characters of one excerpt line
	maxUnmatched    = 10           // error-looking lines kept for "nothing matched"
	maxPending      = 64           // open multi-line signatures
	firstErrorsScan = maxUnmatched // error-looking lines remembered (shown only if nothing matches)
)

// errorLooking marks lines worth showing when nothing matched. It is only
// used to list lines, never to name a cause.
var errorLooking = regexp.MustCompile(`(?i)(?:^|[\s:(])(?:fatal|error|errors occurred|failed|failure|cannot|can't|could not|couldn't|not found|undefined reference|unresolved external|exception|aborted|segmentation fault|core dumped|panic)\b`)

// notErrorLooking excludes the usual success lines that contain those words.
// (Messages are normalized: CMake's "-- " is already gone.)
var notErrorLooking = regexp.MustCompile(`(?i)^(?:(?:Performing Test|Looking for|Check if|Checking for|Checking whether) .* - (?:not found|failed|no)$|0 errors?\b|.*\b0 error\(s\)|Build succeeded|.*-Werror)`)

// errorWords are the literals errorLooking needs; checking them first skips
// the regexp on most lines.
var errorWords = []string{"fatal", "error", "fail", "cannot", "can't", "could", "not found", "undefined", "unresolved", "exception", "abort", "segmentation", "core dumped", "panic"}

var errorWordGrams = func() [][]uint32 {
	var g [][]uint32
	for _, w := range errorWords {
		g = append(g, sampleTrigrams(w))
	}
	return g
}()

func (m *matcher) mayLookLikeError(lower string) bool {
	for i, w := range errorWords {
		if m.grams.mayContain(errorWordGrams[i]) && strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

type hit struct {
	entry    int
	sev      string
	lines    []int
	excerpt  string
	first    int
	probable bool
	evidence []string
	// recovered: a recovered_by line came after the last matched line
	// (last: the line read when the entry last matched)
	recovered bool
	last      int
	recLine   string
	basis     string // Finding.Basis; "" is a signature
}

type pending struct {
	entry, sig int
	until      int
	line       int
	text       string
}

// maxComboWindow bounds how far from its anchor a weak signal may be.
const maxComboWindow = 60

// recentLine is one normalized line kept for the combinations' look-back.
type recentLine struct {
	n, gap   int // line number, m.gap when it was read
	msg, raw string
}

// comboState follows one Combine of one entry through the log: after its
// anchor matched, the other parts are looked for in the lines before it (the
// ring of recent lines) and in the next Within lines.
type comboState struct {
	entry, combo int
	anchor       int // line of the anchor; 0 while none is open
	anchorGap    int // m.gap at the anchor
	found        []int
	lines        []int
	texts        []string
	done         bool
}

type matcher struct {
	kb       *KB
	hits     map[int]*hit
	combos   []comboState
	recent   *[maxComboWindow]recentLine // ring of the last lines: line n at (n-1) % maxComboWindow
	unless   map[int]bool                // entries whose unless_log matched
	pend     []pending
	errLines []LogLine
	logFacts map[string]string
	// conceptHits: the first line each ID's concepts matched (concepts.go)
	conceptHits map[int]conceptHit
	n           int
	grams       trigramSet
	// what feed keeps of the lines before: the previous raw line, and the
	// wrapped pieces joined so far (from line wrapStart)
	prevRaw               string
	wrapText              string
	wrapStart, wrapPieces int
	// gap counts the lines skipped so far (PowerShell's record lines, while
	// psRecord > 0): distances between lines are counted without them.
	gap, psRecord int
	// prevMsg is the non-blank line before the one being read, normalized
	// (unless_prev); lastMsg the one being read, so that every reading of
	// a line sees the same line before it
	prevMsg, lastMsg string
}

// Diagnose reads a log as a stream (bounded memory whatever its size) and
// names the failures it shows. A read error other than EOF is returned with
// the diagnosis of what was read.
func (kb *KB) Diagnose(r io.Reader) (Diagnosis, error) {
	m := &matcher{kb: kb, hits: map[int]*hit{}, logFacts: map[string]string{}, unless: map[int]bool{}}
	for ei := range kb.entries {
		for ci := range kb.entries[ei].Combine {
			m.combos = append(m.combos, comboState{entry: ei, combo: ci})
		}
	}
	if len(m.combos) > 0 {
		m.recent = new([maxComboWindow]recentLine)
	}
	br := bufio.NewReaderSize(textenc.Decode(r), 64<<10)
	var buf []byte
	var readErr error
	for {
		frag, isPrefix, err := br.ReadLine()
		if len(frag) > 0 || (err == nil) {
			if len(buf)+len(frag) <= maxLineBytes {
				buf = append(buf, frag...)
			}
			if !isPrefix {
				m.feed(string(buf))
				buf = buf[:0]
			}
		}
		if err != nil {
			if len(buf) > 0 {
				m.feed(string(buf))
			}
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	return kb.WithSnapshot(m.result(), nil), readErr
}

// DiagnoseString diagnoses a log held in memory.
func (kb *KB) DiagnoseString(s string) Diagnosis {
	d, _ := kb.Diagnose(strings.NewReader(s))
	return d
}

// A console hard-wraps a long line at its width (80 columns in a terminal,
// 120 in Windows' console). After a line of exactly that many characters,
// the pieces joined are matched too, as one more reading of the first
// piece's line: the next line is joined, and the one after it while the
// last piece is as wide (maxWrapJoin+1 pieces at most). Each piece is still
// read alone.
var wrapWidths = [...]int{80, 120}

const maxWrapJoin = 8

// maxPSRecord bounds the lines of one PowerShell error record skipped.
const maxPSRecord = 8

// psPositionRe is the line PowerShell puts under a native command's first
// stderr line when it wraps it in an error record ("cmake : CMake Error at
// ..." then "At line:1 char:1"); psPrefixRe is the command name it prepends.
var (
	psPositionRe = regexp.MustCompile(`^\s*At (?:line:\d+|\S.*:\d+) char:\d+\s*$`)
	psPrefixRe   = regexp.MustCompile(`^[^\s:]+ : `)
)

// feed reads one raw line, then the readings it makes possible of the lines
// before it: the previous line without PowerShell's command name when this
// one is PowerShell's position line, the wrapped line this one continues.
//
// The rest of PowerShell's record (the position line, the "+ ..." lines
// and the blank line after them) is skipped: it only repeats the command and
// the message, and it does not count in the distances multi-line signatures
// and combinations allow (m.gap counts such lines).
func (m *matcher) feed(raw string) {
	if m.psRecord > 0 {
		if t := strings.TrimSpace(raw); m.psRecord < maxPSRecord && (t == "" || t[0] == '+') {
			m.psRecord++
			m.n++
			m.gap++
			return
		}
		m.psRecord = 0
	}
	if m.prevRaw != "" && strings.Contains(raw, " char:") && psPositionRe.MatchString(raw) {
		m.n++
		m.gap++
		m.psRecord = 1
		msg := Normalize(m.prevRaw)
		if loc := psPrefixRe.FindStringIndex(msg); loc != nil && loc[1] < len(msg) {
			stripped := Normalize(msg[loc[1]:])
			m.reread(m.prevRaw, stripped, m.n-1)
			// combinations looking back see the line without the name too
			if r := &m.recent; *r != nil && (*r)[(m.n-2)%maxComboWindow].n == m.n-1 {
				(*r)[(m.n-2)%maxComboWindow].msg = stripped
			}
		}
		m.prevRaw, m.wrapPieces, m.wrapText = "", 0, ""
		return
	}
	// the joined reading first: it cites the first piece with the whole text
	joinedWrap := false
	// a row of blanks as wide as the console is a padded row's piece, not a blank line
	if m.wrapPieces > 0 && (strings.TrimSpace(unquote(raw)) != "" || wrapped(raw)) {
		joined := m.wrapText + strings.TrimRight(unquote(raw), "\r")
		m.reread(joined, Normalize(joined), m.wrapStart)
		if j := unpadRows(joined); j != "" {
			m.reread(joined, Normalize(j), m.wrapStart)
		}
		joinedWrap = true
		if m.wrapPieces < maxWrapJoin && wrapped(raw) {
			m.wrapText = joined
			m.wrapPieces++
		} else {
			m.wrapPieces, m.wrapText = 0, ""
		}
	}
	m.line(raw)
	if len(raw) > wrapWidths[0]+minRowPad {
		if j := unpadRows(raw); j != "" {
			m.reread(raw, Normalize(j), m.n)
		}
	}
	if !joinedWrap {
		m.wrapPieces, m.wrapText = 0, ""
		if wrapped(raw) {
			m.wrapText, m.wrapStart, m.wrapPieces = strings.TrimRight(raw, "\r"), m.n, 1
		}
	}
	m.prevRaw = ""
	if len(raw) <= maxExcerptLine*4 {
		m.prevRaw = raw
	}
}

// minRowPad is the fewest blanks unpadRows takes for a row's padding.
const minRowPad = 8

// unpadRows reads a line whose console rows were copied onto one line, each
// padded with blanks to the terminal's width ("... not expa<88 spaces>nded
// with '...'"): the rows' text joined, or "" when the line is not so. A pad
// is a run of minRowPad blanks or more between two characters, the first one
// after a console's width of text (what comes before it is a full row, plus
// any prefix a logger added); the runs after it are the other rows' pads.
func unpadRows(raw string) string {
	if !strings.Contains(raw, "        ") && !strings.Contains(raw, "\t\t\t\t\t\t\t\t") {
		return ""
	}
	r := []rune(strings.TrimRight(raw, "\r"))
	var b strings.Builder
	found, last := false, 0
	for i := 0; i < len(r); {
		if r[i] != ' ' && r[i] != '\t' {
			i++
			continue
		}
		j := i
		for j < len(r) && (r[j] == ' ' || r[j] == '\t') {
			j++
		}
		if j-i >= minRowPad && j < len(r) && (found || i >= wrapWidths[0]) {
			b.WriteString(string(r[last:i]))
			last, found = j, true
		}
		i = j
	}
	if !found {
		return ""
	}
	b.WriteString(string(r[last:]))
	return b.String()
}

// unquote drops the quote marker ("> ", "> > ") a pasted line may have
// been given after the console wrapped it, when the width and the text
// joined are the console's.
func unquote(raw string) string {
	s := raw
	for len(s) > 0 && s[0] == '>' {
		switch {
		case len(s) == 1:
			s = ""
		case s[1] == ' ':
			s = s[2:]
		case s[1] == '>':
			s = s[1:]
		default:
			return raw // ">>= x" is not a quote
		}
	}
	return s
}

// wrapped reports whether a line fills a console's width: its columns
// (colours take none, East Asian wide characters two) are the width, or one
// less when a wide character did not fit at the end.
func wrapped(raw string) bool {
	raw = strings.TrimRight(raw, "\r")
	if u := unquote(raw); u != raw && fills(u) {
		return true // quoted after the console wrapped it
	}
	return fills(raw)
}

func fills(raw string) bool {
	if len(raw) < wrapWidths[0]-1 {
		return false
	}
	if strings.IndexByte(raw, 0x1b) >= 0 {
		raw = ansiRe.ReplaceAllString(raw, "")
	}
	cols, wide := 0, false
	for _, r := range raw {
		if wideRune(r) {
			cols += 2
			wide = true
		} else {
			cols++
		}
	}
	for _, w := range wrapWidths {
		if cols == w || (wide && cols == w-1) {
			return true
		}
	}
	return false
}

// wideRune reports whether a console shows r two columns wide (the East
// Asian wide and fullwidth blocks).
func wideRune(r rune) bool {
	return r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) ||
		(r >= 0xac00 && r <= 0xd7a3) || (r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe4f) ||
		(r >= 0xff00 && r <= 0xff60) || (r >= 0xffe0 && r <= 0xffe6))
}

// reread matches another reading (msg) of line n's text against the
// signatures, unless_log patterns and log facts; the combinations only see
// each line once.
func (m *matcher) reread(raw, msg string, n int) {
	if msg == "" {
		return
	}
	lower := strings.ToLower(msg)
	m.grams.fill(lower)
	cur := m.n
	m.n = n
	m.match(raw, msg, lower)
	m.n = cur
}

func (m *matcher) line(raw string) {
	m.n++
	msg := Normalize(raw)
	if msg == "" {
		return
	}
	m.prevMsg, m.lastMsg = m.lastMsg, msg
	lower := strings.ToLower(msg)
	m.grams.fill(lower)
	matched := m.match(raw, msg, lower)
	for i := range m.combos {
		m.combo(&m.combos[i], msg, lower, raw)
	}
	if len(m.combos) > 0 {
		m.recent[(m.n-1)%maxComboWindow] = recentLine{n: m.n, gap: m.gap, msg: msg, raw: raw}
	}
	if !matched && len(m.errLines) < firstErrorsScan && m.mayLookLikeError(lower) && errorLooking.MatchString(msg) && !notErrorLooking.MatchString(msg) {
		m.errLines = append(m.errLines, LogLine{Line: m.n, Text: cut(strings.TrimSpace(raw), maxExcerptLine)})
	}
}

// match runs the signatures, unless_log patterns and log facts on one
// reading of line m.n and reports whether a signature matched.
func (m *matcher) match(raw, msg, lower string) bool {
	// Multi-line signatures waiting for their second line.
	if len(m.pend) > 0 {
		keep := m.pend[:0]
		for _, p := range m.pend {
			s := &m.kb.entries[p.entry].Signature[p.sig]
			if p.line >= m.n { // a reading of its own line (reread) does not complete it
				keep = append(keep, p)
				continue
			}
			if (s.thenNeedle == "" || strings.Contains(lower, s.thenNeedle)) && s.then.MatchString(msg) {
				m.record(p.entry, s, p.line, p.text+"\n"+raw, m.n)
				continue
			}
			if m.n-m.gap < p.until {
				keep = append(keep, p)
			}
		}
		m.pend = keep
	}
	matched := false
	for ei := range m.kb.entries {
		e := &m.kb.entries[ei]
		for si := range e.Signature {
			s := &e.Signature[si]
			if !s.mayMatch(lower, &m.grams) {
				continue
			}
			sub := s.re.FindStringSubmatch(msg)
			if sub == nil || !s.bounds(sub) || s.listed(sub) {
				continue
			}
			if s.unless != nil && s.unless.MatchString(msg) {
				continue
			}
			if s.unlessPrev != nil && s.unlessPrev.MatchString(m.prevMsg) {
				continue
			}
			if s.then != nil {
				if len(m.pend) >= maxPending {
					m.pend = m.pend[1:]
				}
				m.pend = append(m.pend, pending{entry: ei, sig: si, until: m.n - m.gap + s.Within + 1, line: m.n, text: cut(raw, maxExcerptLine)})
				continue
			}
			m.record(ei, s, m.n, raw, 0)
			matched = true
			break
		}
	}
	for ei, h := range m.hits {
		if h.recovered || h.last == m.n {
			continue
		}
		e := &m.kb.entries[ei]
		for j, re := range e.recovered {
			if n := e.recNeedles[j]; n != "" && !strings.Contains(lower, n) {
				continue
			}
			if re.MatchString(msg) {
				h.recovered, h.recLine = true, excerpt(raw)
				break
			}
		}
	}
	for ei := range m.kb.entries {
		if m.unless[ei] {
			continue
		}
		for j, re := range m.kb.entries[ei].unlessLog {
			if n := m.kb.entries[ei].unlessNeedles[j]; n != "" && !strings.Contains(lower, n) {
				continue
			}
			if re.MatchString(msg) {
				m.unless[ei] = true
				break
			}
		}
	}
	m.matchConcepts(raw, msg, lower)
	for _, f := range m.kb.facts {
		if f.logRe == nil || m.logFacts[f.Key] != "" {
			continue
		}
		if f.needle != "" && (!m.grams.mayContain(f.grams) || !strings.Contains(lower, f.needle)) {
			continue
		}
		if sub := f.logRe.FindStringSubmatch(msg); len(sub) > 1 {
			// The value is the first group that matched: a fact may have one
			// alternative per language (the English and zh-CN cl banners).
			for _, v := range sub[1:] {
				if v = strings.TrimSpace(v); v != "" {
					m.logFacts[f.Key] = v
					break
				}
			}
		}
	}
	return matched
}

// combo advances one set of weak signals by the current line.
func (m *matcher) combo(c *comboState, msg, lower, raw string) {
	if c.done {
		return
	}
	spec := &m.kb.entries[c.entry].Combine[c.combo]
	if c.anchor > 0 && (m.n-m.gap)-(c.anchor-c.anchorGap) > spec.Within {
		c.anchor = 0
	}
	if c.anchor == 0 {
		if !m.grams.mayContain(spec.grams) || !strings.Contains(lower, spec.needles[0]) || !spec.parts[0].MatchString(msg) {
			return
		}
		c.anchor, c.anchorGap, c.found = m.n, m.gap, make([]int, len(spec.parts))
		c.lines, c.texts = []int{m.n}, []string{cut(strings.TrimSpace(ansiRe.ReplaceAllString(raw, "")), maxExcerptLine)}
		c.found[0] = m.n
		// Nearest lines first: the evidence shown is the closest one.
		for back := 1; back <= spec.Within+m.gap && back < maxComboWindow && back < m.n; back++ {
			r := m.recent[(m.n-back-1)%maxComboWindow]
			if r.n != m.n-back || (r.n-r.gap) < (m.n-m.gap)-spec.Within {
				continue // a blank line (not kept), one older than the ring or too far
			}
			if m.comboLine(c, spec, r.n, r.msg, r.raw) {
				return
			}
		}
		return
	}
	m.comboLine(c, spec, m.n, msg, raw)
}

// comboLine tries one line of an open combination's window; it reports
// whether the combination ended (complete or vetoed).
func (m *matcher) comboLine(c *comboState, spec *Combine, n int, msg, raw string) bool {
	if spec.unless != nil && spec.unless.MatchString(msg) {
		c.anchor = 0
		return true
	}
	for k := 1; k < len(spec.parts); k++ {
		if c.found[k] == 0 && spec.parts[k].MatchString(msg) {
			c.found[k] = n
			c.lines = append(c.lines, n)
			c.texts = append(c.texts, cut(strings.TrimSpace(ansiRe.ReplaceAllString(raw, "")), maxExcerptLine))
		}
	}
	for _, f := range c.found {
		if f == 0 {
			return false
		}
	}
	idx := make([]int, len(c.lines))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return c.lines[idx[a]] < c.lines[idx[b]] })
	lines, texts := make([]int, len(idx)), make([]string, len(idx))
	for i, j := range idx {
		lines[i], texts[i] = c.lines[j], c.texts[j]
	}
	c.lines, c.texts = lines, texts
	c.done = true
	return true
}

func (s *Signature) bounds(sub []string) bool {
	if s.Group <= 0 || (s.Min == nil && s.Max == nil) {
		return true
	}
	v, err := strconv.Atoi(sub[s.Group])
	if err != nil {
		return false
	}
	if s.Min != nil && v < *s.Min {
		return false
	}
	if s.Max != nil && v > *s.Max {
		return false
	}
	return true
}

// record adds one occurrence; second is the line of a multi-line match's
// second part (0 when single-line).
func (m *matcher) record(ei int, s *Signature, line int, text string, second int) {
	sev := m.kb.entries[ei].Severity
	if s.Severity != "" {
		sev = s.Severity
	}
	h := m.hits[ei]
	if h == nil {
		h = &hit{entry: ei, sev: sev, first: line, excerpt: excerpt(text), probable: s.Probable}
		if s.Probable {
			h.evidence = []string{h.excerpt}
		}
		m.hits[ei] = h
	} else if h.probable && !s.Probable {
		// A line that names the cause outranks one that points at it.
		h.probable, h.evidence, h.sev, h.excerpt = false, nil, sev, excerpt(text)
	} else if sev == SeverityError && h.sev != SeverityError {
		// An error form of the same failure outranks its warning form.
		h.sev, h.excerpt = sev, excerpt(text)
	}
	h.recovered, h.last = false, m.n
	for _, l := range []int{line, second} {
		if l > 0 && len(h.lines) < maxLinesPerHit && (len(h.lines) == 0 || h.lines[len(h.lines)-1] < l) {
			h.lines = append(h.lines, l)
		}
	}
}

func excerpt(text string) string {
	parts := strings.Split(text, "\n")
	for i, p := range parts {
		p = ansiRe.ReplaceAllString(p, "")
		parts[i] = cut(strings.TrimRight(strings.TrimSpace(p), "\r␍"), maxExcerptLine)
	}
	return strings.Join(parts, "\n")
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// do not split a UTF-8 sequence
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// result applies root-cause selection and orders the findings.
func (m *matcher) result() Diagnosis {
	d := Diagnosis{Findings: []Finding{}, UnmatchedErrors: []LogLine{}, Lines: m.n}
	if len(m.logFacts) > 0 {
		d.LogFacts = m.logFacts
	}
	for _, c := range m.combos {
		if !c.done || m.hits[c.entry] != nil {
			continue
		}
		e := m.kb.entries[c.entry]
		m.hits[c.entry] = &hit{entry: c.entry, sev: e.Severity, lines: append([]int(nil), c.lines...),
			excerpt: strings.Join(c.texts, "\n"), first: c.lines[0], probable: true, evidence: c.texts, basis: BasisCombination}
	}
	var hits []*hit
	for ei, h := range m.hits {
		if m.unless[ei] {
			continue
		}
		if h.recovered && !h.probable {
			// it happened, but the program went on: a hedge, not a cause
			h.probable, h.evidence = true, []string{h.excerpt, h.recLine}
		}
		hits = append(hits, h)
	}
	hits = selectRootCauses(m.kb, hits)
	sort.Slice(hits, func(i, j int) bool {
		if (hits[i].sev == SeverityError) != (hits[j].sev == SeverityError) {
			return hits[i].sev == SeverityError
		}
		return hits[i].first < hits[j].first
	})
	for _, h := range hits {
		d.Findings = append(d.Findings, m.kb.finding(m.kb.entries[h.entry], h))
	}
	if f, ok := m.conceptFinding(d.Findings); ok {
		if f.Severity == SeverityError {
			d.Findings = append([]Finding{f}, d.Findings...)
		} else {
			d.Findings = append(d.Findings, f)
		}
	}
	if len(d.Findings) == 0 {
		n := len(m.errLines)
		if n > maxUnmatched {
			n = maxUnmatched
		}
		d.UnmatchedErrors = append(d.UnmatchedErrors, m.errLines[:n]...)
	}
	return d
}

// selectRootCauses drops what is not the root cause:
//   - a wrapper (CMake's "is not able to compile a simple test program")
//     when a nested cause matched;
//   - a symptom (data: symptom_of) when what explains it matched;
//   - a link error that comes after a compile or configure error (the
//     missing object is the compiler's fault, not the linker's).
func selectRootCauses(kb *KB, hits []*hit) []*hit {
	causes := false
	firstBuildErr := 0
	for _, h := range hits {
		e := kb.entries[h.entry]
		if h.sev != SeverityError || e.Role == "wrapper" {
			continue
		}
		causes = true
		if (e.Stage == "compile" || e.Stage == "configure") && (firstBuildErr == 0 || h.first < firstBuildErr) {
			firstBuildErr = h.first
		}
	}
	matched := map[string]bool{}
	for _, h := range hits {
		matched[kb.entries[h.entry].ID] = true
	}
	out := hits[:0]
	for _, h := range hits {
		e := kb.entries[h.entry]
		if e.Role == "wrapper" && causes {
			continue
		}
		if symptom(e, matched) {
			continue
		}
		if e.Stage == "link" && firstBuildErr > 0 && h.first > firstBuildErr {
			continue
		}
		out = append(out, h)
	}
	return out
}

func symptom(e Entry, matched map[string]bool) bool {
	for _, id := range e.SymptomOf {
		if matched[id] {
			return true
		}
	}
	return false
}

func (kb *KB) finding(e Entry, h *hit) Finding {
	f := Finding{
		ID: e.ID, Title: e.Title, Severity: h.sev, Cause: e.Cause, Fix: e.Fix,
		Commands: append([]string(nil), e.Commands...), Patch: e.Patch,
		Lines: append([]int{}, h.lines...), Excerpt: h.excerpt, Source: e.Source,
		Confidence: ConfidenceCertain, Basis: h.basis,
	}
	if f.Basis == "" {
		f.Basis = BasisSignature
	}
	if h.probable {
		f.Confidence = ConfidenceProbable
		f.Evidence = append([]string(nil), h.evidence...)
	}
	return f
}
