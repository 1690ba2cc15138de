package build

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/safefile"
	"github.com/llamactl/llamactl/internal/textenc"
	"github.com/llamactl/llamactl/internal/version"
	"github.com/llamactl/llamactl/machine"
)

// LockFile is a CI build lock (--lock): what a pinned build must use (docs/ci.md).
type LockFile struct {
	Engine struct {
		Ref    string `json:"ref" toml:"ref"`
		SHA256 string `json:"sha256" toml:"sha256"`
	} `json:"engine" toml:"engine"`
	Build struct {
		Backend       string   `json:"backend" toml:"backend"`
		CUDA          string   `json:"cuda,omitempty" toml:"cuda"` // constraint: "12.4", ">=12.4,<13"
		Architectures string   `json:"architectures,omitempty" toml:"architectures"`
		CMakeArgs     []string `json:"cmake_args,omitempty" toml:"cmake_args"`
	} `json:"build" toml:"build"`
}

// ReadLockFile reads a .toml or .json lock.
func ReadLockFile(p string) (*LockFile, error) {
	b, err := safefile.ReadFile(p, safefile.Lock)
	if err != nil {
		return nil, err
	}
	// PowerShell 5.1's ">" writes UTF-16LE with a byte-order mark.
	return ParseLockFile(p, textenc.Bytes(b))
}

// ParseLockFile parses a lock; name's extension picks JSON or TOML.
func ParseLockFile(p string, b []byte) (*LockFile, error) {
	var l LockFile
	var err error
	if strings.EqualFold(filepath.Ext(p), ".json") {
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		err = dec.Decode(&l)
	} else {
		var md toml.MetaData
		md, err = toml.Decode(string(b), &l)
		if err == nil && len(md.Undecoded()) > 0 {
			err = fmt.Errorf("unknown keys %v", md.Undecoded())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if l.Engine.Ref == "" || !engine.ValidRef(l.Engine.Ref) {
		return nil, fmt.Errorf("%s: engine.ref %q is not a llama.cpp release tag (bNNNN or vX.Y.Z)", p, l.Engine.Ref)
	}
	if l.Engine.SHA256 != "" && (len(l.Engine.SHA256) != 64 || strings.Trim(strings.ToLower(l.Engine.SHA256), "0123456789abcdef") != "") {
		return nil, fmt.Errorf("%s: engine.sha256 must be 64 hex digits", p)
	}
	switch l.Build.Backend {
	case "cuda", "vulkan", "hip", "opencl", "cpu":
	default:
		return nil, fmt.Errorf("%s: build.backend %q must be cuda, vulkan, hip, opencl or cpu", p, l.Build.Backend)
	}
	if l.Build.CUDA != "" {
		if _, err := SatisfiesCUDA("12.4", l.Build.CUDA); err != nil {
			return nil, fmt.Errorf("%s: build.cuda: %v", p, err)
		}
	}
	return &l, nil
}

// SatisfiesCUDA checks a CUDA version against a lockfile constraint:
// comma-separated clauses like ">=12.4", "<13", "=12.4" or a bare "12.4"
// (that release line); see internal/version.Constraints.
func SatisfiesCUDA(v, constraint string) (bool, error) {
	return version.Satisfies(v, constraint)
}

// LockCheck is the outcome of checking the machine against --lock.
type LockCheck struct {
	Path      string   `json:"path"`
	Satisfied bool     `json:"satisfied"`
	Problems  []string `json:"problems,omitempty"`
}

// CheckLock says whether this machine (s, doctor's selection sel) still
// satisfies the lock l read from path; recordedHash is the sha256 the
// cache recorded for the release ref to build ("" when none).
func CheckLock(l *LockFile, path string, s *machine.Snapshot, sel plan.Selection, ref, recordedHash string) *LockCheck {
	lc := &LockCheck{Path: path}
	problem := func(format string, a ...any) { lc.Problems = append(lc.Problems, fmt.Sprintf(format, a...)) }
	switch l.Build.Backend {
	case "cuda":
		if sel.Toolkit == nil {
			problem("the lock builds CUDA but no CUDA toolkit is installed (llamactl doctor says which to install)")
		} else if l.Build.CUDA != "" {
			if ok, _ := SatisfiesCUDA(sel.Toolkit.Version, l.Build.CUDA); !ok {
				problem("CUDA %s (%s) does not satisfy the lock's cuda = %q: install a matching toolkit or update the lock", sel.Toolkit.Version, sel.Toolkit.NVCC, l.Build.CUDA)
			}
		}
		if sel.Toolkit != nil && len(sel.Toolkit.GPUArchs) > 0 {
			for _, a := range strings.Split(l.Build.Architectures, ";") {
				num := strings.TrimRight(strings.Split(strings.TrimSpace(a), "-")[0], "af")
				if num == "" || num == "native" {
					continue
				}
				if !slices.Contains(sel.Toolkit.GPUArchs, "compute_"+num) {
					problem("nvcc %s cannot build architecture %s (nvcc --list-gpu-arch lacks compute_%s)", sel.Toolkit.Version, a, num)
				}
			}
		}
	case "vulkan":
		if s.Vulkan.Glslc == "" {
			problem("the lock builds Vulkan but glslc is missing (install the Vulkan SDK / glslc)")
		}
	case "hip":
		if s.HIP.Root == "" {
			problem("the lock builds HIP but no HIP SDK / ROCm was found")
		}
	}
	if want := strings.ToLower(l.Engine.SHA256); want != "" {
		if got := recordedHash; got != "" && got != want {
			problem("the cached %s archive has sha256 %s, the lock says %s", ref, got, want)
		}
	}
	lc.Satisfied = len(lc.Problems) == 0
	return lc
}
