//go:build linux

package buildcmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// fullDiskEnv names the full --out folder to the test in its own mount
// namespace.
const fullDiskEnv = "LLAMACTL_TEST_FULL_OUT"

// A build whose --out folder is on a full disk exits 2 (the user's folder
// cannot be written, docs/exit-codes.md), names the folder, the disk's
// error and the next command, and does not say "built". The test runs
// itself again in a private mount namespace (unshare -m, root) with --out
// on a 64 KiB tmpfs: the real ENOSPC of a real file system.
func TestOutOnFullDisk(t *testing.T) {
	if dir := os.Getenv(fullDiskEnv); dir != "" {
		buildOntoFullDisk(t, dir)
		return
	}
	for _, tool := range []string{"cmake", "ninja", "c++", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, "%s not installed (scripts/deps.sh)", tool)
		}
	}
	if os.Geteuid() != 0 {
		testutil.Missing(t, "needs root for a private tmpfs (CI runs as root)")
	}
	out := filepath.Join(t.TempDir(), "full")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `mount -t tmpfs -o size=64k tmpfs "$1" && head -c 61440 /dev/zero > "$1/filler" && exec "$2" -test.run '^TestOutOnFullDisk$' -test.v`
	cmd := exec.Command("unshare", "-m", "sh", "-c", script, "sh", out, os.Args[0])
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+out)
	b, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(b), "Operation not permitted") {
		testutil.Missing(t, "no private mount namespace here: %s", b)
	}
	if err != nil || !strings.Contains(string(b), "--- PASS: TestOutOnFullDisk") {
		t.Fatalf("the build onto a full disk: %v\n%s", err, b)
	}
}

func buildOntoFullDisk(t *testing.T, out string) {
	src := filepath.Join(t.TempDir(), "llama.cpp-b9591")
	if err := os.CopyFS(src, os.DirFS("../../testdata/engine")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME")}
	o, stdout, _ := newOpts(t, env, proc.Exec{})
	o.Source, o.Backend, o.OutDir = src, "cpu", out
	o.SnapshotPath = filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	o.F.IO.JSON = true
	err := execute(context.Background(), o)
	if code := cmdutil.ExitCode(err); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d (%v), want %d", code, err, cmdutil.ExitUsage)
	}
	var doc Doc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Error == nil || doc.Error.Code != cmdutil.ExitUsage || doc.Result == nil || doc.Result.Failed != "manifest" {
		t.Fatalf("doc error %+v, failed stage %q", doc.Error, doc.Result.Failed)
	}
	for _, want := range []string{"--out folder " + out, "no space left on device", "llamactl build --out DIR"} {
		if !strings.Contains(doc.Error.Message, want) {
			t.Errorf("message %q lacks %q", doc.Error.Message, want)
		}
	}
	// The text says what failed, not "built".
	o, stdout, _ = newOpts(t, env, proc.Exec{})
	o.Source, o.Backend, o.OutDir, o.SnapshotPath = src, "cpu", out, filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	if code := cmdutil.ExitCode(execute(context.Background(), o)); code != cmdutil.ExitUsage {
		t.Errorf("second run: exit %d", code)
	}
	if strings.Contains(stdout.String(), "built for") || !strings.Contains(stdout.String(), "manifest") {
		t.Errorf("text after a full --out:\n%s", stdout)
	}
}
