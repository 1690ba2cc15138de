package explaincmd

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

const unknownLog = "[1/3] Building CXX object a.o\nerror: the frobnicator refused the GPU\nninja: build stopped: subcommand failed.\n"

// modelOpts: a log nothing matches, --model, and a model that answers ans
// (or fails with err); asked counts the questions.
func modelOpts(t *testing.T, log, ans string, err error) (*Options, *strings.Builder, *int) {
	o, out := testOpts(t, "-")
	o.IO.In = strings.NewReader(log)
	o.Model = "my-model.gguf"
	asked := 0
	o.Ask = func(_ context.Context, q failures.ModelQuestion) (string, error) {
		asked++
		if !strings.Contains(q.Prompt, "error: the frobnicator refused the GPU") || !strings.Contains(q.Grammar, `"cuda-no-device"`) {
			t.Errorf("question: %q / %q", q.Prompt, q.Grammar)
		}
		return ans, err
	}
	return o, out, &asked
}

func TestModelNamesACause(t *testing.T) {
	o, out, asked := modelOpts(t, unknownLog, "cuda-no-device", nil)
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitFindings || *asked != 1 {
		t.Fatalf("exit %v, asked %d", err, *asked)
	}
	s := out.String()
	for _, want := range []string{"cuda-no-device  probably: no CUDA-capable device is visible (line 2, 3)", "Named by your language model (--model)", "> error: the frobnicator refused the GPU\n", "> ninja: build stopped: subcommand failed.\n", "Fix: "} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	// --json: the finding with basis "model", and what was asked
	o, out, _ = modelOpts(t, unknownLog, "cuda-no-device", nil)
	o.IO.JSON = true
	_ = Run(context.Background(), o)
	var doc Doc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Findings) != 1 || doc.Findings[0].Basis != failures.BasisModel || doc.Findings[0].Confidence != failures.ConfidenceProbable ||
		doc.Model == nil || !doc.Model.Asked || doc.Model.Answer != "cuda-no-device" || doc.Model.Path != "my-model.gguf" {
		t.Errorf("%+v %+v", doc.Findings, doc.Model)
	}
}

func TestModelNamesNothing(t *testing.T) {
	o, out, _ := modelOpts(t, unknownLog, "none", nil)
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("exit %v", err)
	}
	if s := out.String(); !strings.Contains(s, "No known failure matched") || !strings.Contains(s, "The model my-model.gguf read the lines above and named none") {
		t.Errorf("%s", s)
	}
}

// An engine that fails, or a model that answers outside the catalog, is an
// engine error (exit 5) that says explain works without --model; the
// diagnosis is printed first.
func TestModelFails(t *testing.T) {
	for _, c := range []struct {
		ans string
		err error
	}{{"", errors.New("the engine exited before it was ready (exit code 1)")}, {"banana", nil}} {
		o, out, _ := modelOpts(t, unknownLog, c.ans, c.err)
		err := Run(context.Background(), o)
		if cmdutil.ExitCode(err) != cmdutil.ExitEngine || !strings.Contains(err.Error(), "explain without --model still works") ||
			!strings.Contains(err.Error(), "llamactl run my-model.gguf --prompt Hello") {
			t.Errorf("%q: exit %v", c.ans, err)
		}
		if !strings.Contains(out.String(), "No known failure matched") {
			t.Errorf("%q: no diagnosis printed: %s", c.ans, out)
		}
	}
}

// The model is asked only when nothing matched and some line looks like an
// error.
func TestModelNotAsked(t *testing.T) {
	o, _, asked := modelOpts(t, "nvcc fatal   : Unsupported gpu architecture 'compute_89'\n", "none", nil)
	_ = Run(context.Background(), o)
	if *asked != 0 {
		t.Error("asked although a signature named the cause")
	}
	o, out, asked := modelOpts(t, "-- Configuring done\n-- Generating done\n", "none", nil)
	if err := Run(context.Background(), o); err != nil || *asked != 0 || !strings.Contains(out.String(), "no line of this log looks like an error, so the model was not asked") {
		t.Errorf("exit %v asked %d: %s", err, *asked, out)
	}
}

func TestModelZhCN(t *testing.T) {
	o, out, _ := modelOpts(t, unknownLog, "cuda-no-device", nil)
	o.lang = "zh-CN"
	_ = Run(context.Background(), o)
	if !strings.Contains(out.String(), "这是你的语言模型（--model）根据上面的行给出的判断") {
		t.Errorf("%s", out)
	}
}

// A support report holds several logs: --model is refused there with the
// way to use it.
func TestModelReportRefused(t *testing.T) {
	o, _ := testOpts(t, writeReport(t, true))
	o.Model = "my-model.gguf"
	o.Ask = func(context.Context, failures.ModelQuestion) (string, error) {
		t.Fatal("asked about a report")
		return "", nil
	}
	err := Run(context.Background(), o)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "is a support report: explain it without --model") {
		t.Errorf("exit %v", err)
	}
}
