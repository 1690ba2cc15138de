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
	for _, r := range plan.Vulkan().GlslcRequirements {
		text, ok := cache[r.MarkerFile]
		if !ok {
			text = read(r.MarkerFile)
			cache[r.MarkerFile] = text
		}
		if r.Marker != "" && strings.Contains(text, r.Marker) {
			f.GlslcNeeds = append(f.GlslcNeeds, r.ID)
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

// CheckGlslc compiles the tree's own shader feature tests of the glslc
// requirements in f.GlslcNeeds with glslc (as llama.cpp's CMake does:
// -fshader-stage=compute --target-env=vulkan1.3) and records those it
// fails with glslc's first error line. run executes one command and returns
// its combined output and whether it exited 0.
func CheckGlslc(f plan.SourceFacts, dir, glslc string, run func(name string, args ...string) (string, bool)) plan.SourceFacts {
	if glslc == "" || len(f.GlslcNeeds) == 0 {
		return f
	}
	tmp, err := os.MkdirTemp("", "llamactl-glslc-")
	if err != nil {
		return f
	}
	defer os.RemoveAll(tmp)
	f.Glslc = glslc
	for _, r := range plan.Vulkan().GlslcRequirements {
		if !slices.Contains(f.GlslcNeeds, r.ID) {
			continue
		}
		test := filepath.Join(dir, filepath.FromSlash(r.FeatureTest))
		if _, err := os.Stat(test); err != nil {
			continue
		}
		out, ok := run(glslc, "-fshader-stage=compute", "--target-env=vulkan1.3", test, "-o", filepath.Join(tmp, r.ID+".spv"))
		if ok {
			continue
		}
		if f.GlslcLacks == nil {
			f.GlslcLacks = map[string]string{}
		}
		first := strings.TrimSpace(out)
		for _, l := range strings.Split(first, "\n") {
			if strings.Contains(l, "error") {
				first = strings.TrimSpace(l)
				break
			}
		}
		if i := strings.LastIndex(first, test); i >= 0 {
			first = filepath.Base(test) + first[i+len(test):]
		}
		if len(first) > 300 {
			first = first[:300]
		}
		f.GlslcLacks[r.ID] = first
	}
	return f
}
