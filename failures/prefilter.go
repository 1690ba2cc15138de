package failures

// A line passes a needle's prefilter only if every trigram sampled from the
// needle occurs somewhere in the line. Building the line's trigram bitmap is
// one pass; checking a needle is a few bit tests, so the ~130 substring
// searches per line run only on the few lines that can match.

const trigramBits = 1 << 12

type trigramSet [trigramBits / 64]uint64

func trigram(a, b, c byte) uint32 {
	return (uint32(a)*131*131 + uint32(b)*131 + uint32(c)) % trigramBits
}

func (t *trigramSet) fill(s string) {
	*t = trigramSet{}
	for i := 0; i+2 < len(s); i++ {
		h := trigram(s[i], s[i+1], s[i+2])
		t[h/64] |= 1 << (h % 64)
	}
}

func (t *trigramSet) has(h uint32) bool { return t[h/64]&(1<<(h%64)) != 0 }

// sampleTrigrams picks up to 4 trigrams spread over a needle.
func sampleTrigrams(needle string) []uint32 {
	n := len(needle) - 2
	if n <= 0 {
		return nil
	}
	var out []uint32
	for _, i := range []int{0, n / 3, 2 * n / 3, n - 1} {
		h := trigram(needle[i], needle[i+1], needle[i+2])
		dup := false
		for _, o := range out {
			dup = dup || o == h
		}
		if !dup {
			out = append(out, h)
		}
	}
	return out
}

func (t *trigramSet) mayContain(grams []uint32) bool {
	for _, h := range grams {
		if !t.has(h) {
			return false
		}
	}
	return true
}
