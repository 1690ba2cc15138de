package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/llamactl/llamactl/build/plan"
)

// cmakeFilesWithNetworkOptions are the tree's CMake files that declare or
// test the options which make llama.cpp's build download something.
var cmakeFilesWithNetworkOptions = []string{
	"CMakeLists.txt",
	"tools/ui/CMakeLists.txt",
	"tools/server/CMakeLists.txt",
	"vendor/cpp-httplib/CMakeLists.txt",
	"common/CMakeLists.txt",
	"ggml/src/ggml-cuda/CMakeLists.txt",
}

// ScanSource reads what a llama.cpp tree says about itself, for the plan:
// which Vulkan header requirements its code has (the markers of
// build/plan/data/vulkan.json) and which network options its CMake knows.
// It reads a few files and runs nothing; a missing file means "no".
func ScanSource(dir string) plan.SourceFacts {
	f := plan.SourceFacts{Scanned: true}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return ""
		}
		return string(b)
	}
	cache := map[string]string{}
	for _, r := range plan.Vulkan().HeaderRequirements {
		text, ok := cache[r.MarkerFile]
		if !ok {
			text = read(r.MarkerFile)
			cache[r.MarkerFile] = text
		}
		if r.Marker != "" && strings.Contains(text, r.Marker) {
			f.VulkanNeeds = append(f.VulkanNeeds, r.ID)
		}
	}
	var cmake strings.Builder
	for _, rel := range cmakeFilesWithNetworkOptions {
		cmake.WriteString(read(rel))
		cmake.WriteByte('\n')
	}
	for _, n := range plan.OptionTable().Network {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(n.Name) + `\b`).MatchString(cmake.String()) {
			f.Options = append(f.Options, n.Name)
		}
	}
	slices.Sort(f.Options)
	return f
}
