package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/filelock"
	"github.com/llamactl/llamactl/internal/paths"
)

// Doer sends HTTP requests (an *http.Client; tests point it at httptest).
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// Fetcher downloads and unpacks pinned engines into a cache directory:
//
//	<cache>/downloads/<ref>.tar.gz(.part)   the archive, resumable
//	<cache>/engine/<ref>/                     the unpacked tree
//	<cache>/engine/hashes.json                sha256 recorded on the first download that verified and extracted
//	<cache>/locks/engine-<ref>.lock           held while one llamactl fills the entry
type Fetcher struct {
	HTTP     Doer
	CacheDir string
	// Progress, when set, is called as bytes arrive (total -1 when unknown).
	Progress func(done, total int64)
	// Timeout bounds the whole download (default 30 minutes).
	Timeout time.Duration
	// Waiting, when set, is called once when another llamactl holds this
	// engine's cache entry and Fetch waits for it.
	Waiting func()
}

// Source is an engine tree ready to build.
type Source struct {
	Dir    string `json:"dir"`
	Ref    string `json:"ref"`
	SHA256 string `json:"sha256,omitempty"`
	URL    string `json:"url,omitempty"`
	// Cached is true when no download was needed.
	Cached bool `json:"cached"`
	// Recorded is true when this download recorded the ref's hash.
	Recorded bool `json:"recorded,omitempty"`
}

// marker is written into an unpacked tree once it is complete.
const markerName = ".llamactl-source.json"

type marker struct {
	Ref    string `json:"ref"`
	SHA256 string `json:"sha256"`
	URL    string `json:"url"`
	Commit string `json:"commit,omitempty"`
	Build  int    `json:"build_number,omitempty"`
	// Verified is when the archive's sha256 was checked (RFC 3339, UTC).
	Verified string `json:"verified,omitempty"`
}

// verifiedAt is when the tree in dir was verified: the marker's date, else
// (a tree unpacked before the date was kept) when the marker was written.
func (m marker) verifiedAt(dir string) time.Time {
	if t, err := time.Parse(time.RFC3339, m.Verified); err == nil {
		return t
	}
	if info, err := os.Stat(filepath.Join(dir, markerName)); err == nil {
		return info.ModTime().UTC()
	}
	return time.Time{}
}

// ErrOffline wraps download failures that mean "no network".
var ErrOffline = errors.New("cannot download the engine")

// ErrHashMismatch is returned when an archive's sha256 is not the pinned one.
var ErrHashMismatch = errors.New("sha256 mismatch")

// Fetch returns the unpacked tree of pin, downloading it if needed. It holds
// the cache entry's lock (<cache>/locks/engine-<ref>.lock) throughout, so a
// second llamactl sharing the cache waits (Waiting says so) and then finds
// the tree ready. A download is trusted — its hash recorded in hashes.json —
// only once it verified and extracted; an archive that fails either is
// deleted, so the next run downloads afresh. Fetch is Open, Download and
// Verify in one (a build runs them as its fetch and verify-source stages).
func (f *Fetcher) Fetch(ctx context.Context, pin Pin) (Source, error) {
	e, err := f.Open(ctx, pin)
	if err != nil {
		return Source{}, err
	}
	defer e.Close()
	if e.Cached != nil {
		return *e.Cached, nil
	}
	if _, err := e.Download(ctx); err != nil {
		return Source{}, err
	}
	return e.Verify()
}

// Entry is one engine's cache entry, locked from Open to Close: a second
// llamactl sharing the cache waits for it.
type Entry struct {
	f                      *Fetcher
	pin                    Pin
	lk                     *filelock.Lock
	treeDir, archive, want string
	// Cached is the tree when it is already unpacked and its sha256
	// verified (the archive's, on the date VerifiedAt): nothing to do.
	Cached     *Source
	VerifiedAt time.Time
}

// Open locks pin's cache entry and says whether its tree is already there
// and verified (Entry.Cached). Close unlocks it.
func (f *Fetcher) Open(ctx context.Context, pin Pin) (*Entry, error) {
	lk, err := filelock.Acquire(ctx, filepath.Join(f.CacheDir, "locks", "engine-"+pin.Ref+".lock"), f.Waiting)
	if err != nil {
		return nil, fmt.Errorf("locking the cache entry of %s: %w", pin.Ref, err)
	}
	e := &Entry{f: f, pin: pin, lk: lk, treeDir: filepath.Join(f.CacheDir, "engine", pin.Ref),
		archive: filepath.Join(f.CacheDir, "downloads", pin.Ref+archiveExt(pin.URL))}
	if e.want, err = f.expectedHash(pin); err != nil {
		e.Close()
		return nil, err
	}
	if m, ok := readMarker(e.treeDir); ok && (e.want == "" || m.SHA256 == e.want) {
		if e.want == "" {
			// Extracted and marked, but llamactl stopped before recording.
			if err := f.recordHash(pin.Ref, m.SHA256); err != nil {
				e.Close()
				return nil, err
			}
		}
		e.Cached = &Source{Dir: e.treeDir, Ref: pin.Ref, SHA256: m.SHA256, URL: m.URL, Cached: true}
		e.VerifiedAt = m.verifiedAt(e.treeDir)
	}
	return e, nil
}

// Dir is where the entry's tree is (or will be) unpacked.
func (e *Entry) Dir() string { return e.treeDir }

// Close unlocks the cache entry.
func (e *Entry) Close() {
	if e.lk != nil {
		e.lk.Unlock()
		e.lk = nil
	}
}

// Download makes sure the archive is in the cache: kept from before when
// its sha256 is the expected one (kept: its path), else downloaded
// (resuming a partial one).
func (e *Entry) Download(ctx context.Context) (kept string, err error) {
	sum, err := hashFile(e.archive)
	if err == nil && (e.want == "" || sum == e.want) {
		return e.archive, nil
	}
	return "", e.f.download(ctx, e.pin.URL, e.archive)
}

// Verify checks the archive's sha256 against the lock's (or the one
// recorded on the first download), unpacks it and, on a first download,
// records its hash. An archive that fails either is deleted.
func (e *Entry) Verify() (Source, error) {
	pin, want := e.pin, e.want
	sum, err := hashFile(e.archive)
	if err != nil {
		return Source{}, err
	}
	if want != "" && sum != want {
		os.Remove(e.archive)
		return Source{}, fmt.Errorf("%w for %s: expected %s, got %s; the download was deleted. %s", ErrHashMismatch, pin.URL, want, sum, badDownloadHint)
	}
	m := marker{Ref: pin.Ref, SHA256: sum, URL: pin.URL, Commit: pin.Commit, Build: pin.BuildNumber, Verified: time.Now().UTC().Format(time.RFC3339)}
	if err := e.f.unpack(e.archive, e.treeDir, m); err != nil {
		os.Remove(e.archive) // refused or broken: never kept, never trusted
		return Source{}, fmt.Errorf("%s is not a usable llama.cpp archive: %w; it was deleted and nothing was recorded. %s", pin.URL, err, badDownloadHint)
	}
	recorded := false
	if want == "" {
		if err := e.f.recordHash(pin.Ref, sum); err != nil {
			return Source{}, err
		}
		recorded = true
	}
	return Source{Dir: e.treeDir, Ref: pin.Ref, SHA256: sum, URL: pin.URL, Recorded: recorded}, nil
}

// badDownloadHint is the next step after a download that cannot be used.
const badDownloadHint = "If a proxy, captive portal or mirror answered instead of the release server, fix that " +
	"(or point LLAMACTL_ENGINE_MIRROR at a good copy: https://host/path/{ref}.tar.gz) and run the same build again; " +
	"or build a llama.cpp tree you trust with --source DIR"

func archiveExt(url string) string {
	if strings.HasSuffix(url, ".zip") {
		return ".zip"
	}
	return ".tar.gz"
}

// expectedHash is the lock's hash, else the one recorded on first download,
// else "" (record this time).
func (f *Fetcher) expectedHash(pin Pin) (string, error) {
	if pin.SHA256 != "" && pin.SHA256 != UnknownSHA256 {
		return strings.ToLower(pin.SHA256), nil
	}
	h, err := f.recorded()
	if err != nil {
		return "", err
	}
	return h[pin.Ref], nil
}

func (f *Fetcher) hashesPath() string { return filepath.Join(f.CacheDir, "engine", "hashes.json") }

func (f *Fetcher) recorded() (map[string]string, error) {
	h := map[string]string{}
	b, err := os.ReadFile(f.hashesPath())
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): delete it to record the hashes again", f.hashesPath(), err)
	}
	return h, nil
}

// RecordedHash returns the sha256 recorded for ref on its first download.
func (f *Fetcher) RecordedHash(ref string) string {
	h, _ := f.recorded()
	return h[ref]
}

func (f *Fetcher) recordHash(ref, sum string) error {
	h, err := f.recorded()
	if err != nil {
		return err
	}
	h[ref] = sum
	b, _ := json.MarshalIndent(h, "", "  ")
	return paths.WriteFileAtomic(f.hashesPath(), append(b, '\n'))
}

func hashFile(p string) (string, error) {
	fh, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// download fetches url into dst, resuming a previous partial download
// (<dst>.part) with a Range request when the server allows it.
func (f *Fetcher) download(ctx context.Context, url, dst string) error {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	part := dst + ".part"
	var have int64
	if info, err := os.Stat(part); err == nil {
		have = info.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := f.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("%w from %s: %v.\nWithout network, build a llama.cpp tree you already have: llamactl build --source DIR", ErrOffline, url, err)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC // the server ignored the range: start over
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part) // stale partial file; the next run starts afresh
		return fmt.Errorf("%w from %s: the partial download does not match the server's file; it was removed, run the build again", ErrOffline, url)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%s: 404 not found: is the release tag right? See https://github.com/ggml-org/llama.cpp/tags", url)
	default:
		return fmt.Errorf("%w from %s: HTTP %s", ErrOffline, url, resp.Status)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	total := int64(-1)
	if resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	pw := &progressWriter{w: out, done: have, total: total, fn: f.Progress}
	_, err = io.Copy(pw, resp.Body)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// Keep the partial file: the next run resumes from it.
		return fmt.Errorf("%w from %s: interrupted after %d bytes (%v); run the build again to resume", ErrOffline, url, pw.done, err)
	}
	if total >= 0 && pw.done != total {
		return fmt.Errorf("%w from %s: got %d of %d bytes; run the build again to resume", ErrOffline, url, pw.done, total)
	}
	return os.Rename(part, dst)
}

type progressWriter struct {
	w           io.Writer
	done, total int64
	fn          func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if p.fn != nil {
		p.fn(p.done, p.total)
	}
	return n, err
}

// unpack extracts archive into a temporary directory beside treeDir and
// renames it into place, so an interrupted extraction never looks complete.
func (f *Fetcher) unpack(archive, treeDir string, m marker) error {
	parent := filepath.Dir(treeDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".extract-"+m.Ref+"-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	fh, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer fh.Close()
	if strings.HasSuffix(archive, ".zip") {
		var info os.FileInfo
		if info, err = fh.Stat(); err == nil {
			err = ExtractZip(fh, info.Size(), tmp)
		}
	} else {
		err = ExtractTarGz(fh, tmp)
	}
	if err != nil {
		return fmt.Errorf("unpacking %s: %w", filepath.Base(archive), err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "CMakeLists.txt")); err != nil {
		return fmt.Errorf("unpacking %s: it holds no CMakeLists.txt at its top: not a llama.cpp source tree", filepath.Base(archive))
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := paths.WriteFileAtomic(filepath.Join(tmp, markerName), append(b, '\n')); err != nil {
		return err
	}
	if err := os.RemoveAll(treeDir); err != nil {
		return err
	}
	if err := os.Rename(tmp, treeDir); err != nil {
		return err
	}
	ok = true
	return nil
}

func readMarker(dir string) (marker, bool) {
	var m marker
	b, err := os.ReadFile(filepath.Join(dir, markerName))
	if err != nil || json.Unmarshal(b, &m) != nil || m.SHA256 == "" {
		return marker{}, false
	}
	return m, true
}
