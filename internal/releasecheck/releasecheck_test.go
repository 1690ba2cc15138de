package releasecheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const sumA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func index(version string) string {
	var b strings.Builder
	for _, n := range []string{"linux_amd64.tar.gz", "linux_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		fmt.Fprintf(&b, "%s  llamactl_%s_%s\n", sumA, version, n)
	}
	fmt.Fprintf(&b, "%s  llamactl_%s_amd64.deb\n%s  install.sh\n", sumA, version, sumA)
	return b.String()
}

func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}

func TestCheckVerdicts(t *testing.T) {
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/checksums.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, index("0.3.0"))
	})
	for current, want := range map[string]string{"0.2.9": Newer, "0.3.0": UpToDate, "v0.3.0": UpToDate, "0.3.0-rc1": Newer, "0.4.0-dev": Ahead, "0.1.0-dev": Newer} {
		r, err := Check(context.Background(), nil, base+"/", current, time.Second)
		if err != nil {
			t.Fatalf("%s: %v", current, err)
		}
		if r.Status != want || r.Latest != "0.3.0" || r.URL != base+"/checksums.txt" {
			t.Errorf("%s: %+v, want status %s latest 0.3.0", current, r, want)
		}
	}
}

func TestCheckUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	_, err = Check(context.Background(), nil, "http://"+addr, "0.1.0", 2*time.Second)
	var e *Error
	if !errors.As(err, &e) || e.Kind != "unreachable" {
		t.Fatalf("err = %v, want an unreachable Error", err)
	}
	for _, s := range []string{"http://" + addr + "/checksums.txt", "llamactl version --check", ReleasesPage} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q:\n%s", s, err)
		}
	}
}

// A server that accepts and never answers: the check gives up at its
// timeout instead of hanging.
func TestCheckTimeout(t *testing.T) {
	release := make(chan struct{})
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	done := make(chan error, 1)
	go func() {
		_, err := Check(context.Background(), nil, base, "0.1.0", 300*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		var e *Error
		if !errors.As(err, &e) || e.Kind != "unreachable" || e.Reason != "timed out" || !strings.Contains(err.Error(), "within 300ms") {
			t.Fatalf("err = %v, want a timed-out unreachable Error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Check did not give up at its timeout")
	}
}

func TestCheckBadAnswers(t *testing.T) {
	cases := map[string]struct {
		status int
		body   string
		kind   string
	}{
		"404":         {404, "not found", "http-status"},
		"html":        {200, "<html>login page</html>", "bad-index"},
		"no archives": {200, sumA + "  install.sh\n", "bad-index"},
		"empty":       {200, "", "bad-index"},
	}
	for name, c := range cases {
		base := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			fmt.Fprint(w, c.body)
		})
		_, err := Check(context.Background(), nil, base, "0.1.0", time.Second)
		var e *Error
		if !errors.As(err, &e) || e.Kind != c.kind {
			t.Errorf("%s: err = %v, want kind %s", name, err, c.kind)
		}
	}
}

func TestParseChecksums(t *testing.T) {
	es, err := ParseChecksums(strings.NewReader(index("1.2.3") + "\n" + strings.ToUpper(sumA) + " *llamactl_1.2.3_linux_amd64.sbom.json\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 7 || es[6].Name != "llamactl_1.2.3_linux_amd64.sbom.json" || es[6].SHA256 != sumA {
		t.Errorf("entries = %+v", es)
	}
	for _, bad := range []string{
		"abc  llamactl_1_linux_amd64.tar.gz",
		strings.Repeat("z", 64) + "  x",
		sumA + "  ../../etc/passwd",
		sumA + "  dir/llamactl_1_linux_amd64.tar.gz",
		sumA + "  ",
		sumA,
	} {
		if _, err := ParseChecksums(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestArchivesNewestFirst(t *testing.T) {
	es, err := ParseChecksums(strings.NewReader(index("0.9.0") + index("0.10.0") + index("0.10.0-rc2")))
	if err != nil {
		t.Fatal(err)
	}
	as := Archives(es)
	if len(as) != 12 || as[0].Version != "0.10.0" || as[len(as)-1].Version != "0.9.0" {
		t.Errorf("archives = %+v", as)
	}
	a, ok := ParseArchiveName("llamactl_0.2.0-SNAPSHOT-abc1234_windows_arm64.zip")
	if !ok || a.Version != "0.2.0-SNAPSHOT-abc1234" || a.OS != "windows" || a.Arch != "arm64" {
		t.Errorf("snapshot archive = %+v %v", a, ok)
	}
	for _, n := range []string{"llamactl_0.2.0_darwin_amd64.tar.gz", "llamactl_0.2.0_linux_amd64.deb", "other_0.2.0_linux_amd64.tar.gz"} {
		if _, ok := ParseArchiveName(n); ok {
			t.Errorf("%s taken for an archive", n)
		}
	}
}

// Every message ID the package uses exists, with as many %s as it names args.
func TestMessagesComplete(t *testing.T) {
	for _, id := range []string{"up-to-date", "newer", "ahead", "unreachable", "bad-index", "http-status"} {
		m, ok := messages()[id]
		if !ok {
			t.Errorf("message %q missing", id)
			continue
		}
		if n := strings.Count(m.Text, "%s"); n != len(m.Args) {
			t.Errorf("message %q has %d %%s but %d args", id, n, len(m.Args))
		}
	}
}

func FuzzParseChecksums(f *testing.F) {
	f.Add(index("0.1.0"))
	f.Add(sumA + " *a\r\n\n")
	f.Add("\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		es, err := ParseChecksums(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, e := range es {
			if len(e.SHA256) != 64 || e.Name == "" || strings.ContainsAny(e.Name, "/\\") {
				t.Fatalf("bad entry %+v from %q", e, s)
			}
		}
		Archives(es)
	})
}
