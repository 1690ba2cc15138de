// Package textenc turns text files as Windows writes them into UTF-8:
// Windows PowerShell 5.1 redirects output ("cmake --build build > build.log",
// "llamactl doctor --json > machine.json") as UTF-16LE with a byte-order
// mark, and many editors save UTF-8 with one. Build logs (explain) and
// snapshots (machine.Load) are read through it.
package textenc

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Decode turns UTF-16LE/BE with a byte-order mark or UTF-8 with one into
// plain UTF-8, as a stream; in other input, lines that are not valid UTF-8
// are decoded from the legacy code page that reads them best (legacy.go).
func Decode(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	bom, _ := br.Peek(3)
	switch {
	case len(bom) >= 3 && bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF:
		br.Discard(3)
		return br
	case len(bom) >= 2 && bom[0] == 0xFF && bom[1] == 0xFE:
		br.Discard(2)
		return &utf16Reader{r: br, little: true}
	case len(bom) >= 2 && bom[0] == 0xFE && bom[1] == 0xFF:
		br.Discard(2)
		return &utf16Reader{r: br}
	}
	return &lineReader{r: br}
}

// Bytes is Decode for a whole buffer.
func Bytes(b []byte) []byte {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:]
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		out, _ := io.ReadAll(Decode(bytes.NewReader(b)))
		return out
	}
	return b
}

// EncodeUTF16 writes s as UTF-16 (little or big endian, with or without a
// byte-order mark): what PowerShell 5.1's ">" writes, for tests.
func EncodeUTF16(s string, little, bom bool) []byte {
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

// utf16Reader converts UTF-16 to UTF-8 as it reads.
type utf16Reader struct {
	r      *bufio.Reader
	little bool
	out    []byte // converted bytes not yet returned
	high   rune   // a high surrogate waiting for its pair
	err    error
}

func (u *utf16Reader) unit() (rune, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.r, b[:]); err != nil {
		return 0, err
	}
	if u.little {
		return rune(b[0]) | rune(b[1])<<8, nil
	}
	return rune(b[1]) | rune(b[0])<<8, nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) < len(p) && u.err == nil {
		c, err := u.unit()
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				err = io.EOF // a dangling odd byte ends the text
			}
			u.err = err
			break
		}
		switch {
		case utf16.IsSurrogate(c) && c < 0xDC00:
			if u.high != 0 {
				u.out = utf8.AppendRune(u.out, utf8.RuneError)
			}
			u.high = c
			continue
		case utf16.IsSurrogate(c):
			if u.high != 0 {
				c = utf16.DecodeRune(u.high, c)
			} else {
				c = utf8.RuneError
			}
			u.high = 0
		case u.high != 0:
			u.out = utf8.AppendRune(u.out, utf8.RuneError)
			u.high = 0
		}
		u.out = utf8.AppendRune(u.out, c)
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	if n == 0 && u.err != nil {
		return 0, u.err
	}
	return n, nil
}
