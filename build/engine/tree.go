package engine

import (
	"os"
	"path/filepath"
	"regexp"
)

// ggmlSubdirRE finds the add_subdirectory calls of ggml in a root
// CMakeLists.txt: upstream's "add_subdirectory(ggml)" (the fixture engine's
// "add_subdirectory(ggml/src)"). Paths with variables are not followed.
var ggmlSubdirRE = regexp.MustCompile(`(?m)^[ \t]*add_subdirectory\([ \t]*(ggml(?:/[A-Za-z0-9_./-]*)?)[ \t]*\)`)

// MissingGGML returns the ggml directory the tree's CMakeLists.txt builds but
// that is not in the tree, or "" when nothing is missing. Debian's llama.cpp
// source package (+dfsg) is such a tree: it leaves ggml out and builds against
// the system's libggml (LLAMA_USE_SYSTEM_GGML=ON), so CMake would stop with
// "add_subdirectory given source "ggml" which is not an existing directory".
func MissingGGML(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "CMakeLists.txt"))
	if err != nil {
		return ""
	}
	for _, m := range ggmlSubdirRE.FindAllSubmatch(b, -1) {
		sub := string(m[1])
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(sub), "CMakeLists.txt")); err != nil {
			return sub
		}
	}
	return ""
}
