package enginefacts

import (
	"regexp"
	"strconv"
	"strings"
)

// Version is what llama.cpp's "version:" banner line (--version, on
// stderr) says about a binary. Two shapes exist (llama.cpp's
// common/build-info.cpp.in and the Debian package's build):
//
//	version: 9049 (2496f9c14)                      up to Aug 2026: build number (commit)
//	version: 0.7.0 (build 11669, commit Debian)    since the semver switch
//
// The commit is whatever LLAMA_BUILD_COMMIT was: a short hash, "unknown"
// (no git), or a packager's label ("Debian"); a tree with local changes
// adds "-dirty", which Commit leaves off and Dirty records, so the commit
// compares with a lock file's.
type Version struct {
	Line    string // the banner line as printed, without the line end
	Version string // "0.7.0", or the build number in the older shape ("9049")
	Build   int    // 0 when the binary was built without git
	Commit  string
	Dirty   bool
}

// The banner goes through llama.cpp's logger (common/log.cpp), which may
// put its prefix before it: a timestamp and a level ("0.00.010.553 I "). A
// freshly built llama-server (the real tree, v0.5.0) printed it so once in
// five --version runs here, and build's verify then failed the build.
var versionLineRE = regexp.MustCompile(`(?m)^(?:\d+\.\d\d\.\d{3}\.\d{3} )?(?:[IWED] )?(version:[ \t]*(\d+(?:\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)?)[ \t]+\((?:build[ \t]+(\d+),[ \t]*commit[ \t]+([^\s(),]+)|([^\s(),]+))\))`)

// ParseVersion finds the first "version:" banner line in a binary's output;
// ok is false when there is none.
func ParseVersion(out string) (v Version, ok bool) {
	m := versionLineRE.FindStringSubmatch(out)
	if m == nil {
		return Version{}, false
	}
	m = m[1:] // the line without the logger's prefix
	v.Line, v.Version = m[0], m[1]
	commit := m[4]
	if m[2] != "" {
		v.Build, _ = strconv.Atoi(m[2])
		commit = m[3]
	} else if !strings.Contains(v.Version, ".") {
		v.Build, _ = strconv.Atoi(v.Version) // older shape: the version is the build number
	}
	v.Commit = commit
	if c, dirty := strings.CutSuffix(commit, "-dirty"); dirty && c != "" {
		v.Commit, v.Dirty = c, true
	}
	return v, true
}
