package archtest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// privateNotes matches citations of the research notes the project was
// started from (their file names and section signs). Users and maintainers
// do not have those notes: code, data, docs and test data cite the public
// origin instead (an issue or PR URL, an NVIDIA or Microsoft document, a
// llama.cpp file) and, for a recorded output, the repository's copy of it.
var privateNotes = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`(?:^|[^/\w-])doctor\.md ?§`, // docs/doctor.md is ours; a section of the notes' doctor.md is not
	`llamacpp-build\.md`,
	`windows-outputs`,
	`shared/reference`,
	`cuda-matrix\.(?:md|json)`,
	`failure-ids\.md ?§`,
	`seeds-digest`,
	`autotune\.md`,
}, "|"))

// searchIndex matches pointers into the search index the notes were
// researched with ("find_string id 123"), which nobody else can follow.
var searchIndex = regexp.MustCompile(`find_string ids? \d|\bids? \d{9,12}\b`)

// verbatimResearch is the one file allowed to keep such pointers: the
// converted research kept verbatim as the oracle matrix/data_test.go
// compares the matrix data with.
const verbatimResearch = "testdata/matrix/cuda-matrix.reference.json"

// thisFile is skipped: it has to spell the patterns.
const thisFile = "internal/archtest/provenance_test.go"

// checkedText is the part of a file whose citations are checked. A recorded
// output (a header of "# key: value" lines ended by "# ---", then the tool's
// output verbatim, see internal/recorded) is checked in its header only: the
// body is what someone else posted and is kept as posted.
func checkedText(b []byte) []byte {
	if !bytes.HasPrefix(b, []byte("# ")) {
		return b
	}
	for _, sep := range []string{"\n# ---\n", "\r\n# ---\r\n"} {
		if i := bytes.Index(b, []byte(sep)); i >= 0 {
			return b[:i+len(sep)]
		}
	}
	return b
}

// repoRoot is the folder holding go.mod, above the test's folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// repoFiles lists the files git tracks or would track (untracked files that
// are not ignored count: a new file is checked before its first commit).
// Without git (a source archive) it walks the tree, skipping dot folders.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
		cmd.Dir = root
		if out, err := cmd.Output(); err == nil {
			var files []string
			for _, f := range strings.Split(string(out), "\x00") {
				if f != "" {
					files = append(files, f)
				}
			}
			return files
		}
	}
	ignored := gitignore(root)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || ignored(rel, true)) {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && !ignored(rel, false) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// gitignore reads the root .gitignore's simple patterns (what a walk
// without git must skip: build output such as dist/ holds binaries built
// from older commits): "/dist/", "*.test", "/llamactl". Patterns with
// "**" or negations are left out (they only narrow what is ignored).
func gitignore(root string) func(rel string, dir bool) bool {
	b, _ := os.ReadFile(filepath.Join(root, ".gitignore"))
	type pat struct {
		glob            string
		anchored, onDir bool
	}
	var pats []pat
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "!") || strings.Contains(l, "**") {
			continue
		}
		p := pat{anchored: strings.HasPrefix(l, "/"), onDir: strings.HasSuffix(l, "/")}
		p.glob = strings.Trim(l, "/")
		pats = append(pats, p)
	}
	return func(rel string, dir bool) bool {
		for _, p := range pats {
			if p.onDir && !dir {
				continue
			}
			name := path.Base(rel)
			if p.anchored {
				name = rel
			}
			if ok, _ := path.Match(p.glob, name); ok {
				return true
			}
		}
		return false
	}
}

// No file of the repository cites the private research notes.
func TestNoCitationOfPrivateNotes(t *testing.T) {
	root := repoRoot(t)
	files := repoFiles(t, root)
	if len(files) < 100 {
		t.Fatalf("found only %d files under %s", len(files), root)
	}
	for _, f := range files {
		if f == thisFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if errors.Is(err, fs.ErrNotExist) {
			continue // tracked but deleted in this working tree
		} else if err != nil {
			t.Fatal(err)
		}
		text := checkedText(b)
		for n, line := range bytes.Split(text, []byte("\n")) {
			if m := privateNotes.Find(line); m != nil {
				t.Errorf("%s:%d cites our private notes (%q): name the public source (issue/PR URL, NVIDIA or Microsoft document, llama.cpp file) and, for a recorded output, its copy under testdata/", f, n+1, bytes.TrimSpace(m))
			}
			if m := searchIndex.Find(line); m != nil && f != verbatimResearch {
				t.Errorf("%s:%d cites the research's search index (%q): name the public page or repository, or say it was not recorded", f, n+1, m)
			}
		}
	}
}

func TestPrivateNotesPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"doctor.md §4.6 (-allow-unsupported-compiler)":              true,
		"(doctor.md §3.1)":                                          true,
		"source: written from llamacpp-build.md §4 F04":             true,
		"windows-outputs/nvcc/nvcc-13.0.88-win.txt":                 true,
		"the reference's windows-outputs format":                    true,
		"shared/reference/windows-outputs/logs/x.log":               true,
		"cuda-matrix.md arch windows":                               true,
		"cuda-matrix.json msvc_msc_ver_accepted":                    true,
		"failure-ids.md §2":                                         true,
		"see seeds-digest":                                          true,
		"autotune.md §6.4":                                          true,
		"docs/doctor.md, Every check, section A (env.overrides)":    false,
		"[doctor.md](doctor.md#language--语言)":                       false,
		"testdata/matrix/cuda-matrix.reference.json":                false,
		"testdata/logs/failure-ids.md":                              false,
		"https://github.com/ggml-org/llama.cpp/issues/8628":         false,
		"testdata/doctor/recordings/fixtures/nvcc/nvcc-13.0.88.txt": false,
	} {
		if got := privateNotes.MatchString(s); got != want {
			t.Errorf("%q: matched %v, want %v", s, got, want)
		}
	}
}

func TestSearchIndexPattern(t *testing.T) {
	for s, want := range map[string]bool{
		"(quoted in a test file, find_string id 71531184868)":     true,
		"(find_string ids 54577914223, 70179285156)":              true,
		"write-ups (ids 22555270910, 51865223163)":                true,
		"pid 12345 and build id 42":                               false,
		"(quoted in a test file, public repository not recorded)": false,
	} {
		if got := searchIndex.MatchString(s); got != want {
			t.Errorf("%q: matched %v, want %v", s, got, want)
		}
	}
}

func TestCheckedTextStopsAtTheRecordedBody(t *testing.T) {
	for in, want := range map[string]string{
		"# source: https://x\n# ---\nwindows-outputs in the body\n":   "# source: https://x\n# ---\n",
		"# source: x\r\n# tool: y\r\n# ---\r\nbody\r\n":               "# source: x\r\n# tool: y\r\n# ---\r\n",
		"# a comment without a recorded-output header\nmore text\n":   "# a comment without a recorded-output header\nmore text\n",
		"plain text\n# ---\nnot a header\n":                           "plain text\n# ---\nnot a header\n",
		"# source: x\n# ---\n":                                        "# source: x\n# ---\n",
		"# source: a header that never ends\nwindows-outputs/x.txt\n": "# source: a header that never ends\nwindows-outputs/x.txt\n",
	} {
		if got := string(checkedText([]byte(in))); got != want {
			t.Errorf("checkedText(%q) = %q, want %q", in, got, want)
		}
	}
}

// Without git (the Windows tests under wine) the walk skips what
// .gitignore names, such as dist/ with binaries of older commits.
func TestGitignoreWalk(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("# build output\n/dist/\n*.test\n/llamactl\n!keep.test\n/testdata/**/tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ignored := gitignore(root)
	for _, c := range []struct {
		rel  string
		dir  bool
		want bool
	}{
		{"dist", true, true},
		{"dist", false, false}, // "/dist/" names a folder only
		{"docs/dist", true, false},
		{"distx", true, false},
		{"runner/x.test", false, true},
		{"llamactl", false, true},
		{"cmd/llamactl", true, false},
		{"README.md", false, false},
	} {
		if got := ignored(c.rel, c.dir); got != c.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", c.rel, c.dir, got, c.want)
		}
	}
}
