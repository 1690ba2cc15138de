package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

func releaseServer(t *testing.T, latest string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/checksums.txt" {
			http.NotFound(w, r)
			return
		}
		for _, n := range []string{"linux_amd64.tar.gz", "windows_amd64.zip"} {
			fmt.Fprintf(w, "%s  llamactl_%s_%s\n", strings.Repeat("ab", 32), latest, n)
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func runEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	code := Execute(f, args)
	return code, out.String(), errOut.String()
}

func stamp(t *testing.T, v string) {
	old := buildinfo.Version
	buildinfo.Version = v
	t.Cleanup(func() { buildinfo.Version = old })
}

func TestVersionCheck(t *testing.T) {
	env := map[string]string{"LLAMACTL_INSTALL_BASE": releaseServer(t, "0.3.0")}

	stamp(t, "0.3.0")
	code, out, errOut := runEnv(t, env, "version", "--check")
	if code != 0 || !strings.Contains(out, "llamactl 0.3.0 is the latest release.") {
		t.Errorf("up to date: exit %d\n%s%s", code, out, errOut)
	}

	stamp(t, "0.2.0")
	code, out, _ = runEnv(t, env, "version", "--check")
	if code != 1 || !strings.Contains(out, "llamactl 0.3.0 is available (this is 0.2.0)") || !strings.Contains(out, "install.") {
		t.Errorf("outdated: exit %d\n%s", code, out)
	}
	code, out, _ = runEnv(t, env, "version", "--check", "--json")
	var doc struct {
		Schema int `json:"schema"`
		Check  struct {
			Current, Latest, Status string
		} `json:"check"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || doc.Check.Status != "newer" || doc.Check.Latest != "0.3.0" || doc.Check.Current != "0.2.0" {
		t.Errorf("outdated --json: exit %d %+v %v\n%s", code, doc, err, out)
	}

	// Without --check nothing is fetched, even with the base set.
	code, out, _ = runEnv(t, map[string]string{"LLAMACTL_INSTALL_BASE": "http://127.0.0.1:1"}, "version", "--json")
	if code != 0 || strings.Contains(out, "check") {
		t.Errorf("plain version: exit %d %s", code, out)
	}
}

func TestVersionCheckUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	l.Close()
	code, out, errOut := runEnv(t, map[string]string{"LLAMACTL_INSTALL_BASE": base}, "version", "--check")
	if code != 1 || !strings.HasPrefix(out, "llamactl ") || !strings.Contains(errOut, "could not check for a newer llamactl: "+base+"/checksums.txt did not answer") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	code, out, errOut = runEnv(t, map[string]string{"LLAMACTL_INSTALL_BASE": base}, "version", "--check", "--json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 1 || doc["check_error"] == nil || errOut != "" {
		t.Errorf("--json: exit %d %v\n%s\n%s", code, err, out, errOut)
	}
}
