package explaincmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// explain --model with the real tree's llama-server (stage 40's build,
// LLAMACTL_REAL_TREE_OUT) and a generated model (LLAMACTL_TEST_MODEL):
// random weights, so what is checked is the plumbing, not the answer's
// worth: the engine starts, the answer is held by the grammar to "none" or
// one of the catalog's IDs, a named ID is a probable finding based on the
// model, and no llama-server is left running.
func TestRealEngineModel(t *testing.T) {
	out, model, stdout, stderr, err := realModelRun(t, "LLAMACTL_TEST_MODEL")
	if c := cmdutil.ExitCode(err); c != cmdutil.ExitOK && c != cmdutil.ExitFindings {
		t.Fatalf("exit %d: %v\n%s", c, err, stderr)
	}
	var doc Doc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if doc.Model == nil || !doc.Model.Asked || doc.Model.Error != "" {
		t.Fatalf("model: %+v", doc.Model)
	}
	kb := failures.Default()
	if _, known := kb.Entry(doc.Model.Answer); !known && doc.Model.Answer != "none" {
		t.Errorf("the grammar let the model answer %q", doc.Model.Answer)
	}
	for _, fd := range doc.Findings {
		if fd.ID != doc.Model.Answer || fd.Basis != failures.BasisModel || fd.Confidence != failures.ConfidenceProbable {
			t.Errorf("finding %+v for the answer %q", fd, doc.Model.Answer)
		}
	}
	t.Logf("the generated model answered %q", doc.Model.Answer)
	// no engine left behind (Linux: the processes' command lines)
	server := filepath.Join(out, "llama-server")
	ps, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range ps {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), server+"\x00") && strings.Contains(string(b), model) {
			t.Errorf("llama-server still running: %s", p)
		}
	}
}

// A model trained on a short context (LLAMACTL_TEST_MODEL_SHORT: 4096
// tokens, which the server caps its slot to) cannot hold the question with
// the generated model's small vocabulary: the answer is cut, and explain
// says so (exit 5), never taking a cut ID for an answer.
func TestRealEngineModelShortContext(t *testing.T) {
	_, _, _, _, err := realModelRun(t, "LLAMACTL_TEST_MODEL_SHORT")
	if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), "did not fit the model's context") {
		t.Fatalf("exit %d: %v", cmdutil.ExitCode(err), err)
	}
}

// realModelRun runs explain --json --model on a log nothing matches, with
// the real tree's llama-server (LLAMACTL_REAL_TREE_OUT) and the model the
// environment variable names (stage 40 sets both).
func realModelRun(t *testing.T, modelEnv string) (out, model string, stdout, stderr *strings.Builder, err error) {
	t.Helper()
	testutil.RealEngines(t)
	out, model = os.Getenv("LLAMACTL_REAL_TREE_OUT"), os.Getenv(modelEnv)
	if out == "" || model == "" {
		testutil.Missing(t, "LLAMACTL_REAL_TREE_OUT and %s are not set: stage 40 sets them (the real tree's build, a generated model)", modelEnv)
	}
	f, stdout, stderr := cmdutil.NewTest(map[string]string{}, proc.Exec{})
	f.IO.In = strings.NewReader(unknownLog)
	f.IO.JSON = true
	o := &Options{IO: f.IO, File: "-", Model: model, Engine: out, Ask: engineAsk(f, model, out), StdinIsTerminal: func() bool { return false }}
	return out, model, stdout, stderr, Run(context.Background(), o)
}
