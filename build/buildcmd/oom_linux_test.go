//go:build linux

package buildcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// HealOOMEnv=1 runs TestHealOutOfMemoryCgroup (scripts/stages/50-heal.sh).
const HealOOMEnv = "LLAMACTL_HEAL_OOM"

// oomEnv tells the test binary it runs inside the memory-limited cgroup.
const oomEnv = "LLAMACTL_TEST_OOM_CGROUP"

// oomLimitMiB is the cgroup's memory limit: one heavy compile of the
// fixture (FIXTURE_HEAVY_JOBS: about 350 MiB with g++ 12) and this test
// binary fit, four at once (-j 4) do not, so the kernel's out-of-memory
// killer ends a cc1plus, as on a 16 GB laptop compiling llama.cpp's CUDA
// template instances with one job per thread.
const oomLimitMiB = 600

// A real out-of-memory compile: the fixture engine with four sources that
// need about 350 MiB each to compile, built with -j 4 by `llamactl build`
// running in a cgroup whose memory is limited to 600 MiB (cgroup v2
// memory.max, or v1 memory.limit_in_bytes where the machine has only v1),
// as root. Without --heal the build fails (exit 4) with
// compiler-out-of-memory and advice naming -j 2 and --heal; with --heal it
// retries with -j 2, then -j 1 if that still runs out, and builds. The test
// runs itself again inside the cgroup, like TestOutOnFullDisk does in its
// mount namespace.
func TestHealOutOfMemoryCgroup(t *testing.T) {
	if os.Getenv(oomEnv) != "" {
		buildOutOfMemory(t)
		return
	}
	if os.Getenv(HealOOMEnv) != "1" {
		t.Skipf("runs in scripts/stages/50-heal.sh (%s=1): a 30 s compile under a memory limit", HealOOMEnv)
	}
	for _, tool := range []string{"cmake", "ninja", "c++", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, "%s not installed (scripts/deps.sh)", tool)
		}
	}
	if os.Geteuid() != 0 {
		testutil.Missing(t, "needs root to make a memory-limited cgroup (CI runs as root)")
	}
	cg, cleanup, err := memoryCgroup(oomLimitMiB << 20)
	if err != nil {
		testutil.Missing(t, "no memory-limited cgroup here: %v", err)
	}
	defer cleanup()
	script := `echo $$ > "$1/cgroup.procs" && exec "$2" -test.run '^TestHealOutOfMemoryCgroup$' -test.v -test.timeout 15m`
	cmd := exec.Command("sh", "-c", script, "sh", cg, os.Args[0])
	cmd.Env = append(os.Environ(), oomEnv+"="+cg)
	b, err := cmd.CombinedOutput()
	t.Logf("in cgroup %s (%d MiB):\n%s", cg, oomLimitMiB, b)
	if err != nil || !strings.Contains(string(b), "--- PASS: TestHealOutOfMemoryCgroup") {
		t.Fatalf("the build in the memory-limited cgroup: %v", err)
	}
}

// memoryCgroup makes a cgroup limited to limit bytes, with no swap, and
// returns its folder and how to remove it.
func memoryCgroup(limit int64) (string, func(), error) {
	name := fmt.Sprintf("llamactl-oom-test-%d", os.Getpid())
	var dir string
	var files map[string]string
	if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		// cgroup v2: a child of the root, which may hold processes itself
		// (a group below another with processes could not enable memory).
		if !slices.Contains(strings.Fields(string(b)), "memory") {
			return "", nil, fmt.Errorf("cgroup v2 without the memory controller (cgroup.controllers: %q)", strings.TrimSpace(string(b)))
		}
		sub, _ := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control")
		if !slices.Contains(strings.Fields(string(sub)), "memory") {
			if err := enableMemory(); err != nil {
				return "", nil, err
			}
		}
		dir = filepath.Join("/sys/fs/cgroup", name)
		files = map[string]string{"memory.max": fmt.Sprint(limit), "memory.swap.max": "0"}
	} else if _, err := os.Stat("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err == nil {
		dir = filepath.Join("/sys/fs/cgroup/memory", name)
		files = map[string]string{"memory.limit_in_bytes": fmt.Sprint(limit), "memory.swappiness": "0"}
	} else {
		return "", nil, fmt.Errorf("neither cgroup v2 (/sys/fs/cgroup/cgroup.controllers) nor v1's memory controller is mounted")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, err
	}
	cleanup := func() {
		// The group's processes have exited; the kernel may take a moment.
		for range 50 {
			if os.Remove(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for f, v := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil && f == "memory.max" || err != nil && f == "memory.limit_in_bytes" {
			cleanup()
			return "", nil, fmt.Errorf("%s: %v", f, err)
		}
	}
	return dir, cleanup, nil
}

// enableMemory gives the children of /sys/fs/cgroup the memory controller.
// Where /sys/fs/cgroup is a container's own group, it holds the container's
// processes, and cgroup v2 gives no controller to the children of a group
// with processes (EBUSY): its processes move to a child group of their own
// first (what container init systems do), without a limit, and stay there.
func enableMemory() error {
	const ctl = "/sys/fs/cgroup/cgroup.subtree_control"
	err := os.WriteFile(ctl, []byte("+memory"), 0o644)
	if err == nil {
		return nil
	}
	leaf := "/sys/fs/cgroup/llamactl-oom-init"
	if merr := os.MkdirAll(leaf, 0o755); merr != nil {
		return fmt.Errorf("%s: %v; making %s: %v", ctl, err, leaf, merr)
	}
	procs, _ := os.ReadFile("/sys/fs/cgroup/cgroup.procs")
	for _, pid := range strings.Fields(string(procs)) {
		// a kernel thread or a process that has exited cannot move
		_ = os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(pid), 0o644)
	}
	if err2 := os.WriteFile(ctl, []byte("+memory"), 0o644); err2 != nil {
		return fmt.Errorf("enabling the memory controller for child groups (%s): %v, and after moving this group's processes to %s: %v", ctl, err, leaf, err2)
	}
	return nil
}

func buildOutOfMemory(t *testing.T) {
	src := filepath.Join(t.TempDir(), "llama.cpp-b9591")
	if err := os.CopyFS(src, os.DirFS("../../testdata/engine")); err != nil {
		t.Fatal(err)
	}
	// No ccache: a heavy object cached by an earlier run (or by the first
	// build below, before the kill) would not be compiled, nor run out of
	// memory, again.
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "CCACHE_DISABLE": "1"}
	run := func(heal bool) (*Doc, int) {
		o, stdout, _ := newOpts(t, env, proc.Exec{})
		o.Source, o.Backend, o.Jobs, o.Heal = src, "cpu", 4, heal
		o.BuildDir = filepath.Join(filepath.Dir(src), "build")
		o.CMakeArgs = []string{"FIXTURE_HEAVY_JOBS=4"}
		o.SnapshotPath = filepath.Join(plans, "linux-debian-cpu-local.json")
		o.F.IO.JSON = true
		code := cmdutil.ExitCode(execute(context.Background(), o))
		var doc Doc
		if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil || doc.Result == nil {
			t.Fatalf("exit %d, --json: %v\n%s", code, err, stdout)
		}
		return &doc, code
	}

	// Without --heal: the cause, and the exact next command.
	doc, code := run(false)
	r := doc.Result
	if code != cmdutil.ExitBuild || r.Failed != "compile" || len(r.Diagnoses) == 0 || r.Diagnoses[0].ID != plan.OOMFailure {
		t.Fatalf("without --heal: exit %d, failed %q, diagnoses %+v (the limit did not make -j 4 run out of memory?)", code, r.Failed, r.Diagnoses)
	}
	advice := strings.Join(r.Diagnoses[0].Advice, "\n")
	if len(r.WouldHeal) != 1 || r.WouldHeal[0].Change != "-j 4 -> -j 2" || !strings.Contains(advice, "-j 2") || !strings.Contains(advice, "llamactl build --heal") {
		t.Errorf("would heal %+v, advice %q", r.WouldHeal, advice)
	}
	t.Logf("without --heal: exit %d, %s: %s", code, r.Diagnoses[0].ID, advice)

	// With --heal: fewer jobs until it fits, then a working build.
	doc, code = run(true)
	r = doc.Result
	var changes []string
	for _, f := range r.Fixes {
		if f.ID != "fewer-jobs" || f.Trigger != plan.OOMFailure || f.Option != "-j 4" {
			t.Errorf("fix %+v", f)
		}
		changes = append(changes, f.Change)
	}
	t.Logf("with --heal: exit %d in %d attempts, fixes %v, jobs %d", code, r.Attempts, changes, r.Plan.Jobs)
	if r.Toolchain["cxx"] == "" || !slices.ContainsFunc(r.Steps, func(s build.Step) bool { return s.Name == "compile" && s.Attempt == r.Attempts }) {
		t.Errorf("toolchain %v, steps %+v", r.Toolchain, r.Steps)
	}
	if code != 0 || r.Failed != "" || r.Verify == nil || !r.Verify.OK {
		t.Fatalf("with --heal: exit %d, failed %q, error %+v", code, r.Failed, doc.Error)
	}
	if len(changes) == 0 || changes[0] != "-j 4 -> -j 2" || r.Attempts != len(changes)+1 || r.Plan.Jobs > 2 {
		t.Errorf("fixes %v in %d attempts, final jobs %d", changes, r.Attempts, r.Plan.Jobs)
	}
	if i := slices.Index(r.Plan.Build.Args, "-j"); i < 0 || r.Plan.Build.Args[i+1] != fmt.Sprint(r.Plan.Jobs) {
		t.Errorf("build command %v", r.Plan.Build.Args)
	}
}
