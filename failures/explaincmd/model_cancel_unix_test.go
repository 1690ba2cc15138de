//go:build unix

package explaincmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
)

// An engine that never becomes ready: cancelling the question (what Ctrl-C
// does through signal.NotifyContext) returns at once and leaves no engine
// process behind.
func TestModelCancelStopsEngine(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	script := "#!/bin/sh\ncase \"$1\" in --version) echo 'version: 1 (abc)'; exit 0;; esac\necho $$ > " + marker + "\nexec sleep 300\n"
	if err := os.WriteFile(filepath.Join(dir, "llama-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f, _, _ := cmdutil.NewTest(map[string]string{}, proc.Exec{})
	ask := engineAsk(f, filepath.Join(dir, "m.gguf"), dir)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for i := 0; i < 200; i++ {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	kb := failures.Default()
	q, _ := kb.ModelQuestion(kb.DiagnoseString("error: x\n"))
	start := time.Now()
	if _, err := ask(ctx, q); err == nil {
		t.Fatal("a cancelled question answered")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %s to return after the cancel", d)
	}
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal("the engine never started")
	}
	pid := strings.TrimSpace(string(b))
	if _, err := os.Stat("/proc/" + pid); err == nil {
		if st, _ := os.ReadFile("/proc/" + pid + "/stat"); !strings.Contains(string(st), ") Z ") {
			t.Errorf("engine %s still running after the cancel", pid)
		}
	}
}
