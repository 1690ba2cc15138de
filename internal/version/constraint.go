package version

import (
	"fmt"
	"strings"

	gv "github.com/hashicorp/go-version"
)

// Constraints is a comma-separated list of clauses that must all hold, like
// ">=12.4, <13". A clause is an operator (=, ==, !=, <, <=, >, >=, ~>) and a
// version; a bare version means "=". Clauses compare on release lines: the
// checked version is cut to as many parts as the clause names, so "12.4",
// "=12.4" and "<=12.4" all accept 12.4.131 and "<13" refuses 13.0.48.
type Constraints []clause

type clause struct {
	c     gv.Constraints
	parts int
	text  string
}

// ParseConstraints parses s; an empty s (or one of commas only) accepts
// every version.
func ParseConstraints(s string) (Constraints, error) {
	var cs Constraints
	for _, raw := range strings.Split(s, ",") {
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "==") {
			t = t[1:]
		}
		v := strings.TrimSpace(strings.TrimLeft(t, "=!<>~"))
		if v == "" || strings.Trim(v, "0123456789.") != "" || strings.HasPrefix(v, ".") ||
			strings.HasSuffix(v, ".") || strings.Contains(v, "..") {
			return nil, fmt.Errorf("bad version constraint %q", strings.TrimSpace(raw))
		}
		c, err := gv.NewConstraint(t)
		if err != nil {
			return nil, fmt.Errorf("bad version constraint %q", strings.TrimSpace(raw))
		}
		cs = append(cs, clause{c: c, parts: strings.Count(v, ".") + 1, text: t})
	}
	return cs, nil
}

// Check reports whether v meets every clause.
func (cs Constraints) Check(v V) bool {
	if v.v == nil {
		v = FromParts(0)
	}
	for _, c := range cs {
		if !c.c.Check(v.Truncate(c.parts).v) {
			return false
		}
	}
	return true
}

// String is the clauses joined by ", ".
func (cs Constraints) String() string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.text
	}
	return strings.Join(s, ", ")
}

// Satisfies parses constraint and checks v against it.
func Satisfies(v, constraint string) (bool, error) {
	cs, err := ParseConstraints(constraint)
	if err != nil {
		return false, err
	}
	return cs.Check(Of(v)), nil
}
