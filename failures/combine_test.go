package failures

import (
	"strings"
	"testing"
)

const combineKB = `{"schema": 1, "macros": {"win": "(?:C:\\\\|Visual Studio)"},
 "failures": [
  {"id": "a-probable", "stage": "configure", "platforms": ["all"], "title": "t", "cause": "c", "fix": "f", "source": "s",
   "signatures": [{"re": "^A certain$"}],
   "combine": [{"parts": ["^No compiler found", "^.*?{{win}}"], "within": 5, "unless": "^.*?/usr/"}]},
  {"id": "b-unless", "stage": "runtime", "platforms": ["all"], "title": "t", "cause": "c", "fix": "f", "source": "s",
   "signatures": [{"re": "^load failed in x$"}], "unless_log": ["^load failed in cpu$"]}
 ]}`

func TestCombineIsProbableWithEvidence(t *testing.T) {
	kb, err := Load([]byte(combineKB))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(log string) []Finding { return kb.DiagnoseString(log).Findings }

	// The weak signal may come before or after the anchor, within the window.
	for _, log := range []string{
		"building in C:\\src\nline\nNo compiler found\n",
		"No compiler found\n\nline\nusing Visual Studio 17\n",
	} {
		f := ids(log)
		if len(f) != 1 || f[0].ID != "a-probable" || f[0].Confidence != ConfidenceProbable || len(f[0].Evidence) != 2 {
			t.Fatalf("%q: %+v", log, f)
		}
		if !strings.Contains(f[0].Excerpt, "No compiler found") {
			t.Errorf("excerpt %q", f[0].Excerpt)
		}
	}
	// Too far apart, vetoed by the unless line, or the anchor alone: nothing.
	far := "C:\\src\n" + strings.Repeat("x\n", 10) + "No compiler found\n"
	for _, log := range []string{far, "No compiler found\n/usr/bin/cc\nC:\\x\n", "No compiler found\n"} {
		if f := ids(log); len(f) != 0 {
			t.Errorf("%q: guessed %+v", log, f)
		}
	}
	// A signature of the same entry wins: certain, no evidence list.
	f := ids("C:\\src\nNo compiler found\nA certain\n")
	if len(f) != 1 || f[0].Confidence != ConfidenceCertain || f[0].Evidence != nil {
		t.Errorf("certain: %+v", f)
	}
	// unless_log drops the entry whatever the order of the lines.
	if f := ids("load failed in x\n"); len(f) != 1 {
		t.Errorf("b: %+v", f)
	}
	if f := ids("load failed in cpu\nload failed in x\n"); len(f) != 0 {
		t.Errorf("b with its unless line: %+v", f)
	}
}

func TestLoadRejectsBadCombinations(t *testing.T) {
	for name, data := range map[string]string{
		"unknown macro": `{"schema":1,"failures":[{"id":"x","signatures":[{"re":"^{{nope}}"}]}]}`,
		"one part":      `{"schema":1,"failures":[{"id":"x","signatures":[],"combine":[{"parts":["^abc"]}]}]}`,
		"no literal":    `{"schema":1,"failures":[{"id":"x","signatures":[],"combine":[{"parts":["^.*(?:a|b)","^abc"]}]}]}`,
		"unanchored":    `{"schema":1,"failures":[{"id":"x","signatures":[],"combine":[{"parts":["abc","^abc"]}]}]}`,
		"bad unless":    `{"schema":1,"failures":[{"id":"x","signatures":[],"unless_log":["x"]}]}`,
	} {
		if _, err := Load([]byte(data)); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

func TestProbableSignature(t *testing.T) {
	kb := Default()
	d := kb.DiagnoseString("load_backend: failed to load C:\\llama\\ggml-cuda.dll: 找不到指定的模块。\n")
	if len(d.Findings) != 1 || d.Findings[0].ID != "cuda-runtime-dll-missing" || d.Findings[0].Confidence != ConfidenceProbable {
		t.Fatalf("%+v", d.Findings)
	}
	d = kb.DiagnoseString("load_backend: failed to load C:\\llama\\ggml-cuda.dll: The specified module could not be found.\nThe code execution cannot proceed because cublas64_12.dll was not found.\n")
	if len(d.Findings) != 1 || d.Findings[0].Confidence != ConfidenceCertain || d.Findings[0].Evidence != nil {
		t.Fatalf("a certain line does not outrank the probable one: %+v", d.Findings)
	}
}
