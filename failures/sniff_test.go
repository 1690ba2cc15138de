package failures

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sniff runs Sniff and checks that its reader still yields every byte.
func sniff(t testing.TB, b []byte) error {
	t.Helper()
	r, err := Sniff(bytes.NewReader(b))
	got, rerr := io.ReadAll(r)
	if rerr != nil || !bytes.Equal(got, b) {
		t.Fatalf("Sniff's reader lost input: %d of %d bytes (%v)", len(got), len(b), rerr)
	}
	return err
}

// Every log of the corpus is text, as are its UTF-16 (with BOM) and UTF-8
// BOM forms and a zh-CN log saved in GBK (Windows' zh-CN code page).
func TestSniffAcceptsEveryLog(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.log"))
	files = append(files, filepath.Join(corpusDir, "encodings", "sample-win-zh-cn-msbuild-nvcc-unsupported-msvc.gbk.log"))
	if len(files) < 50 {
		t.Fatalf("only %d logs", len(files))
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range map[string][]byte{
			"as is":     b,
			"utf-8 bom": append([]byte{0xEF, 0xBB, 0xBF}, b...),
			"utf-16le":  utf16Bytes(string(b), true, true),
			"utf-16be":  utf16Bytes(string(b), false, true),
		} {
			if strings.HasSuffix(p, ".gbk.log") && name != "as is" {
				continue
			}
			if err := sniff(t, in); err != nil {
				t.Errorf("%s (%s): %v", filepath.Base(p), name, err)
			}
		}
	}
	// The GBK log is not only accepted but still diagnosed.
	b, _ := os.ReadFile(filepath.Join(corpusDir, "encodings", "sample-win-zh-cn-msbuild-nvcc-unsupported-msvc.gbk.log"))
	r, _ := Sniff(bytes.NewReader(b))
	if d, _ := Default().Diagnose(r); len(d.Findings) == 0 || d.Findings[0].ID != "nvcc-unsupported-msvc" {
		t.Errorf("GBK log: %+v", d.Findings)
	}
}

func TestSniffRefusesBinaries(t *testing.T) {
	exe, err := os.Executable() // this test binary: a real executable
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("build.log")
	_, _ = w.Write(bytes.Repeat([]byte("error: nvcc fatal\n"), 100))
	_ = zw.Close()
	noNUL := make([]byte, 16<<10) // random bytes without a single NUL
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noNUL {
		noNUL[i] = byte(1 + rng.IntN(255))
	}
	cases := map[string][]byte{
		"executable":         bin,
		"zip":                zb.Bytes(),
		"random without NUL": noNUL,
		"utf-16 without BOM": utf16Bytes("nvcc fatal : Unsupported gpu architecture 'compute_35'\r\n", true, false),
		"nul in text":        []byte("cmake --build build\n\x00\x00\x00\x00"),
	}
	for name, b := range cases {
		if err := sniff(t, b); !errors.Is(err, ErrBinary) {
			t.Errorf("%s: %v, want ErrBinary", name, err)
		}
	}
}

func TestSniffEmpty(t *testing.T) {
	for name, b := range map[string][]byte{
		"nothing":        nil,
		"utf-8 bom only": {0xEF, 0xBB, 0xBF},
		"utf-16 bom":     {0xFF, 0xFE},
		"blank lines":    []byte("\r\n\n  \n"),
		"utf-16 blank":   utf16Bytes("\r\n \r\n", true, true),
	} {
		if err := sniff(t, b); !errors.Is(err, ErrEmpty) {
			t.Errorf("%s: %v, want ErrEmpty", name, err)
		}
	}
	// Text with colours, progress bars and a bell is a log.
	if err := sniff(t, []byte("\x1b[31merror\x1b[0m: x\r[ 50%]\b\b\x07 done\n")); err != nil {
		t.Errorf("coloured log: %v", err)
	}
}

func FuzzSniff(f *testing.F) {
	f.Add([]byte("error: x\n"))
	f.Add([]byte{0xFF, 0xFE, 'a', 0})
	f.Add([]byte{0xFE, 0xFF, 0xD8})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = sniff(t, b)
	})
}
