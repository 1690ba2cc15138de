//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// Every command speaks Chinese with --lang zh-CN: each command runs as
// llamactl (this test binary, LLAMACTL_TEST_AS_CLI=1) on what this machine
// has — recorded snapshots, this machine's own facts and PoCL, an
// unreachable RPC worker, a generated model, logs, the Vulkan engine's RPC
// worker — and its human output (stdout and stderr) must hold no English
// sentence (testutil.EnglishPhrase: commands, paths, IDs, flags and quoted
// tool output do not count).

// pendingCases are the cases whose English is owned by another package
// this session, by a pattern of the cases' names, with that owner and what
// is left. The test logs the English of those cases instead of failing, and
// fails once no case of a pattern has English left, so the list only
// shrinks.
var pendingCases = []struct {
	re    *regexp.Regexp
	owner string
}{}

// pendingOwner is the pattern (its index) and owner a case waits for.
func pendingOwner(name string) (int, string) {
	for i, p := range pendingCases {
		if p.re.MatchString(name) {
			return i, p.owner
		}
	}
	return -1, ""
}

// zhAllow are names that read the same in Chinese: products, a Visual
// Studio workload's English name given next to its Chinese one, document
// titles, OpenCL platform and GPU names, and tools' own messages that the
// --verbose facts table quotes.
var zhAllow = []string{
	"Visual Studio Build Tools",
	"Desktop development with C++",
	"AMD Accelerated Parallel Processing",
	"NVIDIA CUDA Compiler Driver NVCC documentation",
	"NVIDIA CUDA Installation Guide for Linux",
	"NVIDIA GeForce GTX TITAN X",
	"Failed to initialize NVML: Driver/library version mismatch",
	"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
	"The pocl project", // PoCL's OpenCL platform vendor
	// the CUDA runtime's own message (cudaGetErrorString), quoted by a probe
	"no CUDA-capable device is detected",
	// the operating system's and Go's JSON parser's own error texts, after
	// llamactl's Chinese
	"no such file or directory",
	"looking for beginning of value",
}

// quotedLine is a line llamactl prints as it came from elsewhere: a log's
// line ("> ..." evidence, "12  ..." numbered), a command to run ("$ ...").
var quotedLine = regexp.MustCompile(`^\s*(?:> |\$ |\d+  )`)

// workerLine is a line of the llama.cpp RPC worker's own log, which rpc
// serve passes through ("load_backend: ...", "ggml_vulkan: ...").
var workerLine = regexp.MustCompile(`^(?:[a-z]+_[a-z_]+|ggml\w*): `)

// englishLines are the lines of out with an English sentence left, but for
// quoted lines and those ignore matches.
func englishLines(out string, ignore *regexp.Regexp) []string {
	var bad []string
	for _, l := range strings.Split(out, "\n") {
		if quotedLine.MatchString(l) || ignore != nil && ignore.MatchString(l) {
			continue
		}
		if w := testutil.EnglishPhrase(l, zhAllow...); w != "" {
			bad = append(bad, fmt.Sprintf("%q in: %s", w, strings.TrimSpace(l)))
		}
	}
	return bad
}

// cliEnv is the environment llamactl runs in: this one without any
// language setting (the flag alone must choose Chinese), with its own cache.
func cliEnv(cache string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LANG" || k == "LANGUAGE" || k == "LLAMACTL_LANG" || strings.HasPrefix(k, "LC_") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "LLAMACTL_TEST_AS_CLI=1", "LLAMACTL_CACHE_DIR="+cache), extra...)
}

// runZh runs llamactl args in the background context of the test and
// returns its stdout, stderr and exit code.
func runZh(t *testing.T, cache string, env []string, args ...string) (string, string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = cliEnv(cache, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

type zhCase struct {
	name string
	args []string
	// codes are the exit codes the case may end with (0 and 1: findings).
	codes []int
	// stdoutIsData: stdout is a script, not human text (completion).
	stdoutIsData bool
	env          []string
}

func repoFile(t *testing.T, p ...string) string {
	t.Helper()
	return filepath.Join(append([]string{testutil.RepoRoot(t)}, p...)...)
}

func globRepo(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(repoFile(t, pattern))
	if err != nil || len(m) == 0 {
		t.Fatalf("%s: no files (%v)", pattern, err)
	}
	sort.Strings(m)
	return m
}

// closedPort is a local TCP port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func zhCases(t *testing.T, dir string) []zhCase {
	t.Helper()
	model := filepath.Join(dir, "m.gguf")
	gf, err := ggufwrite.Model(ggufwrite.Small(ggufwrite.Config{Arch: "llama"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.WriteFile(model); err != nil {
		t.Fatal(err)
	}
	engineDir := os.Getenv("LLAMACTL_TEST_ENGINE_DIR")
	if engineDir == "" {
		engineDir = "/var/cache/llamactl-deps/engine/bin"
	}
	ok, find := []int{0}, []int{0, 1}
	cases := []zhCase{
		{"help", []string{"--lang", "zh-CN", "--help"}, ok, false, nil},
		{"help doctor", []string{"help", "doctor", "--lang", "zh-CN"}, ok, false, nil},
		{"help (unknown topic)", []string{"help", "nonexist", "--lang", "zh-CN"}, ok, false, nil},
		{"version", []string{"--lang", "zh-CN", "version"}, ok, false, nil},
		{"version --check (unreachable)", []string{"version", "--check", "--lang", "zh-CN"}, []int{1}, false, []string{fmt.Sprintf("LLAMACTL_INSTALL_BASE=http://127.0.0.1:%d", closedPort(t))}},
		{"unknown command", []string{"--lang", "zh-CN", "doctr"}, []int{2}, false, nil},
		{"unknown flag", []string{"run", "--lang", "zh-CN", "--no-such-flag"}, []int{2}, false, nil},
		{"doctor --replay (no such file)", []string{"doctor", "--lang", "zh-CN", "--replay", filepath.Join(dir, "none.json")}, []int{2}, false, nil},
		{"build --snapshot (not a snapshot)", []string{"build", "--lang", "zh-CN", "--dry-run", "--snapshot", repoFile(t, "go.mod")}, []int{2}, false, nil},
		{"run (not a model)", []string{"run", "--lang", "zh-CN", "--dry-run", repoFile(t, "go.mod")}, []int{2}, false, nil},
		{"missing argument", []string{"explain", "--lang", "zh-CN", filepath.Join(dir, "no-such.log")}, []int{2}, false, nil},
		{"completion bash", []string{"--lang", "zh-CN", "completion", "bash"}, ok, true, nil},
		{"doctor --list-checks", []string{"doctor", "--lang", "zh-CN", "--list-checks"}, ok, false, nil},
		{"doctor (this machine) --probe", []string{"doctor", "--lang", "zh-CN", "--probe"}, find, false, nil},
		{"doctor --rpc (unreachable)", []string{"doctor", "--lang", "zh-CN", "--rpc", fmt.Sprintf("127.0.0.1:%d", closedPort(t))}, find, false, nil},
		{"doctor --report", []string{"doctor", "--lang", "zh-CN", "--report", filepath.Join(dir, "report")}, find, false, nil},
		{"probe", []string{"probe", "--lang", "zh-CN"}, find, false, nil},
		{"build --dry-run (this machine)", []string{"build", "--lang", "zh-CN", "--dry-run"}, find, false, nil},
		{"gguf", []string{"gguf", model, "--lang", "zh-CN"}, ok, false, nil},
		{"matrix gpu", []string{"matrix", "gpu", "--lang", "zh-CN", "RTX 4090"}, ok, false, nil},
		{"matrix gpu (unknown)", []string{"matrix", "gpu", "--lang", "zh-CN", "TITAN X"}, find, false, nil},
		{"matrix cuda", []string{"matrix", "cuda", "--lang", "zh-CN", "12.4"}, ok, false, nil},
		{"matrix resolve", []string{"matrix", "resolve", "--lang", "zh-CN", "--gpu", "RTX 4090", "--gcc", "14", "--available-gcc", "11", "--toolkit", "12.4"}, ok, false, nil},
		{"matrix resolve (blocked)", []string{"matrix", "resolve", "--lang", "zh-CN", "--gpu", "GTX 1080 Ti", "--toolkit", "13.0", "--os", "windows", "--msvc", "19.41"}, find, false, nil},
		{"patches list", []string{"patches", "list", "--lang", "zh-CN"}, ok, false, nil},
	}
	if _, err := os.Stat(filepath.Join(engineDir, "llama-server")); err == nil {
		cases = append(cases, zhCase{"run --dry-run", []string{"run", model, "--lang", "zh-CN", "--dry-run", "--engine", engineDir}, ok, false, nil})
	} else if os.Getenv(testutil.RequireToolsEnv) == "1" {
		testutil.Missing(t, "no llama.cpp engine in %s for run --dry-run (scripts/deps.sh installs it): %v", engineDir, err)
	} else {
		t.Logf("no llama.cpp engine in %s: run --dry-run is left out (scripts/deps.sh installs it)", engineDir)
	}
	for _, v := range []string{"11.0", "11.1", "11.4", "11.5", "11.8", "12.0", "12.2", "12.3", "12.5", "12.8", "12.9", "13.0", "13.1", "13.2", "13.4", "13.5"} {
		cases = append(cases, zhCase{"matrix cuda " + v, []string{"matrix", "cuda", "--lang", "zh-CN", v}, ok, false, nil})
	}
	snap := repoFile(t, "testdata", "doctor", "snapshots", "win-vs2022-17.11-cuda12.3-rtx4060.json")
	cases = append(cases,
		zhCase{"explain report.json", []string{"explain", "--lang", "zh-CN", filepath.Join(dir, "report", "report.json")}, find, false, nil},
		zhCase{"explain --snapshot", []string{"explain", "--lang", "zh-CN", "--snapshot", snap, repoFile(t, "testdata", "logs", "ref-nvcc-unsupported-msvc-llamacpp-8628.log")}, find, false, nil},
		zhCase{"doctor --snapshot", []string{"doctor", "--lang", "zh-CN", "--replay", snap, "--snapshot", filepath.Join(dir, "snap.json")}, find, false, nil},
		zhCase{"doctor --check", []string{"doctor", "--lang", "zh-CN", "--replay", snap, "--check", "cuda.host-compiler"}, find, false, nil},
		zhCase{"probe --only opencl", []string{"probe", "--lang", "zh-CN", "--only", "opencl"}, find, false, nil},
		zhCase{"build --dry-run --portable --rpc", []string{"build", "--lang", "zh-CN", "--dry-run", "--portable", "--rpc", "--snapshot", repoFile(t, "testdata", "doctor", "snapshots", "linux-debian13-glibc2.41-cuda12.6.json")}, find, false, nil},
	)
	for _, id := range []string{"build-info", "cuda-libpath", "cuda-no-vmm", "cuda-stream-t", "msvc-stl-cuda", "nvcc-host-gcc"} {
		cases = append(cases, zhCase{"patches show " + id, []string{"patches", "show", id, "--lang", "zh-CN"}, ok, false, nil})
	}
	for _, s := range globRepo(t, "testdata/doctor/snapshots/*.json") {
		n := strings.TrimSuffix(filepath.Base(s), ".json")
		cases = append(cases,
			zhCase{"doctor --replay " + n, []string{"doctor", "--lang", "zh-CN", "--replay", s}, find, false, nil},
			zhCase{"doctor --verbose --replay " + n, []string{"doctor", "--lang", "zh-CN", "--verbose", "--replay", s}, find, false, nil},
			zhCase{"build --dry-run --snapshot " + n, []string{"build", "--lang", "zh-CN", "--dry-run", "--snapshot", s}, find, false, nil},
		)
	}
	for _, l := range globRepo(t, "testdata/logs/*.log") {
		cases = append(cases, zhCase{"explain " + filepath.Base(l), []string{"explain", "--lang", "zh-CN", l}, find, false, nil})
	}
	return cases
}

func TestEveryCommandSpeaksChinese(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command (-short)")
	}
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	dirty, ran := make([]int, len(pendingCases)), make([]int, len(pendingCases))
	for _, c := range zhCases(t, dir) {
		t.Run(c.name, func(t *testing.T) {
			if i, _ := pendingOwner(c.name); i >= 0 {
				ran[i]++
			}
			stdout, stderr, code := runZh(t, cache, c.env, c.args...)
			if !containsInt(c.codes, code) {
				t.Fatalf("llamactl %s: exit %d\n%s%s", strings.Join(c.args, " "), code, stdout, stderr)
			}
			human := stderr
			if !c.stdoutIsData {
				human = stdout + "\n" + stderr
			}
			if i := checkChinese(t, c.name, strings.Join(c.args, " "), human, nil); i >= 0 {
				dirty[i]++
			}
		})
	}
	t.Run("rpc serve", func(t *testing.T) {
		out := rpcServeZh(t, cache)
		checkChinese(t, "rpc serve", "rpc serve --lang zh-CN", out, workerLine)
	})
	if t.Failed() {
		return
	}
	for i, p := range pendingCases {
		if ran[i] > 0 && dirty[i] == 0 {
			t.Errorf("no case matching %s has English left: remove it from pendingCases (%s)", p.re, p.owner)
		}
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

var hanRE = regexp.MustCompile(`\p{Han}`)

// checkChinese fails on English left in the human output of case name,
// unless its owner is translating it this session (it logs it then, and
// returns the index of the pendingCases pattern, else -1).
func checkChinese(t *testing.T, name, cmdline, human string, ignore *regexp.Regexp) int {
	t.Helper()
	bad := englishLines(human, ignore)
	i, owner := pendingOwner(name)
	if strings.TrimSpace(human) != "" && !hanRE.MatchString(human) {
		t.Errorf("llamactl %s: no Chinese at all:\n%s", cmdline, human)
	}
	switch {
	case len(bad) > 0 && i >= 0:
		t.Logf("llamactl %s: English left, pending on %s:\n  %s", cmdline, owner, strings.Join(bad, "\n  "))
		return i
	case len(bad) > 0:
		t.Errorf("llamactl %s: English left:\n  %s\n--- output:\n%s", cmdline, strings.Join(bad, "\n  "), human)
	}
	return -1
}

// rpcServeZh starts `llamactl rpc serve --lang zh-CN` on the Vulkan engine's
// RPC worker, waits until it says it runs, stops it as Ctrl-C does and
// returns what it printed.
func rpcServeZh(t *testing.T, cache string) string {
	t.Helper()
	engine := testutil.VulkanEngineDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port := closedPort(t)
	cmd := exec.Command(exe, "rpc", "serve", "--lang", "zh-CN", "--engine", engine, "--port", fmt.Sprint(port))
	cmd.Env = cliEnv(cache)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	var all strings.Builder
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	listening := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.After(60 * time.Second)
	started := false
	for !started {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("rpc serve ended before it ran:\n%s", all.String())
			}
			all.WriteString(l + "\n")
			if c, err := net.Dial("tcp", listening); err == nil {
				c.Close()
				started = true
			}
		case <-time.After(200 * time.Millisecond):
			if c, err := net.Dial("tcp", listening); err == nil {
				c.Close()
				started = true
			}
		case <-deadline:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("rpc serve did not listen on %s within 60s:\n%s", listening, all.String())
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for l := range lines {
		all.WriteString(l + "\n")
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("rpc serve did not stop on Ctrl-C:\n%s", all.String())
	}
	return all.String()
}
