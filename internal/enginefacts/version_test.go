package enginefacts

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

func TestParseVersion(t *testing.T) {
	cases := []struct {
		in   string
		want Version
	}{
		// Debian's llama.cpp-tools (testdata/runner/llama-server-b11669-version.txt).
		{"version: 0.7.0 (build 11669, commit Debian)\nbuilt with GNU 16.2.0 for Linux x86_64\n",
			Version{Line: "version: 0.7.0 (build 11669, commit Debian)", Version: "0.7.0", Build: 11669, Commit: "Debian"}},
		// Upstream before the semver switch.
		{"version: 6123 (abc1234)\n", Version{Line: "version: 6123 (abc1234)", Version: "6123", Build: 6123, Commit: "abc1234"}},
		{"version: 4589 (a1b2c3d4-dirty)\n", Version{Line: "version: 4589 (a1b2c3d4-dirty)", Version: "4589", Build: 4589, Commit: "a1b2c3d4", Dirty: true}},
		// Windows release (llama.cpp#22778), CRLF line ends, after log lines.
		{"load_backend: loaded CPU backend\r\nversion: 9049 (2496f9c14)\r\nbuilt with Clang 19.1.5 for Windows x86_64\r\n",
			Version{Line: "version: 9049 (2496f9c14)", Version: "9049", Build: 9049, Commit: "2496f9c14"}},
		// Semver development builds (llama.cpp#28505), dirty too.
		{"version: 0.4.0-dev (build 10825, commit 9e0e22059)", Version{Line: "version: 0.4.0-dev (build 10825, commit 9e0e22059)", Version: "0.4.0-dev", Build: 10825, Commit: "9e0e22059"}},
		{"version: 0.4.1-dev (build 10991, commit 930e2fa59-dirty)", Version{Line: "version: 0.4.1-dev (build 10991, commit 930e2fa59-dirty)", Version: "0.4.1-dev", Build: 10991, Commit: "930e2fa59", Dirty: true}},
		// A source archive built without git.
		{"version: 0 (unknown)", Version{Line: "version: 0 (unknown)", Version: "0", Build: 0, Commit: "unknown"}},
		// through llama.cpp's logger with its timestamp and level (a real tree's llama-server, v0.5.0)
		{"0.00.010.553 I version: 0.5.0-dev (build 1, commit de3ff81)\nbuilt with GNU 12.2.0 for Linux x86_64\nsrv  llama_server: initializing ...",
			Version{Line: "version: 0.5.0-dev (build 1, commit de3ff81)", Version: "0.5.0-dev", Build: 1, Commit: "de3ff81"}},
		{"I version: 6123 (abc1234)\n", Version{Line: "version: 6123 (abc1234)", Version: "6123", Build: 6123, Commit: "abc1234"}},
	}
	for _, c := range cases {
		got, ok := ParseVersion(c.in)
		if !ok || got != c.want {
			t.Errorf("ParseVersion(%q) = %+v, %v; want %+v", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{"", "error: invalid argument: --version", "llama-server: command not found",
		"  version: 9049 (2496f9c14)", "version: (2496f9c14)", "version: 9049", "server version: 9049 (abc)", "X version: 9049 (abc)", "0.00 I version: 9049 (abc)"} {
		if v, ok := ParseVersion(in); ok {
			t.Errorf("ParseVersion(%q) = %+v, want none", in, v)
		}
	}
}

// The recorded banner of Debian's real build.
func TestParseVersionDebianRecording(t *testing.T) {
	v, ok := ParseVersion(testutil.Fixture(t, "runner", "llama-server-b11669-version.txt"))
	if !ok || v.Version != "0.7.0" || v.Build != 11669 || v.Commit != "Debian" || v.Dirty {
		t.Errorf("got %+v, %v", v, ok)
	}
}

// The fixture engine (testdata/engine) prints its banner with the format in
// its llama-cli.cpp; the build tests configure it as build 9591, commit
// e95dae18d, and an archive without git gets 0 (unknown).
func TestParseVersionFixtureEngine(t *testing.T) {
	src := testutil.Fixture(t, "engine", "tools", "cli", "llama-cli.cpp")
	m := regexp.MustCompile(`"(version: %d \(%s\))\\n"`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("the fixture engine's llama-cli.cpp no longer prints the banner format this test follows")
	}
	for _, c := range []struct {
		build  int
		commit string
	}{{9591, "e95dae18d"}, {0, "unknown"}, {9591, "e95dae18d-dirty"}} {
		out := fmt.Sprintf(m[1], c.build, c.commit) + "\nbuilt with GNU 12.2.0 for Linux x86_64\n"
		v, ok := ParseVersion(out)
		if !ok || v.Build != c.build || v.Commit != strings.TrimSuffix(c.commit, "-dirty") || v.Dirty != strings.HasSuffix(c.commit, "-dirty") {
			t.Errorf("ParseVersion(%q) = %+v, %v", out, v, ok)
		}
	}
}

func FuzzParseVersion(f *testing.F) {
	f.Add("version: 0.7.0 (build 11669, commit Debian)\n")
	f.Add("version: 4589 (a1b2c3d4-dirty)\r\n")
	f.Add("version: 0 (unknown)")
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseVersion(s)
		if !ok {
			return
		}
		if !strings.Contains(s, v.Line) || !strings.HasPrefix(v.Line, "version:") || strings.ContainsAny(v.Line, "\r\n") {
			t.Fatalf("line %q not a banner line of %q", v.Line, s)
		}
		if v.Build < 0 || v.Commit == "" || (v.Dirty && !strings.Contains(v.Line, v.Commit+"-dirty)")) {
			t.Fatalf("ParseVersion(%q) = %+v", s, v)
		}
	})
}
