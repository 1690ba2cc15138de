package archtest

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llamactl/llamactl/"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	GoFiles    []string
}

// list is `go list -deps=false -json ./...` for GOOS (both Linux and Windows
// builds must keep the rules: some imports are per platform).
func list(t *testing.T, goos string) []pkg {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-json", module+"...")
	cmd.Env = append(cmd.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// command reports whether p is part of the CLI layer: a command package
// (…cmd), the root command, the entry point, or the CLI's own helpers.
func command(p string) bool {
	switch {
	case strings.HasSuffix(p, "cmd") && p != module+"internal/cmdutil":
		return true
	case p == module+"internal/cli", p == module+"internal/cmdutil", p == module+"internal/ui",
		strings.HasPrefix(p, module+"cmd/"), strings.HasPrefix(p, module+"scripts/"):
		return true
	}
	return false
}

// cliOnly are the packages only the CLI layer may import.
func cliOnly(imp string) bool {
	switch imp {
	case "github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/charmbracelet/lipgloss",
		module + "internal/cli", module + "internal/cmdutil", module + "internal/ui":
		return true
	}
	return strings.HasPrefix(imp, module) && strings.HasSuffix(imp, "cmd")
}

// base packages are the facts everything builds on; they import no other
// llamactl package but each other.
var base = []string{module + "machine", module + "internal/finding", module + "internal/version", module + "internal/textenc", module + "internal/safefile"}

func TestImportRules(t *testing.T) {
	for _, goos := range []string{"linux", "windows"} {
		for _, p := range list(t, goos) {
			if len(p.GoFiles) == 0 {
				continue
			}
			for _, imp := range p.Deps {
				switch {
				case !command(p.ImportPath) && cliOnly(imp):
					// Domain packages return typed errors and take narrow
					// interfaces (proc.Env); only commands render or map to exit codes.
					t.Errorf("%s (%s): domain package %s depends on the CLI layer: %s", goos, path.Base(p.ImportPath), p.ImportPath, imp)
				case slices.Contains(base, p.ImportPath) && strings.HasPrefix(imp, module) && !slices.Contains(base, imp):
					t.Errorf("%s: base package %s imports %s", goos, p.ImportPath, imp)
				}
			}
			if command(p.ImportPath) && strings.HasSuffix(p.ImportPath, "cmd") {
				for _, imp := range p.Imports {
					// A command never imports another: what two share moves down.
					if imp != p.ImportPath && strings.HasPrefix(imp, module) && strings.HasSuffix(imp, "cmd") && imp != module+"internal/cmdutil" {
						t.Errorf("%s: command %s imports command %s", goos, p.ImportPath, imp)
					}
				}
			}
		}
	}
}

// The rule itself: a domain package that reached for the CLI would be caught.
func TestRuleCatches(t *testing.T) {
	if !cliOnly(module+"internal/cmdutil") || !cliOnly("github.com/spf13/cobra") || !cliOnly(module+"doctor/doctorcmd") {
		t.Error("cliOnly misses the CLI layer")
	}
	if cliOnly(module+"machine") || cliOnly(module+"internal/proc") {
		t.Error("cliOnly refuses domain packages")
	}
	if command(module+"build") || !command(module+"build/buildcmd") || command(module+"internal/proc") {
		t.Error("command() misclassifies")
	}
}
