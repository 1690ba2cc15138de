package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil/faketool"
)

func TestMain(m *testing.M) {
	faketool.Main()
	os.Exit(m.Run())
}

func TestRepoRootHoldsGoMod(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(RepoRoot(t), "go.mod"))
	if err != nil || !strings.HasPrefix(string(b), "module github.com/llamactl/llamactl") {
		t.Fatalf("RepoRoot is not this module's root: %v %q", err, b)
	}
}

func TestFixtureReadsTestdata(t *testing.T) {
	if s := Fixture(t, "runner", "llama-server-b11669-version.txt"); !strings.Contains(s, "11669") {
		t.Errorf("fixture text %q lacks the build number", s)
	}
}

// An engine folder without the binary skips; with it, returns the folder.
func TestEngineDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EngineDirEnv, dir)
	skipped := true
	t.Run("absent", func(t *testing.T) {
		t.Setenv(RequireToolsEnv, "") // this subtest checks the developer's skip
		EngineDir(t, "llama-server")
		skipped = false
	})
	if !skipped {
		t.Error("EngineDir did not skip without the binary")
	}
	if err := os.WriteFile(filepath.Join(dir, "llama-server"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := EngineDir(t, "llama-server"); got != dir {
		t.Errorf("EngineDir = %q, want %q", got, dir)
	}
}

func TestFixtureBody(t *testing.T) {
	if s := FixtureBody(t, "kernels", "nvcc-11.8-version.txt"); !strings.HasPrefix(s, "nvcc: NVIDIA") {
		t.Errorf("FixtureBody did not drop the header: %q", s)
	}
}

// recorder is a testing.TB that keeps the errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...) }

func TestCheckTextCatalog(t *testing.T) {
	for name, c := range map[string]struct {
		doc  string
		errs int
	}{
		"good":       {"{\n\"about\": \"x\",\n\"text\": {\n\"a.b\": \"one {x}\",\n\"a.c\": \"two: three\"\n}\n}\n", 0},
		"unsorted":   {"{\n\"text\": {\n\"b\": \"1\",\n\"a\": \"2\"\n}\n}\n", 1},
		"duplicate":  {"{\n\"text\": {\n\"a\": \"1\",\n\"a\": \"2\"\n}\n}\n", 2},
		"two a line": {"{\n\"text\": {\n\"a\": \"1\", \"b\": \"2\"\n}\n}\n", 2},
		"empty":      {"{\"text\": {}}", 1},
	} {
		r := &recorder{TB: t}
		CheckTextCatalog(r, []byte(c.doc))
		if len(r.errs) != c.errs {
			t.Errorf("%s: %d errors %q, want %d", name, len(r.errs), r.errs, c.errs)
		}
	}
}

func TestTool(t *testing.T) {
	dir := t.TempDir()
	p := faketool.Install(t, dir, "fake-nvcc", faketool.Spec{})
	t.Setenv("PATH", dir)
	if got := Tool(t, "fake-nvcc"); !strings.EqualFold(got, p) {
		t.Errorf("Tool = %q", got)
	}
	skipped := true
	t.Run("absent", func(t *testing.T) {
		t.Setenv(RequireToolsEnv, "") // this subtest checks the developer's skip
		Need(t, "fake-nvcc", "no-such-tool-llamactl")
		skipped = false
	})
	if !skipped {
		t.Error("Need did not skip without the tool")
	}
}

func TestToolsRequiredOnlyWhenAsked(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if toolsRequired(get) {
		t.Fatal("a developer's machine must skip, not fail")
	}
	env[RequireToolsEnv] = "1"
	if !toolsRequired(get) {
		t.Fatal("with LLAMACTL_REQUIRE_TOOLS=1 a missing tool must fail the test")
	}
}
