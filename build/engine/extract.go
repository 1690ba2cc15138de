package engine

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrUnsafeArchive is wrapped by extraction errors for entries that would
// land outside the target: absolute paths, "..", links leading out.
var ErrUnsafeArchive = errors.New("unsafe archive entry")

// Limits on what one archive may unpack to: llama.cpp's source is ~30 MB in a
// few thousand entries, so these only stop a decompression bomb (huge files,
// or millions of empty ones exhausting inodes).
const (
	maxExtractBytes   = 2 << 30
	maxExtractEntries = 100_000
)

// entryPath validates an archive name and returns it relative to the tree,
// with the single top-level directory GitHub archives have stripped.
func entryPath(name string, strip bool) (string, error) {
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') || strings.ContainsRune(n, 0) {
		return "", fmt.Errorf("%w: absolute path %q", ErrUnsafeArchive, name)
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: %q has a \"..\" element", ErrUnsafeArchive, name)
		}
	}
	n = path.Clean(n)
	if strip {
		i := strings.IndexByte(n, '/')
		if i < 0 {
			return "", nil // the top-level directory itself
		}
		n = n[i+1:]
	}
	if n == "." {
		return "", nil
	}
	return n, nil
}

// linkInside says whether a link at rel pointing to target stays in the tree.
func linkInside(rel, target string) bool {
	t := strings.ReplaceAll(target, "\\", "/")
	if strings.HasPrefix(t, "/") || (len(t) > 1 && t[1] == ':') || strings.ContainsRune(t, 0) {
		return false
	}
	// The check below is lexical, and "c/.." is the tree's parent when c is
	// itself a link to "." (made before or after this one). So ".." may only
	// lead the target: then each link resolves from the real directory it
	// was made in, and stays inside.
	named := false
	for _, part := range strings.Split(t, "/") {
		switch {
		case part == ".." && named:
			return false
		case part != ".." && part != "." && part != "":
			named = true
		}
	}
	joined := path.Clean(path.Join(path.Dir(rel), t))
	return joined != ".." && !strings.HasPrefix(joined, "../")
}

type extractor struct {
	dst     string
	written int64
	entries int
	// Caps; zero means the package limits (tests set small ones).
	maxBytes   int64
	maxEntries int
}

func newExtractor(dst string) *extractor {
	return &extractor{dst: dst, maxBytes: maxExtractBytes, maxEntries: maxExtractEntries}
}

// count refuses an archive with more entries than the cap.
func (x *extractor) count() error {
	x.entries++
	if x.entries > x.maxEntries {
		return fmt.Errorf("%w: archive has more than %d entries", ErrUnsafeArchive, x.maxEntries)
	}
	return nil
}

// dir creates a directory entry, never through a link.
func (x *extractor) dir(rel string) error {
	if err := x.checkParents(rel + "/x"); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(x.dst, filepath.FromSlash(rel)), 0o755)
}

func (x *extractor) file(rel string, mode os.FileMode, r io.Reader) error {
	p := filepath.Join(x.dst, filepath.FromSlash(rel))
	if err := x.checkParents(rel); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode.Perm()|0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, x.maxBytes-x.written+1))
	x.written += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && x.written > x.maxBytes {
		err = fmt.Errorf("%w: archive unpacks to more than %d bytes", ErrUnsafeArchive, x.maxBytes)
	}
	return err
}

// checkParents refuses writing through a directory that is a link (an
// earlier entry could have made one pointing anywhere).
func (x *extractor) checkParents(rel string) error {
	dir := path.Dir(rel)
	cur := x.dst
	if dir == "." {
		return nil
	}
	for _, part := range strings.Split(dir, "/") {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%w: %q is written through the link %s", ErrUnsafeArchive, rel, part)
		}
	}
	return nil
}

func (x *extractor) link(rel, target string) error {
	if !linkInside(rel, target) {
		return fmt.Errorf("%w: link %q -> %q leaves the tree", ErrUnsafeArchive, rel, target)
	}
	if err := x.checkParents(rel); err != nil {
		return err
	}

	p := filepath.Join(x.dst, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.Symlink(target, p)
}

// ExtractTarGz unpacks a .tar.gz into dst (which must exist and be empty),
// stripping the archive's top-level directory.
func ExtractTarGz(r io.Reader, dst string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip archive: %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	x := newExtractor(dst)
	return x.tarGz(tr)
}

func (x *extractor) tarGz(tr *tar.Reader) error {
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("corrupt archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader { // GitHub's pax header with the commit
			continue
		}
		rel, err := entryPath(h.Name, true)
		if err != nil {
			return err
		}
		if rel == "" {
			continue
		}
		if err := x.count(); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := x.dir(rel); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := x.file(rel, os.FileMode(h.Mode), tr); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := x.link(rel, h.Linkname); err != nil {
				return err
			}
		case tar.TypeLink:
			return fmt.Errorf("%w: hard link %q", ErrUnsafeArchive, h.Name)
		default:
			return fmt.Errorf("%w: %q has unsupported type %q", ErrUnsafeArchive, h.Name, string(h.Typeflag))
		}
	}
}

// ExtractZip unpacks a .zip into dst, stripping the top-level directory.
func ExtractZip(r io.ReaderAt, size int64, dst string) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("corrupt archive: %w", err)
	}
	return newExtractor(dst).zip(zr)
}

func (x *extractor) zip(zr *zip.Reader) error {
	for _, f := range zr.File {
		rel, err := entryPath(f.Name, true)
		if err != nil {
			return err
		}
		if rel == "" {
			continue
		}
		if err := x.count(); err != nil {
			return err
		}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := x.dir(rel); err != nil {
				return err
			}
		case mode&os.ModeSymlink != 0:
			rc, err := f.Open()
			if err != nil {
				return err
			}
			target, err := io.ReadAll(io.LimitReader(rc, 4096))
			rc.Close()
			if err != nil {
				return err
			}
			if err := x.link(rel, string(target)); err != nil {
				return err
			}
		case mode.IsRegular():
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("corrupt archive: %w", err)
			}
			err = x.file(rel, mode, rc)
			rc.Close()
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: %q has unsupported mode %v", ErrUnsafeArchive, f.Name, mode)
		}
	}
	return nil
}
