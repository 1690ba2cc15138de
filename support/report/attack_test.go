package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRedactionAttacks plants secrets where a reviewer tried to slip them
// past the redaction: URL-embedded credentials (in raw output, a build log
// and an innocently named variable), a quoted secret whose quotes the tools
// drop, a secret in a raw command's name, and an 8.3 short user folder.
// Nothing planted may reach any file of the bundle.
func TestRedactionAttacks(t *testing.T) {
	const (
		urlPass   = "s3cr3tPa55word"
		glToken   = "glpat-AbCdEf1234567890xyz"
		pipPass   = "Zx9pipPass99"
		quoted    = "q7Rk2LmN8pQ4vW1z"
		cmdSecret = "k9Jd7Hs6Gf5Ds4Aa"
	)
	p := filepath.Join(t.TempDir(), "r.zip")
	o := options(t, p, true)
	o.Env["DATABASE_HOST"] = "prod-db7.fabrikam.internal" // not allowlisted: private
	o.Env["PIP_INDEX_URL"] = "https://deploy:" + pipPass + "@pypi.corp.example/simple"
	o.Env["MY_SERVICE_TOKEN"] = `"` + quoted + `"` // cmd.exe `set X="..."` keeps the quotes
	o.Snapshot.Env["PIP_INDEX_URL"] = o.Env["PIP_INDEX_URL"]
	o.Snapshot.Raw["git remote -v"] = "origin https://jane:" + urlPass + "@git.corp.example/llama.cpp (fetch)\n" +
		"mirror https://oauth2:" + glToken + "@gitlab.com/x/llama.cpp (push)\n"
	o.Snapshot.Raw["pip config list"] = "global.index-url='https://deploy:" + pipPass + "@pypi.corp.example/simple'\n"
	o.Snapshot.Raw["curl -u admin:"+cmdSecret+" http://10.1.2.3/"] = "ok\n"
	o.Snapshot.Raw["huggingface-cli whoami"] = "using token " + quoted + " from the environment\n"
	o.Snapshot.Raw["set"] = "DATABASE_HOST=prod-db7.fabrikam.internal\nMY_SERVICE_TOKEN=" + quoted + "\nTEMP=C:\\Users\\JANEDO~2\\AppData\\Local\\Temp\n"
	if _, err := Write(o); err != nil {
		t.Fatalf("write: %v", err)
	}
	files := readZip(t, p)
	if len(files) < 5 {
		t.Fatalf("bundle has only %d files", len(files))
	}
	for name, body := range files {
		for _, s := range []string{urlPass, glToken, pipPass, quoted, cmdSecret, "JANEDO~2", "deploy:", "prod-db7"} {
			if strings.Contains(body, s) {
				t.Errorf("%s leaks %q", name, s)
			}
		}
	}
}
