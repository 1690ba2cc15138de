// Package placeholder fills the {name} placeholders of the sentences the
// packages keep in their data files (text.en.json, messages.json), so every
// catalog fills them the same way.
package placeholder

import (
	"fmt"
	"strings"
)

// Fill replaces each {name} in s by its value from name/value pairs
// ("name", value, ...). Values are formatted with fmt.Sprint; a trailing
// name without a value is ignored; placeholders without a value stay
// visible, so a missing fact is noticed in review.
func Fill(s string, kv ...any) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return Replacer(kv...).Replace(s)
}

// Replacer fills placeholders from name/value pairs as Fill does, for
// several strings at once. It replaces in one pass: a value that itself
// holds "{other}" is never filled again. When a name repeats, the first
// value wins.
func Replacer(kv ...any) *strings.Replacer {
	pairs := make([]string, 0, len(kv)&^1)
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, "{"+fmt.Sprint(kv[i])+"}", fmt.Sprint(kv[i+1]))
	}
	return strings.NewReplacer(pairs...)
}

// MapReplacer is Replacer for facts kept in a map.
func MapReplacer(facts map[string]string) *strings.Replacer {
	pairs := make([]string, 0, 2*len(facts))
	for k, v := range facts {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...)
}
