package explaincmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
)

// TestEvalWithModel measures explain --model on the public corpus for
// whoever has a real model (this project's machines have none):
//
//	LLAMACTL_EXPLAIN_MODEL=model.gguf [LLAMACTL_EXPLAIN_ENGINE=DIR] \
//	  go test ./failures/explaincmd -run TestEvalWithModel -v -timeout 6h
//
// It judges the held-out logs (LLAMACTL_EXPLAIN_SPLIT=dev: the development
// logs) as failures' TestEvalHeldout does, without and with the model's
// answers, and prints counts only. An opt-in tool, skipped without a model.
func TestEvalWithModel(t *testing.T) {
	model := os.Getenv("LLAMACTL_EXPLAIN_MODEL")
	if model == "" {
		t.Skip("LLAMACTL_EXPLAIN_MODEL is not set (a GGUF model file)")
	}
	const dir = "../../testdata/logs/corpus"
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Logs []struct {
			Split, File, Kind string
			Expect            []string
		} `json:"logs"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	dev := os.Getenv("LLAMACTL_EXPLAIN_SPLIT") == "dev"
	f, _, _ := cmdutil.NewTest(map[string]string{}, proc.Exec{})
	ctx := context.Background()
	ask, stop, err := startModel(ctx, f, model, os.Getenv("LLAMACTL_EXPLAIN_ENGINE"), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	kb := failures.Default()
	var logs, before, after, asked, named, right, bad int
	for _, l := range m.Logs {
		if (l.Split == "dev") != dev {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		d := kb.DiagnoseString(string(text))
		logs++
		if correctFor(d.Findings, l.Expect) {
			before++
		}
		if q, ok := kb.ModelQuestion(d); ok {
			asked++
			ans, err := ask(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			fd, ok, err := kb.ModelFinding(q, ans)
			if err != nil {
				bad++
			} else if ok {
				named++
				if correctFor([]failures.Finding{fd}, l.Expect) {
					right++
				}
				d.Findings = append(d.Findings, fd)
			}
		}
		if correctFor(d.Findings, l.Expect) {
			after++
		}
	}
	pct := func(a, b int) string { return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(a)/float64(max(b, 1)), a, b) }
	t.Logf("[figures] explain --model %s on %d logs: correct without the model %s, with it %s; asked about %d, named %d, %d of them right, %d answers outside the catalog",
		filepath.Base(model), logs, pct(before, logs), pct(after, logs), asked, named, right, bad)
}

// correctFor: the expected cause named and nothing else (nothing at all
// for a log that expects none), as TestEvalHeldout counts it.
func correctFor(fs []failures.Finding, expect []string) bool {
	want := map[string]bool{}
	for _, id := range expect {
		want[id] = true
	}
	hit := false
	for _, f := range fs {
		if !want[f.ID] {
			return false
		}
		hit = true
	}
	return len(expect) == 0 || hit
}
