package probe

import (
	"regexp"
	"sort"
	"strings"
)

// IsWSLKernel reads /proc/version (or `uname -r`) and returns 0 when not
// WSL, else 1 or 2. WSL2 kernels are "<ver>-microsoft-standard[-WSL2]"
// (lower case, also custom builds "4.19.84-microsoft-standard+"); WSL1
// reports a capitalised "-Microsoft" ("4.4.0-19041-Microsoft", "3.4.0-Microsoft")
// (testdata/doctor/recordings/fixtures/wsl/proc-version-*, uname-*).
func IsWSLKernel(procVersion string) int {
	l := strings.ToLower(procVersion)
	switch {
	case strings.Contains(l, "microsoft-standard"), strings.Contains(l, "wsl2"):
		return 2
	case strings.Contains(procVersion, "-Microsoft"):
		return 1
	case strings.Contains(l, "microsoft"):
		return 2
	}
	return 0
}

var reLdconfigLib = regexp.MustCompile(`^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)`)

// ParseLdconfigLibs reads `ldconfig -p` and returns the paths of libraries
// whose name starts with prefix (e.g. "libcuda.so"), in the loader's order.
func ParseLdconfigLibs(out, prefix string) []string {
	var paths []string
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		m := reLdconfigLib.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil || !strings.HasPrefix(m[1], prefix) {
			continue
		}
		if !seen[m[3]] {
			seen[m[3]] = true
			paths = append(paths, m[3])
		}
	}
	return paths
}

// ParseDpkgInstalled reads `dpkg -l` and returns installed ("ii") package
// names starting with one of prefixes, sorted.
func ParseDpkgInstalled(out string, prefixes []string) []string {
	var pkgs []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "ii" {
			continue
		}
		name, _, _ := strings.Cut(f[1], ":")
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				pkgs = append(pkgs, name+" "+f[2])
				break
			}
		}
	}
	sort.Strings(pkgs)
	return pkgs
}

var reGFX = regexp.MustCompile(`\bgfx[0-9a-f]{3,5}\b`)

// ParseROCmGFX reads `rocminfo` (or amdgpu-arch) and returns the gfx targets.
func ParseROCmGFX(out string) []string {
	var gfx []string
	seen := map[string]bool{}
	for _, m := range reGFX.FindAllString(out, -1) {
		if !seen[m] {
			seen[m] = true
			gfx = append(gfx, m)
		}
	}
	sort.Strings(gfx)
	return gfx
}

// ParseOSRelease reads /etc/os-release's PRETTY_NAME.
func ParseOSRelease(data string) string {
	for _, line := range strings.Split(data, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}
