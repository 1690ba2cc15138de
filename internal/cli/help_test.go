package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

var updateHelp = flag.Bool("update", false, "rewrite data/help.en.json from the command tree")

const helpENAbout = "The English of every command's help (Short, Long, Example, flag usages), cobra's own words and the group titles, by stable key: the command path with :short, :long or :example, or with --flag; help.zh-CN.json translates it. Written by: go test ./internal/cli -run TestHelpCatalog -update. One text a line, sorted by key."

// writeTextFile writes a text catalog as every data/text.*.json stands:
// one "key": "value" a line, sorted by key.
func writeTextFile(about, locale string, texts map[string]string) []byte {
	enc := func(s string) string {
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		_ = e.Encode(s)
		return strings.TrimSuffix(b.String(), "\n")
	}
	var keys []string
	for k := range texts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{\n\"about\": " + enc(about) + ",\n\"locale\": " + enc(locale) + ",\n\"text\": {\n")
	for i, k := range keys {
		b.WriteString(enc(k) + ": " + enc(texts[k]))
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n}\n")
	return []byte(b.String())
}

// checkHelpFiles runs the checks of every text catalog (CheckTextFiles)
// on the help catalog, whose examples start with their indentation: the
// texts are compared without it, and each translation must keep the
// indentation its English has.
func checkHelpFiles(t *testing.T) (en, zh map[string]string) {
	t.Helper()
	en, err := lang.ParseOverlay("help.en.json", helpEN)
	if err != nil {
		t.Fatal(err)
	}
	if zh, err = lang.ParseOverlay("help.zh-CN.json", helpZhCN); err != nil {
		t.Fatal(err)
	}
	trim := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = strings.TrimLeft(v, " ")
		}
		return out
	}
	testutil.CheckOverlay(t, trim(en), trim(zh), nil)
	testutil.CheckTextCatalog(t, helpEN)
	testutil.CheckTextCatalog(t, helpZhCN)
	for k, z := range zh {
		if e := en[k]; len(e)-len(strings.TrimLeft(e, " ")) != len(z)-len(strings.TrimLeft(z, " ")) {
			t.Errorf("%s: the translation does not keep the English's indentation: %q", k, z)
		}
	}
	return en, zh
}

func treeTexts(t *testing.T) map[string]string {
	t.Helper()
	f, _, _ := cmdutil.NewTest(nil, nil)
	return helpTexts(NewRoot(f))
}

// data/help.en.json is the help the tree shows, text for text, and
// data/help.zh-CN.json translates all of it: the same keys (no stale one),
// the same placeholders, no English sentence left.
func TestHelpCatalog(t *testing.T) {
	tree := treeTexts(t)
	if *updateHelp {
		if err := os.WriteFile(filepath.Join("data", "help.en.json"), writeTextFile(helpENAbout, "en", tree), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	en, zh := checkHelpFiles(t)
	for k, v := range tree {
		if got, ok := en[k]; !ok {
			t.Errorf("%s is not in data/help.en.json: run go test ./internal/cli -run TestHelpCatalog -update, then translate it in help.zh-CN.json", k)
		} else if got != v {
			t.Errorf("%s changed: run go test ./internal/cli -run TestHelpCatalog -update, then update its translation in help.zh-CN.json\n  catalog: %q\n  tree:    %q", k, got, v)
		}
	}
	for k := range en {
		if _, ok := tree[k]; !ok {
			t.Errorf("data/help.en.json has %s, which no command has (stale): run go test ./internal/cli -run TestHelpCatalog -update", k)
		}
	}
	for k, e := range en {
		if z, ok := zh[k]; ok {
			checkLiterals(t, k, e, z)
			for _, l := range strings.Split(z, "\n") {
				if w := testutil.EnglishPhrase(l); w != "" {
					t.Errorf("%s: English left (%q): %s", k, w, l)
				}
			}
		}
	}
	if len(tree) < 100 {
		t.Errorf("only %d help texts in the tree: the walk is broken", len(tree))
	}
}

var (
	// what a translation keeps as it is: flags, `VARNAME`s of flag usages,
	// llamactl's command lines and UPPER-CASE placeholders (MODEL, DIR).
	literalFlag = regexp.MustCompile(`(?:^|[^A-Za-z0-9-])(--?[a-zA-Z][a-zA-Z0-9-]*)`)
	literalVar  = regexp.MustCompile("`[^`]+`")
	// a llamactl command line: llamactl and a command of the tree (not
	// "llamactl builds", which is prose).
	literalCmd = regexp.MustCompile(`\bllamactl (?:doctor|build|run|explain|matrix|patches|probe|rpc|gguf|version|completion|help)\b(?: (?:gpu|cuda|resolve|list|show|serve)\b)?`)
	literalUp  = regexp.MustCompile(`\b[A-Z][A-Z0-9_]{2,}\b`)
)

// commonNoun are upper-case words a translation says in its own words.
var commonNoun = map[string]bool{"RAM": true, "LAN": true}

func literalSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, m := range literalFlag.FindAllStringSubmatch(s, -1) {
		set[m[1]] = true
	}
	for _, re := range []*regexp.Regexp{literalVar, literalCmd, literalUp} {
		for _, m := range re.FindAllString(s, -1) {
			if !commonNoun[m] {
				set[m] = true
			}
		}
	}
	return set
}

// checkLiterals fails when the translation z of e lost or changed a flag,
// a `VARNAME`, a llamactl command line or an upper-case name.
func checkLiterals(t *testing.T, key, e, z string) {
	t.Helper()
	want, got := literalSet(e), literalSet(z)
	var lost []string
	for w := range want {
		if !got[w] {
			lost = append(lost, w)
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		t.Errorf("%s: the translation lacks %q\n  en: %s\n  zh: %s", key, lost, e, z)
	}
}

func helpOut(t *testing.T, env map[string]string, args ...string) (string, string) {
	t.Helper()
	f, out, errOut := cmdutil.NewTest(env, nil)
	if code := Execute(f, args); code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
	}
	return out.String(), errOut.String()
}

// helpArgs is every way of asking a command for its help.
func helpPaths(t *testing.T) [][]string {
	t.Helper()
	f, _, _ := cmdutil.NewTest(nil, nil)
	var paths [][]string
	walkHelp(NewRoot(f), func(c *cobra.Command) {
		paths = append(paths, strings.Fields(c.CommandPath())[1:])
	})
	return paths
}

// Every command's help in Chinese: with --lang zh-CN before or after the
// command, with LLAMACTL_LANG or a Chinese locale, and through `llamactl
// help CMD`: its texts, each flag's usage and cobra's words are Chinese, and
// no English sentence is left but in the commands' own English help (none:
// the catalog covers the tree).
func TestHelpInChinese(t *testing.T) {
	zh := lang.FromFiles(lang.ZhCN, helpEN, helpZhCN)
	for _, p := range helpPaths(t) {
		for _, c := range []struct {
			env  map[string]string
			args []string
		}{
			{nil, append(append([]string{"--lang", "zh-CN"}, p...), "--help")},
			{nil, append(append(append([]string{}, p...), "--help"), "--lang=zh-CN")},
			{map[string]string{"LLAMACTL_LANG": "zh-CN"}, append(append([]string{}, p...), "-h")},
			{map[string]string{"LANG": "zh_CN.UTF-8"}, append([]string{"help"}, p...)},
		} {
			out, errOut := helpOut(t, c.env, c.args...)
			if errOut != "" {
				t.Errorf("%v: stderr %q", c.args, errOut)
			}
			for _, h := range []string{helpUsage, helpFlags} {
				if !strings.Contains(out, zh.T(h)) {
					t.Errorf("%v: no %q in:\n%s", c.args, zh.T(h), out)
				}
			}
			if strings.Contains(out, "Usage:") || strings.Contains(out, "Flags:") || strings.Contains(out, "(default ") || strings.Contains(out, "help for ") {
				t.Errorf("%v: cobra's English words left:\n%s", c.args, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if w := testutil.EnglishPhrase(l); w != "" {
					t.Errorf("%v: English left (%q): %s", c.args, w, l)
				}
			}
		}
	}
}

// cobraHelp is cmd's help as cobra prints it without llamactl's help
// function: the English help must stay exactly that.
func cobraHelp(t *testing.T, args ...string) string {
	t.Helper()
	f, out, _ := cmdutil.NewTest(nil, nil)
	root := NewRoot(f)
	root.SetHelpFunc(nil)
	root.SetUsageFunc(nil)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out.String()
}

// The English help is cobra's, as before: no language at all, --lang en,
// an English locale or LLAMACTL_LANG=en over a Chinese locale print what
// cobra prints.
func TestHelpEnglishUnchanged(t *testing.T) {
	for _, p := range helpPaths(t) {
		plain := cobraHelp(t, append(append([]string{}, p...), "--help")...)
		if !strings.Contains(plain, "Usage:") {
			t.Fatalf("%v --help: no usage:\n%s", p, plain)
		}
		for _, c := range []struct {
			env  map[string]string
			args []string
		}{
			{nil, append(append([]string{}, p...), "--help")},
			{nil, append(append([]string{"--lang", "en"}, p...), "--help")},
			{map[string]string{"LANG": "de_DE.UTF-8"}, append(append([]string{}, p...), "--help")},
			{map[string]string{"LLAMACTL_LANG": "en", "LANG": "zh_CN.UTF-8"}, append([]string{"help"}, p...)},
		} {
			if out, _ := helpOut(t, c.env, c.args...); out != plain {
				t.Errorf("%v: differs from cobra's help:\n%s\nwant:\n%s", c.args, out, plain)
			}
		}
	}
}

// A console that cannot show Chinese gets the English help and a note.
func TestHelpChineseOnASCIIConsole(t *testing.T) {
	f, out, errOut := cmdutil.NewTest(nil, nil)
	f.IO.ASCII = true
	if code := Execute(f, []string{"doctor", "--help", "--lang", "zh-CN"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "Usage:") || !strings.Contains(errOut.String(), "chcp 65001") {
		t.Errorf("out %q\nerr %q", out, errOut)
	}
}

// A translation made from an English text that changed since is not shown:
// that text is English until the translation follows.
func TestHelpStaleTranslationFallsBack(t *testing.T) {
	c := lang.NewCatalog(lang.ZhCN, map[string]string{"k": "old English"}, map[string]string{"k": "旧的翻译"})
	if got := translateText(c, "k", "new English"); got != "new English" {
		t.Errorf("stale: %q", got)
	}
	if got := translateText(c, "k", "old English"); got != "旧的翻译" {
		t.Errorf("current: %q", got)
	}
}

// Shell completion describes commands and flags in the help's language.
func TestCompletionDescriptionsInChinese(t *testing.T) {
	_, out, _ := runLang(t, map[string]string{"LANG": "zh_CN.UTF-8"}, "__complete", "")
	if !strings.Contains(out, "doctor\t找出这台机器的 GPU 工具链哪里有问题") {
		t.Errorf("commands:\n%s", out)
	}
	_, out, _ = runLang(t, map[string]string{"LLAMACTL_LANG": "zh-CN"}, "__complete", "build", "--dry")
	if !strings.Contains(out, "--dry-run\t打印计划和确切的命令") {
		t.Errorf("flags:\n%s", out)
	}
	_, out, _ = runLang(t, nil, "__complete", "build", "--dry")
	if !strings.Contains(out, "--dry-run\tprint the plan and the exact commands") {
		t.Errorf("English flags:\n%s", out)
	}
}

// help with an unknown topic: cobra's line and usage in English, Chinese
// with --lang zh-CN.
func TestHelpUnknownTopic(t *testing.T) {
	f, out, _ := cmdutil.NewTest(nil, nil)
	root := NewRoot(f)
	root.SetHelpFunc(nil)
	root.SetUsageFunc(nil)
	root.SetArgs([]string{"help", "nonexist"})
	_ = root.Execute()
	_, en, _ := runLang(t, nil, "help", "nonexist")
	if en != out.String() || !strings.HasPrefix(en, "Unknown help topic [`nonexist`]\nUsage:") {
		t.Errorf("English:\n%s\nwant:\n%s", en, out)
	}
	_, zh, _ := runLang(t, nil, "help", "nonexist", "--lang", "zh-CN")
	if !strings.HasPrefix(zh, "未知的帮助主题 [`nonexist`]\n用法：") {
		t.Errorf("zh-CN:\n%s", zh)
	}
}

// A Chinese help changes nothing the next root shows: each root has its
// own texts (group titles included).
func TestChineseHelpLeavesNoTrace(t *testing.T) {
	paths := helpPaths(t)
	before := map[string]string{}
	for _, p := range paths {
		before[strings.Join(p, " ")], _ = helpOut(t, nil, append(append([]string{}, p...), "--help")...)
	}
	for _, p := range paths {
		helpOut(t, nil, append(append([]string{"--lang", "zh-CN"}, p...), "--help")...)
	}
	for _, p := range paths {
		if out, _ := helpOut(t, nil, append(append([]string{}, p...), "--help")...); out != before[strings.Join(p, " ")] {
			t.Errorf("%v: English help changed after the Chinese ones:\n%s", p, out)
		}
	}
	out := before[""]
	if !strings.Contains(out, "Main commands (in the order of a first session):") || strings.Contains(out, "主要命令") {
		t.Errorf("English help:\n%s", out)
	}
}
