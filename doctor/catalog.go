package doctor

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/machine"
)

// checks.json holds every check's ID, title and the texts of its findings,
// keyed by stable message IDs, so that wording lives in reviewable data and
// a translation (zh-CN) can follow the same IDs.
//
//go:embed data/checks.json
var checksJSON []byte

// Message is one finding text of a check. Summary, Fix and Commands may use
// {name} placeholders filled by the check.
type Message struct {
	Status   Status              `json:"status"`
	Summary  string              `json:"summary"`
	Fix      string              `json:"fix,omitempty"`
	Commands map[string][]string `json:"commands,omitempty"` // "windows" (PowerShell) / "linux" (bash)
	// One is the text when the {count} placeholder is 1 (CLDR plural
	// category "one"); Summary and Fix are the "other" form. A language
	// without the distinction (zh-CN) leaves it out.
	One *Plural `json:"one,omitempty"`
}

// Plural is a message's text for one plural category; an empty field keeps
// the message's own.
type Plural struct {
	Summary string `json:"summary,omitempty"`
	Fix     string `json:"fix,omitempty"`
}

// pluralOne says whether the "one" form applies: {count} is 1.
func (v vars) pluralOne() bool {
	for i := 0; i+1 < len(v); i += 2 {
		if v[i] == "count" {
			return v[i+1] == "1"
		}
	}
	return false
}

// CheckInfo is a catalog entry.
type CheckInfo struct {
	ID        string             `json:"id"`
	Section   string             `json:"section"` // A..I as in docs/doctor.md, Every check
	Title     string             `json:"title"`
	Platforms []string           `json:"platforms"` // windows, linux (WSL is linux)
	Source    string             `json:"source"`
	Help      string             `json:"help"` // what it means, for --list-checks and docs
	Messages  map[string]Message `json:"messages"`
}

type catalogFile struct {
	Schema int `json:"schema"`
	// SkipReasons are the shared texts of "skipped because ..." findings.
	SkipReasons map[string]string `json:"skip_reasons"`
	// RunMessages are the texts of findings about a check itself.
	RunMessages map[string]Message `json:"run_messages"`
	// Sections title the groups of the human output (A..G); SectionsLinux
	// replaces titles that name Windows-only things on Linux.
	Sections      map[string]string `json:"sections"`
	SectionsLinux map[string]string `json:"sections_linux"`
	// Reasons are the texts of the selection's reasons.
	Reasons map[string]string `json:"selection_reasons"`
	Checks  []CheckInfo       `json:"checks"`
	// UI are the texts of the human report around the findings (labels,
	// the final summary line); plurals are "key.one" / "key.other".
	UI map[string]string `json:"ui"`
	// ValueTexts are the English texts a check fills a placeholder with
	// when the value is a sentence of its own ("1.3.290.0 at C:\VulkanSDK"),
	// so a translation can recognise and translate the value (valueText).
	ValueTexts map[string]string `json:"value_texts"`
	// DetailTexts are the English templates of a finding's detail lines
	// that hold words (a toolkit "found by" its sources, a tool's other
	// copies on PATH), so a translation can read a line back and translate
	// it (Translator.Reason).
	DetailTexts map[string]string `json:"detail_texts"`
}

var (
	catOnce     sync.Once
	catList     []CheckInfo
	catByID     map[string]*CheckInfo
	catSkip     map[string]string
	catReasons  map[string]string
	catSections map[string]string
	catSecLinux map[string]string
	catRun      map[string]Message
	catUI       map[string]string
	catValues   map[string]string
	catDetails  map[string]string
	catErr      error
)

func loadCatalog() {
	var f catalogFile
	if err := json.Unmarshal(checksJSON, &f); err != nil {
		catErr = fmt.Errorf("doctor/data/checks.json: %w", err)
		return
	}
	catList = f.Checks
	catSkip = f.SkipReasons
	catReasons = f.Reasons
	catSections = f.Sections
	catSecLinux = f.SectionsLinux
	catRun = f.RunMessages
	catUI = f.UI
	catValues = f.ValueTexts
	catDetails = f.DetailTexts
	catByID = map[string]*CheckInfo{}
	for i := range catList {
		catByID[catList[i].ID] = &catList[i]
	}
}

// Catalog returns every check in output order.
func Catalog() []CheckInfo {
	catOnce.Do(loadCatalog)
	if catErr != nil {
		panic(catErr) // embedded data is validated by tests; a bad build must not ship
	}
	return catList
}

// Info returns the catalog entry of a check.
func Info(id string) (CheckInfo, bool) {
	Catalog()
	c, ok := catByID[id]
	if !ok {
		return CheckInfo{}, false
	}
	return *c, true
}

// CheckIDs lists the IDs in output order.
func CheckIDs() []string {
	var ids []string
	for _, c := range Catalog() {
		ids = append(ids, c.ID)
	}
	return ids
}

// valueText is the English value text key (checks.json "value_texts")
// filled with name, value pairs.
func valueText(key string, kv ...string) string {
	Catalog()
	en, ok := catValues[key]
	if !ok {
		return "internal: no value text " + key
	}
	return vars(kv).replacerPairs().fill(en)
}

// detailText is the English detail line key (checks.json "detail_texts")
// filled with name, value pairs.
func detailText(key string, kv ...string) string {
	Catalog()
	en, ok := catDetails[key]
	if !ok {
		return "internal: no detail text " + key
	}
	return vars(kv).replacerPairs().fill(en)
}

// vars are placeholder values: "name", value, "name", value...
type vars []string

func (v vars) fill(s string) string {
	if len(v) == 0 || !strings.Contains(s, "{") {
		return s
	}
	return strings.NewReplacer(v...).Replace(s)
}

func (v vars) replacerPairs() vars {
	out := make(vars, 0, len(v))
	for i := 0; i+1 < len(v); i += 2 {
		out = append(out, "{"+v[i]+"}", v[i+1])
	}
	return out
}

// shellOf names the command set for the snapshot's machine: the user runs
// the fix there, whatever OS replays the snapshot.
func shellOf(s *machine.Snapshot) string {
	if s != nil && s.OS.GOOS == "windows" {
		return "windows"
	}
	return "linux"
}

// emit builds a finding from the catalog text id/key with placeholders.
func emit(s *machine.Snapshot, id, key string, kv ...string) Finding {
	Catalog()
	f := Finding{ID: id, Message: id + "/" + key, Args: kv}
	c, ok := catByID[id]
	var m Message
	if ok {
		m, ok = c.Messages[key]
	}
	if !ok {
		// A programming error caught by TestEveryMessageExists; never a panic at a user's.
		f.Status = Error
		f.Summary = "internal: no text for " + f.Message
		return f
	}
	r := vars(kv).replacerPairs()
	if m.One != nil && vars(kv).pluralOne() {
		if m.One.Summary != "" {
			m.Summary = m.One.Summary
		}
		if m.One.Fix != "" {
			m.Fix = m.One.Fix
		}
	}
	f.Status = m.Status
	f.Summary = r.fill(m.Summary)
	if m.Fix != "" || len(m.Commands) > 0 {
		fx := &Fix{Text: r.fill(m.Fix)}
		for _, cmd := range m.Commands[shellOf(s)] {
			fx.Commands = append(fx.Commands, r.fill(cmd))
		}
		f.Fix = fx
	}
	return f
}

// skip is a skipped finding; why is a key of skip_reasons in the catalog.
func skip(id, why string, kv ...string) Finding {
	Catalog()
	f := Finding{ID: id, Message: "skip/" + why, Status: Skipped, Args: kv}
	text, ok := catSkip[why]
	if !ok {
		f.Status = Error
		f.Summary = "internal: no text for " + f.Message
		return f
	}
	f.SkippedBecause = vars(kv).replacerPairs().fill(text)
	f.Summary = f.SkippedBecause
	return f
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// SectionTitle names a catalog section ("C" -> "CUDA toolkit").
func SectionTitle(sec string) string {
	Catalog()
	return catSections[sec]
}

// SectionTitleFor is the section's title for the snapshot's OS ("D" is
// "Compilers & build tools" on Linux, where there is no Visual Studio).
func SectionTitleFor(sec, goos string) string {
	Catalog()
	if t := catSecLinux[sec]; t != "" && goos != "windows" {
		return t
	}
	return catSections[sec]
}
