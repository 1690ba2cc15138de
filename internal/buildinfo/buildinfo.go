// Package buildinfo holds the version stamped into the binary at build time:
//
//	go build -ldflags "-X github.com/llamactl/llamactl/internal/buildinfo.Version=0.1.0 \
//	  -X github.com/llamactl/llamactl/internal/buildinfo.Commit=$(git rev-parse HEAD) \
//	  -X github.com/llamactl/llamactl/internal/buildinfo.Date=$(date -u +%FT%TZ)"
//
// When not stamped, the VCS facts Go records in the binary are used instead.
package buildinfo

import "runtime/debug"

var (
	Version = "0.1.0-dev"
	Commit  = ""
	Date    = ""
)

// Info is the version of this llamactl, as printed by `llamactl version --json`.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	Modified  bool   `json:"modified,omitempty"`
}

// Get returns the stamped version, filling gaps from Go's embedded VCS data.
func Get() Info {
	info := Info{Version: Version, Commit: Commit, Date: Date}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if info.Commit == "" {
		info.Commit = "unknown"
	}
	if info.Date == "" {
		info.Date = "unknown"
	}
	return info
}
