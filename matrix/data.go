package matrix

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/placeholder"
)

// The facts live in data/*.json (one fact a line, sorted, each with its
// public source); see
// docs/matrix.md for how to update them.
//
//go:embed data/*.json
var dataFS embed.FS

// ToolkitFacts is one CUDA toolkit release as the data file records it.
// Nil pointers are facts the sources did not give.
type ToolkitFacts struct {
	Version       string `json:"version"` // release version: "12.4.1" is 12.4 Update 1
	Label         string `json:"label"`
	DriverLinux   string `json:"driver_linux"`   // NVIDIA Table 3
	DriverWindows string `json:"driver_windows"` // NVIDIA Table 3; empty = N/A (13.x)
	BundledDriver *struct {
		Linux   string `json:"linux"`
		Windows string `json:"windows"`
	} `json:"bundled_driver,omitempty"` // what the installer ships
	SM           []int    `json:"sm"` // real targets nvcc accepts
	ArchSpecific []string `json:"arch_specific"`
	DeprecatedSM []int    `json:"deprecated_sm"`
	// GCCMax/ClangMax are the documented maxima ("13.2"); the *Enforced
	// values are the majors host_config.h accepts. nvcc checks majors only.
	GCCMax           *string `json:"gcc_max"`
	GCCMaxEnforced   *int    `json:"gcc_max_enforced"`
	ClangMax         *string `json:"clang_max"`
	ClangMaxEnforced *int    `json:"clang_max_enforced"`
	// _MSC_VER range host_config.h accepts: [min, max).
	MSCVerMin          *int     `json:"msc_ver_min"`
	MSCVerMaxExclusive *int     `json:"msc_ver_max_exclusive"`
	MSCVerDeprecated   int      `json:"msc_ver_deprecated_below,omitempty"`
	Uncertain          bool     `json:"uncertain"`
	UncertainFields    []string `json:"uncertain_fields,omitempty"`
	UncertainReasons   []string `json:"uncertain_reasons,omitempty"`
	Source             string   `json:"source"`
	SourceRefs         []string `json:"source_refs"`
	Notes              string   `json:"notes,omitempty"`

	v version
}

// MinorVersion is "12.4" for "12.4.1".
func (t *ToolkitFacts) MinorVersion() string { return fmt.Sprintf("%d.%d", t.v.Major(), t.v.Minor()) }

// Major is the CUDA major family (11, 12, 13).
func (t *ToolkitFacts) Major() int { return t.v.Major() }

// HasSM reports whether sm is a real target of this toolkit.
func (t *ToolkitFacts) HasSM(sm int) bool {
	for _, s := range t.SM {
		if s == sm {
			return true
		}
	}
	return false
}

func (t *ToolkitFacts) uncertainField(f string) bool {
	for _, u := range t.UncertainFields {
		if u == f {
			return true
		}
	}
	return false
}

// GPUFacts is one GPU row.
type GPUFacts struct {
	Name             string   `json:"name"`
	CC               string   `json:"cc"`
	Arch             string   `json:"arch"`
	Aliases          []string `json:"aliases,omitempty"`
	VRAMGiB          float64  `json:"vram_gib,omitempty"`
	VRAMUncertain    bool     `json:"vram_uncertain,omitempty"`
	CCBasis          string   `json:"cc_basis"`
	Uncertain        bool     `json:"uncertain"`
	UncertainReasons []string `json:"uncertain_reasons,omitempty"`
	Source           string   `json:"source"`
	SourceRefs       []string `json:"source_refs"`
}

// Family is the minor-version-compatibility floor of one CUDA major.
type Family struct {
	Major         int    `json:"major"`
	BranchFloor   int    `json:"branch_floor"`
	DriverLinux   string `json:"driver_linux"`
	DriverWindows string `json:"driver_windows"`
	Uncertain     bool   `json:"uncertain"`
	UncertainWhy  string `json:"uncertain_reason,omitempty"`
	Source        string `json:"source"`
}

// STLRule is the MSVC STL's own CUDA check (error STL1002) for a _MSC_VER range.
type STLRule struct {
	MSCVerMin    int    `json:"msc_ver_min"`
	MSCVerMax    int    `json:"msc_ver_max"` // inclusive
	Release      string `json:"release"`
	RequiresCUDA string `json:"requires_cuda"`
	Uncertain    bool   `json:"uncertain"`
	UncertainWhy string `json:"uncertain_reason,omitempty"`
	Source       string `json:"source"`
}

// ArchRewrite is llama.cpp's own rewrite of plain targets to their
// arch-specific variant (12X -> 12Xa for Blackwell FP4).
type ArchRewrite struct {
	SMMin  int    `json:"sm_min"`
	SMMax  int    `json:"sm_max"` // inclusive
	Suffix string `json:"suffix"`
	Source string `json:"source"`
}

// Applies says whether llama.cpp rewrites sm to its arch-specific variant.
func (a ArchRewrite) Applies(sm int) bool { return a.Suffix != "" && sm >= a.SMMin && sm <= a.SMMax }

// CompilerCrash is a known crash when nvcc's host-compiler check is
// bypassed (-allow-unsupported-compiler) with MSVC from MSCVerMin on a
// CUDA older than CUDABelow.
type CompilerCrash struct {
	MSCVerMin int    `json:"msc_ver_min"`
	CUDABelow string `json:"cuda_below"`
	Source    string `json:"source"`
}

// VisualStudio maps a _MSC_VER range to the product name users know.
type VisualStudio struct {
	MSCVerMin int    `json:"msc_ver_min"`
	MSCVerMax int    `json:"msc_ver_max"` // inclusive
	Name      string `json:"name"`
	Source    string `json:"source"`
}

// Matrix is the loaded, read-only fact set.
type Matrix struct {
	DataVersion  string
	Toolkits     []ToolkitFacts // sorted by version, oldest first
	GPUs         []GPUFacts
	Families     []Family
	STL          []STLRule
	VisualStudio []VisualStudio
	// ArchRewrite and CompilerCrash are rules.json's single-fact rules.
	ArchRewrite   ArchRewrite
	CompilerCrash CompilerCrash
	Sources       map[string]string

	gpuKeys []gpuKey          // normalized names for LookupGPU
	texts   map[string]string // data/text.en.json
	// overlays are the translations (data/text.<lang>.json) by language;
	// lang and over are this view's language and overlay (WithLang).
	overlays map[string]map[string]string
	lang     string
	over     map[string]string
	// notes are the translations of toolkits.json's notes and
	// uncertain_reasons (data/notes.<lang>.json) by language, keyed by
	// the English text; overNotes is this view's.
	notes     map[string]map[string]string
	overNotes map[string]string
	// rec, when set (inside Resolve), records the message ID and values of
	// every text Text renders, so Translate can render them again.
	rec map[string]textMsg
}

// Text renders the sentence with the stable key from data/text.en.json,
// replacing {name} with the value after "name" in kv. Every sentence the
// matrix prints goes through here so a translation can follow by key.
// A view made by WithLang takes the sentence from its translation and falls
// back to English one key at a time.
func (m *Matrix) Text(key string, kv ...any) string {
	s, ok := m.over[key]
	if !ok {
		s, ok = m.texts[key]
	}
	if !ok {
		s = key
	}
	out := placeholder.Fill(s, kv...)
	if m.rec != nil {
		if _, seen := m.rec[out]; !seen {
			m.rec[out] = textMsg{key: key, kv: kv}
		}
	}
	return out
}

// textMsg is one rendered text: its stable ID and the values filled in.
type textMsg struct {
	key string
	kv  []any
}

// Translate renders every human text of res (blockers' messages, fixes
// and last-resort fixes, reasons, rejected candidates' reasons) again in
// lang, from its message ID and values: English text -> text in lang. A
// value that is itself such a text is translated too. English, or a
// language without an overlay, maps every text to itself.
func (m *Matrix) Translate(res Resolution, lang string) map[string]string {
	v := m.WithLang(lang)
	out := make(map[string]string, len(res.texts))
	var tr func(string) string
	tr = func(en string) string {
		if t, ok := out[en]; ok {
			return t
		}
		msg, ok := res.texts[en]
		if !ok {
			return en
		}
		out[en] = en // a text that names itself ends here
		kv := make([]any, len(msg.kv))
		for i, x := range msg.kv {
			if s, ok := x.(string); ok && i%2 == 1 {
				x = tr(s)
			}
			kv[i] = x
		}
		out[en] = v.Text(msg.key, kv...)
		return out[en]
	}
	for en := range res.texts {
		tr(en)
	}
	return out
}

// Languages the embedded data has a translation for (data/text.<lang>.json).
var Languages = []string{"zh-CN"}

// WithLang is a view of m whose human texts (Text, and so Resolve's
// messages, fixes and reasons) are in lang ("zh-CN"); "" or "en", or a
// language without a translation, is English. The facts are shared, never
// copied. Resolve on a view returns the same answer as on m except for
// those texts, so callers print a view's Resolution and keep m's (English)
// one for --json, whose blocker IDs are the stable interface.
func (m *Matrix) WithLang(lang string) *Matrix {
	v := *m
	v.lang, v.over, v.overNotes = "", nil, nil
	if o, ok := m.overlays[lang]; ok {
		v.lang, v.over, v.overNotes = lang, o, m.notes[lang]
	}
	return &v
}

// Note is a note or an uncertain reason of the data (a toolkit's Notes or
// UncertainReasons) in the view's language: its translation from
// data/notes.<lang>.json, else the English text.
func (m *Matrix) Note(en string) string {
	if t, ok := m.overNotes[en]; ok && t != "" {
		return t
	}
	return en
}

// Lang is the view's language: "" for English.
func (m *Matrix) Lang() string { return m.lang }

var (
	defaultOnce sync.Once
	defaultM    *Matrix
	defaultErr  error
)

// Default returns the embedded matrix, parsed once on first use (so
// commands that never ask, and `llamactl --help`, pay nothing). The data is
// compiled in and checked by tests, so a parse error is a build defect.
func Default() *Matrix {
	defaultOnce.Do(func() { defaultM, defaultErr = Load(dataFS) })
	if defaultErr != nil {
		panic("matrix: embedded data is invalid: " + defaultErr.Error())
	}
	return defaultM
}

type fileSystem interface {
	ReadFile(name string) ([]byte, error)
}

// Load parses the data files from fsys (the embedded set or a test copy).
func Load(fsys fileSystem) (*Matrix, error) {
	var tk struct {
		DataVersion string         `json:"data_version"`
		About       string         `json:"about"`
		Toolkits    []ToolkitFacts `json:"toolkits"`
	}
	var gp struct {
		DataVersion string     `json:"data_version"`
		About       string     `json:"about"`
		GPUs        []GPUFacts `json:"gpus"`
	}
	var ru struct {
		DataVersion  string         `json:"data_version"`
		About        string         `json:"about"`
		Families     []Family       `json:"families"`
		STL          []STLRule      `json:"stl"`
		VisualStudio []VisualStudio `json:"visual_studio"`
		ArchRewrite  ArchRewrite    `json:"engine_arch_rewrite"`
		Crash        CompilerCrash  `json:"unsupported_compiler_crash"`
	}
	var so struct {
		DataVersion string            `json:"data_version"`
		Sources     map[string]string `json:"sources"`
	}
	var tx struct {
		DataVersion string            `json:"data_version"`
		About       string            `json:"about"`
		Locale      string            `json:"locale"`
		Text        map[string]string `json:"text"`
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"data/toolkits.json", &tk}, {"data/gpus.json", &gp}, {"data/rules.json", &ru}, {"data/sources.json", &so}, {"data/text.en.json", &tx}} {
		b, err := fsys.ReadFile(f.name)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f.v); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	overlays, notes := map[string]map[string]string{}, map[string]map[string]string{}
	for _, l := range Languages {
		// A copy of the data without a translation (tests) is English only.
		b, err := fsys.ReadFile("data/text." + l + ".json")
		if err != nil {
			continue
		}
		ov, err := readOverlay("data/text."+l+".json", b, l, tk.DataVersion)
		if err != nil {
			return nil, err
		}
		overlays[l] = ov
		if b, err := fsys.ReadFile("data/notes." + l + ".json"); err == nil {
			nv, err := readOverlay("data/notes."+l+".json", b, l, tk.DataVersion)
			if err != nil {
				return nil, err
			}
			notes[l] = nv
		}
	}
	m := &Matrix{
		DataVersion: tk.DataVersion, Toolkits: tk.Toolkits, GPUs: gp.GPUs,
		Families: ru.Families, STL: ru.STL, VisualStudio: ru.VisualStudio, Sources: so.Sources,
		ArchRewrite: ru.ArchRewrite, CompilerCrash: ru.Crash,
		texts: tx.Text, overlays: overlays, notes: notes,
	}
	for _, dv := range []string{gp.DataVersion, ru.DataVersion, so.DataVersion, tx.DataVersion} {
		if dv != m.DataVersion {
			return nil, fmt.Errorf("data files disagree on data_version: %q vs %q", m.DataVersion, dv)
		}
	}
	for i := range m.Toolkits {
		v, ok := parseVersion(m.Toolkits[i].Version)
		if !ok || v.Len() != 3 {
			return nil, fmt.Errorf("toolkit %q: version must be MAJOR.MINOR.UPDATE", m.Toolkits[i].Version)
		}
		m.Toolkits[i].v = v
	}
	if !sort.SliceIsSorted(m.Toolkits, func(i, j int) bool { return m.Toolkits[i].v.Less(m.Toolkits[j].v) }) {
		return nil, fmt.Errorf("toolkits.json: releases are not sorted by version")
	}
	m.indexGPUs()
	return m, nil
}

// below says whether the release is older than version v ("13.2"); an
// unparsable v counts as no bound.
func (t *ToolkitFacts) below(v string) bool {
	w, ok := parseVersion(v)
	return !ok || t.v.Compare(w) < 0
}

// readOverlay decodes one translation file (data/text.LANG.json or
// data/notes.LANG.json): strict fields, its locale and the data version
// of the English data it translates.
func readOverlay(name string, b []byte, locale, dataVersion string) (map[string]string, error) {
	var ov struct {
		DataVersion string            `json:"data_version"`
		About       string            `json:"about"`
		Locale      string            `json:"locale"`
		Text        map[string]string `json:"text"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ov); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if ov.Locale != locale || ov.DataVersion != dataVersion {
		return nil, fmt.Errorf("%s: locale %q, data_version %q; want %q, %q", name, ov.Locale, ov.DataVersion, locale, dataVersion)
	}
	return ov.Text, nil
}
