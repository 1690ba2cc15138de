package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(nil, nil)
	code := Execute(f, args)
	return code, out.String(), errOut.String()
}

func TestVersionJSONHasSchemaAndFields(t *testing.T) {
	code, out, _ := run(t, "version", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"schema", "version", "commit", "date"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("missing %q in %s", k, out)
		}
	}
	if doc["schema"].(float64) != 1 {
		t.Errorf("schema = %v", doc["schema"])
	}
}

func TestVersionHuman(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "llamactl ") || !strings.Contains(out, "commit") {
		t.Fatalf("exit %d out %q", code, out)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"no-such-command"}, {"version", "--no-such-flag"}, {"completion"}, {"completion", "tcsh"}} {
		code, _, errOut := run(t, args...)
		if code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errOut)
		}
		if !strings.Contains(errOut, "llamactl:") {
			t.Errorf("%v: error not explained: %q", args, errOut)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "__llamactl", "zsh": "#compdef llamactl", "fish": "complete -c llamactl", "powershell": "Register-ArgumentCompleter"} {
		code, out, _ := run(t, "completion", shell)
		if code != 0 || !strings.Contains(out, marker) {
			t.Errorf("%s: exit %d, marker %q missing", shell, code, marker)
		}
	}
}

func TestHelpNamesTheMainCommands(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"llamactl doctor", "--json", "--no-color"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
