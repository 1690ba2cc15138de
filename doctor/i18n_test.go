package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/llamactl/llamactl/machine"
)

var placeholderRE = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_]*\}`)

// placeholders is the set of {names} in a text.
func placeholders(s string) string {
	m := map[string]bool{}
	for _, p := range placeholderRE.FindAllString(s, -1) {
		m[p] = true
	}
	return strings.Join(sortedKeys(m), " ")
}

// textPair is one translated text next to its English original.
type textPair struct{ id, en, zh string }

// overlayPairs lists every text of the zh-CN overlay with the English text
// of the same ID, failing on an ID the English catalog does not have.
func overlayPairs(t *testing.T) []textPair {
	t.Helper()
	ov, err := LoadOverlay(LangZhCN)
	if err != nil || ov == nil {
		t.Fatalf("zh-CN overlay: %v", err)
	}
	Catalog()
	var out []textPair
	stale := func(id string) { t.Errorf("overlay key %s is not in the English catalog (stale)", id) }
	pairs := func(kind string, tr, en map[string]string) {
		for _, k := range sortedKeys(tr) {
			e, ok := en[k]
			if !ok {
				stale(kind + "/" + k)
				continue
			}
			out = append(out, textPair{kind + "/" + k, e, tr[k]})
		}
	}
	pairs("sections", ov.Sections, catSections)
	pairs("sections_linux", ov.SectionsLinux, catSecLinux)
	pairs("skip_reasons", ov.SkipReasons, catSkip)
	pairs("selection_reasons", ov.Reasons, catReasons)
	pairs("ui", ov.UI, catUI)
	pairs("value_texts", ov.ValueTexts, catValues)
	pairs("detail_texts", ov.DetailTexts, catDetails)
	msg := func(id string, tr OverlayMessage, en Message) {
		if tr.Summary != "" {
			out = append(out, textPair{id + ".summary", en.Summary, tr.Summary})
		}
		if tr.Fix != "" {
			if en.Fix == "" {
				stale(id + ".fix")
			}
			out = append(out, textPair{id + ".fix", en.Fix, tr.Fix})
		}
		if tr.One != nil {
			if en.One == nil {
				stale(id + ".one")
				return
			}
			out = append(out, textPair{id + ".one.summary", pick(en.One.Summary, en.Summary), pick(tr.One.Summary, tr.Summary)})
		}
	}
	for _, k := range sortedKeys(ov.RunMessages) {
		en, ok := catRun[k]
		if !ok {
			stale("run_messages/" + k)
			continue
		}
		msg("run_messages/"+k, ov.RunMessages[k], en)
	}
	for _, id := range sortedKeys(ov.Checks) {
		c, ok := catByID[id]
		if !ok {
			stale("checks/" + id)
			continue
		}
		oc := ov.Checks[id]
		if oc.Title != "" {
			out = append(out, textPair{id + ".title", c.Title, oc.Title})
		}
		if oc.Help != "" {
			out = append(out, textPair{id + ".help", c.Help, oc.Help})
		}
		for _, k := range sortedKeys(oc.Messages) {
			en, ok := c.Messages[k]
			if !ok {
				stale(id + "/" + k)
				continue
			}
			msg(id+"/"+k, oc.Messages[k], en)
		}
	}
	return out
}

// Every overlay key is an English ID (no stale keys), and the overlay holds
// only the fields a translation may have: never commands.
func TestOverlayKeysAreEnglishIDs(t *testing.T) {
	pairs := overlayPairs(t)
	if len(pairs) < 300 {
		t.Errorf("only %d translated texts", len(pairs))
	}
	dec := json.NewDecoder(bytes.NewReader(zhCNJSON))
	dec.DisallowUnknownFields()
	var o Overlay
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("checks.zh-CN.json has a field a translation may not hold (commands stay in checks.json): %v", err)
	}
	if o.Lang != LangZhCN || o.Schema != 1 {
		t.Errorf("lang %q schema %d", o.Lang, o.Schema)
	}
}

// A translated text has exactly the English text's {placeholders}, so every
// value the check fills shows up and nothing stays unfilled.
func TestOverlayPlaceholdersMatch(t *testing.T) {
	for _, p := range overlayPairs(t) {
		if a, b := placeholders(p.en), placeholders(p.zh); a != b {
			t.Errorf("%s: English has {%s}, zh-CN has {%s}\n  en: %s\n  zh: %s", p.id, a, b, p.en, p.zh)
		}
		if strings.TrimSpace(p.zh) != p.zh || p.zh == p.en {
			t.Errorf("%s: translation %q is blank-padded or the English text itself", p.id, p.zh)
		}
	}
}

// Translated placeholder values ("values") are values the checks really
// fill: a placeholder some English text has, and a string literal of the
// package's source.
func TestOverlayValuesAreRealValues(t *testing.T) {
	ov, _ := LoadOverlay(LangZhCN)
	var src strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
	}
	var all strings.Builder
	all.Write(checksJSON)
	for name, vals := range ov.Values {
		if name != "*" && !strings.Contains(all.String(), "{"+name+"}") {
			t.Errorf("values/%s: no English text has the placeholder {%s}", name, name)
		}
		for en, zh := range vals {
			if !strings.Contains(src.String(), `"`+en+`"`) {
				t.Errorf("values/%s/%q: not a string literal of doctor's checks (stale)", name, en)
			}
			if zh == "" || zh == en {
				t.Errorf("values/%s/%q: translation %q", name, en, zh)
			}
		}
	}
}

// neutral are English texts that read the same in Chinese (names, versions,
// placeholders only); they need no translation.
var neutral = map[string]bool{
	"ui/list.header.id": true, "ui/row.gpu": true, "sections/F": true,
	"host.os/ok.summary": true, "cuda.archs-flag.title": true, "cuda.archs-flag/ok.summary": true,
	"msvc.sdk.title": true, "msvc.cl-version/ok-no-cuda.summary": true, "clangcl.present.title": true,
	"build.cmake.title": true, "build.cmake/ok.summary": true, "build.ninja.title": true,
	"build.ninja/ok.summary": true, "build.git.title": true, "build.git/ok.summary": true,
	"hip.sdk.title": true, "wsl.detect.title": true, "wsl.detect/wsl2.summary": true,
	"path.ldlib.title": true, "path.ldlib/ok.summary": true,
}

// Every English text has a translation, except the neutral ones and the
// English "one" plural forms (Chinese has no plural).
func TestOverlayCoversEveryText(t *testing.T) {
	have := map[string]bool{}
	for _, p := range overlayPairs(t) {
		have[p.id] = true
	}
	Catalog()
	var missing []string
	need := func(id string) {
		if !have[id] && !neutral[id] {
			missing = append(missing, id)
		}
	}
	for kind, m := range map[string]map[string]string{"sections": catSections, "sections_linux": catSecLinux,
		"skip_reasons": catSkip, "selection_reasons": catReasons, "ui": catUI, "value_texts": catValues, "detail_texts": catDetails} {
		for k := range m {
			if !strings.HasSuffix(k, ".one") {
				need(kind + "/" + k)
			}
		}
	}
	for k, m := range catRun {
		need("run_messages/" + k + ".summary")
		if m.Fix != "" {
			need("run_messages/" + k + ".fix")
		}
	}
	for _, c := range Catalog() {
		need(c.ID + ".title")
		need(c.ID + ".help")
		for k, m := range c.Messages {
			need(c.ID + "/" + k + ".summary")
			if m.Fix != "" {
				need(c.ID + "/" + k + ".fix")
			}
		}
	}
	for id := range neutral {
		if have[id] {
			t.Errorf("%s is listed as neutral but translated", id)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d English texts have no zh-CN translation:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	t.Logf("%d texts translated", len(have))
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// Every finding of every recorded machine comes out in Chinese with the same
// values filled in and the same commands; the English finding is unchanged.
func TestTranslateRecordedFindings(t *testing.T) {
	tr := NewTranslator(LangZhCN)
	if tr.Lang != LangZhCN {
		t.Fatalf("translator language %q", tr.Lang)
	}
	n := 0
	for _, sc := range loadScenarios(t) {
		s := sc.Snapshot
		for _, f := range Run(context.Background(), &s, Options{Backend: sc.Backend}) {
			before, _ := json.Marshal(f)
			z := tr.Finding(f)
			after, _ := json.Marshal(f)
			if !bytes.Equal(before, after) {
				t.Fatalf("%s: translating changed the English finding", f.Message)
			}
			if placeholderRE.MatchString(z.Summary) && !placeholderRE.MatchString(f.Summary) {
				t.Errorf("%s: unfilled placeholder in %q", f.Message, z.Summary)
			}
			if (f.Fix == nil) != (z.Fix == nil) || f.Fix != nil && strings.Join(f.Fix.Commands, "\n") != strings.Join(z.Fix.Commands, "\n") {
				t.Errorf("%s: commands differ after translation", f.Message)
			}
			if f.Status == Skipped && z.SkippedBecause != z.Summary {
				t.Errorf("%s: skip reason %q vs summary %q", f.Message, z.SkippedBecause, z.Summary)
			}
			// A translated text carries every value of the English one.
			for i := 0; i+1 < len(f.Args); i += 2 {
				v := f.Args[i+1]
				if tv := tr.values(vars{f.Args[i], v}); tv[1] != v {
					continue // a translated value
				}
				if strings.Contains(f.Summary, v) && !strings.Contains(z.Summary, v) {
					t.Errorf("%s: value %q of {%s} lost: %q", f.Message, v, f.Args[i], z.Summary)
				}
			}
			if z.Summary != f.Summary {
				n++
				if !hasHan(z.Summary) {
					t.Errorf("%s: translated summary has no Chinese: %q", f.Message, z.Summary)
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d findings translated", n)
	}
}

// A text the overlay lacks stays English, one text at a time; plural and
// skip texts follow the same rules.
func TestTranslatorFallsBackPerText(t *testing.T) {
	tr := &Translator{Lang: LangZhCN, ov: &Overlay{
		Checks: map[string]OverlayCheck{"cuda.select": {Messages: map[string]OverlayMessage{
			"blocked": {Summary: "工具包 {version} 不行；装 {recommended}"}}}}, // no fix text
		SkipReasons: map[string]string{"not-recorded": "未记录 {what}"},
		Values:      map[string]map[string]string{"what": {"the GPU memory": "显存"}},
	}}
	f := emit(nil, "cuda.select", "blocked", "version", "12.3", "recommended", "12.4")
	z := tr.Finding(f)
	if z.Summary != "工具包 12.3 不行；装 12.4" {
		t.Errorf("summary %q", z.Summary)
	}
	if z.Fix.Text != f.Fix.Text || !strings.Contains(z.Fix.Text, "Install CUDA 12.4") {
		t.Errorf("fix text without translation: %q, want the English %q", z.Fix.Text, f.Fix.Text)
	}
	other := emit(nil, "cuda.select", "install", "recommended", "12.4")
	if got := tr.Finding(other); got.Summary != other.Summary {
		t.Errorf("untranslated message changed: %q", got.Summary)
	}
	sk := tr.Finding(skip("nv.vram", "not-recorded", "what", "the GPU memory"))
	if sk.Summary != "未记录 显存" || sk.SkippedBecause != sk.Summary {
		t.Errorf("skip %q / %q", sk.Summary, sk.SkippedBecause)
	}
	if got := tr.Title(CheckInfo{ID: "cuda.select", Title: "CUDA version"}); got != "CUDA version" {
		t.Errorf("title fallback %q", got)
	}
	// English is the catalog itself.
	en := NewTranslator(LangEN)
	if got := en.Finding(f); got.Summary != f.Summary || en.UI("end.ok", "summary", "x") != "Everything llamactl needs is in place. (x)" {
		t.Errorf("English translator changed texts: %q", got.Summary)
	}
	if NewTranslator("fr").Lang != LangEN {
		t.Error("a language without an overlay is not English")
	}
}

// Chinese has one plural form: "1 个警告" as well as "2 个警告"; English
// keeps "1 warning" / "2 warnings".
func TestCountPlurals(t *testing.T) {
	zh, en := NewTranslator(LangZhCN), NewTranslator(LangEN)
	for n, want := range map[int][2]string{1: {"1 warning", "1 个警告"}, 2: {"2 warnings", "2 个警告"}, 0: {"0 warnings", "0 个警告"}} {
		if got := en.Count("warnings", n); got != want[0] {
			t.Errorf("en %d: %q", n, got)
		}
		if got := zh.Count("warnings", n); got != want[1] {
			t.Errorf("zh %d: %q", n, got)
		}
	}
	f := emit(nil, "nv.present", "ok", "count", "1", "names", "RTX 4060")
	if z := zh.Finding(f); z.Summary != "1 块 NVIDIA GPU：RTX 4060" || f.Summary != "1 NVIDIA GPU: RTX 4060" {
		t.Errorf("plural finding: en %q zh %q", f.Summary, z.Summary)
	}
}

// Selection reasons keep only English text; the translator recovers the key
// and values of every reason template and fills the Chinese one.
func TestReasonTranslation(t *testing.T) {
	tr := NewTranslator(LangZhCN)
	ov, _ := LoadOverlay(LangZhCN)
	for _, k := range sortedKeys(catReasons) {
		var kv []string
		for i, p := range placeholderRE.FindAllString(catReasons[k], -1) {
			kv = append(kv, strings.Trim(p, "{}"), "v"+string(rune('A'+i))+".1 (x)")
		}
		en := reasonText(k, kv...)
		want := vars(kv).replacerPairs().fill(ov.Reasons[k])
		if got := tr.Reason(en); got != want {
			t.Errorf("%s:\n  en   %s\n  got  %s\n  want %s", k, en, got, want)
		}
	}
	if got := tr.Reason(`C:\CUDA\v12.4  (found by CUDA_PATH)`); got != `C:\CUDA\v12.4  (found by CUDA_PATH)` {
		t.Errorf("a line that is no reason changed: %q", got)
	}
}

func FuzzReason(f *testing.F) {
	f.Add("CUDA 12.4 cannot compile for RTX (compute capability 12.0)")
	f.Add("{gpu} (compute capability {cc}) → CUDA backend, CMAKE_CUDA_ARCHITECTURES=")
	tr := NewTranslator(LangZhCN)
	f.Fuzz(func(t *testing.T, s string) {
		_ = tr.Reason(s)
	})
}

// Detail lines that hold words (checks.json "detail_texts") are read back
// like reasons: the checks' own lines come out Chinese with their values
// kept, and English stays as the checks wrote it.
func TestDetailTranslation(t *testing.T) {
	tr := NewTranslator(LangZhCN)
	for _, c := range []struct{ en, zh string }{
		{toolkitLine(machine.CUDAToolkit{Version: "11.8.89", NVCC: "/usr/bin/nvcc", Found: []string{"debian", "PATH"}}),
			"11.8.89  /usr/bin/nvcc（由 debian, PATH 找到）"},
		{detailText("path-tool-more", "tool", "nvcc", "path", `C:\CUDA\v12.4\bin\nvcc.exe`, "count", "2"),
			`nvcc: C:\CUDA\v12.4\bin\nvcc.exe（PATH 上另有 2 个）`},
		{toolkitLine(machine.CUDAToolkit{Version: "12.4", NVCC: "/opt/nvcc"}), "12.4  /opt/nvcc"},
	} {
		if got := tr.Reason(c.en); got != c.zh {
			t.Errorf("%q: got %q, want %q", c.en, got, c.zh)
		}
		if got := NewTranslator(LangEN).Reason(c.en); got != c.en {
			t.Errorf("English changed %q: %q", c.en, got)
		}
	}
	if got := toolkitLine(machine.CUDAToolkit{Version: "11.8.89", NVCC: "/usr/bin/nvcc", Found: []string{"debian", "PATH"}}); got != "11.8.89  /usr/bin/nvcc  (found by debian, PATH)" {
		t.Errorf("English toolkit line: %q", got)
	}
	if got := detailText("path-tool-more", "tool", "git", "path", "/usr/bin/git", "count", "1"); got != "git: /usr/bin/git (+1 more on PATH)" {
		t.Errorf("English PATH line: %q", got)
	}
}
