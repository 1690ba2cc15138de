package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llamactl/llamactl/build/engine"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
)

// sourceFixture serves the fixture engine's archive (the real extractor
// and hashing run on it) and counts the requests.
func sourceFixture(t *testing.T) (body []byte, pin func(sha string) engine.Pin, requests *int) {
	t.Helper()
	body = testutil.EngineTarball(t, "llama.cpp-b9591")
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		http.ServeContent(w, r, "b9591.tar.gz", time.Time{}, bytes.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	pin = func(sha string) engine.Pin {
		return engine.Pin{Ref: "b9591", BuildNumber: 9591, SHA256: sha, URL: srv.URL + "/b9591.tar.gz"}
	}
	return body, pin, &n
}

func hexSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func steps(f *Fetched) map[string]Step {
	m := map[string]Step{}
	for _, s := range f.Steps {
		m[s.Name] = s
	}
	return m
}

func sourceDeps() Deps { return Deps{Runner: &proc.Replay{}} }

// TestSourceStagesRunThenSkipCached: a first build downloads (fetch ok)
// and verifies (verify-source ok, the hash in its detail); the next finds
// the verified tree and skips both, saying where and since when.
func TestSourceStagesRunThenSkipCached(t *testing.T) {
	body, pin, requests := sourceFixture(t)
	f := &engine.Fetcher{HTTP: http.DefaultClient, CacheDir: t.TempDir()}
	got, err := FetchSource(context.Background(), sourceDeps(), SourceOptions{Fetcher: f, Pin: pin(hexSum(body))})
	if err != nil {
		t.Fatal(err)
	}
	st := steps(got)
	if len(got.Steps) != 2 || got.Steps[0].Name != "fetch" || got.Steps[1].Name != "verify-source" {
		t.Fatalf("steps %+v, want fetch then verify-source", got.Steps)
	}
	if st["fetch"].Status != "ok" || st["verify-source"].Status != "ok" || st["verify-source"].Detail != "sha256 "+hexSum(body) {
		t.Errorf("first run steps %+v", got.Steps)
	}
	if got.Source.Cached || got.Source.SHA256 != hexSum(body) || got.Engine.SHA256 != hexSum(body) || got.Engine.BuildNumber != 9591 {
		t.Errorf("source %+v engine %+v", got.Source, got.Engine)
	}
	if _, err := os.Stat(filepath.Join(got.Source.Dir, "CMakeLists.txt")); err != nil {
		t.Errorf("tree not unpacked: %v", err)
	}

	again, err := FetchSource(context.Background(), sourceDeps(), SourceOptions{Fetcher: f, Pin: pin(hexSum(body))})
	if err != nil {
		t.Fatal(err)
	}
	st = steps(again)
	dir := filepath.Join(f.CacheDir, "engine", "b9591")
	today := time.Now().UTC().Format("2006-01-02")
	if st["fetch"].Status != "skipped" || st["fetch"].Detail != "cached at "+dir {
		t.Errorf("cached fetch step %+v", st["fetch"])
	}
	if v := st["verify-source"]; v.Status != "skipped" || !strings.HasPrefix(v.Detail, "cached at "+dir+", sha256 verified on "+today) {
		t.Errorf("cached verify-source step %+v", v)
	}
	if !again.Source.Cached || *requests != 1 {
		t.Errorf("second run: cached %v, %d downloads", again.Source.Cached, *requests)
	}
}

// TestSourceStagesSkippedForSourceDir: --source builds the tree as is.
func TestSourceStagesSkippedForSourceDir(t *testing.T) {
	dir := t.TempDir()
	got, err := FetchSource(context.Background(), sourceDeps(), SourceOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got.Steps {
		if s.Status != "skipped" || !strings.Contains(s.Detail, "--source "+dir+": built as is") {
			t.Errorf("step %+v, want skipped for --source", s)
		}
	}
	if len(got.Steps) != 2 || got.Source.Dir != dir {
		t.Errorf("steps %+v source %+v", got.Steps, got.Source)
	}
}

// TestFetchStageFailsOffline: no server -> failed_stage fetch, the
// download's error (ErrOffline: the build is blocked, exit 1), and
// verify-source never starts.
func TestFetchStageFailsOffline(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	f := &engine.Fetcher{HTTP: &http.Client{Timeout: 5 * time.Second}, CacheDir: t.TempDir()}
	got, err := FetchSource(context.Background(), sourceDeps(), SourceOptions{Fetcher: f, Pin: engine.Pin{Ref: "b9591", URL: url + "/b9591.tar.gz"}})
	var be *Error
	if !errors.As(err, &be) || be.Kind != Blocked || !errors.Is(err, engine.ErrOffline) || !strings.Contains(be.Message, "--source DIR") {
		t.Fatalf("err %v, want a Blocked *Error wrapping engine.ErrOffline", err)
	}
	if got.Failed != "fetch" || len(got.Steps) != 1 || got.Steps[0].Status != "failed" || got.Steps[0].Detail != be.Message {
		t.Errorf("failed %q steps %+v", got.Failed, got.Steps)
	}
}

// TestVerifySourceStageFailsOnMismatch: the archive downloads but its
// sha256 is not the lock's -> failed_stage verify-source, the mismatch
// error (exit 5: Failed), the archive deleted.
func TestVerifySourceStageFailsOnMismatch(t *testing.T) {
	_, pin, _ := sourceFixture(t)
	f := &engine.Fetcher{HTTP: http.DefaultClient, CacheDir: t.TempDir()}
	got, err := FetchSource(context.Background(), sourceDeps(), SourceOptions{Fetcher: f, Pin: pin(strings.Repeat("ab", 32))})
	var be *Error
	if !errors.As(err, &be) || be.Kind != Failed || !errors.Is(err, engine.ErrHashMismatch) {
		t.Fatalf("err %v, want a Failed *Error wrapping engine.ErrHashMismatch", err)
	}
	st := steps(got)
	if got.Failed != "verify-source" || st["fetch"].Status != "ok" || st["verify-source"].Status != "failed" {
		t.Errorf("failed %q steps %+v", got.Failed, got.Steps)
	}
	if _, err := os.Stat(filepath.Join(f.CacheDir, "downloads", "b9591.tar.gz")); !os.IsNotExist(err) {
		t.Errorf("the bad archive was kept: %v", err)
	}
}

// TestSourceStagesInterrupted: after Ctrl-C no source stage starts.
func TestSourceStagesInterrupted(t *testing.T) {
	_, pin, requests := sourceFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &engine.Fetcher{HTTP: http.DefaultClient, CacheDir: t.TempDir()}
	got, err := FetchSource(ctx, sourceDeps(), SourceOptions{Fetcher: f, Pin: pin("")})
	var be *Error
	if !errors.As(err, &be) || be.Kind != Interrupted || got.Failed != "fetch" || *requests != 0 {
		t.Errorf("err %v failed %q, %d requests", err, got.Failed, *requests)
	}
}
