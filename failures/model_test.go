package failures

import (
	"errors"
	"strings"
	"testing"
)

// The question asked of a language model when nothing matched: the
// catalog, the unmatched error lines, a grammar of the IDs and "none".
func TestModelQuestion(t *testing.T) {
	kb := Default()
	d := kb.DiagnoseString("[1/3] Building CXX object a.o\nerror: the frobnicator refused the GPU\r\nninja: build stopped: subcommand failed.\n")
	if len(d.Findings) != 0 || len(d.UnmatchedErrors) == 0 {
		t.Fatalf("the log must match nothing and hold error lines: %+v", d)
	}
	q, ok := kb.ModelQuestion(d)
	if !ok {
		t.Fatal("no question")
	}
	for _, e := range kb.Entries() {
		if !strings.Contains(q.Prompt, "\n"+e.ID+": "+e.Title+"\n") || !strings.Contains(q.Grammar, ` "`+e.ID+`"`) {
			t.Fatalf("%s is not offered in the prompt and the grammar", e.ID)
		}
	}
	if !strings.Contains(q.Prompt, "2: error: the frobnicator refused the GPU\n") || !strings.HasSuffix(q.Prompt, "Answer: ") {
		t.Errorf("prompt:\n%s", q.Prompt)
	}
	if !strings.HasPrefix(q.Grammar, `root ::= "none" | `) || strings.Count(q.Grammar, "\n") != 1 {
		t.Errorf("grammar: %q", q.Grammar)
	}
	// a finding made: nothing to ask; no error line: nothing to ask
	if _, ok := kb.ModelQuestion(kb.DiagnoseString("nvcc fatal   : Unsupported gpu architecture 'compute_89'\n")); ok {
		t.Error("asked although a signature named the cause")
	}
	if _, ok := kb.ModelQuestion(kb.DiagnoseString("-- Configuring done\n-- Generating done\n")); ok {
		t.Error("asked about a log without an error line")
	}
	// a long line is cut, a line break in a line cannot start a line of the prompt
	long := kb.DiagnoseString("error: " + strings.Repeat("x", 5000) + "\n")
	lq, _ := kb.ModelQuestion(long)
	if strings.Contains(lq.Prompt, strings.Repeat("x", maxModelLine+1)) {
		t.Error("a long line reached the prompt whole")
	}
}

// The answer becomes a probable finding of the ID, with the lines the
// model was shown as its evidence; "none" is no finding; anything else an
// error.
func TestModelFinding(t *testing.T) {
	kb := Default()
	d := kb.DiagnoseString("x\nerror: the frobnicator refused the GPU\n")
	q, _ := kb.ModelQuestion(d)
	f, ok, err := kb.ModelFinding(q, " cuda-no-device\n")
	if err != nil || !ok {
		t.Fatalf("%v %v", ok, err)
	}
	e, _ := kb.Entry("cuda-no-device")
	if f.ID != "cuda-no-device" || f.Confidence != ConfidenceProbable || f.Basis != BasisModel || f.Fix != e.Fix || f.Cause != e.Cause ||
		len(f.Lines) != 1 || f.Lines[0] != 2 || len(f.Evidence) != 1 || f.Evidence[0] != "error: the frobnicator refused the GPU" {
		t.Errorf("%+v", f)
	}
	if _, ok, err := kb.ModelFinding(q, "none"); ok || err != nil {
		t.Errorf("none: %v %v", ok, err)
	}
	for _, a := range []string{"", "banana", "cuda-no-device because", "CUDA-NO-DEVICE"} {
		if _, ok, err := kb.ModelFinding(q, a); ok || !errors.Is(err, ErrModelAnswer) {
			t.Errorf("%q: %v %v", a, ok, err)
		}
	}
}
