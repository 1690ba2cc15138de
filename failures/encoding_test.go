package failures

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/textenc"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

func utf16Bytes(s string, little, bom bool) []byte { return textenc.EncodeUTF16(s, little, bom) }

// A log redirected by Windows PowerShell 5 is UTF-16LE with a BOM.
func TestUTF16Logs(t *testing.T) {
	log := "PS C:\\src> cmake --build build\r\n" + `C:\cuda\include\crt/host_config.h(164): 致命错误 C1189: #error:  -- unsupported Microsoft Visual Studio version!` + "\r\n"
	for _, little := range []bool{true, false} {
		d, err := Default().Diagnose(bytes.NewReader(utf16Bytes(log, little, true)))
		if err != nil || len(d.Findings) != 1 || d.Findings[0].ID != "nvcc-unsupported-msvc" || d.Findings[0].Lines[0] != 2 {
			t.Errorf("little=%v: %v %+v", little, err, d.Findings)
		}
		if !strings.Contains(d.Findings[0].Excerpt, "致命错误 C1189") {
			t.Errorf("excerpt %q", d.Findings[0].Excerpt)
		}
	}
	d := Default().DiagnoseString("\ufeffnvcc fatal   : Unsupported gpu architecture 'compute_120'\n")
	if len(d.Findings) != 1 || d.Findings[0].Excerpt[0] == 0xEF {
		t.Errorf("UTF-8 BOM: %+v", d.Findings)
	}
}

// A log that cmd.exe redirected to a file ("cmake --build build > build.log")
// is in the console's code page: GBK on a Chinese Windows, Shift_JIS on a
// Japanese one, 866 on a Russian one. Its localized lines name the same
// cause as when pasted in UTF-8, and the excerpt is readable UTF-8.
func TestLegacyCodePageLogs(t *testing.T) {
	for _, c := range []struct {
		enc      encoding.Encoding
		line, id string
	}{
		{simplifiedchinese.GBK, "'cl' 不是内部或外部命令，也不是可运行的程序", "msvc-env-missing"},
		{simplifiedchinese.GBK, `C:\cuda\include\crt/host_config.h(164): 致命错误 C1189: #error:  -- unsupported Microsoft Visual Studio version!`, "nvcc-unsupported-msvc"},
		{japanese.ShiftJIS, "'cl' は、内部コマンドまたは外部コマンド、操作可能なプログラムまたはバッチ ファイルとして認識されていません。", "msvc-env-missing"},
		{charmap.CodePage866, `"nvcc" не является внутренней или внешней командой`, "cuda-toolkit-not-found"},
	} {
		enc, err := c.enc.NewEncoder().String(c.line)
		if err != nil {
			t.Fatal(err)
		}
		log := "C:\\src\\llama.cpp> cmake --build build\r\n" + enc + "\r\nninja: build stopped: subcommand failed.\r\n"
		d, err := Default().Diagnose(strings.NewReader(log))
		if err != nil || len(d.Findings) == 0 || d.Findings[0].ID != c.id || d.Findings[0].Lines[0] != 2 {
			t.Errorf("%q: %v %+v", c.line, err, d.Findings)
			continue
		}
		if !strings.Contains(d.Findings[0].Excerpt, c.line[len(c.line)-12:]) {
			t.Errorf("excerpt %q is not the decoded line", d.Findings[0].Excerpt)
		}
	}
}
