package buildcmd

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
)

var updateDryRun = flag.Bool("update-dryrun", false, "rewrite testdata/build/dryrun (only when a change of the text is meant)")

// Every recorded machine's `build --dry-run` prints, in English and
// Chinese and as --json, the bytes recorded in testdata/build/dryrun: the plan text with
// its warnings and blockers (which go through the one finding printer),
// the exit code and stderr included. The files were recorded before the
// notes moved to the printer.
func TestDryRunBytesEveryMachine(t *testing.T) {
	if runtime.GOOS == "windows" {
		// The goldens hold the runner's cache folder ($CACHE/engine/...) and
		// its quoting as Linux prints them; on Windows the folder is the
		// runner's own (backslashes, quoted for PowerShell). What they guard,
		// the printer's bytes, is the same code on every OS; the Windows
		// dry runs are checked by winsmoke.
		t.Skip("goldens recorded on Linux (the runner's cache paths)")
	}
	var snaps []string
	for _, g := range []string{filepath.Join("..", "..", "testdata", "doctor", "snapshots", "*.json"), filepath.Join(plans, "*.json")} {
		m, _ := filepath.Glob(g)
		snaps = append(snaps, m...)
	}
	if len(snaps) < 30 {
		t.Fatalf("only %d snapshots", len(snaps))
	}
	type run struct {
		name string
		args []string
	}
	var runs []run
	for _, s := range snaps {
		runs = append(runs, run{filepath.Base(filepath.Dir(s)) + "-" + strings.TrimSuffix(filepath.Base(s), ".json"), []string{"--snapshot", s}})
	}
	// Warnings the recorded machines do not raise by default: CUDA with no
	// GPU to probe, native code in a portable build, an old option spelling
	// together with a blocker, two warnings in one plan.
	nogpu := filepath.Join(plans, "linux-debian-nvcc11.8-gcc12-nogpu.json")
	runs = append(runs,
		run{"warn-cuda-no-gpu", []string{"--snapshot", nogpu, "--backend", "cuda"}},
		run{"warn-native-portable", []string{"--snapshot", filepath.Join(plans, "linux-debian-cpu-local.json"), "--backend", "cpu", "--portable", "--cmake-arg", "-DGGML_NATIVE=ON"}},
		run{"warn-and-block", []string{"--snapshot", filepath.Join("..", "..", "testdata", "doctor", "snapshots", "win-buildtools-without-vctools.json"), "--cmake-arg", "-DLLAMA_CUBLAS=ON"}},
		run{"two-warnings", []string{"--snapshot", nogpu, "--backend", "cuda", "--cmake-arg", "-DLLAMA_CUBLAS=ON"}},
	)
	dir := filepath.Join("..", "..", "testdata", "build", "dryrun")
	warned, blocked := 0, 0
	for _, r := range runs {
		for _, l := range []string{lang.EN, lang.ZhCN, "json"} {
			name := r.name + "." + l + ".txt"
			cache := t.TempDir()
			f, out, errOut := cmdutil.NewTest(map[string]string{"LLAMACTL_CACHE_DIR": cache}, nil)
			cmd := NewCmd(f)
			if l == "json" { // --json, which stays English
				f.IO.JSON = true
				cmd.SetArgs(append(r.args, "--dry-run"))
			} else {
				cmd.SetArgs(append(r.args, "--dry-run", "--lang", l))
			}
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			got := "exit " + string(rune('0'+cmdutil.ExitCode(err))) + "\n--- stdout\n" + out.String() + "--- stderr\n" + errOut.String()
			if err != nil {
				got += "--- error\n" + err.Error() + "\n"
			}
			got = strings.ReplaceAll(got, cache, "$CACHE")
			if strings.Contains(out.String(), "\n  ! ") {
				warned++
			}
			if strings.Contains(out.String(), "\n  ✗ ") {
				blocked++
			}
			p := filepath.Join(dir, name)
			if *updateDryRun {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(want) != got {
				t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
			}
		}
	}
	t.Logf("%d runs over %d snapshots × (2 languages + --json); %d outputs with warnings, %d with blockers", len(runs), len(snaps), warned, blocked)
	if warned == 0 || blocked == 0 {
		t.Errorf("the recorded machines print %d outputs with warnings and %d with blockers; want some of each", warned, blocked)
	}
}
