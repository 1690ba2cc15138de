package matrix

import (
	"sort"
	"strings"
	"unicode"
)

// How a GPU name was matched, reported in GPULookup.Match.
const (
	MatchExact      = "exact"      // the name (or an alias) as NVML/nvidia-smi report it
	MatchNormalized = "normalized" // same name up to case, vendor words and punctuation
	MatchShortForm  = "short-form" // "4090", "rtx 3060 laptop": every row it can mean has the same CC
	MatchCC         = "cc"         // the caller gave the CC (NVML's own value wins over the table)
)

type gpuKey struct {
	row    int
	exact  string // lower-cased, spaces collapsed
	norm   string
	tokens []string
}

// noise words carry no model information in NVML names.
var noise = map[string]bool{"nvidia": true, "geforce": true, "tesla": true, "gpu": true, "graphics": true, "(r)": true, "(tm)": true, "corporation": true}

// normalize lower-cases, turns punctuation into spaces, splits letters from
// digits ("rtx4090" -> "rtx 4090", "4070ti" -> "4070 ti") and drops noise
// words, so NVML names and what people type meet in the middle.
func normalize(s string) []string {
	s = strings.ToLower(s)
	var b strings.Builder
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if prev != 0 && (unicode.IsLetter(prev) && unicode.IsDigit(r) || unicode.IsDigit(prev) && unicode.IsLetter(r)) {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			prev = r
		default:
			b.WriteByte(' ')
			prev = 0
		}
	}
	var out []string
	for _, f := range strings.Fields(b.String()) {
		if !noise[f] {
			out = append(out, f)
		}
	}
	return out
}

func collapse(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func (m *Matrix) indexGPUs() {
	for i, g := range m.GPUs {
		for _, n := range append([]string{g.Name}, g.Aliases...) {
			t := normalize(n)
			m.gpuKeys = append(m.gpuKeys, gpuKey{row: i, exact: collapse(n), norm: strings.Join(t, " "), tokens: t})
		}
	}
}

func (m *Matrix) lookupFound(query string, row int, match string) GPULookup {
	g := m.GPUs[row]
	return GPULookup{Query: query, Found: true, Name: g.Name, ComputeCapability: g.CC, Arch: g.Arch,
		Source: g.Source, Uncertain: g.Uncertain, Match: match}
}

// LookupGPU maps a GPU name to its compute capability. It matches the exact
// NVML name first, then the normalized name, then a short form when every
// row it could mean agrees on the CC. Anything else is "not found" with the
// closest names: a guess is never presented as a fact.
func (m *Matrix) LookupGPU(name string) GPULookup {
	q := strings.TrimSpace(name)
	if len(q) > 200 {
		q = q[:200]
	}
	res := GPULookup{Query: name}
	if q == "" {
		return res
	}
	// nvidia-smi's table cuts long names: "NVIDIA GeForce RTX 4080 ...".
	// Such a name is a prefix, never an exact name.
	truncated := strings.HasSuffix(q, "...") || strings.HasSuffix(q, "…")
	ex := collapse(q)
	for _, k := range m.gpuKeys {
		if k.exact == ex && !truncated {
			return m.lookupFound(name, k.row, MatchExact)
		}
	}
	qt := normalize(q)
	if len(qt) == 0 {
		return res
	}
	qn := strings.Join(qt, " ")
	rows := map[int]bool{}
	for _, k := range m.gpuKeys {
		if k.norm == qn && !truncated {
			rows[k.row] = true
		}
	}
	if r, ok := m.sameCC(rows); ok {
		return m.lookupFound(name, r, MatchNormalized)
	}
	if len(rows) == 0 {
		for _, k := range m.gpuKeys {
			if containsAll(k.tokens, qt) && (hasModelToken(qt) || len(qt) > 1) {
				rows[k.row] = true
			}
		}
		if r, ok := m.sameCC(rows); ok {
			l := m.lookupFound(name, r, MatchShortForm)
			l.Closest = m.names(rows, r)
			return l
		}
	}
	if len(rows) > 0 {
		// Several rows with different CCs ("RTX 6000"): ambiguous.
		res.Closest = m.names(rows, -1)
		return res
	}
	res.Closest = m.closest(qn, 5)
	return res
}

// sameCC returns a representative row (the shortest name) when all rows
// share one CC.
func (m *Matrix) sameCC(rows map[int]bool) (int, bool) {
	best, cc := -1, ""
	for r := range rows {
		g := m.GPUs[r]
		if cc != "" && g.CC != cc {
			return -1, false
		}
		cc = g.CC
		if best < 0 || len(g.Name) < len(m.GPUs[best].Name) || len(g.Name) == len(m.GPUs[best].Name) && g.Name < m.GPUs[best].Name {
			best = r
		}
	}
	return best, best >= 0
}

func (m *Matrix) names(rows map[int]bool, skip int) []string {
	var out []string
	for r := range rows {
		if r != skip {
			out = append(out, m.GPUs[r].Name)
		}
	}
	sort.Strings(out)
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

// hasModelToken: a one-word short form must hold a number, so a lone
// "blackwell" or "titan" is never taken for a model.
func hasModelToken(t []string) bool {
	for _, s := range t {
		if s[0] >= '0' && s[0] <= '9' {
			return true
		}
	}
	return false
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// closest ranks rows by edit distance of normalized names.
func (m *Matrix) closest(qn string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	best := map[string]int{}
	for _, k := range m.gpuKeys {
		d := levenshtein(qn, k.norm)
		name := m.GPUs[k.row].Name
		if old, ok := best[name]; !ok || d < old {
			best[name] = d
		}
	}
	var all []scored
	for name, d := range best {
		all = append(all, scored{name, d})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].d != all[j].d {
			return all[i].d < all[j].d
		}
		return all[i].name < all[j].name
	})
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
