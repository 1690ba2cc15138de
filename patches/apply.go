package patches

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

//go:embed data/diffs
var diffFS embed.FS

// DiffFor returns the diff of a patch of the default registry.
func DiffFor(p Patch) ([]byte, error) { return Default().Diff(p) }

// Diff returns the unified diff a patch applies.
func (r *Registry) Diff(p Patch) ([]byte, error) {
	if p.Changes.Diff == "" {
		return nil, fmt.Errorf("patch %s has no diff", p.ID)
	}
	return fs.ReadFile(r.diffs, p.Changes.Diff)
}

// Errors ApplyDiff wraps, so callers can tell the cases apart.
var (
	ErrOutsideTree = errors.New("diff touches a path outside the source tree")
	ErrConflict    = errors.New("diff does not apply cleanly")
	ErrBadDiff     = errors.New("not a usable unified diff")
)

// maxDiffFileBytes bounds a file the applier reads into memory.
const maxDiffFileBytes = 64 << 20

// ApplyResult says what ApplyDiff did.
type ApplyResult struct {
	Files          []string `json:"files"`
	AlreadyApplied bool     `json:"already_applied,omitempty"`
}

type pending struct {
	path    string // absolute
	rel     string
	content []byte
	remove  bool
}

// ApplyDiff applies a unified diff to the tree at root. It is all or
// nothing: every file is patched in memory first, and nothing is written when
// any file conflicts. A diff whose result is already in the tree is reported
// as AlreadyApplied and changes nothing. Paths that are absolute, contain
// "..", or resolve through a link to outside root are refused.
func ApplyDiff(root string, diff []byte) (ApplyResult, error) {
	files, _, err := gitdiff.Parse(bytes.NewReader(diff))
	if err != nil {
		return ApplyResult{}, fmt.Errorf("%w: %v", ErrBadDiff, err)
	}
	if len(files) == 0 {
		return ApplyResult{}, fmt.Errorf("%w: no file changes found", ErrBadDiff)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return ApplyResult{}, err
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return ApplyResult{}, fmt.Errorf("source tree %s: %w", root, err)
	}
	var res ApplyResult
	for _, f := range files {
		if f.IsBinary || f.IsCopy || f.IsRename {
			return res, fmt.Errorf("%w: %s: only text edits, creations and deletions are supported", ErrBadDiff, f.NewName+f.OldName)
		}
		for _, name := range []string{f.OldName, f.NewName} {
			if name == "" {
				continue
			}
			if _, err := safePath(realRoot, name); err != nil {
				return res, err
			}
		}
		res.Files = append(res.Files, fileName(f))
	}

	forward, ferr := patchAll(realRoot, files, false)
	if ferr == nil {
		return res, writeAll(forward)
	}
	if !errors.Is(ferr, ErrConflict) {
		return res, ferr
	}
	// The diff may already be in the tree: then its reverse applies cleanly.
	if _, rerr := patchAll(realRoot, files, true); rerr == nil {
		res.AlreadyApplied = true
		return res, nil
	}
	return res, ferr
}

func fileName(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}

// safePath maps a diff path to a path inside root, refusing escapes.
func safePath(root, name string) (string, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: empty or invalid name %q", ErrOutsideTree, name)
	}
	slashed := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(slashed, "/") || filepath.IsAbs(name) || (len(slashed) > 1 && slashed[1] == ':') {
		return "", fmt.Errorf("%w: %q is absolute", ErrOutsideTree, name)
	}
	for _, part := range strings.Split(slashed, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q has a \"..\" element", ErrOutsideTree, name)
		}
	}
	p := filepath.Join(root, filepath.FromSlash(slashed))
	// Resolve the deepest existing ancestor: a link inside the tree must not
	// lead out of it.
	probe := p
	for {
		if _, err := os.Lstat(probe); err == nil {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			break
		}
		probe = parent
	}
	real, err := filepath.EvalSymlinks(probe)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrOutsideTree, name, err)
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q resolves to %s", ErrOutsideTree, name, real)
	}
	return p, nil
}

func patchAll(root string, files []*gitdiff.File, reverse bool) ([]pending, error) {
	var out []pending
	for _, f := range files {
		if reverse {
			f = reversed(f)
		}
		target := fileName(f)
		path, err := safePath(root, target)
		if err != nil {
			return nil, err
		}
		var src []byte
		exists := false
		if info, err := os.Lstat(path); err == nil {
			if !info.Mode().IsRegular() {
				return nil, fmt.Errorf("%w: %s is not a regular file", ErrConflict, target)
			}
			if info.Size() > maxDiffFileBytes {
				return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrConflict, target, maxDiffFileBytes)
			}
			exists = true
			if src, err = os.ReadFile(path); err != nil {
				return nil, err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		switch {
		case f.IsNew && exists:
			return nil, fmt.Errorf("%w: %s should be created but already exists", ErrConflict, target)
		case !f.IsNew && !exists:
			return nil, fmt.Errorf("%w: %s does not exist", ErrConflict, target)
		}
		var dst bytes.Buffer
		if err := gitdiff.Apply(&dst, bytes.NewReader(src), f); err != nil {
			if errors.Is(err, &gitdiff.Conflict{}) {
				return nil, fmt.Errorf("%w: %s: %v", ErrConflict, target, err)
			}
			return nil, fmt.Errorf("%w: %s: %v", ErrBadDiff, target, err)
		}
		out = append(out, pending{path: path, rel: target, content: dst.Bytes(), remove: f.IsDelete})
	}
	return out, nil
}

// reversed returns the diff that undoes f.
func reversed(f *gitdiff.File) *gitdiff.File {
	r := *f
	r.OldName, r.NewName = f.NewName, f.OldName
	r.IsNew, r.IsDelete = f.IsDelete, f.IsNew
	r.OldMode, r.NewMode = f.NewMode, f.OldMode
	r.TextFragments = nil
	for _, fr := range f.TextFragments {
		n := *fr
		n.OldPosition, n.NewPosition = fr.NewPosition, fr.OldPosition
		n.OldLines, n.NewLines = fr.NewLines, fr.OldLines
		n.LinesAdded, n.LinesDeleted = fr.LinesDeleted, fr.LinesAdded
		n.Lines = make([]gitdiff.Line, len(fr.Lines))
		for i, l := range fr.Lines {
			switch l.Op {
			case gitdiff.OpAdd:
				l.Op = gitdiff.OpDelete
			case gitdiff.OpDelete:
				l.Op = gitdiff.OpAdd
			}
			n.Lines[i] = l
		}
		r.TextFragments = append(r.TextFragments, &n)
	}
	return &r
}

// writeAll writes every result to a temporary file beside its target first,
// then renames them into place, so a write error leaves no file half-written.
func writeAll(ps []pending) error {
	var temps []string
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, p := range ps {
		if p.remove {
			temps = append(temps, "")
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
			cleanup()
			return err
		}
		mode := os.FileMode(0o644)
		if info, err := os.Stat(p.path); err == nil {
			mode = info.Mode().Perm()
		}
		tmp, err := os.CreateTemp(filepath.Dir(p.path), ".llamactl-patch-*")
		if err != nil {
			cleanup()
			return err
		}
		temps = append(temps, tmp.Name())
		if _, err := tmp.Write(p.content); err != nil {
			tmp.Close()
			cleanup()
			return err
		}
		if err := tmp.Close(); err != nil {
			cleanup()
			return err
		}
		if err := os.Chmod(tmp.Name(), mode); err != nil {
			cleanup()
			return err
		}
	}
	for i, p := range ps {
		if p.remove {
			if err := os.Remove(p.path); err != nil {
				return err
			}
			continue
		}
		if err := os.Rename(temps[i], p.path); err != nil {
			return err
		}
	}
	return nil
}
