package textenc

import (
	"io"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
)

// Messages as Windows prints them in each language (the loader's "module
// not found", cmd's "not recognized", cl.exe's C1083), written in the code
// page a console of that language uses.
var legacyCases = []struct {
	page, text string
}{
	{"gbk", "找不到指定的模块。"},
	{"gbk", "'cl' 不是内部或外部命令，也不是可运行的程序\r\n或批处理文件。"},
	{"gbk", "fatal error C1083: 无法打开包括文件: “cuda_runtime.h”: No such file or directory"},
	{"gbk", "CUDA 错误: 显存不足"},
	{"big5", "找不到指定的模組。"},
	{"big5", "'cl' 不是內部或外部命令、可執行的程式或批次檔。"},
	{"shift_jis", "指定されたモジュールが見つかりません。"},
	{"shift_jis", "'cl' は、内部コマンドまたは外部コマンド、\r\n操作可能なプログラムまたはバッチ ファイルとして認識されていません。"},
	{"euc-kr", "지정된 모듈을 찾을 수 없습니다."},
	{"euc-kr", "'cl'은(는) 내부 또는 외부 명령, 실행할 수 있는 프로그램, 또는\r\n배치 파일이 아닙니다."},
	{"cp866", "Не удается найти указанный модуль."},
	{"cp866", "\"cl\" не является внутренней или внешней\r\nкомандой, исполняемой программой или пакетным файлом."},
	{"cp1251", "Не удается найти указанный модуль."},
	{"cp1251", "Ошибка: не найден файл cudart64_12.dll"},
	{"cp1252", "Le module spécifié est introuvable."},
	{"cp1252", "No se puede encontrar el módulo especificado."},
	{"cp1252", "Não foi possível encontrar o módulo especificado."},
	{"cp850", "Le module spécifié est introuvable."},
	{"cp850", "Der Befehl \"cl\" ist entweder falsch geschrieben oder\r\nkonnte nicht gefunden werden. Überprüfen Sie die Schreibweise."},
}

func pageByName(t *testing.T, name string) encoding.Encoding {
	t.Helper()
	for _, p := range legacyPages {
		if p.Name == name {
			return p.enc
		}
	}
	t.Fatalf("no code page %s", name)
	return nil
}

func encodeIn(t *testing.T, page, s string) []byte {
	t.Helper()
	b, err := pageByName(t, page).NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("%s cannot write %q: %v", page, s, err)
	}
	return b
}

// TestGuessCodePage: each message, alone and inside an English log, is read
// in the code page it was written in.
func TestGuessCodePage(t *testing.T) {
	for _, c := range legacyCases {
		b := encodeIn(t, c.page, c.text)
		if got := GuessCodePage(b); got != c.page {
			t.Errorf("%q in %s: guessed %q", c.text, c.page, got)
		}
		log := "-- Configuring done\r\nBuilding CUDA object ggml.cu.obj\r\n" + string(b) + "\r\nninja: build stopped: subcommand failed.\r\n"
		out, err := io.ReadAll(Decode(strings.NewReader(log)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), c.text) || !strings.Contains(string(out), "ninja: build stopped") {
			t.Errorf("%s: decoded log %q lacks %q", c.page, out, c.text)
		}
	}
}

// TestUTF8LinesUnchanged: valid UTF-8 (any language) passes untouched, and a
// line that is not UTF-8 is decoded without touching the UTF-8 lines around it.
func TestUTF8LinesUnchanged(t *testing.T) {
	for _, s := range []string{
		"plain ASCII\nsecond line\n",
		"找不到指定的模块。\r\nНе удается найти указанный модуль.\nspécifié\n",
		"no trailing newline 見つかりません",
		"",
	} {
		out, err := io.ReadAll(Decode(strings.NewReader(s)))
		if err != nil || string(out) != s {
			t.Errorf("%q became %q (%v)", s, out, err)
		}
	}
	mixed := "模块 UTF-8 line\n" + string(encodeIn(t, "gbk", "找不到指定的模块。")) + "\n"
	out, _ := io.ReadAll(Decode(strings.NewReader(mixed)))
	if string(out) != "模块 UTF-8 line\n找不到指定的模块。\n" {
		t.Errorf("mixed log decoded as %q", out)
	}
}

// TestNoPlausiblePage: bytes that read as no language stay as they are.
func TestNoPlausiblePage(t *testing.T) {
	junk := []byte{0x81, 0x7F, 0xFF, 0xFE, 0x80, 0x0A}
	if got := GuessCodePage(junk); got != "" {
		t.Errorf("junk guessed as %s", got)
	}
	out, _ := io.ReadAll(Decode(strings.NewReader(string(junk))))
	if string(out) != string(junk) {
		t.Errorf("junk became %q", out)
	}
}

func FuzzDecodeLegacy(f *testing.F) {
	for _, c := range legacyCases {
		f.Add(string(encodeIn(&testing.T{}, c.page, c.text)))
	}
	f.Add("ascii\n")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := io.ReadAll(io.LimitReader(Decode(strings.NewReader(s)), 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		bom := strings.HasPrefix(s, "\xfe\xff") || strings.HasPrefix(s, "\xff\xfe") || strings.HasPrefix(s, "\xef\xbb\xbf")
		if len(s) > 0 && !bom && len(out) == 0 {
			t.Fatalf("%q decoded to nothing", s)
		}
		GuessCodePage([]byte(s))
	})
}
