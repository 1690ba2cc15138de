package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf/ggufwrite"
)

// The contract with the outside: every command a user can see has help,
// takes --json, and is listed in docs/json.md with its schema and fields.

// helpOwnedElsewhere lists commands known to lack a Long/Example text, with
// the package that owns it. Remove an entry once its owner adds the help: the
// test fails on entries that are no longer needed so the list only shrinks.
var helpOwnedElsewhere = map[string]string{}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, s := range c.Commands() {
		walk(s, fn)
	}
}

// visibleCommands returns every command a user sees in help (not the root,
// not hidden ones, not cobra's help command).
func visibleCommands(t *testing.T) []*cobra.Command {
	t.Helper()
	f, _, _ := cmdutil.NewTest(nil, nil)
	var cmds []*cobra.Command
	walk(NewRoot(f), func(c *cobra.Command) {
		if c.HasParent() && c.IsAvailableCommand() && c.Name() != "help" {
			cmds = append(cmds, c)
		}
	})
	if len(cmds) < 10 {
		t.Fatalf("only %d commands found: the walk is broken", len(cmds))
	}
	return cmds
}

func TestEveryCommandHasJSONAndHelp(t *testing.T) {
	for _, c := range visibleCommands(t) {
		path := c.CommandPath()
		if strings.TrimSpace(c.Short) == "" {
			t.Errorf("%s: no Short description (shown in the parent's command list)", path)
		}
		owner, allowed := helpOwnedElsewhere[path]
		hasLong := strings.TrimSpace(c.Long) != "" || strings.TrimSpace(c.Example) != ""
		switch {
		case !hasLong && !allowed:
			t.Errorf("%s: no Long text or Example: say what it does and show a command line", path)
		case hasLong && allowed:
			t.Errorf("%s now has help: remove it from helpOwnedElsewhere (%s)", path, owner)
		}
		if c.Flag("json") == nil {
			t.Errorf("%s: does not accept --json", path)
		}

		args := append(strings.Fields(path)[1:], "--help")
		code, out, errOut := run(t, args...)
		if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--json") {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", path, code, out, errOut)
		}

		// A wrong flag is a usage error that points at this command's help.
		args = append(strings.Fields(path)[1:], "--no-such-flag")
		code, _, errOut = run(t, args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, "'"+path+" --help'") {
			t.Errorf("%s --no-such-flag: exit %d, stderr %q; want 2 and a pointer to '%s --help'", path, code, errOut, path)
		}

		if c.HasAvailableSubCommands() {
			// A group: an unknown subcommand and a bare --json are usage errors.
			for _, extra := range [][]string{{"no-such-subcommand"}, {"--json"}} {
				args = append(strings.Fields(path)[1:], extra...)
				code, out, errOut = run(t, args...)
				if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "llamactl:") {
					t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want exit 2 and an explanation", path, extra, code, out, errOut)
				}
			}
		}
	}
}

func TestArgumentErrorsShowTheUsageLine(t *testing.T) {
	code, _, errOut := run(t, "gguf")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "Usage: llamactl gguf MODEL.gguf") || !strings.Contains(errOut, "Run 'llamactl gguf --help'") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := run(t, "--json")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "llamactl doctor --json") {
		t.Errorf("llamactl --json: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = run(t)
	if code != 0 || !strings.Contains(out, "A first session") {
		t.Errorf("llamactl alone: exit %d, %q", code, out)
	}
	code, _, errOut = run(t, "no-such-command")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "Run 'llamactl --help'") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestCompletionJSON(t *testing.T) {
	code, out, _ := run(t, "completion", "fish", "--json")
	var doc CompletionDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, not JSON (%v): %.200s", code, err, out)
	}
	if doc.Schema != 1 || doc.Shell != "fish" || !strings.Contains(doc.Script, "complete -c llamactl") {
		t.Errorf("%+v", doc)
	}
}

func TestHelpListsMainCommandsFirst(t *testing.T) {
	_, out, _ := run(t, "--help")
	last := -1
	for _, name := range []string{"\n  doctor ", "\n  build ", "\n  run ", "\n  explain ", "\n  gguf ", "\n  version "} {
		i := strings.Index(out, name)
		if i < 0 || i < last {
			t.Fatalf("%q missing or out of order in:\n%s", name, out)
		}
		last = i
	}
}

// jsonIndexRow is one row of the index table in docs/json.md.
type jsonIndexRow struct {
	command string // "llamactl doctor --list-checks"
	schema  int
	fields  map[string]bool
}

var backticked = regexp.MustCompile("`([^`]+)`")

func readJSONIndex(t *testing.T) (map[string]jsonIndexRow, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]jsonIndexRow{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`llamactl") {
			continue
		}
		m := backticked.FindStringSubmatch(cells[1])
		n, err := strconv.Atoi(strings.TrimSpace(cells[2]))
		if m == nil || err != nil {
			t.Fatalf("docs/json.md: malformed row %q", line)
		}
		r := jsonIndexRow{command: m[1], schema: n, fields: map[string]bool{}}
		for _, f := range backticked.FindAllStringSubmatch(cells[3], -1) {
			r.fields[f[1]] = true
		}
		if !r.fields["schema"] {
			t.Errorf("docs/json.md: %s does not list the schema field", r.command)
		}
		rows[r.command] = r
	}
	if len(rows) == 0 {
		t.Fatal("docs/json.md: no index rows found")
	}
	return rows, string(b)
}

// commandPart drops flags: "llamactl doctor --list-checks" → "llamactl doctor".
func commandPart(s string) string {
	var words []string
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "-") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

func TestJSONDocNamesEveryCommand(t *testing.T) {
	rows, text := readJSONIndex(t)
	indexed := map[string]bool{}
	for cmd := range rows {
		indexed[commandPart(cmd)] = true
	}
	known := map[string]bool{}
	for _, c := range visibleCommands(t) {
		path := c.CommandPath()
		known[path] = true
		if c.Runnable() && !c.HasAvailableSubCommands() {
			if !indexed[path] {
				t.Errorf("docs/json.md has no index row for `%s`", path)
			}
		} else if !strings.Contains(text, "`"+path+"`") {
			t.Errorf("docs/json.md does not name the group `%s` (say what its --json does)", path)
		}
	}
	for cmd := range indexed {
		if !known[cmd] {
			t.Errorf("docs/json.md indexes `%s`, which is not a command", cmd)
		}
	}
}

// TestRunJSONMatchesIndex plans a generated model with the real llama.cpp
// engine (LLAMACTL_TEST_ENGINE_DIR) and checks run's document the same way.
func TestRunJSONMatchesIndex(t *testing.T) {
	engineDir := os.Getenv("LLAMACTL_TEST_ENGINE_DIR")
	if engineDir == "" {
		engineDir = "/var/cache/llamactl-deps/engine/bin"
	}
	if _, err := os.Stat(filepath.Join(engineDir, "llama-server")); err != nil {
		testutil.Missing(t, "no llama.cpp engine in %s (scripts/deps.sh installs it): %v", engineDir, err)
	}
	rows, _ := readJSONIndex(t)
	row := rows["llamactl run"]
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gguf")
	gf, err := ggufwrite.Model(ggufwrite.Small(ggufwrite.Config{Arch: "llama"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.WriteFile(model); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := cmdutil.NewTest(map[string]string{"LLAMACTL_NO_CACHE": "1", "LLAMACTL_CACHE_DIR": dir}, proc.Exec{})
	if code := Execute(f, []string{"run", model, "--dry-run", "--engine", engineDir, "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if string(doc["schema"]) != strconv.Itoa(row.schema) {
		t.Errorf("schema %s, docs/json.md says %d", doc["schema"], row.schema)
	}
	for k := range doc {
		if !row.fields[k] {
			t.Errorf("top-level field %q is not in docs/json.md's row for llamactl run", k)
		}
	}
}

// TestJSONDocumentsMatchIndex runs every command that works offline and
// checks its document against docs/json.md: same schema version, and no
// top-level field the index does not list.
func TestJSONDocumentsMatchIndex(t *testing.T) {
	rows, _ := readJSONIndex(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gguf")
	gf, err := ggufwrite.Model(ggufwrite.Small(ggufwrite.Config{Arch: "llama"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := gf.WriteFile(model); err != nil {
		t.Fatal(err)
	}
	snapshot := filepath.Join("..", "..", "testdata", "doctor", "snapshots", "linux-ci-debian-nvcc11.8-gcc12.json")
	log := filepath.Join("..", "..", "testdata", "logs", "here-nvcc118-gcc12.log")

	cases := []struct {
		row  string
		args []string
		exit int
	}{
		{"llamactl version", []string{"version"}, 0},
		{"llamactl completion", []string{"completion", "bash"}, 0},
		{"llamactl matrix gpu", []string{"matrix", "gpu", "4090"}, 0},
		{"llamactl matrix gpu", []string{"matrix", "gpu", "TITAN X"}, 1},
		{"llamactl matrix cuda", []string{"matrix", "cuda", "12.4"}, 0},
		{"llamactl matrix resolve", []string{"matrix", "resolve", "--gpu", "RTX 4090", "--gcc", "14", "--available-gcc", "11", "--toolkit", "12.4"}, 0},
		{"llamactl matrix resolve", []string{"matrix", "resolve", "--gpu", "no such gpu", "--os", "windows", "--msvc", "19.41", "--available-msvc", "14.39"}, 1},
		{"llamactl patches list", []string{"patches", "list"}, 0},
		{"llamactl patches show", []string{"patches", "show", "build-info"}, 0},
		{"llamactl gguf", []string{"gguf", model}, 0},
		{"llamactl explain", []string{"explain", log}, 1},
		{"llamactl explain", []string{"explain", "--snapshot", snapshot, log}, 1},
		{"llamactl doctor", []string{"doctor", "--replay", snapshot}, 0},
		{"llamactl doctor --list-checks", []string{"doctor", "--list-checks"}, 0},
		{"llamactl build", []string{"build", "--dry-run", "--snapshot", snapshot}, 0},
		{"llamactl build", []string{"build", "--dry-run", "--snapshot", filepath.Join("..", "..", "testdata", "doctor", "snapshots", "win-amd-rx7900xtx-asks-opencl.json")}, 1}, // blockers: exit 1, still a document
	}
	for _, tc := range cases {
		row, ok := rows[tc.row]
		if !ok {
			t.Errorf("docs/json.md has no row %q", tc.row)
			continue
		}
		f, out, errOut := cmdutil.NewTest(map[string]string{"LLAMACTL_CACHE_DIR": dir}, &proc.Replay{})
		code := Execute(f, append(tc.args, "--json"))
		if code != tc.exit {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.exit, errOut)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
			t.Errorf("%v: stdout is not one JSON object: %v\n%.300s", tc.args, err, out)
			continue
		}
		var schema int
		if err := json.Unmarshal(doc["schema"], &schema); err != nil || schema != row.schema {
			t.Errorf("%v: schema %s, docs/json.md says %d", tc.args, doc["schema"], row.schema)
		}
		var extra []string
		for k := range doc {
			if !row.fields[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			t.Errorf("%v: top-level fields %v are not in docs/json.md's row for %s", tc.args, extra, tc.row)
		}
	}
}

// githubAnchor is the id GitHub gives a Markdown heading: lower case, spaces
// to hyphens, punctuation other than hyphens and underscores dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestJSONDocLinksResolve keeps docs/json.md's links pointing at headings
// that exist, so a renamed section on another page shows up here.
func TestJSONDocLinksResolve(t *testing.T) {
	_, text := readJSONIndex(t)
	links := regexp.MustCompile(`\]\(([a-z0-9-]+\.md)?(#[^)]+)?\)`).FindAllStringSubmatch(text, -1)
	if len(links) < 5 {
		t.Fatalf("only %d links found", len(links))
	}
	for _, l := range links {
		file, anchor := l[1], strings.TrimPrefix(l[2], "#")
		page := text
		if file != "" {
			b, err := os.ReadFile(filepath.Join("..", "..", "docs", file))
			if err != nil {
				t.Errorf("docs/json.md links to %s: %v", file, err)
				continue
			}
			page = string(b)
		}
		if anchor == "" {
			continue
		}
		found := false
		for _, line := range strings.Split(page, "\n") {
			if h := strings.TrimLeft(line, "#"); len(h) < len(line) && strings.HasPrefix(h, " ") && githubAnchor(h) == anchor {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("docs/json.md links to %s#%s: no such heading", file, anchor)
		}
	}
}

// TestBadInputFilesAreUsageErrors hands every file-taking command a missing
// file, a folder, an empty file and garbage: each must exit 2 with a
// "llamactl:" message on stderr and nothing on stdout, also with --json.
func TestBadInputFilesAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(garbage, []byte("{garbage\x00\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join("..", "..", "testdata", "logs", "here-nvcc118-gcc12.log")
	for _, bad := range []string{filepath.Join(dir, "missing"), dir, empty, garbage} {
		for _, args := range [][]string{
			{"gguf", bad},
			{"run", bad, "--dry-run"},
			{"doctor", "--replay", bad},
			{"explain", "--snapshot", bad, log},
			{"build", "--dry-run", "--snapshot", bad},
			{"build", "--dry-run", "--lock", bad},
		} {
			for _, withJSON := range []bool{false, true} {
				a := args
				if withJSON {
					a = append(append([]string{}, args...), "--json")
				}
				f, out, errOut := cmdutil.NewTest(map[string]string{"LLAMACTL_CACHE_DIR": dir, "LLAMACTL_NO_CACHE": "1"}, &proc.Replay{})
				code := Execute(f, a)
				if code != cmdutil.ExitUsage || out.String() != "" || !strings.HasPrefix(errOut.String(), "llamactl: ") {
					t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, no stdout, a llamactl: message", a, code, out, errOut)
				}
			}
		}
	}
	// explain reads any file as a log; only a missing file or a folder is an error.
	for _, bad := range []string{filepath.Join(dir, "missing"), dir} {
		if code, _, errOut := run(t, "explain", bad); code != cmdutil.ExitUsage || !strings.HasPrefix(errOut, "llamactl: ") {
			t.Errorf("explain %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
}
