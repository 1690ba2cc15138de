package matrix

import (
	"fmt"
	"strconv"
	"strings"
)

// version is a dotted numeric version: CUDA "12.4.1", driver "535.104.05",
// cl "19.41.34123", CC "8.9".
type version []int

// parseVersion accepts 1 to 4 dot-separated non-negative numbers, with an
// optional leading "v"/"V" (nvcc prints "V12.4.131").
func parseVersion(s string) (version, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if s == "" {
		return nil, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return nil, false
	}
	v := make(version, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 6 {
			return nil, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		v[i] = n
	}
	return v, true
}

func (v version) at(i int) int {
	if i < len(v) {
		return v[i]
	}
	return 0
}

func (v version) major() int { return v.at(0) }
func (v version) minor() int { return v.at(1) }

// cmp compares numerically, missing parts count as 0. Driver minor parts
// compare as numbers ("535.104.05" > "535.54.03"), as NVIDIA numbers them.
func (v version) cmp(o version) int {
	n := max(len(v), len(o))
	for i := 0; i < n; i++ {
		a, b := v.at(i), o.at(i)
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (v version) less(o version) bool { return v.cmp(o) < 0 }

func (v version) String() string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ".")
}

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
	if len(v) == 1 {
		if v[0] >= 1300 && v[0] < 2000 { // 2017/2019/2022 are VS years, not _MSC_VER
			return v[0], true
		}
		return 0, false
	}
	if v[0] < 10 || v[0] > 99 || v[1] > 99 {
		return 0, false
	}
	return v[0]*100 + v[1], true
}

// clVersion is "19.41" for _MSC_VER 1941.
func clVersion(msc int) string { return fmt.Sprintf("%d.%02d", msc/100, msc%100) }

// branch is the driver branch users see ("R515" for 516.94): NVIDIA's
// branches are numbered in steps of 5.
func branch(driver version) int { return driver.major() - driver.major()%5 }

// NormalizeCC validates a compute capability as users and tools write it
// ("8.9", "89", "sm_89") and returns the canonical "8.9".
func NormalizeCC(s string) (string, bool) {
	_, cc, ok := parseCC(s)
	return cc, ok
}
