package plan

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/testutil"
)

// neutral are messages that read the same in Chinese: commands and a bare
// placeholder.
var neutral = map[string]bool{"fix-spirv-headers-linux": true, "fix-vulkan-sdk-linux": true}

// messages.zh-CN.json translates every message of messages.json, with the
// args' placeholders and no English sentence left.
func TestZhCNOverlay(t *testing.T) {
	zh, err := zhCN()
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckOverlay(t, Texts(), zh, neutral)
	testutil.CheckTextCatalog(t, messagesZhCN)
	testutil.CheckLines(t, Texts(), zh, NewTranslator(lang.ZhCN).Line, map[string]bool{"text-patch": true})
}

// The English translator renders exactly the notes' texts; zh-CN renders
// every note, reason and heading of real plans in Chinese, translating a
// note's values that are themselves messages; --json's notes stay English.
func TestPlanTextInChinese(t *testing.T) {
	zh := NewTranslator(lang.ZhCN)
	cases, _ := filepath.Glob(filepath.Join(casesDir, "*.json"))
	if len(cases) < 5 {
		t.Fatalf("only %d plan cases", len(cases))
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".json")
		in := loadCase(t, name)
		p, err := Make(in)
		if err != nil {
			t.Fatal(err)
		}
		en := p.Text()
		if en != p.TextIn(NewTranslator("fr")) || !strings.HasPrefix(en, "Plan: llama.cpp ") {
			t.Errorf("%s: English text differs from Text()", name)
		}
		txt := p.TextIn(zh)
		if !strings.HasPrefix(txt, "计划：llama.cpp ") || !strings.Contains(txt, "CMake 选项：") {
			t.Errorf("%s: not Chinese:\n%s", name, txt)
		}
		for _, n := range append(append([]Note(nil), p.Warnings...), p.Blockers...) {
			if got := zh.Note(n); got == n.Text || testutil.EnglishLeft(got) != "" {
				t.Errorf("%s: note %s not translated: %q", name, n.ID, got)
			}
			if !strings.Contains(en, n.Text) {
				t.Errorf("%s: English note %q missing from the English text", name, n.Text)
			}
		}
		doctors := map[string]bool{}
		for _, r := range in.Selection.Reasons {
			doctors[r] = true // doctor's selection reasons: buildcmd translates them with doctor's overlay
		}
		for _, r := range p.Reasons {
			if got := zh.Line(r); got == r && !doctors[r] {
				t.Errorf("%s: reason not translated: %q", name, r)
			}
		}
	}
}

// A message the overlay lacks stays English; a note read back from --json
// (no Args) is translated by its text.
func TestPlanTranslatorFallsBack(t *testing.T) {
	zh, _ := zhCN()
	part := map[string]string{}
	for k, v := range zh {
		part[k] = v
	}
	delete(part, "cuda-toolkit-missing")
	tr := NewTranslatorWith(lang.ZhCN, part)
	n := message("cuda-toolkit-missing", "12.4")
	if got := tr.Note(n); got != n.Text {
		t.Errorf("missing text: %q", got)
	}
	g := message("vulkan-glslc-missing", message("fix-vulkan-sdk-windows").Text)
	want := "缺少 glslc（Vulkan 着色器编译器），配置会以 \"Could NOT find Vulkan (missing: glslc)\" 失败：安装 LunarG Vulkan SDK（它会设置 VULKAN_SDK 并包含 glslc），然后打开新的 shell"
	if got := tr.Note(g); got != want {
		t.Errorf("nested note:\n got %q\nwant %q", got, want)
	}
	g.Args = nil
	if got := tr.Note(g); got != want {
		t.Errorf("note without args:\n got %q\nwant %q", got, want)
	}
	if got := tr.Line("not a message"); got != "not a message" {
		t.Errorf("other line: %q", got)
	}
	tr.Extra = func(s string) string { return "X" + s }
	if got := tr.Line("not a message"); got != "Xnot a message" {
		t.Errorf("Extra: %q", got)
	}
}

// Each network option's reason (options.json) is a message too, so the
// offline and network-option lines translate it: the two stay the same
// text, and zh-CN renders both lines without English.
func TestNetworkReasonsAreMessages(t *testing.T) {
	zh := NewTranslator(lang.ZhCN)
	for _, n := range OptionTable().Network {
		key := "network-why-" + strings.ReplaceAll(strings.ToLower(n.Name), "_", "-")
		if m, ok := messageTable()[key]; !ok || m.Text != n.Why {
			t.Errorf("%s: messages.json %s is %q, options.json's why %q", n.Name, key, m.Text, n.Why)
		}
		for _, note := range []Note{message("offline-option", n.Name, n.Why), message("network-option", n.Name, "ON", n.Why)} {
			if got := zh.Note(note); got == note.Text || testutil.EnglishLeft(got) != "" {
				t.Errorf("%s: %q", note.ID, got)
			}
		}
	}
}

// The bash script's MSVC comment is Chinese in a zh-CN plan; the commands
// of every shell, and the English script, are as they were.
func TestScriptCommentZhCN(t *testing.T) {
	p := Plan{
		VCVars:    &VCVars{Path: `C:\VS\VC\Auxiliary\Build\vcvarsall.bat`, Arch: "x64", Toolset: "14.39"},
		Env:       []EnvVar{{Name: "CUDAHOSTCXX", Value: `C:\VS\cl.exe`}},
		Configure: Command{Program: "cmake", Args: []string{"-S", "src", "-B", "build"}},
		Build:     Command{Program: "cmake", Args: []string{"--build", "build"}},
	}
	en := p.Script("bash")
	wantEN := `# Windows: run inside the MSVC developer environment ("C:\VS\VC\Auxiliary\Build\vcvarsall.bat" x64 -vcvars_ver=14.39), e.g. from an "x64 Native Tools" prompt's bash` + "\n"
	if !strings.HasPrefix(en, wantEN) {
		t.Fatalf("English script:\n%s", en)
	}
	zh := NewTranslator(lang.ZhCN)
	got := p.ScriptIn("bash", zh)
	first, rest, _ := strings.Cut(got, "\n")
	if first != `# Windows：请在 MSVC 开发者环境（"C:\VS\VC\Auxiliary\Build\vcvarsall.bat" x64 -vcvars_ver=14.39）中运行，例如在 "x64 Native Tools" 命令提示符里启动的 bash 中` {
		t.Errorf("zh-CN comment: %s", first)
	}
	if rest != strings.SplitN(en, "\n", 2)[1] {
		t.Errorf("zh-CN commands differ:\n%s\nvs\n%s", rest, en)
	}
	for _, sh := range []string{"powershell", "cmd"} {
		if a, b := p.ScriptIn(sh, zh), p.Script(sh); a != b {
			t.Errorf("%s script changed in zh-CN:\n%s\nvs\n%s", sh, a, b)
		}
	}
	if !strings.Contains(p.TextIn(zh), "  "+first+"\n") {
		t.Errorf("zh-CN plan text lacks the translated comment")
	}
}
