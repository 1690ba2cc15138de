package engine

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/llamactl/llamactl/build/plan"
	"github.com/llamactl/llamactl/internal/proc"
)

var dirRefRE = regexp.MustCompile(`(?:^|[-_])(b[0-9]{3,7})$`)

// DetectVersion finds the build number and commit of the tree at dir: from
// git metadata when present (a shallow clone's count is 1 and is not
// trusted), else from llamactl's extraction marker, else from a directory
// named like an archive ("llama.cpp-b9591"), with the commit from the lock.
func DetectVersion(ctx context.Context, r proc.Runner, dir string, lock *Lock) plan.Engine {
	e := plan.Engine{VersionFrom: "unknown"}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		git := func(args ...string) string {
			res, err := r.Run(ctx, proc.Cmd{Name: "git", Args: append([]string{"-C", dir}, args...), Timeout: 20 * time.Second})
			if err != nil || res.ExitCode != 0 {
				return ""
			}
			return strings.TrimSpace(string(res.Stdout))
		}
		commit := git("rev-parse", "--short=9", "HEAD")
		count, _ := strconv.Atoi(git("rev-list", "--count", "HEAD"))
		tag := git("describe", "--tags", "--exact-match", "HEAD")
		_, shallowErr := os.Stat(filepath.Join(dir, ".git", "shallow"))
		shallow := shallowErr == nil || count == 1
		if commit != "" {
			e.Commit = commit
			e.Ref = tag
			if !shallow && count > 0 {
				e.BuildNumber = count
				e.HasGit = true
				e.VersionFrom = "git"
				return e
			}
			// Shallow: git cannot count; a bNNNN tag still names the build.
			e.BuildNumber = BuildFromRef(tag)
			if e.BuildNumber > 0 {
				e.VersionFrom = "git-tag"
			} else {
				e.VersionFrom = "git-shallow"
			}
			return e
		}
	}
	if m, ok := readMarker(dir); ok {
		e.Ref, e.Commit, e.BuildNumber, e.SHA256 = m.Ref, m.Commit, m.Build, m.SHA256
		if e.BuildNumber == 0 {
			e.BuildNumber = BuildFromRef(m.Ref)
		}
		e.VersionFrom = "lock"
		return e
	}
	if m := dirRefRE.FindStringSubmatch(filepath.Base(filepath.Clean(dir))); m != nil {
		e.Ref = m[1]
		e.BuildNumber = BuildFromRef(m[1])
		e.VersionFrom = "archive-name"
		if lock != nil {
			for _, p := range lock.Engines {
				if p.Ref == e.Ref {
					e.Commit = p.Commit
				}
			}
		}
	}
	return e
}
