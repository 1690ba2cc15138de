//go:build !windows

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// Every flag or argument that names an input file refuses a named pipe and a
// device at once (exit 2, the path named) instead of hanging on the pipe or
// reading /dev/zero until memory runs out: internal/safefile is their one
// opener.
func TestHostileInputFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.gguf")
	gf, err := ggufwrite.Model(ggufwrite.Small(ggufwrite.Config{Arch: "llama"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.WriteFile(model); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "build.log")
	writeFile(t, log, "error: something\n")
	for _, bad := range []string{fifo, "/dev/zero"} {
		for _, args := range [][]string{
			{"gguf", bad},
			{"run", bad, "--dry-run"},
			{"run", model, "--draft", bad, "--dry-run"},
			{"explain", bad},
			{"explain", "--snapshot", bad, log},
			{"doctor", "--replay", bad},
			{"build", "--dry-run", "--snapshot", bad},
			{"build", "--lock", bad, "--check"},
		} {
			name := strings.Join(args, " ")
			type res struct {
				code        int
				out, errOut string
			}
			done := make(chan res, 1)
			go func() {
				f, out, errOut := cmdutil.NewTest(map[string]string{"LLAMACTL_NO_CACHE": "1", "LLAMACTL_CACHE_DIR": dir}, nil)
				code := Execute(f, args)
				done <- res{code, out.String(), errOut.String()}
			}()
			select {
			case r := <-done:
				if r.code != cmdutil.ExitUsage || !strings.Contains(r.errOut, bad) || !strings.Contains(r.errOut, "not a") {
					t.Errorf("%s: exit %d, stderr %q; want 2 and a refusal naming the file", name, r.code, r.errOut)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: still running after 10 s (blocked on the input?)", name)
			}
		}
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
