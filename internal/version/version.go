// Package version is the one place llamactl compares versions: CUDA toolkits
// ("12.4.131"), NVIDIA drivers ("535.104.05"), cl.exe ("19.41.34123"), CMake,
// glibc and compute capabilities ("8.9"). It parses them with
// github.com/hashicorp/go-version and adds the two things llamactl's data
// needs on top: a lenient reading of what tools print ("V12.4.131",
// "3.28.3-rc1", "12.4 (driver)") and release-line constraints, where "12.4"
// and "<=12.4" both accept 12.4.131.
package version

import (
	"fmt"
	"strconv"
	"strings"

	gv "github.com/hashicorp/go-version"
)

// V is a parsed dotted numeric version. The zero V is "0" and compares
// below every version with a non-zero part.
type V struct {
	v *gv.Version
	n int // parts as written (go-version pads to three)
}

// numeric returns the leading dotted digits of s after an optional "v"/"V":
// "V12.4.131" -> "12.4.131", "3.28.3-rc1" -> "3.28.3", "12" -> "12".
func numeric(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	end, parts := 0, 0
	for {
		i := end
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == end {
			break
		}
		end, parts = i, parts+1
		if end+1 < len(s) && s[end] == '.' && s[end+1] >= '0' && s[end+1] <= '9' {
			end++
			continue
		}
		break
	}
	return s[:end]
}

// Parse reads the leading dotted number of s leniently ("V12.4.131",
// "3.28.3-rc1", "19.41.34123 for x64"); it fails only when s starts with no
// digits.
func Parse(s string) (V, error) {
	n := numeric(s)
	if n == "" {
		return V{}, fmt.Errorf("no version number in %q", s)
	}
	v, err := gv.NewVersion(n)
	if err != nil {
		return V{}, fmt.Errorf("version %q: %w", s, err)
	}
	return V{v: v, n: strings.Count(n, ".") + 1}, nil
}

// ParseStrict accepts exactly 1 to 4 dot-separated numbers of at most six
// digits, with an optional leading "v"/"V" (nvcc prints "V12.4.131"): the
// form matrix queries take from users.
func ParseStrict(s string) (V, bool) {
	s = strings.TrimSpace(s)
	t := strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	parts := strings.Split(t, ".")
	if t == "" || len(parts) > 4 {
		return V{}, false
	}
	for _, p := range parts {
		if p == "" || len(p) > 6 || strings.Trim(p, "0123456789") != "" {
			return V{}, false
		}
	}
	v, err := Parse(t)
	return v, err == nil
}

// MustParse is Parse for literals known to be valid; it panics otherwise.
func MustParse(s string) V {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// Of is Parse with unparsable text read as "0", as every comparison of
// tool output in llamactl wants.
func Of(s string) V {
	v, _ := Parse(s)
	return v
}

// FromParts builds a version from numbers (12, 4 -> "12.4").
func FromParts(p ...int) V {
	if len(p) == 0 {
		return V{}
	}
	s := make([]string, len(p))
	for i, n := range p {
		s[i] = strconv.Itoa(n)
	}
	return MustParse(strings.Join(s, "."))
}

// IsZero reports whether v was never parsed.
func (v V) IsZero() bool { return v.v == nil }

// Len is the number of parts as written ("12.4" has 2).
func (v V) Len() int { return v.n }

// Parts are the numbers as written.
func (v V) Parts() []int {
	if v.v == nil {
		return nil
	}
	return v.v.Segments()[:v.n]
}

// At is part i, 0 when v has fewer parts.
func (v V) At(i int) int {
	if v.v == nil || i >= v.n {
		return 0
	}
	return v.v.Segments()[i]
}

// Major is the first part.
func (v V) Major() int { return v.At(0) }

// Minor is the second part.
func (v V) Minor() int { return v.At(1) }

// Truncate keeps the first n parts (all of them when v has fewer).
func (v V) Truncate(n int) V {
	if v.v == nil || n >= v.n {
		return v
	}
	return FromParts(v.Parts()[:n]...)
}

// Compare is -1, 0 or 1; missing parts count as 0 ("12.4" == "12.4.0"),
// and driver minors compare as numbers ("535.104.05" > "535.54.03").
func (v V) Compare(o V) int {
	switch {
	case v.v == nil && o.v == nil:
		return 0
	case v.v == nil:
		return FromParts(0).Compare(o)
	case o.v == nil:
		return v.Compare(FromParts(0))
	}
	return v.v.Compare(o.v)
}

// Less reports v < o.
func (v V) Less(o V) bool { return v.Compare(o) < 0 }

// String is the parts joined by dots as written ("12.4", "535.104.5").
func (v V) String() string {
	p := v.Parts()
	s := make([]string, len(p))
	for i, n := range p {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}

// Compare compares two version strings; unparsable text counts as "0".
func Compare(a, b string) int { return Of(a).Compare(Of(b)) }

// Less reports a < b (see Compare).
func Less(a, b string) bool { return Compare(a, b) < 0 }

// ComparePrefix compares a with b on as many parts as b has, so
// "12.3.107" equals "12.3" and "14.39.33519" is below "14.40".
func ComparePrefix(a, b string) int {
	vb := Of(b)
	return Of(a).Truncate(max(vb.Len(), 1)).Compare(vb)
}

// Major is the first part of s (0 when unparsable).
func Major(s string) int { return Of(s).Major() }

// MajorMinor is "12.4" of "12.4.131" and "12.0" of "12"; "" when s has no
// version number.
func MajorMinor(s string) string {
	v, err := Parse(s)
	if err != nil {
		return ""
	}
	return strconv.Itoa(v.Major()) + "." + strconv.Itoa(v.Minor())
}
