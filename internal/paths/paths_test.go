package paths

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestCacheDirPrecedence(t *testing.T) {
	cases := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", map[string]string{"LLAMACTL_CACHE_DIR": "/ci/cache", "XDG_CACHE_HOME": "/x"}, "/ci/cache"},
		// The described machine's separators, whichever system runs this
		// (a Linux snapshot read on Windows, a Windows one on Linux).
		{"linux", map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/home/u"}, "/x/llamactl"},
		{"linux", map[string]string{"HOME": "/home/u"}, "/home/u/.cache/llamactl"},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`, "HOME": "/home/u"}, `C:\Users\u\AppData\Local\llamactl`},
		{"linux", map[string]string{"LOCALAPPDATA": "/ignored", "HOME": "/h"}, "/h/.cache/llamactl"},
	}
	for _, c := range cases {
		if got := CacheDir(c.goos, env(c.env)); got != c.want {
			t.Errorf("%s %v: got %s want %s", c.goos, c.env, got, c.want)
		}
	}
}

func TestWriteLastBuildRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "llamactl")
	if err := WriteLastBuild(dir, LastBuild{BinDir: "/out/bin", Manifest: "/out/manifest.json"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, LastBuildName))
	if err != nil {
		t.Fatal(err)
	}
	var got LastBuild
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != 1 || got.BinDir != "/out/bin" || got.Manifest != "/out/manifest.json" {
		t.Fatalf("got %+v", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
}
