package engine

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// fixtureTarball packs testdata/engine as GitHub does: one top-level
// directory "llama.cpp-<ref>/".
func fixtureTarball(t testing.TB, ref string) []byte {
	t.Helper()
	return testutil.EngineTarball(t, "llama.cpp-"+ref)
}

type entry struct {
	name, body, link string
	typ              byte
}

func tarOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Linkname: e.link, Size: int64(len(e.body))}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// server serves body at /archive/<ref>.tar.gz, honouring Range, and counts requests.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	body     []byte
	requests int
	ranges   []string
}

func newServer(t *testing.T, body []byte) *server {
	s := &server{body: body}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		b := s.body
		s.mu.Unlock()
		if !strings.HasSuffix(r.URL.Path, ".tar.gz") && !strings.HasSuffix(r.URL.Path, ".zip") {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "a.tar.gz", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(s.Close)
	return s
}

func pinFor(s *server, ref, sha string) Pin {
	return Pin{Ref: ref, BuildNumber: BuildFromRef(ref), Commit: "e95dae18d", SHA256: sha, URL: s.URL + "/archive/" + ref + ".tar.gz"}
}

func TestFetchDownloadsVerifiesAndCaches(t *testing.T) {
	body := fixtureTarball(t, "b9591")
	s := newServer(t, body)
	var progress int64
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir(), Progress: func(done, total int64) { progress = done }}
	src, err := f.Fetch(context.Background(), pinFor(s, "b9591", sum(body)))
	if err != nil {
		t.Fatal(err)
	}
	if src.Cached || src.SHA256 != sum(body) || progress != int64(len(body)) {
		t.Errorf("source = %+v, progress %d of %d", src, progress, len(body))
	}
	if _, err := os.Stat(filepath.Join(src.Dir, "CMakeLists.txt")); err != nil {
		t.Errorf("top-level directory not stripped: %v", err)
	}
	again, err := f.Fetch(context.Background(), pinFor(s, "b9591", sum(body)))
	if err != nil || !again.Cached {
		t.Fatalf("second fetch = %+v, %v; want cached", again, err)
	}
	if s.requests != 1 {
		t.Errorf("%d requests, want 1 (cache reuse)", s.requests)
	}
	// The tree's version comes from the marker llamactl wrote.
	v := DetectVersion(context.Background(), &proc.Replay{}, src.Dir, DefaultLock())
	if v.BuildNumber != 9591 || v.Commit != "e95dae18d" || v.VersionFrom != "lock" || v.HasGit {
		t.Errorf("version = %+v", v)
	}
}

func TestFetchWrongHashKeepsNothing(t *testing.T) {
	body := fixtureTarball(t, "b9591")
	s := newServer(t, body)
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
	_, err := f.Fetch(context.Background(), pinFor(s, "b9591", strings.Repeat("ab", 32)))
	if !errors.Is(err, ErrHashMismatch) || !strings.Contains(err.Error(), "--source") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.CacheDir, "engine", "b9591")); err == nil {
		t.Error("tree extracted despite the wrong hash")
	}
	if _, err := os.Stat(filepath.Join(f.CacheDir, "downloads", "b9591.tar.gz")); err == nil {
		t.Error("bad archive kept")
	}
}

func TestFetchRecordsUnknownHashThenChecksIt(t *testing.T) {
	body := fixtureTarball(t, "b9600")
	s := newServer(t, body)
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
	src, err := f.Fetch(context.Background(), pinFor(s, "b9600", UnknownSHA256))
	if err != nil || !src.Recorded || f.RecordedHash("b9600") != sum(body) {
		t.Fatalf("first fetch = %+v, %v; recorded %q", src, err, f.RecordedHash("b9600"))
	}
	// The release archive changes upstream: the recorded hash catches it.
	os.RemoveAll(filepath.Join(f.CacheDir, "engine", "b9600"))
	os.Remove(filepath.Join(f.CacheDir, "downloads", "b9600.tar.gz"))
	s.mu.Lock()
	s.body = fixtureTarball(t, "b9600-changed")
	s.mu.Unlock()
	if _, err := f.Fetch(context.Background(), pinFor(s, "b9600", UnknownSHA256)); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("changed archive: err = %v, want ErrHashMismatch", err)
	}
}

func TestFetchCorruptArchive(t *testing.T) {
	body := []byte("this is not a gzip file")
	s := newServer(t, body)
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
	_, err := f.Fetch(context.Background(), pinFor(s, "b9591", UnknownSHA256))
	if err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("err = %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(f.CacheDir, "engine"))
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestFetchResumesPartialDownload(t *testing.T) {
	body := fixtureTarball(t, "b9591")
	s := newServer(t, body)
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
	part := filepath.Join(f.CacheDir, "downloads", "b9591.tar.gz.part")
	os.MkdirAll(filepath.Dir(part), 0o755)
	os.WriteFile(part, body[:len(body)/2], 0o644)
	if _, err := f.Fetch(context.Background(), pinFor(s, "b9591", sum(body))); err != nil {
		t.Fatal(err)
	}
	if len(s.ranges) != 1 || !strings.HasPrefix(s.ranges[0], "bytes=") {
		t.Errorf("ranges = %q, want one Range request", s.ranges)
	}
}

func TestFetchOffline(t *testing.T) {
	s := newServer(t, nil)
	url := s.URL
	s.Close()
	f := &Fetcher{HTTP: &http.Client{Timeout: 5 * time.Second}, CacheDir: t.TempDir()}
	pin := Pin{Ref: "b9591", SHA256: UnknownSHA256, URL: url + "/archive/b9591.tar.gz"}
	_, err := f.Fetch(context.Background(), pin)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), pin.URL) || !strings.Contains(err.Error(), "--source DIR") {
		t.Fatalf("err = %v", err)
	}
}

func TestExtractRefusesUnsafeEntries(t *testing.T) {
	cases := map[string][]entry{
		"dotdot":            {{name: "top/../../evil.txt", body: "x", typ: tar.TypeReg}},
		"absolute":          {{name: "/tmp/evil.txt", body: "x", typ: tar.TypeReg}},
		"symlink out":       {{name: "top/link", link: "../../outside", typ: tar.TypeSymlink}},
		"absolute symlink":  {{name: "top/link", link: "/etc", typ: tar.TypeSymlink}},
		"write via symlink": {{name: "top/dir", link: ".", typ: tar.TypeSymlink}, {name: "top/dir/x", body: "x", typ: tar.TypeReg}},
		"hard link":         {{name: "top/h", link: "/etc/passwd", typ: tar.TypeLink}},
		// c/.. looks inside lexically but is the tree's parent once c -> ".",
		// whichever of the two links comes first.
		"link through link": {{name: "top/c", link: ".", typ: tar.TypeSymlink}, {name: "top/d", link: "c/..", typ: tar.TypeSymlink}},
		"link before link":  {{name: "top/d", link: "c/..", typ: tar.TypeSymlink}, {name: "top/c", link: ".", typ: tar.TypeSymlink}},
		"dir via symlink":   {{name: "top/dir", link: ".", typ: tar.TypeSymlink}, {name: "top/dir/sub/", typ: tar.TypeDir}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			if name == "write via symlink" || name == "dir via symlink" {
				testutil.Symlinks(t) // the link must exist for the write through it to be tried
			}
			parent := t.TempDir()
			dst := filepath.Join(parent, "tree")
			os.Mkdir(dst, 0o755)
			err := ExtractTarGz(bytes.NewReader(tarOf(t, entries...)), dst)
			if !errors.Is(err, ErrUnsafeArchive) {
				t.Fatalf("err = %v, want ErrUnsafeArchive", err)
			}
			if _, err := os.Stat(filepath.Join(parent, "evil.txt")); err == nil {
				t.Error("file written outside the tree")
			}
		})
	}
	// A link that stays inside is fine.
	dst := t.TempDir()
	err := ExtractTarGz(bytes.NewReader(tarOf(t,
		entry{name: "top/a/file", body: "x", typ: tar.TypeReg},
		entry{name: "top/b/link", link: "../a/file", typ: tar.TypeSymlink})), dst)
	if err != nil {
		t.Fatalf("inside link refused: %v", err)
	}
}

// A decompression bomb stops at the byte cap and an inode bomb at the entry
// cap (small caps here; the package ones are 2 GiB and 100k entries).
func TestExtractCapsBytesAndEntries(t *testing.T) {
	tarX := func(data []byte, maxBytes int64, maxEntries int) error {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		x := &extractor{dst: t.TempDir(), maxBytes: maxBytes, maxEntries: maxEntries}
		return x.tarGz(tar.NewReader(gz))
	}
	big := tarOf(t, entry{name: "top/a", body: strings.Repeat("x", 600), typ: tar.TypeReg}, entry{name: "top/b", body: strings.Repeat("x", 600), typ: tar.TypeReg})
	if err := tarX(big, 1000, 10); !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "1000 bytes") {
		t.Errorf("byte cap: err = %v", err)
	}
	if err := tarX(big, 1200, 10); err != nil {
		t.Errorf("exactly at the byte cap: %v", err)
	}
	var many []entry
	for i := 0; i < 6; i++ {
		many = append(many, entry{name: "top/f" + strings.Repeat("x", i), typ: tar.TypeReg})
	}
	if err := tarX(tarOf(t, many...), 1000, 5); !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "5 entries") {
		t.Errorf("entry cap: err = %v", err)
	}
	if err := tarX(tarOf(t, many...), 1000, 6); err != nil {
		t.Errorf("exactly at the entry cap: %v", err)
	}

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < 3; i++ {
		w, _ := zw.Create("top/f" + strings.Repeat("x", i))
		w.Write([]byte("yy"))
	}
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if err := (&extractor{dst: t.TempDir(), maxBytes: 100, maxEntries: 2}).zip(zr); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("zip entry cap: err = %v", err)
	}
	if err := (&extractor{dst: t.TempDir(), maxBytes: 5, maxEntries: 10}).zip(zr); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("zip byte cap: err = %v", err)
	}
}

func TestFetchRefusesZipSlipArchive(t *testing.T) {
	body := tarOf(t, entry{name: "llama.cpp-b1/CMakeLists.txt", body: "x", typ: tar.TypeReg}, entry{name: "llama.cpp-b1/../../x", body: "x", typ: tar.TypeReg})
	s := newServer(t, body)
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
	_, err := f.Fetch(context.Background(), pinFor(s, "b1", sum(body)))
	if !errors.Is(err, ErrUnsafeArchive) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.CacheDir, "engine", "b1")); err == nil {
		t.Error("unsafe archive left a tree")
	}
}

func TestExtractZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("llama.cpp-b1/CMakeLists.txt")
	w.Write([]byte("project(x)\n"))
	zw.Close()
	dst := t.TempDir()
	if err := ExtractZip(bytes.NewReader(buf.Bytes()), int64(buf.Len()), dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "CMakeLists.txt")); string(b) != "project(x)\n" {
		t.Errorf("content %q", b)
	}
	buf.Reset()
	zw = zip.NewWriter(&buf)
	zw.Create("llama.cpp-b1/../../evil")
	zw.Close()
	if err := ExtractZip(bytes.NewReader(buf.Bytes()), int64(buf.Len()), t.TempDir()); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("zip slip: err = %v", err)
	}
}

func TestLockPins(t *testing.T) {
	l := DefaultLock()
	p, err := l.Pin("")
	if err != nil || p.Ref != "b9591" || p.BuildNumber != 9591 || p.Commit != "e95dae18d" || p.SHA256 != UnknownSHA256 {
		t.Fatalf("default pin = %+v, %v", p, err)
	}
	if p.URL != "https://github.com/ggml-org/llama.cpp/archive/refs/tags/b9591.tar.gz" {
		t.Errorf("url = %s", p.URL)
	}
	other, err := l.Pin("b10000")
	if err != nil || other.BuildNumber != 10000 || other.SHA256 != UnknownSHA256 {
		t.Errorf("unpinned = %+v, %v", other, err)
	}
	for _, bad := range []string{"master", "b12;rm", "../b1", "v1"} {
		if _, err := l.Pin(bad); err == nil {
			t.Errorf("Pin(%q) accepted", bad)
		}
	}
}

func TestDetectVersionFromGit(t *testing.T) {
	if _, err := (proc.Exec{}).LookPath("git"); err != nil {
		testutil.Missing(t, "git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		res, err := (proc.Exec{}).Run(context.Background(), proc.Cmd{Name: "git", Args: append([]string{"-C", dir}, args...),
			Env: append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("git %v: %v %s", args, err, res.Combined())
		}
	}
	run("init", "-q")
	for i := 0; i < 3; i++ {
		os.WriteFile(filepath.Join(dir, "f"), []byte{byte(i)}, 0o644)
		run("add", "f")
		run("commit", "-q", "-m", "c")
	}
	run("tag", "b3")
	v := DetectVersion(context.Background(), proc.Exec{}, dir, DefaultLock())
	if v.BuildNumber != 3 || !v.HasGit || len(v.Commit) != 9 || v.Ref != "b3" || v.VersionFrom != "git" {
		t.Errorf("version = %+v", v)
	}
}

func TestDetectVersionFromArchiveName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "llama.cpp-b9591")
	os.Mkdir(dir, 0o755)
	v := DetectVersion(context.Background(), &proc.Replay{}, dir, DefaultLock())
	if v.BuildNumber != 9591 || v.Commit != "e95dae18d" || v.VersionFrom != "archive-name" {
		t.Errorf("version = %+v", v)
	}
	v = DetectVersion(context.Background(), &proc.Replay{}, t.TempDir(), DefaultLock())
	if v.BuildNumber != 0 || v.VersionFrom != "unknown" {
		t.Errorf("anonymous tree version = %+v", v)
	}
}

func FuzzExtractTarGz(f *testing.F) {
	f.Add(fixtureTarball(f, "b1"))
	f.Add([]byte{0x1f, 0x8b, 0x08})
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dst := filepath.Join(parent, "tree")
		os.Mkdir(dst, 0o755)
		_ = ExtractTarGz(bytes.NewReader(data), dst)
		entries, _ := os.ReadDir(parent)
		if len(entries) != 1 {
			t.Fatalf("extraction wrote outside the tree: %v", entries)
		}
	})
}

func FuzzExtractZip(f *testing.F) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("llama.cpp-b1/CMakeLists.txt")
	w.Write([]byte("project(x)\n"))
	zw.Create("llama.cpp-b1/ggml/")
	h := &zip.FileHeader{Name: "llama.cpp-b1/link"}
	h.SetMode(os.ModeSymlink | 0o777)
	lw, _ := zw.CreateHeader(h)
	lw.Write([]byte("CMakeLists.txt"))
	zw.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dst := filepath.Join(parent, "tree")
		os.Mkdir(dst, 0o755)
		_ = ExtractZip(bytes.NewReader(data), int64(len(data)), dst)
		entries, _ := os.ReadDir(parent)
		if len(entries) != 1 {
			t.Fatalf("extraction wrote outside the tree: %v", entries)
		}
	})
}

func hashesJSON(t *testing.T, f *Fetcher) string {
	t.Helper()
	b, err := os.ReadFile(f.hashesPath())
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A first download that is not a usable archive (a captive portal's page, a
// download cut short without Content-Length, an unsafe tarball) is deleted
// and never recorded as the ref's hash, so the next build, with the network
// or the mirror fixed, succeeds.
func TestFetchPoisonedThenCorrected(t *testing.T) {
	good := fixtureTarball(t, "b9700")
	for name, bad := range map[string][]byte{
		"captive portal page": []byte("<html><body>Please log in to the hotel Wi-Fi</body></html>"),
		"truncated":           good[:len(good)/2],
		"unsafe tarball":      tarOf(t, entry{name: "llama.cpp-b9700/CMakeLists.txt", body: "x", typ: tar.TypeReg}, entry{name: "llama.cpp-b9700/../../evil", body: "x", typ: tar.TypeReg}),
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, bad)
			f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
			pin := pinFor(s, "b9700", UnknownSHA256)
			_, err := f.Fetch(context.Background(), pin)
			if err == nil || !strings.Contains(err.Error(), "deleted") || !strings.Contains(err.Error(), "LLAMACTL_ENGINE_MIRROR") {
				t.Fatalf("bad download: err = %v; want it to say the archive was deleted and what to do", err)
			}
			if h := hashesJSON(t, f); strings.Contains(h, "b9700") {
				t.Errorf("the bad download's hash was recorded: %s", h)
			}
			if ents, _ := os.ReadDir(filepath.Join(f.CacheDir, "downloads")); len(ents) != 0 {
				t.Errorf("downloads/ keeps %d files after a bad download", len(ents))
			}
			s.mu.Lock()
			s.body = good
			s.mu.Unlock()
			src, err := f.Fetch(context.Background(), pin)
			if err != nil {
				t.Fatalf("after the mirror is corrected: %v", err)
			}
			if !src.Recorded || f.RecordedHash("b9700") != sum(good) {
				t.Errorf("corrected download: %+v, recorded %q", src, f.RecordedHash("b9700"))
			}
		})
	}
}

// An unsafe zip is refused like an unsafe tarball (the zip branch of unpack
// once dropped the extraction error and marked the tree complete).
func TestFetchRefusesUnsafeZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("llama.cpp-b1/CMakeLists.txt")
	w.Write([]byte("project(x)\n"))
	zw.Create("llama.cpp-b1/../../evil")
	zw.Close()
	s := newServer(t, buf.Bytes())
	f := &Fetcher{HTTP: s.Client(), CacheDir: t.TempDir()}
	pin := Pin{Ref: "b1", SHA256: UnknownSHA256, URL: s.URL + "/archive/b1.zip"}
	if _, err := f.Fetch(context.Background(), pin); !errors.Is(err, ErrUnsafeArchive) {
		t.Fatalf("err = %v, want ErrUnsafeArchive", err)
	}
	if _, ok := readMarker(filepath.Join(f.CacheDir, "engine", "b1")); ok {
		t.Error("the unsafe zip's tree is marked complete")
	}
}

// Two builds on one cache: the second waits for the first's download instead
// of writing the same .part file; both get the tree, one request is made.
func TestFetchConcurrentSameRef(t *testing.T) {
	body := fixtureTarball(t, "b9591")
	s := newServer(t, body)
	cache := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := &Fetcher{HTTP: s.Client(), CacheDir: cache}
			_, errs[i] = f.Fetch(context.Background(), pinFor(s, "b9591", sum(body)))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fetch %d: %v", i, err)
		}
	}
	if s.requests != 1 {
		t.Errorf("%d downloads, want 1", s.requests)
	}
}

// A checkout whose history is one squashed commit without tags (a vendored
// copy, node-llama-cpp's git bundle): the commit is git's, the build number
// unknown, and has_git says so consistently.
func TestDetectVersionSquashedCheckout(t *testing.T) {
	if _, err := (proc.Exec{}).LookPath("git"); err != nil {
		testutil.Missing(t, "git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		res, err := (proc.Exec{}).Run(context.Background(), proc.Cmd{Name: "git", Args: append([]string{"-C", dir}, args...),
			Env: append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("git %v: %v %s", args, err, res.Combined())
		}
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("set(LLAMA_VERSION_MAJOR 0)\nset(LLAMA_VERSION_MINOR 5)\nset(LLAMA_VERSION_PATCH 0)\n"), 0o644)
	run("add", "CMakeLists.txt")
	run("commit", "-q", "-m", "squashed")
	v := DetectVersion(context.Background(), proc.Exec{}, dir, DefaultLock())
	if !v.HasGit || len(v.Commit) != 9 || v.CommitCount != 1 || v.BuildNumber != 0 || v.VersionFrom != "git-commit" || v.Semver != "0.5.0" || v.Dirty {
		t.Errorf("version = %+v", v)
	}
	os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("# local change\n"), 0o644)
	if v = DetectVersion(context.Background(), proc.Exec{}, dir, DefaultLock()); !v.Dirty || v.Semver != "" {
		t.Errorf("dirty checkout: %+v", v)
	}
	// A release tag on the squashed commit names it.
	run("tag", "b5000")
	if v = DetectVersion(context.Background(), proc.Exec{}, dir, DefaultLock()); v.BuildNumber != 5000 || v.VersionFrom != "git-tag" || !v.HasGit {
		t.Errorf("tagged: %+v", v)
	}
}

func TestDetectVersionFromSemverArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "llama.cpp-0.5.0")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("set(LLAMA_VERSION_MAJOR 0)\nset(LLAMA_VERSION_MINOR 5)\nset(LLAMA_VERSION_PATCH 0)\n"), 0o644)
	v := DetectVersion(context.Background(), &proc.Replay{}, dir, DefaultLock())
	if v.Ref != "v0.5.0" || v.Semver != "0.5.0" || v.VersionFrom != "archive-name" || v.HasGit || v.Commit != "" {
		t.Errorf("version = %+v", v)
	}
}
