package buildcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/internal/version"
)

// LockFile is a CI build lock: what a pinned build must use (docs/ci.md).
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
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return ParseLockFile(p, b)
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
