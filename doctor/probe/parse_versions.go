package probe

import (
	"regexp"
	"strconv"
	"strings"
)

// Parsers of tool output. Every input is untrusted (localized, truncated,
// garbage): they return zero values rather than fail, and each has a fuzz
// target in parse_fuzz_test.go.

var (
	reNvccRelease = regexp.MustCompile(`release (\d+)\.(\d+), V(\d+\.\d+\.\d+)`)
	reNvccRelOnly = regexp.MustCompile(`release (\d+\.\d+)`)
	reGPUArch     = regexp.MustCompile(`\b(compute|sm|lto)_(\d+[a-z]?)\b`)
)

// ParseNvccVersion reads `nvcc --version`: "Cuda compilation tools, release
// 12.4, V12.4.131" → "12.4.131". Older outputs without the
// V field give "12.4".
func ParseNvccVersion(out string) string {
	if m := reNvccRelease.FindStringSubmatch(out); m != nil {
		return m[3]
	}
	if m := reNvccRelOnly.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// ParseListGPUArch reads `nvcc --list-gpu-arch` (compute_50 ... one a line).
func ParseListGPUArch(out string) []string {
	var archs []string
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if m := reGPUArch.FindStringSubmatch(line); m != nil && m[0] == line && !seen[line] {
			seen[line] = true
			archs = append(archs, line)
		}
	}
	return archs
}

var (
	// The cl banner is localized; the stable parts are the dotted version and
	// the target architecture token (the banners in testdata/matrix/cl):
	// "Version 19.41.34123 for x64", zh-CN
	// "用于 x64 的 ... 19.16.27048 版".
	reClVersion = regexp.MustCompile(`\b(19\.\d{2}\.\d{5}(?:\.\d+)?)\b`)
	reClArch    = regexp.MustCompile(`(?i)\b(x64|x86|arm64|arm)\b`)
)

// ClBanner is what the cl.exe banner says.
type ClBanner struct {
	Version string // "19.41.34123"
	Arch    string // "x64"
}

// ParseClBanner finds the first compiler banner line in cl's output.
func ParseClBanner(out string) ClBanner {
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "C/C++") {
			continue
		}
		m := reClVersion.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		b := ClBanner{Version: m[1]}
		if a := reClArch.FindStringSubmatch(line); a != nil {
			b.Arch = strings.ToLower(a[1])
		}
		return b
	}
	return ClBanner{}
}

var (
	reGCCFirst = regexp.MustCompile(`^\S*(?:gcc|g\+\+|c\+\+|cc)\S*\s+\(.*\)\s+(\d+\.\d+(?:\.\d+)?)`)
	reGCCPlain = regexp.MustCompile(`^\S*(?:gcc|g\+\+)\S*\s+(?:version\s+)?(\d+\.\d+(?:\.\d+)?)`)
	reClangVer = regexp.MustCompile(`clang version (\d+\.\d+(?:\.\d+)?)`)
	reTarget   = regexp.MustCompile(`(?m)^Target:\s*(\S+)`)
	reDotted   = regexp.MustCompile(`\b(\d+\.\d+(?:\.\d+)?(?:\.\d+)?)\b`)
	reCmakeVer = regexp.MustCompile(`cmake version (\d+\.\d+(?:\.\d+)?(?:-\S+)?)`)
	reGitVer   = regexp.MustCompile(`git version (\d+\.\d+(?:\.\d+)?)`)
	reGlibcLdd = regexp.MustCompile(`(?m)^ldd \(.*\)\s+(\d+\.\d+)`)
)

// GCCVersion parses the first line of `gcc --version` / `g++ --version`:
// "g++ (Debian 12.2.0-14) 12.2.0" → "12.2.0".
func ParseGCCVersion(out string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	first = strings.TrimSpace(first)
	if m := reGCCFirst.FindStringSubmatch(first); m != nil {
		return m[1]
	}
	if m := reGCCPlain.FindStringSubmatch(first); m != nil {
		return m[1]
	}
	return ""
}

// ParseClangVersion parses `clang --version` / `clang-cl --version`
// ("clang version 17.0.3", also in localized and vendor-prefixed forms such
// as "Ubuntu clang version 14.0.0-1ubuntu1") and the Target line.
func ParseClangVersion(out string) (version, target string) {
	if m := reClangVer.FindStringSubmatch(out); m != nil {
		version = m[1]
	}
	if m := reTarget.FindStringSubmatch(out); m != nil {
		target = m[1]
	}
	return version, target
}

// ParseCMakeVersion: "cmake version 3.25.1".
func ParseCMakeVersion(out string) string {
	if m := reCmakeVer.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// ParseNinjaVersion: ninja --version prints just "1.11.1".
func ParseNinjaVersion(out string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if m := reDotted.FindStringSubmatch(first); m != nil && strings.HasPrefix(strings.TrimSpace(first), m[1]) {
		return m[1]
	}
	return ""
}

// ParseGitVersion: "git version 2.39.5" or "git version 2.45.1.windows.1".
func ParseGitVersion(out string) string {
	if m := reGitVer.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// ParseLddVersion: "ldd (Debian GLIBC 2.36-9+deb12u10) 2.36".
func ParseLddVersion(out string) string {
	if m := reGlibcLdd.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// major is the leading integer of a dotted version, 0 if none.
func major(v string) int {
	s, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

var reCcache = regexp.MustCompile(`ccache version (\d+\.\d+(?:\.\d+)?)`)

var reSccache = regexp.MustCompile(`^sccache (\d+\.\d+(?:\.\d+)?)`)

// ParseSccacheVersion reads "sccache 0.8.1".
func ParseSccacheVersion(out string) string {
	if m := reSccache.FindStringSubmatch(strings.TrimSpace(out)); m != nil {
		return m[1]
	}
	return ""
}

// ParseCcacheVersion: "ccache version 4.8".
func ParseCcacheVersion(out string) string {
	if m := reCcache.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}
