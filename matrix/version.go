package matrix

import (
	"fmt"
	"strconv"
	"strings"

	ver "github.com/llamactl/llamactl/internal/version"
)

// version is a dotted numeric version: CUDA "12.4.1", driver "535.104.05",
// cl "19.41.34123", CC "8.9". Comparisons are internal/version's.
type version = ver.V

// parseVersion accepts 1 to 4 dot-separated non-negative numbers, with an
// optional leading "v"/"V" (nvcc prints "V12.4.131").
func parseVersion(s string) (version, bool) { return ver.ParseStrict(s) }

func fromParts(p ...int) version { return ver.FromParts(p...) }

// parseCC accepts "8.9", "89", "sm_89", "compute_89" and returns the sm
// number (89) and the canonical "8.9".
func parseCC(s string) (int, string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"sm_", "compute_", "sm", "cc"} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "-real"), "-virtual")
	var maj, min int
	if i := strings.IndexByte(s, '.'); i >= 0 {
		a, err1 := strconv.Atoi(s[:i])
		b, err2 := strconv.Atoi(s[i+1:])
		if err1 != nil || err2 != nil || i == 0 || i == len(s)-1 || b > 9 || b < 0 {
			return 0, "", false
		}
		maj, min = a, b
	} else {
		n, err := strconv.Atoi(s)
		if err != nil || len(s) < 2 || len(s) > 3 {
			return 0, "", false
		}
		maj, min = n/10, n%10
	}
	if maj < 1 || maj > 99 {
		return 0, "", false
	}
	return maj*10 + min, fmt.Sprintf("%d.%d", maj, min), true
}

// mscVer turns a cl.exe version ("19.41", "19.41.34123") or a bare _MSC_VER
// ("1941") into _MSC_VER.
func mscVer(s string) (int, bool) {
	v, ok := parseVersion(s)
	if !ok {
		return 0, false
	}
	if v.Len() == 1 {
		if v.At(0) >= 1300 && v.At(0) < 2000 { // 2017/2019/2022 are VS years, not _MSC_VER
			return v.At(0), true
		}
		return 0, false
	}
	if v.At(0) < 10 || v.At(0) > 99 || v.At(1) > 99 {
		return 0, false
	}
	return v.At(0)*100 + v.At(1), true
}

// clVersion is "19.41" for _MSC_VER 1941.
func clVersion(msc int) string { return fmt.Sprintf("%d.%02d", msc/100, msc%100) }

// branch is the driver branch users see ("R515" for 516.94): NVIDIA's
// branches are numbered in steps of 5.
func branch(driver version) int { return driver.Major() - driver.Major()%5 }

// NormalizeCC validates a compute capability as users and tools write it
// ("8.9", "89", "sm_89") and returns the canonical "8.9".
func NormalizeCC(s string) (string, bool) {
	_, cc, ok := parseCC(s)
	return cc, ok
}

// The cl.exe and compute-capability arithmetic every package uses (doctor's
// checks, the build plan): one copy, here.

// MSCVer is _MSC_VER of a cl.exe version ("19.41.34123" -> 1941), 0 when s
// is not one.
func MSCVer(cl string) int {
	n, _ := mscVer(cl)
	return n
}

// CLVersion is the cl.exe version of an _MSC_VER: "19.41" for 1941.
func CLVersion(msc int) string { return clVersion(msc) }

// ToolsetCL is the cl.exe version of an MSVC toolset directory version
// ("14.39.33519", as under VC\Tools\MSVC): "19.39"; "" when s is not one.
func ToolsetCL(s string) string {
	v, ok := parseVersion(s)
	if ok && v.Len() >= 2 && v.At(0) == 14 && v.At(1) >= 10 {
		return fmt.Sprintf("19.%02d", v.At(1))
	}
	return ""
}

// SM is the sm number of a compute capability ("8.9" -> 89), 0 when s is
// not one.
func SM(cc string) int {
	n, _, _ := parseCC(cc)
	return n
}
