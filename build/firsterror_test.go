package build

import (
	"os"
	"strings"
	"testing"
)

func TestFirstCompilerErrorRealLogs(t *testing.T) {
	cases := map[string]string{
		// real g++ output against bookworm's Vulkan headers (UTF-8 quotes)
		"../testdata/logs/here-vulkan-headers-too-old-layer-settings.log": "ls.cpp:5: ‘LayerSettingEXT’ is not a member of ‘vk’",
		// real glslc output: a tool's error without a location
		"../testdata/logs/here-vulkan-glslc-too-old-target-env.log": "glslc: invalid value 'vulkan1.4' in '--target-env=vulkan1.4'",
	}
	for file, want := range cases {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := FirstCompilerError(string(b))
		if !ok || got.String() != want {
			t.Errorf("%s: got %q (%v), want %q", file, got.String(), ok, want)
		}
	}
}

func TestFirstCompilerErrorShapes(t *testing.T) {
	cases := []struct{ log, want string }{
		{"[12/500] Building CXX object x.o\nFAILED: x.o\n/src/a.cpp:10:3: error: 'foo' was not declared in this scope\n/src/a.cpp:11:3: error: second", "/src/a.cpp:10: 'foo' was not declared in this scope"},
		{"C:\\src\\ggml-vulkan.cpp(5009,22): error C2039: 'LayerSettingEXT': is not a member of 'vk'", "C:\\src\\ggml-vulkan.cpp:5009: C2039: 'LayerSettingEXT': is not a member of 'vk'"},
		{"\x1b[1m/src/b.cu(7): error: identifier \"__hmax2\" is undefined\x1b[0m", "/src/b.cu:7: identifier \"__hmax2\" is undefined"},
		{"/usr/bin/ld: libggml.so: undefined reference to `cuMemCreate'\ncollect2: error: ld returned 1 exit status", "/usr/bin/ld: libggml.so: undefined reference to `cuMemCreate'"},
		{"clang: fatal error: no input files\n/x/y.c:3:1: fatal error: spirv.hpp: No such file or directory", "/x/y.c:3: spirv.hpp: No such file or directory"},
	}
	for _, c := range cases {
		got, ok := FirstCompilerError(c.log)
		if !ok || got.String() != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.log, got.String(), ok, c.want)
		}
	}
	if e, ok := FirstCompilerError("[1/2] Building\nninja: build stopped: subcommand failed.\n"); ok {
		t.Errorf("no compiler error in the log, got %+v", e)
	}
	if _, ok := FirstCompilerError(strings.Repeat("x", 200000) + "\n"); ok {
		t.Error("a huge line is not an error")
	}
}

func FuzzFirstCompilerError(f *testing.F) {
	f.Add("/src/a.cpp:10:3: error: x\n")
	f.Add("C:\\a.cpp(1): error C1: y")
	f.Add("glslc: error: z")
	f.Fuzz(func(t *testing.T, s string) {
		e, ok := FirstCompilerError(s)
		if ok && e.LogLine <= 0 {
			t.Fatalf("found %+v at line %d", e, e.LogLine)
		}
		if ok && e.Message == "" {
			t.Fatalf("empty message: %+v", e)
		}
	})
}
