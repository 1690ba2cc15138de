package textenc

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestUTF16Decoding(t *testing.T) {
	for _, s := range []string{"", "a", "😀 smile", "x\U0001F600y", strings.Repeat("é", 100000)} {
		got, err := io.ReadAll(Decode(bytes.NewReader(EncodeUTF16(s, true, true))))
		if err != nil || string(got) != s {
			t.Errorf("%q: got %q, %v", s[:min(len(s), 20)], string(got[:min(len(got), 20)]), err)
		}
	}
	// A lone surrogate and an odd trailing byte do not stop the stream.
	b := append(EncodeUTF16("a", true, true), 0x00, 0xD8, 'b', 0, 'c')
	got, _ := io.ReadAll(Decode(bytes.NewReader(b)))
	if string(got) != "a\uFFFDb" {
		t.Errorf("%q", got)
	}
}

func FuzzUTF16(f *testing.F) {
	f.Add([]byte{0xFF, 0xFE, 'a', 0, 0x3D, 0xD8, 0x00, 0xDE})
	f.Add([]byte{0xFE, 0xFF, 0xD8})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := io.ReadAll(Decode(bytes.NewReader(b)))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 3*len(b)+4 {
			t.Fatalf("grew from %d to %d", len(b), len(out))
		}
	})
}
