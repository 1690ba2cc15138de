package engine

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMissingGGML(t *testing.T) {
	write := func(t *testing.T, dir, name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The shape of llama.cpp's root CMakeLists.txt around ggml.
	root := "if (NOT TARGET ggml AND NOT LLAMA_USE_SYSTEM_GGML)\n    add_subdirectory(ggml)\nendif()\nadd_subdirectory(src)\n"

	dfsg := t.TempDir() // Debian's llama.cpp source package: no ggml/
	write(t, dfsg, "CMakeLists.txt", root)
	if got := MissingGGML(dfsg); got != "ggml" {
		t.Errorf("tree without ggml/: MissingGGML = %q, want ggml", got)
	}

	empty := t.TempDir() // an empty ggml/ (a submodule-like leftover) is missing too
	write(t, empty, "CMakeLists.txt", root)
	if err := os.Mkdir(filepath.Join(empty, "ggml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := MissingGGML(empty); got != "ggml" {
		t.Errorf("empty ggml/: MissingGGML = %q, want ggml", got)
	}

	full := t.TempDir() // ggml's source placed as ggml/ (upstream's layout)
	write(t, full, "CMakeLists.txt", root)
	write(t, full, "ggml/CMakeLists.txt", "project(ggml)\n")
	if got := MissingGGML(full); got != "" {
		t.Errorf("complete tree: MissingGGML = %q", got)
	}

	if got := MissingGGML("../../testdata/engine"); got != "" {
		t.Errorf("fixture engine: MissingGGML = %q", got)
	}

	old := t.TempDir() // before the ggml/ split (2024) ggml.c was at the top: nothing to miss
	write(t, old, "CMakeLists.txt", "add_library(ggml OBJECT ggml.c)\n# add_subdirectory(ggml) in a comment\n")
	if got := MissingGGML(old); got != "" {
		t.Errorf("old flat tree: MissingGGML = %q", got)
	}
}
