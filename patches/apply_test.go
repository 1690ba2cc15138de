package patches

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
)

const fixtures = "../testdata/build/patches"

// copyTree copies the fixture tree into a temp dir the test may modify.
func copyTree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(fixtures, "tree")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func readDiff(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestApplyDiffThenReapply(t *testing.T) {
	root := copyTree(t)
	diff := readDiff(t, "cuda-runtime-include.diff")
	res, err := ApplyDiff(root, diff)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if res.AlreadyApplied || len(res.Files) != 2 {
		t.Fatalf("result = %+v, want 2 files freshly applied", res)
	}
	stream := read(t, filepath.Join(root, "ggml/src/ggml-cuda/stream.cuh"))
	if !strings.Contains(stream, "#include <cstddef>\n#include <cuda_runtime.h>\n") {
		t.Errorf("include not added:\n%s", stream)
	}
	if !strings.Contains(read(t, filepath.Join(root, "ggml/src/ggml-cuda/copy.cu")), "(void)s.stream;") {
		t.Error("second file not patched")
	}

	res, err = ApplyDiff(root, diff)
	if err != nil {
		t.Fatalf("re-apply: %v", err)
	}
	if !res.AlreadyApplied {
		t.Fatal("re-applying did not report AlreadyApplied")
	}
	if got := read(t, filepath.Join(root, "ggml/src/ggml-cuda/stream.cuh")); got != stream {
		t.Errorf("re-apply changed the file:\n%s", got)
	}
}

func TestApplyDiffConflictWritesNothing(t *testing.T) {
	root := copyTree(t)
	// The second file of the diff no longer matches: the first must stay untouched.
	copyPath := filepath.Join(root, "ggml/src/ggml-cuda/copy.cu")
	if err := os.WriteFile(copyPath, []byte("// rewritten upstream\nint x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := read(t, filepath.Join(root, "ggml/src/ggml-cuda/stream.cuh"))
	_, err := ApplyDiff(root, readDiff(t, "cuda-runtime-include.diff"))
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	if !strings.Contains(err.Error(), "copy.cu") {
		t.Errorf("error does not name the conflicting file: %v", err)
	}
	if after := read(t, filepath.Join(root, "ggml/src/ggml-cuda/stream.cuh")); after != before {
		t.Error("a conflicting diff half-applied: stream.cuh changed")
	}
	entries, _ := os.ReadDir(filepath.Join(root, "ggml/src/ggml-cuda"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".llamactl-patch-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestApplyDiffRefusesOutsideTree(t *testing.T) {
	root := copyTree(t)
	for _, name := range []string{"outside-dotdot.diff", "outside-abs.diff"} {
		_, err := ApplyDiff(root, readDiff(t, name))
		if !errors.Is(err, ErrOutsideTree) {
			t.Errorf("%s: err = %v, want ErrOutsideTree", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "escape.txt")); err == nil {
		t.Error("escape.txt was written outside the tree")
	}
}

func TestApplyDiffRefusesLinkOutOfTree(t *testing.T) {
	testutil.Symlinks(t)
	root := copyTree(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "ggml/src/ggml-cuda/linked")); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
	diff := strings.ReplaceAll(string(readDiff(t, "new-file.diff")), "ggml-cuda/added.h", "ggml-cuda/linked/added.h")
	_, err := ApplyDiff(root, []byte(diff))
	if !errors.Is(err, ErrOutsideTree) {
		t.Fatalf("err = %v, want ErrOutsideTree", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "added.h")); err == nil {
		t.Error("file written through the link")
	}
}

func TestApplyDiffCreatesFile(t *testing.T) {
	root := copyTree(t)
	diff := readDiff(t, "new-file.diff")
	if _, err := ApplyDiff(root, diff); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(root, "ggml/src/ggml-cuda/added.h")); got != "#pragma once\n#include <cuda_runtime.h>\n" {
		t.Errorf("created file = %q", got)
	}
	res, err := ApplyDiff(root, diff)
	if err != nil || !res.AlreadyApplied {
		t.Errorf("second apply = %+v, %v; want already applied", res, err)
	}
}

func TestApplyDiffRejectsGarbage(t *testing.T) {
	root := copyTree(t)
	for _, in := range []string{"", "hello\nworld\n", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n"} {
		if _, err := ApplyDiff(root, []byte(in)); err == nil {
			t.Errorf("ApplyDiff(%q) = nil error", in)
		}
	}
}

// FuzzApplyDiff feeds arbitrary diffs to the parser and applier: it must
// never panic, never write outside the tree, and either apply or refuse.
func FuzzApplyDiff(f *testing.F) {
	for _, name := range []string{"cuda-runtime-include.diff", "outside-dotdot.diff", "outside-abs.diff", "new-file.diff"} {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("--- a/x\n+++ b/x\n@@ -1,0 +1,1 @@\n+y\n"))
	f.Fuzz(func(t *testing.T, diff []byte) {
		parent := t.TempDir()
		root := filepath.Join(parent, "tree")
		if err := os.MkdirAll(filepath.Join(root, "ggml"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "ggml", "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = ApplyDiff(root, diff)
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Fatalf("diff wrote outside the tree: %v", entries)
		}
	})
}
