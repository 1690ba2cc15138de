// Package testutil is scaffolding shared by the project's tests: reading
// the recorded fixtures under testdata/ and finding the real llama.cpp test
// engine. Only _test.go files import it.
package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EngineDirEnv names the folder of the llama.cpp CPU binaries the
// integration tests run; DefaultEngineDir is where scripts/deps.sh puts them.
const (
	EngineDirEnv     = "LLAMACTL_TEST_ENGINE_DIR"
	DefaultEngineDir = "/var/cache/llamactl-deps/engine/bin"
)

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
		tb.Skipf("no llama.cpp test engine (%s) in %s: run scripts/deps.sh as root, or set %s: %v", binary, dir, EngineDirEnv, err)
	}
	return dir
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

// Body drops the header of a recorded fixture: the "# " lines up to and
// including the first line that is exactly "# ---"
// (shared/reference/windows-outputs/README.md "File format"). Text without
// such a header is returned whole.
func Body(s string) string {
	if !strings.HasPrefix(s, "# ") {
		return s
	}
	if i := strings.Index(s, "\n# ---\n"); i >= 0 {
		return s[i+len("\n# ---\n"):]
	}
	return s
}

// FixtureBody is Fixture without the fixture's header.
func FixtureBody(tb testing.TB, path ...string) string {
	tb.Helper()
	return Body(Fixture(tb, path...))
}
