package failures

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// conceptFiles returns the embedded concept files and their names.
func conceptFiles(t testing.TB) ([]string, [][]byte) {
	t.Helper()
	names, err := filepath.Glob("data/concepts/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no concept files: %v", err)
	}
	var files [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	return names, files
}

// withoutConcepts is Default() with the layer off: what signatures and
// combinations alone find.
func withoutConcepts() *KB {
	kb := *Default()
	kb.concepts = nil
	return &kb
}

// conceptOnly returns the findings the layer added to kb's diagnosis of s
// (none, or the one it names).
func conceptOnly(kb, base *KB, s string) []Finding {
	with := kb.DiagnoseString(s)
	without := base.DiagnoseString(s)
	had := map[string]bool{}
	for _, f := range without.Findings {
		had[f.ID] = true
	}
	var out []Finding
	for _, f := range with.Findings {
		if !had[f.ID] {
			out = append(out, f)
		}
	}
	return out
}

// TestConceptExamples: every concept's examples name its ID as probable,
// with the line as evidence, through the whole knowledge base; its near
// misses do not name it.
func TestConceptExamples(t *testing.T) {
	kb := Default()
	if len(kb.concepts) == 0 {
		t.Fatal("no concept loaded")
	}
	names, files := conceptFiles(t)
	n := 0
	for i, b := range files {
		cf, err := parseConcepts(b)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		for _, c := range cf.Concepts {
			n++
			for _, ex := range c.Examples {
				d := kb.DiagnoseString(ex)
				found := false
				for _, f := range d.Findings {
					if f.ID == c.ID {
						found = true
						if f.Confidence != ConfidenceProbable || len(f.Evidence) == 0 || len(f.Lines) == 0 {
							t.Errorf("%s %s: example %q: %s but not as probable with evidence (a signature names it: the example does not test the concept)", names[i], c.ID, ex, f.Confidence)
						}
					}
				}
				if !found {
					t.Errorf("%s %s: example %q not named (got %v)", names[i], c.ID, ex, ids(d))
				}
			}
			for _, nm := range c.NearMisses {
				d := kb.DiagnoseString(nm)
				for _, f := range d.Findings {
					if f.ID == c.ID {
						t.Errorf("%s %s: near miss %q named it (%s)", names[i], c.ID, nm, f.Confidence)
					}
				}
			}
		}
	}
	if n != len(kb.concepts) {
		t.Errorf("%d concepts in the files, %d loaded", n, len(kb.concepts))
	}
}

func ids(d Diagnosis) []string {
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.ID+"/"+f.Confidence)
	}
	return out
}

// TestConceptLayerRules: the layer speaks only when nothing of severity
// error was found and its lines name exactly one ID; it never overrides an
// entry's unless_log or symptom_of; debug and info lines never count.
func TestConceptLayerRules(t *testing.T) {
	kb := Default()
	nvcc := "UserWarning: nvcc was not found.  Are you sure your environment has nvcc available?"
	glslc := "Unable to find glslc in PATH"
	cases := []struct {
		name, log string
		want      []string
	}{
		{"alone", nvcc, []string{"cuda-toolkit-not-found/probable"}},
		{"first line kept", "x\n" + nvcc + "\n" + nvcc, []string{"cuda-toolkit-not-found/probable"}},
		{"two IDs are ambiguous", nvcc + "\n" + glslc, nil},
		{"an error finding wins", nvcc + "\nCould NOT find Vulkan (missing: glslc)", []string{"vulkan-glslc-missing/certain"}},
		{"a note", "note: nvcc was not found", nil},
		{"debug level", `time=2024-01-01T00:00:00Z level=DEBUG msg="nvcc not found"`, nil},
		{"info level", `time=2024-01-01T00:00:00Z level=INFO msg="nvcc not found"`, nil},
		{"not a report", "PASS: nvcc not found is reported", nil},
		{"CMake found it", "-- Found CUDAToolkit: /usr/local/cuda/include (found version \"12.4\") missing components: nvcc", nil},
	}
	for _, c := range cases {
		got := ids(kb.DiagnoseString(c.log))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	d := kb.DiagnoseString("a\n" + nvcc)
	if len(d.Findings) != 1 || d.Findings[0].Lines[0] != 2 || d.Findings[0].Evidence[0] != nvcc || d.Findings[0].Excerpt != nvcc {
		t.Errorf("evidence: %+v", d.Findings)
	}
	e, _ := kb.Entry("cuda-toolkit-not-found")
	if f := d.Findings[0]; f.Cause != e.Cause || f.Fix != e.Fix || f.Source != e.Source || f.Title != e.Title {
		t.Errorf("a concept finding uses the ID's own texts: %+v", f)
	}
	// unless_log: vulkan-sdk-not-found is not reported when CMake says only glslc is missing
	if got := ids(kb.DiagnoseString("VULKAN_SDK is not set\nCould NOT find Vulkan (missing: glslc)")); len(got) != 1 || got[0] != "vulkan-glslc-missing/certain" {
		t.Errorf("unless_log: got %v", got)
	}
}

// TestConceptLayerSymptom: a concept's ID that symptom_of explains by a
// warning finding is not reported.
func TestConceptLayerSymptom(t *testing.T) {
	data := []byte(`{"schema":1,"macros":{"not_a_report":"✓"},"failures":[
	 {"id":"a","title":"A","stage":"configure","platforms":["all"],"severity":"warning","signatures":[{"re":"^A happened"}],"cause":"c","fix":"f","source":"s"},
	 {"id":"b","title":"B","stage":"configure","platforms":["all"],"symptom_of":["a"],"signatures":[{"re":"^never$"}],"cause":"c","fix":"f","source":"s"},
	 {"id":"c","title":"C","stage":"configure","platforms":["all"],"unless_log":["^all is well"],"signatures":[{"re":"^never$"}],"cause":"c","fix":"f","source":"s"}]}`)
	base, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := base.withConcepts([][]byte{[]byte(`{"schema":1,"shapes":{"nf":"not found"},"concepts":[
	 {"id":"b","anchor":"widget","shape":"{{nf}}","source":"https://example.org","examples":["x","y"],"near_misses":["x","y"]},
	 {"id":"c","anchor":"gadget","shape":"{{nf}}","source":"https://example.org","examples":["x","y"],"near_misses":["x","y"]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ log, want string }{
		{"widget not found", "[b/probable]"},
		{"widget not found\nA happened", "[a/certain]"},
		{"gadget not found", "[c/probable]"},
		{"gadget not found\nall is well", "[]"},
		{"✓ gadget not found", "[]"},
	} {
		if got := fmt.Sprint(ids(kb.DiagnoseString(c.log))); got != c.want && !(c.want == "[]" && got == "[]") {
			t.Errorf("%q: got %s, want %s", c.log, got, c.want)
		}
	}
}

// TestConceptLoadStrict: a concept file is parsed strictly.
func TestConceptLoadStrict(t *testing.T) {
	kb := Default()
	ok := `{"id":"ninja-missing","anchor":"ninja","shape":"{{not_found}}","source":"https://example.org","examples":["a","b"],"near_misses":["c","d"]}`
	if _, err := kb.withConcepts([][]byte{[]byte(`{"schema":1,"shapes":{"not_found":"not found"},"concepts":[` + ok + `]}`)}); err != nil {
		t.Fatalf("a valid file: %v", err)
	}
	bad := map[string]string{
		"unknown field":   `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"x","source":"https://e","examples":["a","b"],"near_misses":["c","d"],"extra":1}]}`,
		"schema":          `{"schema":2,"concepts":[]}`,
		"unknown id":      `{"schema":1,"concepts":[{"id":"no-such-id","anchor":"ninja","shape":"x","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"bad anchor":      `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"nin(ja","shape":"x","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"bad shape":       `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"x[","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"bad unless":      `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"x","unless":"(","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"no literal":      `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"[a-z]+","shape":"x","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"short branch":    `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja|nj","shape":"x","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"one example":     `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"x","source":"https://e","examples":["a"],"near_misses":["c","d"]}]}`,
		"one near miss":   `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"x","source":"https://e","examples":["a","b"],"near_misses":["c"]}]}`,
		"no source":       `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"x","source":"ours","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"unknown shape":   `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"{{nope}}","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
		"shape is macro":  `{"schema":1,"shapes":{"missing":"x"},"concepts":[]}`,
		"bad shape regex": `{"schema":1,"shapes":{"s":"("},"concepts":[]}`,
		"no shape":        `{"schema":1,"concepts":[{"id":"ninja-missing","anchor":"ninja","shape":"","source":"https://e","examples":["a","b"],"near_misses":["c","d"]}]}`,
	}
	for name, f := range bad {
		if _, err := kb.withConcepts([][]byte{[]byte(f)}); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	twice := `{"schema":1,"shapes":{"s":"x"},"concepts":[]}`
	if _, err := kb.withConcepts([][]byte{[]byte(twice), []byte(twice)}); err == nil {
		t.Error("a shape defined in two files: loaded")
	}
	// the embedded files load, and each shape is used by some concept or by the other helper's file
	_, files := conceptFiles(t)
	if _, err := kb.withConcepts(files); err != nil {
		t.Fatal(err)
	}
}

// conceptLogs are the real logs the layer is gated on: every dev log of the
// public corpus (batches not pending) and every fixture of testdata/logs,
// each with the IDs its cause allows and whether it is a success log.
type conceptLog struct {
	name   string
	body   string
	expect []string
	ok     bool
}

func conceptGateLogs(t *testing.T) []conceptLog {
	var out []conceptLog
	m := readManifest(t)
	for _, l := range m.Logs {
		if l.Split != "dev" || !notPending(l.Batch) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(publicCorpusDir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, conceptLog{name: l.File, body: string(b), expect: l.Expect, ok: l.Kind == "ok" || len(l.Expect) == 0})
	}
	want := readExpected(t)
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.log"))
	for _, p := range files {
		name := filepath.Base(p)
		out = append(out, conceptLog{name: name, body: logBody(t, p), expect: want[name], ok: len(want[name]) == 0})
	}
	return out
}

// TestConceptPrecision is the layer's main gate: on every real log it may
// see (dev logs, fixtures), what it adds is an expected ID, never a wrong
// one, and a success log (or one whose cause has no ID) stays silent. It
// also reports the logs it names that the signatures missed.
func TestConceptPrecision(t *testing.T) {
	kb, base := Default(), withoutConcepts()
	named, wrong := 0, 0
	var accepted []string
	// exposure: logs on which some concept line matches, before the gate
	// (an error finding, two IDs) decides; on success logs and logs whose
	// cause has no ID, or naming an ID the log does not expect
	exposed, exposedBad := 0, 0
	for _, l := range conceptGateLogs(t) {
		if raw := rawConceptIDs(kb, l.body); len(raw) > 0 {
			exposed++
			for _, id := range raw {
				ok := false
				for _, e := range l.expect {
					ok = ok || e == id
				}
				if !ok || l.ok {
					exposedBad++
					break
				}
			}
		}
		for _, f := range conceptOnly(kb, base, l.body) {
			ok := false
			for _, id := range l.expect {
				ok = ok || id == f.ID
			}
			if !ok || l.ok {
				wrong++
				t.Errorf("%s: the concept layer names %s (expected %v): %q", l.name, f.ID, l.expect, f.Evidence)
				continue
			}
			named++
			if _, in := acceptedDevMisses[l.name]; in {
				accepted = append(accepted, l.name)
			}
		}
	}
	t.Logf("[figures] concepts: %d logs named that signatures missed (%d of them accepted dev misses: %s), %d wrong; a concept line in %d logs before the gate, %d of them success/no-ID logs or another ID", named, len(accepted), strings.Join(accepted, ", "), wrong, exposed, exposedBad)
}

// rawConceptIDs are the IDs whose concepts match some line of s, read
// line by line (no wrapped-line or PowerShell rereading), before the gate.
func rawConceptIDs(kb *KB, s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		msg := Normalize(line)
		if msg == "" || kb.conceptNot.MatchString(msg) || kb.conceptNot.MatchString(line) {
			continue
		}
		for i := range kb.concepts {
			c := &kb.concepts[i]
			id := kb.entries[c.entry].ID
			if seen[id] || !c.anchor.MatchString(msg) || !c.shape.MatchString(msg) || (c.unless != nil && (c.unless.MatchString(msg) || c.unless.MatchString(line))) {
				continue
			}
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// TestConceptShapesLanguages: each shared shape reads the wordings it was
// written for (English and the Windows, gcc and CMake translations), and
// not a line that states no failure.
func TestConceptShapesLanguages(t *testing.T) {
	kb := Default()
	cf, err := parseConcepts(mustRead(t, "data/concepts/shapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ yes, no []string }{
		"not_found": {yes: []string{
			"The specified module could not be found.",
			"No se puede encontrar el módulo especificado.",
			"Das angegebene Modul wurde nicht gefunden.",
			"Le module spécifié est introuvable.",
			"Не найден указанный модуль.",
			"找不到指定的模块。",
			"指定されたモジュールが見つかりません。",
			"지정된 모듈을 찾을 수 없습니다.",
			"CUDA_nvcc-NOTFOUND",
		}, no: []string{"Found CUDAToolkit: /usr/local/cuda", "ObjectNotFound"}},
		"not_recognized": {yes: []string{
			"'nvcc' is not recognized as an internal or external command,",
			"The term 'nvcc' is not recognized as the name of a cmdlet",
			"bash: nvcc: command not found",
			"\"nvcc\" не является внутренней или внешней командой",
			"'nvcc' 不是内部或外部命令，也不是可运行的程序",
		}, no: []string{"nvcc is not recognized by this tool as a host compiler flag"}},
		"cannot_load": {yes: []string{
			"ImportError: DLL load failed while importing _C",
			"OSError: cannot load library 'ggml.dll'",
			"error while loading shared libraries: libcudart.so.12: cannot open shared object file",
			"无法加载 DLL“llama.dll”",
		}, no: []string{"loaded ggml.dll"}},
		"unsupported":   {yes: []string{"unsupported GNU version", "wird nicht unterstützt", "不支持的架构", "n'est pas pris en charge"}, no: []string{"supported: yes"}},
		"too_old":       {yes: []string{"CMake 3.14 or higher is required", "is too old", "Version zu alt", "版本过低"}, no: []string{"built 3 days ago"}},
		"out_of_memory": {yes: []string{"CUDA error: out of memory", "std::bad_alloc", "内存不足", "Nicht genügend Arbeitsspeicher", "недостаточно памяти"}, no: []string{"memory: 16 GiB free"}},
		"missing_thing": {yes: []string{"glslc is missing", "does not exist", "fehlt", "отсутствует", "缺少"}, no: []string{"all present"}},
		"access_denied": {yes: []string{"Access is denied.", "Permission denied", "Zugriff verweigert", "拒绝访问。", "アクセスが拒否されました。"}, no: []string{"access granted"}},
		"crashed":       {yes: []string{"Faulting module name: MSVCP140.dll", "Segmentation fault (core dumped)", "Name des fehlerhaften Moduls: ggml.dll", "错误模块名称: ggml.dll"}, no: []string{"no crash so far"}},
	}
	for name, c := range cases {
		expr, ok := cf.Shapes[name]
		if !ok {
			t.Errorf("no shape %s", name)
			continue
		}
		x, err := expandMacros(expr, kb.macros)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(x)
		for _, l := range c.yes {
			if !re.MatchString(Normalize(l)) && !re.MatchString(l) {
				t.Errorf("%s does not read %q", name, l)
			}
		}
		for _, l := range c.no {
			if re.MatchString(l) {
				t.Errorf("%s reads %q", name, l)
			}
		}
	}
	for name := range cf.Shapes {
		if _, ok := cases[name]; !ok {
			t.Errorf("shape %s has no cases here", name)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
