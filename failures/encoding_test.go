package failures

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/llamactl/llamactl/internal/textenc"
)

func utf16Bytes(s string, little, bom bool) []byte {
	var b bytes.Buffer
	if bom {
		if little {
			b.Write([]byte{0xFF, 0xFE})
		} else {
			b.Write([]byte{0xFE, 0xFF})
		}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		if little {
			b.Write([]byte{byte(u), byte(u >> 8)})
		} else {
			b.Write([]byte{byte(u >> 8), byte(u)})
		}
	}
	return b.Bytes()
}

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

func TestUTF16Decoding(t *testing.T) {
	for _, s := range []string{"", "a", "😀 smile", "x\U0001F600y", strings.Repeat("é", 100000)} {
		got, err := io.ReadAll(textenc.Decode(bytes.NewReader(utf16Bytes(s, true, true))))
		if err != nil || string(got) != s {
			t.Errorf("%q: got %q, %v", s[:min(len(s), 20)], string(got[:min(len(got), 20)]), err)
		}
	}
	// A lone surrogate and an odd trailing byte do not stop the stream.
	b := append(utf16Bytes("a", true, true), 0x00, 0xD8, 'b', 0, 'c')
	got, _ := io.ReadAll(textenc.Decode(bytes.NewReader(b)))
	if string(got) != "a\uFFFDb" {
		t.Errorf("%q", got)
	}
}

func FuzzUTF16(f *testing.F) {
	f.Add([]byte{0xFF, 0xFE, 'a', 0, 0x3D, 0xD8, 0x00, 0xDE})
	f.Add([]byte{0xFE, 0xFF, 0xD8})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := io.ReadAll(textenc.Decode(bytes.NewReader(b)))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 3*len(b)+4 {
			t.Fatalf("grew from %d to %d", len(b), len(out))
		}
	})
}
