// Package paths says where llamactl keeps its files, so build (which writes
// the engine cache and the last-build record) and run (which reads them)
// agree on one place.
package paths

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// CacheDir is llamactl's cache directory: LLAMACTL_CACHE_DIR, else
// %LOCALAPPDATA%\llamactl on Windows, else $XDG_CACHE_HOME/llamactl, else
// ~/.cache/llamactl. goos is the target OS (tests pass "windows" on Linux).
func CacheDir(goos string, getenv func(string) string) string {
	// Joined with goos's separator: doctor computes the cache folder of the
	// machine it describes, which is not always the one it runs on.
	join := func(dir string, elem ...string) string {
		if goos == "windows" {
			return strings.Join(append([]string{strings.TrimRight(dir, `\/`)}, elem...), `\`)
		}
		return path.Join(append([]string{dir}, elem...)...)
	}
	if d := getenv("LLAMACTL_CACHE_DIR"); d != "" {
		return d
	}
	if goos == "windows" {
		if d := getenv("LOCALAPPDATA"); d != "" {
			return join(d, "llamactl")
		}
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return join(d, "llamactl")
	}
	if h := getenv("HOME"); h != "" {
		return join(h, ".cache", "llamactl")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "llamactl")
	}
	return filepath.Join(os.TempDir(), "llamactl")
}

// LastBuildName is the record `llamactl build` leaves in the cache dir so
// that `llamactl run` finds the binaries it produced.
const LastBuildName = "last-build.json"

// LastBuild is that record.
type LastBuild struct {
	Schema   int    `json:"schema"`
	BinDir   string `json:"bin_dir"`
	Manifest string `json:"manifest,omitempty"`
}

// WriteLastBuild records the binaries of a successful build, atomically.
func WriteLastBuild(cacheDir string, rec LastBuild) error {
	rec.Schema = 1
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(cacheDir, LastBuildName), append(b, '\n'))
}

func isWindows() bool { return filepath.Separator == '\\' }
