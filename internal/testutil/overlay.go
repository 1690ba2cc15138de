package testutil

import (
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/llamactl/llamactl/internal/lang"
)

var (
	overlayPH = regexp.MustCompile(`\{[a-z_][a-z0-9_]*\}`)
	// quoted spans keep their English: component, menu and file names,
	// commands and the tools' own messages.
	overlayQuoted = regexp.MustCompile("\"[^\"]*\"|'[^']*'|`[^`]*`|“[^”]*”|「[^」]*」")
	// an English sentence: four plain words in a row ("the build needs
	// network"); commands and names have flags, dots, slashes or digits.
	// Words joined to a path's backslash are a path's ("C:\\NVIDIA GPU
	// Computing Toolkit\\CUDA").
	overlayEnglish = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./=\\-])((?:[A-Za-z]+ ){3}[A-Za-z]+)(?:$|[^A-Za-z0-9_./=\\-])`)
	// llamactl's own command lines ("llamactl matrix gpu NAME").
	overlayCommand = regexp.MustCompile(`\bllamactl(?: [a-z][a-z-]*){0,2}(?: [A-Z]{2,})?`)
)

// placeholderSet is the sorted set of a text's {placeholders}.
func placeholderSet(s string) string {
	set := map[string]bool{}
	for _, p := range overlayPH.FindAllString(s, -1) {
		set[p] = true
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// EnglishLeft is the first run of English words in a translated text, ""
// when there is none: quoted spans and {placeholders} are skipped, and so
// are the words of allow (product and command names such as "Visual Studio
// Build Tools").
func EnglishLeft(s string, allow ...string) string {
	s = overlayPH.ReplaceAllString(s, "·")
	s = overlayQuoted.ReplaceAllString(s, "·")
	s = overlayCommand.ReplaceAllString(s, "·")
	for _, a := range allow {
		s = strings.ReplaceAll(s, a, "·")
	}
	if m := overlayEnglish.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// englishFunctionWord are the little words of an English sentence: three
// words in a row with one of them are a phrase ("sum of checks"), not a
// name ("Visual Studio Community").
var englishPhrase = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./=\\-])((?:[A-Za-z]+ ){2}[A-Za-z]+)(?:$|[^A-Za-z0-9_./=\\-])`)

var englishFunctionWord = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "for": true, "in": true, "on": true,
	"at": true, "by": true, "with": true, "from": true, "and": true, "or": true, "but": true,
	"is": true, "are": true, "was": true, "be": true, "not": true, "no": true, "this": true,
	"that": true, "it": true, "has": true, "have": true, "can": true, "will": true, "would": true,
}

// EnglishPhrase is the first English phrase of three words or more left
// in s (one of them a function word such as "of" or "the"), "" when there
// is none; like EnglishLeft it skips quoted spans, placeholders, llamactl's
// command lines and the words of allow. It catches the short English that
// EnglishLeft lets through ("sum of checks"), for output checks.
func EnglishPhrase(s string, allow ...string) string {
	if w := EnglishLeft(s, allow...); w != "" {
		return w
	}
	s = overlayPH.ReplaceAllString(s, "·")
	s = overlayQuoted.ReplaceAllString(s, "·")
	s = overlayCommand.ReplaceAllString(s, "·")
	for _, a := range allow {
		s = strings.ReplaceAll(s, a, "·")
	}
	for len(s) > 0 {
		loc := englishPhrase.FindStringSubmatchIndex(s)
		if loc == nil {
			return ""
		}
		m := s[loc[2]:loc[3]]
		for _, w := range strings.Fields(m) {
			if englishFunctionWord[strings.ToLower(w)] {
				return m
			}
		}
		// the match's first word is not a sentence's: go on after it
		next := loc[2] + strings.IndexByte(m, ' ')
		s = s[next:]
	}
	return ""
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// CheckOverlay checks a translation overlay against its English catalog,
// both by stable key: it translates every English text but those of
// neutral (names and commands that read the same in Chinese), holds no key
// English lacks, keeps each text's {placeholders}, and leaves no English
// sentence (EnglishLeft, with allow).
func CheckOverlay(tb testing.TB, en, tr map[string]string, neutral map[string]bool, allow ...string) {
	tb.Helper()
	if len(tr) == 0 {
		tb.Fatal("the overlay has no texts")
	}
	var keys []string
	for k := range en {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	missing := 0
	for _, k := range keys {
		t, ok := tr[k]
		if !ok {
			if !neutral[k] {
				missing++
				tb.Errorf("%s: no translation of %q", k, en[k])
			}
			continue
		}
		if neutral[k] {
			tb.Errorf("%s is listed as neutral but translated", k)
		}
		if a, b := placeholderSet(en[k]), placeholderSet(t); a != b {
			tb.Errorf("%s: English has placeholders [%s], the translation [%s]\n  en: %s\n  tr: %s", k, a, b, en[k], t)
		}
		if strings.TrimSpace(t) != t || t == en[k] || !hasHan(t) {
			tb.Errorf("%s: %q is blank-padded, the English text or has no Chinese", k, t)
		}
		if w := EnglishLeft(t, allow...); w != "" {
			tb.Errorf("%s: English left in the translation (%q): %s", k, w, t)
		}
	}
	for k := range tr {
		if _, ok := en[k]; !ok {
			tb.Errorf("the overlay has %q, which the English catalog lacks (stale key)", k)
		}
	}
	if missing > 0 {
		tb.Errorf("%d of %d English texts have no translation", missing, len(en))
	}
}

// CheckLines checks the reverse translation the human output relies on:
// every English text of en, filled with sample values, comes back from
// line as its translation in tr filled with the same values (a text tr
// lacks comes back unchanged). skip lists texts that cannot be told apart
// from the line alone (a bare "{warning}").
func CheckLines(tb testing.TB, en, tr map[string]string, line func(string) string, skip map[string]bool) {
	tb.Helper()
	for k, e := range en {
		if skip[k] {
			continue
		}
		var pairs []string
		for i, p := range overlayPH.FindAllString(e, -1) {
			pairs = append(pairs, p, "«"+string(rune('a'+i))+"»")
		}
		r := strings.NewReplacer(pairs...)
		want := e
		if t, ok := tr[k]; ok {
			want = t
		}
		if got := line(r.Replace(e)); got != r.Replace(want) {
			tb.Errorf("%s: %q\n  translated to %q\n  want         %q", k, r.Replace(e), got, r.Replace(want))
		}
	}
}

// CheckTextFiles runs the overlay checks every command's text catalog
// gets (data/text.en.json and its zh-CN translation): both parse, both are
// well-formed catalogs (CheckTextCatalog), and the translation has the same
// keys and placeholders and no English left (CheckOverlay). It returns the
// parsed texts for the caller's own checks (CheckLines...).
func CheckTextFiles(tb testing.TB, enData, zhData []byte) (en, zh map[string]string) {
	tb.Helper()
	en, err := lang.ParseOverlay("en", enData)
	if err != nil {
		tb.Fatal(err)
	}
	zh, err = lang.ParseOverlay("zh", zhData)
	if err != nil {
		tb.Fatal(err)
	}
	CheckOverlay(tb, en, zh, nil)
	CheckTextCatalog(tb, enData)
	CheckTextCatalog(tb, zhData)
	return en, zh
}
