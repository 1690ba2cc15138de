package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/machine"
)

// machine/data/text.zh-CN.json translates every reason of a LoadError, and the
// English reads back into it.
func TestLoadTextsZhCN(t *testing.T) {
	en, zh := testutil.CheckTextFiles(t, machine.LoadTextEN, machine.LoadTextZhCN)
	if en["load.hint"] != machine.LoadHint {
		t.Errorf("load.hint %q is not LoadHint %q", en["load.hint"], machine.LoadHint)
	}
	testutil.CheckLines(t, en, zh, func(s string) string { return loadErrorIn(&machine.LoadError{Reason: s}, "zh-CN") }, nil)
}

// Real unusable inputs: each message in Chinese, with the path, and the
// English message unchanged.
func TestLoadErrorIn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "none.json"), "无法读取 " + filepath.Join(dir, "none.json") + "：文件不存在。请在要诊断的机器上用 'llamactl doctor --snapshot machine.json' 生成一个。"},
		{dir, "无法读取 " + filepath.Join(dir, "report.json") + "：文件不存在。"},
		{write("empty.json", "{}"), "是 JSON，但不是 llamactl 快照（没有 \"os\" 字段）。"},
		{write("bad.json", "v"), "不是快照（JSON 无效："},
		{write("bad.zip", "PK\x03\x04junk"), "：不是有效的 zip 文件："},
		{write("new.json", `{"os": {}, "schema": 999}`), "的快照 schema 为 999，而这个 llamactl 最高只能读取"},
	} {
		_, err := machine.Load(c.path)
		le, ok := err.(*machine.LoadError)
		if !ok {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := loadErrorIn(le, "zh-CN")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %q\n  want %q in it", c.path, got, c.want)
		}
		if w := testutil.EnglishPhrase(got); w != "" && !strings.Contains(got, "invalid character") && !strings.Contains(got, "zip: not a valid zip file") {
			t.Errorf("English left (%q): %s", w, got)
		}
		if loadErrorIn(le, "en") != le.Error() {
			t.Errorf("en: %q, want %q", loadErrorIn(le, "en"), le.Error())
		}
	}
}
