package failures

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llamactl/llamactl/internal/textenc"
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
