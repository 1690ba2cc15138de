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

var (
	dirRefRE    = regexp.MustCompile(`(?:^|[-_])(b[0-9]{3,7})$`)
	dirSemverRE = regexp.MustCompile(`(?:^|[-_])v?([0-9]+\.[0-9]+\.[0-9]+)$`)
	tagSemverRE = regexp.MustCompile(`^v?([0-9]+\.[0-9]+\.[0-9]+)$`)
	cmakeVerRE  = regexp.MustCompile(`(?m)^\s*set\(\s*LLAMA_VERSION_(MAJOR|MINOR|PATCH)\s+([0-9]+)\s*\)`)
)

// DetectVersion finds the version of the tree at dir and says where it came
// from (plan.Engine.VersionFrom):
//
//   - git: a checkout with its history; the commit count is llama.cpp's build
//     number (what its cmake/build-info.cmake computes), the short commit, and
//     whether tracked files have local changes (Dirty).
//   - git-tag: a shallow or squashed checkout whose HEAD carries a bNNNN tag.
//   - git-commit: a checkout whose history is shallow or squashed and has no
//     release tag: the commit (and the count, recorded but not trusted as a
//     build number) are known, the build number is not.
//   - lock: llamactl's extraction marker of a downloaded release archive.
//   - archive-name: an unpacked release archive named after its tag
//     (llama.cpp-b9591, llama.cpp-0.5.0).
//   - unknown: none of these.
//
// HasGit is true exactly when the commit was read from git. The semantic
// version in the tree's CMakeLists.txt (LLAMA_VERSION_MAJOR/MINOR/PATCH,
// llama.cpp 0.x) is recorded whatever the source.
func DetectVersion(ctx context.Context, r proc.Runner, dir string, lock *Lock) plan.Engine {
	e := plan.Engine{VersionFrom: "unknown", Semver: cmakeSemver(dir)}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		git := func(args ...string) (string, bool) {
			res, err := r.Run(ctx, proc.Cmd{Name: "git", Args: append([]string{"-C", dir}, args...), Timeout: 20 * time.Second})
			if err != nil || res.ExitCode != 0 {
				return "", false
			}
			return strings.TrimSpace(string(res.Stdout)), true
		}
		if commit, _ := git("rev-parse", "--short=9", "HEAD"); commit != "" {
			out, _ := git("rev-list", "--count", "HEAD")
			count, _ := strconv.Atoi(out)
			tag, _ := git("describe", "--tags", "--exact-match", "HEAD")
			status, ok := git("status", "--porcelain", "--untracked-files=no")
			_, shallowErr := os.Stat(filepath.Join(dir, ".git", "shallow"))
			// A shallow clone counts the commits it fetched, a squashed history
			// (a vendored copy, a git bundle of one commit) counts 1: neither is
			// llama.cpp's build number.
			truncated := shallowErr == nil || count <= 1
			e.HasGit, e.Commit, e.CommitCount, e.Ref = true, commit, count, tag
			e.Dirty = ok && status != ""
			if m := tagSemverRE.FindStringSubmatch(tag); m != nil {
				e.Semver = m[1]
			}
			switch {
			case !truncated:
				e.BuildNumber, e.VersionFrom = count, "git"
			case BuildFromRef(tag) > 0:
				e.BuildNumber, e.VersionFrom = BuildFromRef(tag), "git-tag"
			default:
				e.VersionFrom = "git-commit"
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
	base := filepath.Base(filepath.Clean(dir))
	if m := dirRefRE.FindStringSubmatch(base); m != nil {
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
	} else if m := dirSemverRE.FindStringSubmatch(base); m != nil && (e.Semver == "" || e.Semver == m[1]) {
		// A semver release archive (llama.cpp-0.5.0): the tag names the
		// release, but no build number or commit travels with it.
		e.Ref, e.Semver, e.VersionFrom = "v"+m[1], m[1], "archive-name"
	}
	return e
}

// cmakeSemver reads llama.cpp's semantic version from the tree's root
// CMakeLists.txt (set(LLAMA_VERSION_MAJOR 0) ...), or "".
func cmakeSemver(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "CMakeLists.txt"))
	if err != nil {
		return ""
	}
	parts := map[string]string{}
	for _, m := range cmakeVerRE.FindAllSubmatch(b, -1) {
		if _, seen := parts[string(m[1])]; !seen {
			parts[string(m[1])] = string(m[2])
		}
	}
	if len(parts) != 3 {
		return ""
	}
	return parts["MAJOR"] + "." + parts["MINOR"] + "." + parts["PATCH"]
}
