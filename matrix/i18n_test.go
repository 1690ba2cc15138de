package matrix

import (
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/llamactl/llamactl/internal/testutil"
)

// sameInEnglish lists the texts whose translation is the English text
// itself (names only); every other zh-CN text must differ from English.
var sameInEnglish = map[string]bool{"label.msvc": true}

var placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)

func placeholderSet(s string) []string {
	set := map[string]bool{}
	for _, p := range placeholderRE.FindAllString(s, -1) {
		set[p] = true
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// text.zh-CN.json translates exactly the keys of text.en.json, with the
// same placeholders, sorted one a line like the English file.
func TestZhCNOverlayMatchesEnglish(t *testing.T) {
	m := Default()
	zh := m.overlays["zh-CN"]
	if len(zh) == 0 {
		t.Fatal("no zh-CN overlay loaded")
	}
	for k, en := range m.texts {
		tr, ok := zh[k]
		if !ok {
			t.Errorf("zh-CN lacks %q (%q)", k, en)
			continue
		}
		if got, want := placeholderSet(tr), placeholderSet(en); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: zh-CN placeholders %v, English %v", k, got, want)
		}
		if tr == en && !sameInEnglish[k] {
			t.Errorf("%s: zh-CN text is the English one: %q", k, tr)
		}
	}
	for k := range zh {
		if _, ok := m.texts[k]; !ok {
			t.Errorf("zh-CN has %q, which text.en.json lacks (stale key)", k)
		}
	}
	b, err := dataFS.ReadFile("data/text.zh-CN.json")
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckTextCatalog(t, b)
}

// English stays the default; WithLang changes only the texts and falls
// back to English for an unknown language.
func TestWithLang(t *testing.T) {
	m := Default()
	if m.Lang() != "" || m.Text("cli.fix", "fix", "x") != "fix: x" {
		t.Errorf("Default() is not English: %q", m.Text("cli.fix", "fix", "x"))
	}
	zh := m.WithLang("zh-CN")
	if zh.Lang() != "zh-CN" || zh.Text("cli.fix", "fix", "x") != "修复：x" {
		t.Errorf("zh-CN view: lang %q, text %q", zh.Lang(), zh.Text("cli.fix", "fix", "x"))
	}
	if m.Text("cli.fix", "fix", "x") != "fix: x" {
		t.Error("WithLang changed the matrix it was made from")
	}
	for _, l := range []string{"", "en", "fr", "zh-TW"} {
		if v := m.WithLang(l); v.Lang() != "" || v.Text("gpu-arch-too-new.fix", "first", "12.8") != "use CUDA ≥ 12.8" {
			t.Errorf("WithLang(%q) is not English", l)
		}
	}
	if zh.Text("no-such-key") != "no-such-key" {
		t.Error("a missing key should render as itself")
	}
	if len(zh.Toolkits) != len(m.Toolkits) || &zh.Toolkits[0] != &m.Toolkits[0] {
		t.Error("the view should share the facts")
	}
}

// A translation lacking a key falls back to English for that key only.
func TestOverlayFallsBackPerKey(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, n := range []string{"toolkits", "gpus", "rules", "sources", "text.en", "text.zh-CN"} {
		b, err := dataFS.ReadFile("data/" + n + ".json")
		if err != nil {
			t.Fatal(err)
		}
		fsys["data/"+n+".json"] = &fstest.MapFile{Data: b}
	}
	var doc map[string]any
	if err := json.Unmarshal(fsys["data/text.zh-CN.json"].Data, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["text"].(map[string]any), "gpu-arch-too-new.fix")
	b, _ := json.Marshal(doc)
	fsys["data/text.zh-CN.json"] = &fstest.MapFile{Data: b}
	m, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	zh := m.WithLang("zh-CN")
	if got := zh.Text("gpu-arch-too-new.fix", "first", "12.8"); got != "use CUDA ≥ 12.8" {
		t.Errorf("missing key: got %q, want the English text", got)
	}
	if got := zh.Text("gpu-arch-not-a-target.fix", "first", "12.8"); got != "使用 CUDA ≥ 12.8" {
		t.Errorf("present key: got %q", got)
	}

	// Without a translation file the data is English only.
	delete(fsys, "data/text.zh-CN.json")
	if m, err = Load(fsys); err != nil {
		t.Fatal(err)
	}
	if v := m.WithLang("zh-CN"); v.Lang() != "" || v.Text("cli.fix", "fix", "x") != "fix: x" {
		t.Errorf("no overlay: got %q", v.Text("cli.fix", "fix", "x"))
	}

	// A translation of another data version is a data defect.
	fsys["data/text.zh-CN.json"] = &fstest.MapFile{Data: []byte(`{"data_version":"1999-01-01","locale":"zh-CN","text":{}}`)}
	if _, err := Load(fsys); err == nil {
		t.Error("a stale translation loaded without error")
	}
}

// zhScenarios exercise every blocker kind and most reasons.
var zhScenarios = []Query{
	{GPUs: []GPUQuery{{Name: "NVIDIA GeForce RTX 4060"}}, Driver: "560.94", OS: "windows", MSVC: "19.41.34123", Toolkits: []string{"12.3.107"}},
	{GPUs: []GPUQuery{{Name: "RTX 4090"}}, Driver: "560.94", OS: "windows", MSVC: "19.44", AvailableMSVC: []string{"14.39.33519"}, Toolkits: []string{"12.4.131"}},
	{GPUs: []GPUQuery{{Name: "GTX 1080 Ti"}}, Driver: "470.57", GCC: "13", Toolkits: []string{"13.0", "99.1"}},
	{GPUs: []GPUQuery{{Name: "RTX 5090"}}, Driver: "572.16", OS: "wsl", GCC: "14", AvailableGCC: []int{11, 12}, EngineMinCUDA: "12.4"},
	{GPUs: []GPUQuery{{Name: "RTX 6000"}, {CC: "3.5"}, {CC: "x"}}, Driver: "bad", MSVC: "2022", Clang: "99", OS: "beos"},
	{GPUs: []GPUQuery{{Name: "NVIDIA GeForce RTX 3060", CC: "7.5"}}, Driver: "450.80.02", OS: "linux", Clang: "19", MSVC: "19.41"},
	{GPUs: []GPUQuery{{CC: "12.0"}}, Driver: "595.10", OS: "windows", MSVC: "19.51", Toolkits: []string{"12.8"}},
	{GPUs: []GPUQuery{{Name: "NVIDIA GeForce RTX 5090"}}, Toolkits: []string{"12.6.85"}},
	{GPUs: []GPUQuery{{CC: "7.5"}}, OS: "linux", GCC: "12", Toolkits: []string{"11.8.89"}},
}

// keptInChinese are the English phrases of text.en.json that zh-CN keeps
// on purpose: commands, quoted tool output, product and GPU names.
var keptInChinese = map[string]bool{"NVIDIA GeForce RTX": true, "T version": true, "Visual Studio Installer": true,
	"died with status": true, "llamactl matrix cuda": true, "llamactl matrix gpu": true, "llamactl matrix resolve": true, "nvcc error": true}

// englishFragments are the phrases (two or more words) of the English
// texts: none may appear in zh-CN output unless keptInChinese.
func englishFragments(m *Matrix) map[string]string {
	out := map[string]string{}
	phrase := regexp.MustCompile(`[A-Za-z]+(?: [A-Za-z]+)+`)
	for k, en := range m.texts {
		for _, f := range phrase.FindAllString(placeholderRE.ReplaceAllString(en, "\x00"), -1) {
			if len(f) >= 8 && !keptInChinese[f] {
				out[f] = k
			}
		}
	}
	return out
}

// No zh-CN text keeps an English phrase (a half-translated sentence).
func TestZhCNHasNoEnglishPhrases(t *testing.T) {
	m := Default()
	frags := englishFragments(m)
	for k, tr := range m.overlays["zh-CN"] {
		for f, from := range frags {
			if strings.Contains(tr, f) {
				t.Errorf("zh-CN %s keeps the English %q (of %s): %q", k, f, from, tr)
			}
		}
	}
}

func resolutionTexts(r Resolution) []string {
	out := append([]string(nil), r.Reasons...)
	for _, b := range r.Blockers {
		out = append(out, b.Message, b.Fix, b.LastResortFix)
	}
	for _, c := range append(append([]Candidate(nil), r.Rejected...), r.CUDA.Acceptable...) {
		out = append(out, c.Reasons...)
	}
	return out
}

// A zh-CN resolve gives the English answer with Chinese texts: same IDs,
// versions and choices, every placeholder filled, no English sentence left.
func TestResolveZhCN(t *testing.T) {
	m := Default()
	zh := m.WithLang("zh-CN")
	frags := englishFragments(m)
	if len(frags) < 80 {
		t.Fatalf("only %d English fragments to look for", len(frags))
	}
	cjk := regexp.MustCompile(`\p{Han}`)
	ids := map[string]bool{}
	for i, q := range zhScenarios {
		en, tr := m.Resolve(q), zh.Resolve(q)
		// The structure is the same; only texts differ.
		strip := func(r Resolution) Resolution {
			r.Reasons, r.texts = nil, nil
			bs := append([]Blocker(nil), r.Blockers...)
			for j := range bs {
				bs[j].Message, bs[j].Fix, bs[j].LastResortFix = "", "", ""
			}
			r.Blockers = bs
			for _, cs := range []*[]Candidate{&r.Rejected, &r.CUDA.Acceptable} {
				c := append([]Candidate(nil), (*cs)...)
				for j := range c {
					c[j].Reasons = nil
				}
				*cs = c
			}
			return r
		}
		if !reflect.DeepEqual(strip(en), strip(tr)) {
			t.Errorf("scenario %d: zh-CN answer differs from English beyond texts:\n%+v\n%+v", i, strip(en), strip(tr))
		}
		if a, b := len(resolutionTexts(en)), len(resolutionTexts(tr)); a != b || a == 0 {
			t.Errorf("scenario %d: %d English texts, %d zh-CN", i, a, b)
		}
		for _, b := range tr.Blockers {
			ids[b.ID] = true
		}
		for _, s := range resolutionTexts(tr) {
			if s == "" {
				continue
			}
			if p := placeholderRE.FindString(s); p != "" {
				t.Errorf("scenario %d: unfilled %s in %q", i, p, s)
			}
			if !cjk.MatchString(s) {
				t.Errorf("scenario %d: no Chinese in %q", i, s)
			}
			for f, k := range frags {
				if strings.Contains(s, f) {
					t.Errorf("scenario %d: English %q (of %s) in %q", i, f, k, s)
				}
			}
		}
	}
	// BlockMSVCSTL alone (host_config accepts cl, the STL does not) arises
	// with no toolkit of the current data; its texts are checked by key.
	for _, id := range []string{BlockGPUUnknown, BlockGPUTooNew, BlockGPUTooOld, BlockDriverFamily, BlockMSVCTooNew,
		BlockGCCTooNew, BlockToolkitUnknown, BlockNoToolkitWorks, BlockInvalidQueryArg} {
		if !ids[id] {
			t.Errorf("no scenario produced blocker %s", id)
		}
	}
}

// --json is made from the English matrix: Resolve on the default matrix
// still marshals the English texts, whatever views exist.
func TestResolveJSONStaysEnglish(t *testing.T) {
	m := Default()
	for i, q := range zhScenarios {
		before, _ := json.Marshal(m.Resolve(q))
		_ = m.WithLang("zh-CN").Resolve(q)
		after, _ := json.Marshal(m.Resolve(q))
		if string(before) != string(after) {
			t.Errorf("scenario %d: English JSON changed after a zh-CN resolve", i)
		}
		if regexp.MustCompile(`\p{Han}`).Match(after) {
			t.Errorf("scenario %d: English JSON has Chinese: %s", i, after)
		}
	}
}

// Translate renders an English answer's texts from their message IDs: the
// result is exactly what Resolve says in that language.
func TestTranslateByID(t *testing.T) {
	m := Default()
	zh := m.WithLang("zh-CN")
	for i, q := range zhScenarios {
		en, want := m.Resolve(q), zh.Resolve(q)
		tr := m.Translate(en, "zh-CN")
		check := func(what string, e, w []string) {
			if len(e) != len(w) {
				t.Fatalf("scenario %d %s: %d vs %d texts", i, what, len(e), len(w))
			}
			for j := range e {
				if got := tr[e[j]]; got != w[j] {
					t.Errorf("scenario %d %s %d: %q translates to %q, want %q", i, what, j, e[j], got, w[j])
				}
			}
		}
		check("reasons", en.Reasons, want.Reasons)
		for j, b := range en.Blockers {
			w := want.Blockers[j]
			check("blocker "+b.ID, []string{b.Message, b.Fix, b.LastResortFix}, []string{w.Message, w.Fix, w.LastResortFix})
		}
		for j := range en.Rejected {
			check("rejected "+en.Rejected[j].Version, en.Rejected[j].Reasons, want.Rejected[j].Reasons)
		}
		if en := m.Translate(en, "en"); len(en) > 0 {
			for k, v := range en {
				if k != v {
					t.Fatalf("English translation changed %q to %q", k, v)
				}
			}
		}
	}
}
