package failures

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// The "similar" layer is explain's last fallback (issue #15): when neither
// the signatures, the combinations nor the concepts gave a finding of
// severity error, the log's error-looking lines are compared with those of
// the development logs of the public corpus (testdata/logs/corpus/dev),
// whose causes their threads established. If the nearest logs agree on one
// ID and resemble this one closely enough, that ID is named as PROBABLE,
// with the public thread of the log it resembles most and the lines that
// weighed most, so that a person can check the resemblance.
//
// Method: TF-IDF cosine k-nearest neighbours over the tokens of the first
// maxSimLines error-looking lines (explain's own errorLooking, the lines it
// lists when nothing matched). Tokens are lower-cased words; numbers, hex,
// the user's name in a home path and stop words are dropped, digits inside a
// word are masked. The model (data/similar.json) is generated from the
// development logs by `go test ./failures -run TestSimilarModel -update`;
// its parameters were chosen by leave-one-batch-out cross-validation
// (TestSimilarLOBO). Memory is bounded: the lines are kept, cut, only up to
// maxSimLines.

//go:embed data/similar.json
var similarData []byte

// maxSimLines is the number of error-looking lines the layer reads.
const maxSimLines = 300

// maxSimTokens bounds the tokens taken from one line.
const maxSimTokens = 48

// maxSimShown is the number of lines shown as the evidence.
const maxSimShown = 3

// simModel is data/similar.json.
type simModel struct {
	Schema  int    `json:"schema"`
	Comment string `json:"comment"`
	// K neighbours, all at least Threshold similar, must agree on an ID;
	// none of them may be a log whose thread found no ID (a success log or
	// a cause without an ID: they vote for silence).
	K         int     `json:"k"`
	Threshold float64 `json:"threshold"`
	MaxLines  int     `json:"max_lines"`
	// Mode "line": each record is one line of a training log (a line that
	// named its cause, or an error-looking line of a log whose thread found
	// no ID), and a log's similarity to a record is that of its most
	// similar line; "" (or "log"): each record is a whole log.
	Mode  string    `json:"mode,omitempty"`
	Terms []string  `json:"terms"` // sorted
	IDF   []float64 `json:"idf"`   // of Terms[i]
	Logs  []simLog  `json:"logs"`

	index        map[string]int
	postingsOnce sync.Once
	postings     [][]simPosting // by term: the records that hold it (line mode)
}

// simLog is one training log: where it comes from, what its thread
// established, and its L2-normalized TF-IDF vector (no log text).
type simLog struct {
	File   string    `json:"file"`
	URL    string    `json:"url"`
	Expect []string  `json:"expect"`
	Terms  []int     `json:"terms"`   // indexes into simModel.Terms, ascending
	Weight []float64 `json:"weights"` // of Terms[i]
}

// simLine is an error-looking line kept for the layer.
type simLine struct {
	n        int
	raw, msg string
}

func parseSimModel(b []byte) (*simModel, error) {
	var m simModel
	if err := decodeStrict(b, &m, func() int { return m.Schema }); err != nil {
		return nil, err
	}
	if len(m.Terms) != len(m.IDF) {
		return nil, fmt.Errorf("%d terms, %d idf", len(m.Terms), len(m.IDF))
	}
	if m.K < 0 || m.MaxLines < 1 || m.MaxLines > maxSimLines {
		return nil, fmt.Errorf("k %d, max_lines %d", m.K, m.MaxLines)
	}
	m.index = make(map[string]int, len(m.Terms))
	for i, t := range m.Terms {
		if i > 0 && m.Terms[i-1] >= t {
			return nil, fmt.Errorf("terms not sorted at %q", t)
		}
		m.index[t] = i
	}
	for i, l := range m.Logs {
		if len(l.Terms) != len(l.Weight) || !strings.HasPrefix(l.URL, "https://") {
			return nil, fmt.Errorf("log %d (%s): %d terms, %d weights, url %q", i, l.File, len(l.Terms), len(l.Weight), l.URL)
		}
		for j, x := range l.Terms {
			if x < 0 || x >= len(m.Terms) || (j > 0 && l.Terms[j-1] >= x) {
				return nil, fmt.Errorf("log %d (%s): bad term index %d", i, l.File, x)
			}
		}
	}
	return &m, nil
}

// withSimilar returns a copy of kb whose similar layer uses model (nil:
// no layer).
func (kb *KB) withSimilar(model *simModel) *KB {
	out := *kb
	out.similar = model
	return &out
}

var (
	simHomeRe  = regexp.MustCompile(`(?i)(?:/home/|/users/|\\users\\|/root/|\\documents and settings\\)[^/\\\s"':]+`)
	simTokenRe = regexp.MustCompile(`[a-z0-9_][a-z0-9_.+-]*`)
	simDigitRe = regexp.MustCompile(`[0-9]+`)
	simHexRe   = regexp.MustCompile(`^(?:0x[0-9a-f]+|[0-9a-f]{6,})$`)
)

var simStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the to of in on at for is are was were be been being by with from as this that these those it its or and
		but if then than so do does did has have had will would should may might into onto over under about after before
		you your we our they their he she his her i me my there here which who what when where while also just only any all
		some such via per use used using please see e.g i.e etc`) {
		m[w] = true
	}
	return m
}()

// simTokens are the tokens of one normalized line.
func simTokens(msg string) []string {
	s := strings.ToLower(simHomeRe.ReplaceAllString(msg, " "))
	var out []string
	for _, w := range simTokenRe.FindAllString(s, -1) {
		w = strings.Trim(w, ".+-_")
		if len(w) < 2 || len(w) > 40 || simStopWords[w] || simHexRe.MatchString(w) {
			continue
		}
		if strings.IndexFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0 {
			continue // a number
		}
		w = simDigitRe.ReplaceAllString(w, "0")
		out = append(out, w)
		if len(out) == maxSimTokens {
			break
		}
	}
	return out
}

// simCounts is the term counts of lines.
func simCounts(lines []string) map[string]int {
	tf := map[string]int{}
	for _, l := range lines {
		for _, t := range simTokens(l) {
			tf[t]++
		}
	}
	return tf
}

func simTF(n int) float64 { return 1 + math.Log(float64(n)) }

// vector is the model's L2-normalized TF-IDF vector of lines (terms the
// model does not know are left out), by term index.
func (sm *simModel) vector(lines []string) map[int]float64 {
	v := map[int]float64{}
	norm := 0.0
	for t, n := range simCounts(lines) {
		i, ok := sm.index[t]
		if !ok {
			continue
		}
		w := simTF(n) * sm.IDF[i]
		v[i] = w
		norm += w * w
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// simNeighbour is a training record and its cosine similarity.
type simNeighbour struct {
	log int
	sim float64
}

// simQuery is a log as the model reads it: its lines and their vectors
// (the whole log's in log mode, each line's in line mode).
type simQuery struct {
	lines []simLine
	v     map[int]float64   // log mode
	lv    []map[int]float64 // line mode, by line (nil: no known term)
}

func (sm *simModel) query(lines []simLine) *simQuery {
	q := &simQuery{lines: lines}
	if sm.Mode == "line" {
		q.lv = make([]map[int]float64, len(lines))
		for i, l := range lines {
			q.lv[i] = sm.vector([]string{l.msg})
		}
	} else {
		q.v = sm.vector(simMsgs(lines))
	}
	return q
}

func dot(v map[int]float64, l *simLog) float64 {
	s := 0.0
	for j, x := range l.Terms {
		if q, ok := v[x]; ok {
			s += q * l.Weight[j]
		}
	}
	return s
}

// neighbours are the k training records most similar to q, most similar
// first (ties in training order).
func (sm *simModel) neighbours(q *simQuery, k int) []simNeighbour {
	score := make([]float64, len(sm.Logs))
	if sm.Mode == "line" {
		sm.postingsOnce.Do(sm.indexPostings)
		seen := map[string]bool{}
		acc := make([]float64, len(sm.Logs))
		for i, v := range q.lv {
			if v == nil || seen[q.lines[i].msg] {
				continue
			}
			seen[q.lines[i].msg] = true
			var touched []int
			for x, w := range v {
				for _, p := range sm.postings[x] {
					if acc[p.rec] == 0 {
						touched = append(touched, p.rec)
					}
					acc[p.rec] += w * p.w
				}
			}
			for _, r := range touched {
				if acc[r] > score[r] {
					score[r] = acc[r]
				}
				acc[r] = 0
			}
		}
	} else if q.v != nil {
		for li := range sm.Logs {
			score[li] = dot(q.v, &sm.Logs[li])
		}
	}
	var all []simNeighbour
	for li, s := range score {
		if s > 0 {
			all = append(all, simNeighbour{li, s})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].sim > all[b].sim })
	if len(all) > k {
		all = all[:k]
	}
	return all
}

type simPosting struct {
	rec int
	w   float64
}

func (sm *simModel) indexPostings() {
	sm.postings = make([][]simPosting, len(sm.Terms))
	for li, l := range sm.Logs {
		for j, x := range l.Terms {
			sm.postings[x] = append(sm.postings[x], simPosting{li, l.Weight[j]})
		}
	}
}

// simParams is a decision rule (and, for training, the model's mode).
type simParams struct {
	Mode      string
	K         int
	Threshold float64
}

// decide is the ID the nearest records agree on, and the nearest one, or
// "" when they do not agree, one found no ID, or one is less similar than
// the threshold.
func (sm *simModel) decide(q *simQuery, p simParams) (string, simNeighbour) {
	nb := sm.neighbours(q, p.K)
	if len(nb) < p.K {
		return "", simNeighbour{}
	}
	for _, n := range nb {
		if n.sim < p.Threshold || len(sm.Logs[n.log].Expect) == 0 {
			return "", simNeighbour{}
		}
	}
	for _, id := range sm.Logs[nb[0].log].Expect {
		all := true
		for _, n := range nb[1:] {
			has := false
			for _, e := range sm.Logs[n.log].Expect {
				has = has || e == id
			}
			all = all && has
		}
		if all {
			return id, nb[0]
		}
	}
	return "", simNeighbour{}
}

// weighed are the lines that weighed most in the similarity of q to the
// training record li (at most maxSimShown, in log order).
func (sm *simModel) weighed(q *simQuery, li int) []simLine {
	l := &sm.Logs[li]
	type scored struct {
		i int
		w float64
	}
	var s []scored
	if sm.Mode == "line" {
		for i, v := range q.lv {
			if v != nil {
				if w := dot(v, l); w > 0 {
					s = append(s, scored{i, w})
				}
			}
		}
	} else {
		d := map[int]float64{}
		for j, x := range l.Terms {
			if _, ok := q.v[x]; ok {
				d[x] = q.v[x] * l.Weight[j]
			}
		}
		// a term's share is split among the lines that hold it
		holders := map[int]int{}
		lineTerms := make([][]int, len(q.lines))
		for i, ln := range q.lines {
			seen := map[int]bool{}
			for _, t := range simTokens(ln.msg) {
				if x, ok := sm.index[t]; ok && d[x] > 0 && !seen[x] {
					seen[x] = true
					lineTerms[i] = append(lineTerms[i], x)
					holders[x]++
				}
			}
		}
		for i, ts := range lineTerms {
			w := 0.0
			for _, x := range ts {
				w += d[x] / float64(holders[x])
			}
			if w > 0 {
				s = append(s, scored{i, w})
			}
		}
	}
	sort.SliceStable(s, func(a, b int) bool { return s[a].w > s[b].w })
	if len(s) > maxSimShown {
		s = s[:maxSimShown]
	}
	sort.Slice(s, func(a, b int) bool { return s[a].i < s[b].i })
	out := make([]simLine, len(s))
	for k, x := range s {
		out[k] = q.lines[x.i]
	}
	return out
}

// keepSimLine keeps an error-looking line for the layer.
func (m *matcher) keepSimLine(raw, msg string) {
	m.simLines = append(m.simLines, simLine{n: m.n, raw: cut(strings.TrimSpace(ansiRe.ReplaceAllString(raw, "")), maxExcerptLine), msg: cut(msg, maxExcerptLine)})
}

func simMsgs(lines []simLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.msg
	}
	return out
}

// similarFinding is the layer's answer once the log is read: when the
// findings hold no error, the nearest development logs agree on an ID
// (simModel.decide) that no finding names or explains and whose
// unless_log did not match, that ID as probable.
func (m *matcher) similarFinding(findings []Finding) (Finding, bool) {
	sm := m.kb.similar
	if sm == nil || len(m.simLines) == 0 {
		return Finding{}, false
	}
	for _, f := range findings {
		if f.Severity == SeverityError {
			return Finding{}, false
		}
	}
	lines := m.simLines
	if len(lines) > sm.MaxLines {
		lines = lines[:sm.MaxLines]
	}
	q := sm.query(lines)
	id, nb := sm.decide(q, simParams{K: sm.K, Threshold: sm.Threshold})
	if id == "" {
		return Finding{}, false
	}
	return m.similarFindingFor(findings, q, id, nb)
}

// similarFindingFor is the finding naming id after the nearest log nb, or
// false when the gate (findings, unless_log, symptom_of) refuses it.
func (m *matcher) similarFindingFor(findings []Finding, q *simQuery, id string, nb simNeighbour) (Finding, bool) {
	sm := m.kb.similar
	ei, ok := m.kb.byID[id]
	if !ok || m.unless[ei] {
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
	shown := sm.weighed(q, nb.log)
	var ns []int
	var texts []string
	for _, l := range shown {
		ns = append(ns, l.n)
		texts = append(texts, l.raw)
	}
	if len(ns) == 0 {
		return Finding{}, false
	}
	f := m.kb.finding(e, &hit{entry: ei, sev: e.Severity, lines: ns, excerpt: strings.Join(texts, "\n"),
		first: ns[0], probable: true, evidence: texts, basis: BasisSimilar})
	f.Resembles = sm.Logs[nb.log].URL
	f.Similarity = math.Round(nb.sim*100) / 100
	return f, true
}

// simDoc is a training log: its lines as the layer reads them.
type simDoc struct {
	file, url string
	expect    []string
	lines     []string
}

// similarLines is what the layer reads of a log: the diagnosis without the
// layer and the matcher's state after it (error-looking lines, unless_log).
func (kb *KB) similarLines(log string) (Diagnosis, *matcher) {
	base := kb.withSimilar(nil)
	d, m, _ := base.diagnose(strings.NewReader(log), true)
	return d, m
}

// buildSimModel makes the model of docs (in the order given) with the
// decision rule p.
func buildSimModel(docs []simDoc, p simParams, comment string) *simModel {
	df := map[string]int{}
	counts := make([]map[string]int, len(docs))
	for i, d := range docs {
		counts[i] = simCounts(d.lines)
		for t := range counts[i] {
			df[t]++
		}
	}
	sm := &simModel{Schema: 1, Comment: comment, Mode: p.Mode, K: p.K, Threshold: p.Threshold, MaxLines: maxSimLines, index: map[string]int{}}
	for t := range df {
		sm.Terms = append(sm.Terms, t)
	}
	sort.Strings(sm.Terms)
	n := float64(len(docs))
	for i, t := range sm.Terms {
		sm.index[t] = i
		sm.IDF = append(sm.IDF, round4(1+math.Log((n+1)/float64(df[t]+1))))
	}
	for i, d := range docs {
		l := simLog{File: d.file, URL: d.url, Expect: append([]string{}, d.expect...)}
		var xs []int
		w := map[int]float64{}
		for t, c := range counts[i] {
			x := sm.index[t]
			w[x] = simTF(c) * sm.IDF[x]
			xs = append(xs, x)
		}
		sort.Ints(xs) // summed in a fixed order: the file is the same on every run
		norm := 0.0
		for _, x := range xs {
			norm += w[x] * w[x]
		}
		norm = math.Sqrt(norm)
		for _, x := range xs {
			l.Terms = append(l.Terms, x)
			l.Weight = append(l.Weight, round4(w[x]/norm))
		}
		if l.Terms == nil {
			l.Terms, l.Weight = []int{}, []float64{}
		}
		sm.Logs = append(sm.Logs, l)
	}
	return sm
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// marshal is the model as data/similar.json holds it: one log per line.
func (sm *simModel) marshal() []byte {
	var b strings.Builder
	enc := func(v any) string {
		x, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(x)
	}
	fmt.Fprintf(&b, "{\n\"schema\": %d,\n\"comment\": %s,\n\"k\": %d,\n\"threshold\": %s,\n\"max_lines\": %d,\n\"mode\": %s,\n", sm.Schema, enc(sm.Comment), sm.K, enc(sm.Threshold), sm.MaxLines, enc(sm.Mode))
	fmt.Fprintf(&b, "\"terms\": %s,\n\"idf\": %s,\n\"logs\": [\n", enc(sm.Terms), enc(sm.IDF))
	for i, l := range sm.Logs {
		sep := ","
		if i == len(sm.Logs)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s%s\n", enc(l), sep)
	}
	b.WriteString("]\n}\n")
	return []byte(b.String())
}
