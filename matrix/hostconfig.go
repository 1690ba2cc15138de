package matrix

import (
	"regexp"
	"strconv"
)

// HostConfigLimits are the host compiler checks an installed toolkit's
// include/crt/host_config.h enforces. Reading them from the installed
// header is more exact than any table (distributions patch it), so doctor
// can compare the two. Zero means the check was not found.
type HostConfigLimits struct {
	GCCMaxMajor        int `json:"gcc_max_major,omitempty"`         // `__GNUC__ > N` rejects above N
	ClangMaxMajor      int `json:"clang_max_major,omitempty"`       // `__clang_major__ >= N` rejects N and above
	MSCVerMin          int `json:"msc_ver_min,omitempty"`           // `_MSC_VER < A || _MSC_VER >= B`
	MSCVerMaxExclusive int `json:"msc_ver_max_exclusive,omitempty"` // B
}

var (
	hcGCC   = regexp.MustCompile(`(?m)^\s*#\s*if\s+__GNUC__\s*>\s*(\d{1,3})\s*(?:$|/[/*])`)
	hcClang = regexp.MustCompile(`(?m)^\s*#\s*if\s+\(?\s*__clang_major__\s*>=\s*(\d{1,3})\s*\)?`)
	hcMSC   = regexp.MustCompile(`(?m)^\s*#\s*if\s+\(?\s*_MSC_VER\s*<\s*(\d{4})\s*\|\|\s*_MSC_VER\s*>=\s*(\d{4})`)
)

// ParseHostConfig reads the limits from host_config.h text. Only the first
// match of each check counts: later lines are other branches.
func ParseHostConfig(text string) HostConfigLimits {
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	var l HostConfigLimits
	if m := hcGCC.FindStringSubmatch(text); m != nil {
		l.GCCMaxMajor, _ = strconv.Atoi(m[1])
	}
	if m := hcClang.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n > 0 {
			l.ClangMaxMajor = n - 1
		}
	}
	if m := hcMSC.FindStringSubmatch(text); m != nil {
		l.MSCVerMin, _ = strconv.Atoi(m[1])
		l.MSCVerMaxExclusive, _ = strconv.Atoi(m[2])
	}
	return l
}
