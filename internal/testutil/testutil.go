// Package testutil is scaffolding shared by the project's tests: reading
// the recorded fixtures under testdata/ and finding the real llama.cpp test
// engine. Only _test.go files import it.
package testutil

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/recorded"
)

// EngineDirEnv names the folder of the llama.cpp CPU binaries the
// integration tests run; DefaultEngineDir is where scripts/deps.sh puts them.
const (
	EngineDirEnv     = "LLAMACTL_TEST_ENGINE_DIR"
	DefaultEngineDir = "/var/cache/llamactl-deps/engine/bin"
)

// RequireToolsEnv, set to 1 by scripts/test where it installed the tools
// (CI runs as root on Debian), turns "tool missing" skips into failures, so
// a broken install can never hide integration tests behind a green run.
const RequireToolsEnv = "LLAMACTL_REQUIRE_TOOLS"

// Missing reports a real component the test needs but cannot find: a skip
// on a developer's machine, a failure where the tools must be present.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if toolsRequired(os.Getenv) {
		tb.Fatalf("required by "+RequireToolsEnv+"=1: "+format, args...)
	}
	tb.Skipf(format, args...)
}

func toolsRequired(getenv func(string) string) bool { return getenv(RequireToolsEnv) == "1" }

// EngineDir returns the test engine's folder, or skips the test when the
// binary it needs (llama-server, llama-cli, llama-bench...) is not there:
// the engine is installed by CI, not by every developer.
func EngineDir(tb testing.TB, binary string) string {
	tb.Helper()
	dir := os.Getenv(EngineDirEnv)
	if dir == "" {
		dir = DefaultEngineDir
	}
	if _, err := os.Stat(filepath.Join(dir, binary)); err != nil {
		Missing(tb, "no llama.cpp test engine (%s) in %s: run scripts/deps.sh as root, or set %s: %v", binary, dir, EngineDirEnv, err)
	}
	return dir
}

// Tool returns the path of a real tool the test runs (nvcc, g++-12,
// cmake...), or skips the test when it is not installed: CI installs them
// with scripts/deps.sh, a developer's machine may lack them.
func Tool(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, "%s is not installed (scripts/deps.sh installs it as root)", name)
	}
	return p
}

// Need skips the test unless every named tool is installed.
func Need(tb testing.TB, names ...string) {
	tb.Helper()
	for _, n := range names {
		Tool(tb, n)
	}
}

// RepoRoot is the module's root: the nearest folder above the working
// directory (a test runs in its package's folder) that holds go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("testutil: no go.mod above the working directory")
		}
		dir = up
	}
}

// Fixture returns the text of testdata/<path...> (for example
// Fixture(t, "runner", "llama-server-b11669-help.txt")); a missing fixture
// fails the test.
func Fixture(tb testing.TB, path ...string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{RepoRoot(tb), "testdata"}, path...)...))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// FixtureBody is Fixture without the fixture's header.
func FixtureBody(tb testing.TB, path ...string) string {
	tb.Helper()
	return recorded.Body(Fixture(tb, path...))
}

// CheckTextCatalog checks a text catalog (a package's data/text.en.json):
// the entries of its "text" object stand one "key": "value" a line, sorted
// by key, so a review or a translation follows it line by line.
func CheckTextCatalog(tb testing.TB, data []byte) {
	tb.Helper()
	var doc struct {
		Text map[string]string `json:"text"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatalf("text catalog: %v", err)
	}
	var keys []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case !in:
			in = strings.HasPrefix(line, `"text":`)
			continue
		case strings.HasPrefix(line, "}"):
			in = false
			continue
		}
		var kv map[string]string
		if err := json.Unmarshal([]byte("{"+strings.TrimSuffix(line, ",")+"}"), &kv); err != nil || len(kv) != 1 {
			tb.Errorf("text catalog: line is not one \"key\": \"value\" pair: %q", line)
			continue
		}
		for k := range kv {
			if len(keys) > 0 && k <= keys[len(keys)-1] {
				tb.Errorf("text catalog: %q stands after %q: keys must be sorted, each once", k, keys[len(keys)-1])
			}
			keys = append(keys, k)
		}
	}
	if len(keys) != len(doc.Text) || len(keys) == 0 {
		tb.Errorf("text catalog: %d key lines for %d texts: one text a line", len(keys), len(doc.Text))
	}
}

// EngineTarball packs the fixture engine (testdata/engine) as GitHub packs a
// release: a .tar.gz with one top-level folder, top ("llama.cpp-b9591").
func EngineTarball(tb testing.TB, top string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	root := filepath.Join(RepoRoot(tb), "testdata", "engine")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		name := top + "/" + filepath.ToSlash(rel)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: 0o755})
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(b))}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// Symlinks skips the test where symbolic links cannot be made and seen: on
// Windows without the privilege (Developer Mode or an elevated prompt), and
// under wine, whose CreateSymbolicLink reports success but leaves a link
// that Lstat cannot find. Tests of link handling run where links work
// (Linux CI); docs/windows.md says what the wine runs cannot show.
func Symlinks(tb testing.TB) {
	tb.Helper()
	dir := tb.TempDir()
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.Mkdir(target, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		tb.Skipf("symbolic links cannot be made here: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		tb.Skipf("symbolic links are made but not seen as links here (wine): lstat: %v", err)
	}
}

// RealEnginesEnv, set to 1 by scripts/stages/40-real-engines.sh, runs the
// slow tests against real engines (the Vulkan device on lavapipe, RPC
// workers, the real llama.cpp tree); `go test ./...` skips them.
const RealEnginesEnv = "LLAMACTL_REAL_ENGINES"

// RealEngines skips the test unless the real-engines stage runs it.
func RealEngines(tb testing.TB) {
	tb.Helper()
	if os.Getenv(RealEnginesEnv) != "1" {
		tb.Skipf("a real-engine test: scripts/stages/40-real-engines.sh runs it (%s=1)", RealEnginesEnv)
	}
}

// VulkanEngineDir returns a folder whose llama-server, llama-fit-params
// and ggml-rpc-server run sid's llama.cpp with the ggml Vulkan backend on
// Mesa lavapipe through scripts/vk-run (scripts/deps.d/40-vk-engine.sh
// installs it). VK_FAKE_TOTAL_MIB in the environment caps the device;
// VK_PROBE_TOTAL_MIB, when set, is the cap --list-devices sees instead
// (a device that reports more free memory than a launch can allocate).
func VulkanEngineDir(tb testing.TB) string {
	tb.Helper()
	root := RepoRoot(tb)
	base := os.Getenv("VK_BASE")
	if base == "" {
		base = "/var/cache/llamactl-deps/vk"
	}
	for _, p := range []string{filepath.Join(base, "root/usr/bin/llama-server"), filepath.Join(base, "lib/vkfakemem.so"), filepath.Join(base, "icd/lvp_icd.json")} {
		if _, err := os.Stat(p); err != nil {
			Missing(tb, "the Vulkan engine is not installed (%v): run scripts/deps.d/40-vk-engine.sh as root", err)
		}
	}
	if os.Geteuid() != 0 {
		Missing(tb, "scripts/vk-run needs root (a private mount namespace)")
	}
	dir := tb.TempDir()
	for name, bin := range map[string]string{
		"llama-server":     "llama-server",
		"llama-fit-params": "llama-fit-params",
		"ggml-rpc-server":  filepath.Join(base, "root/usr/libexec/x86_64-linux-gnu/llama/bin/ggml-rpc-server"),
	} {
		script := "#!/bin/sh\n" +
			"for a in \"$@\"; do if [ \"$a\" = --list-devices ] && [ -n \"$VK_PROBE_TOTAL_MIB\" ]; then " +
			"export VK_FAKE_TOTAL_MIB=$VK_PROBE_TOTAL_MIB VK_FAKE_FREE_MIB=$VK_PROBE_TOTAL_MIB; fi; done\n" +
			"exec " + filepath.Join(root, "scripts", "vk-run") + " " + bin + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// RealLlamaTree returns the real llama.cpp tree installed by
// scripts/deps.d/30-llamacpp-src.sh ($LLAMACTL_DEPS_DIR, by default
// /var/cache/llamactl-deps, then llama.cpp-src), or reports it Missing.
func RealLlamaTree(tb testing.TB) string {
	tb.Helper()
	deps := os.Getenv("LLAMACTL_DEPS_DIR")
	if deps == "" {
		deps = "/var/cache/llamactl-deps"
	}
	dir := filepath.Join(deps, "llama.cpp-src")
	if _, err := os.Stat(filepath.Join(dir, "ggml")); err != nil {
		Missing(tb, "no real llama.cpp tree here (scripts/deps.d/30-llamacpp-src.sh): %v", err)
	}
	return dir
}
