package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
	"github.com/llamactl/llamactl/runner/gguf"
)

// runner/gguf/data/text.zh-CN.json translates every message of a file
// that is not a usable model, and the English reads back into it.
func TestGGUFTextsZhCN(t *testing.T) {
	en, zh := testutil.CheckTextFiles(t, gguf.TextEN, gguf.TextZhCN)
	testutil.CheckLines(t, en, zh, lang.FromFiles(lang.ZhCN, gguf.TextEN, gguf.TextZhCN).Line, nil)
}

// Real broken models: gguf's message, as the commands pass it on, comes
// out in Chinese with --lang zh-CN and as it is in English.
func TestGGUFErrorsInChinese(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, body, want string
	}{
		{"text.gguf", "module x\n", "：不是 GGUF 文件：文件开头是 \"modu\"，应为 \"GGUF\""},
		{"short.gguf", "GG", "：不是 GGUF 文件：比 4 字节的文件标识还短"},
		{"v9.gguf", "GGUF\x09\x00\x00\x00", "：不支持的 GGUF 版本 9（llamactl 读取版本 2 和 3"},
		{"cut.gguf", "GGUF\x03\x00\x00\x00\x00", "：文件不完整，在第 8 字节处中断（"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := gguf.OpenModel(p)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		ee := &cmdutil.ExitError{Code: cmdutil.ExitUsage, Message: err.Error() + "\nllamactl 需要完整的 GGUF 模型"}
		got := localizeError(ee, lang.ZhCN)
		if !strings.Contains(got, p+c.want) || !strings.HasSuffix(got, "\nllamactl 需要完整的 GGUF 模型") {
			t.Errorf("%s: %q\n  want %q", c.name, got, p+c.want)
		}
		if w := testutil.EnglishPhrase(got); w != "" {
			t.Errorf("%s: English left (%q): %s", c.name, w, got)
		}
		if en := localizeError(ee, lang.EN); en != ee.Message {
			t.Errorf("%s: English changed: %q", c.name, en)
		}
	}
	// through the command
	code, _, errOut := runLang(t, nil, "gguf", "--lang", "zh-CN", filepath.Join(dir, "text.gguf"))
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "不是 GGUF 文件") {
		t.Errorf("gguf: exit %d %q", code, errOut)
	}
}
