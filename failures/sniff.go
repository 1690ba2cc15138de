package failures

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/llamactl/llamactl/internal/textenc"
)

// sniffBytes is how much of the input Sniff looks at.
const sniffBytes = 8 << 10

// ErrBinary says the input is not a text log (an executable, an archive, an
// image): reading it as a log would "find" strings that happen to be inside
// it, such as the DLL names in llamactl's own binary.
var ErrBinary = errors.New("not a text log")

// ErrEmpty says the input holds no text at all (nothing, or only blank lines
// in the first chunk and nothing after).
var ErrEmpty = errors.New("empty log")

// Sniff looks at the start of a log and refuses what cannot be one:
// ErrEmpty for no text, ErrBinary for NUL bytes or a high share of control
// bytes in the first 8 KiB. UTF-16 logs with a byte-order mark (Windows
// PowerShell 5 redirection) and UTF-8 with a BOM are text. It returns a
// reader that yields the whole input, the sniffed part included.
func Sniff(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return br, err
	}
	if len(head) == 0 {
		return br, ErrEmpty
	}
	if hasUTF16BOM(head) {
		// Decode before judging, so a UTF-16 log's zero bytes are not NULs.
		text, _ := io.ReadAll(io.LimitReader(textenc.Decode(bytes.NewReader(head)), sniffBytes*2))
		if err := judge(text, len(head) < sniffBytes); err != nil {
			return br, err
		}
		return br, nil
	}
	return br, judge(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), len(head) < sniffBytes)
}

func hasUTF16BOM(b []byte) bool {
	return len(b) >= 2 && ((b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF))
}

// judge decides on a decoded first chunk; whole says it is all the input.
// Bytes above 0x7F that are not UTF-8 do not count against it: a log from a
// zh-CN Windows (cl.exe in GBK) is text in a legacy code page.
func judge(b []byte, whole bool) error {
	if whole && len(bytes.TrimSpace(b)) == 0 {
		return ErrEmpty
	}
	control, total := 0, 0
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		total++
		switch {
		case r == 0:
			return ErrBinary
		case r == '\t', r == '\n', r == '\r', r == '\f', r == '\v', r == '\b', r == 0x1b:
			// layout, backspace (progress bars) and ANSI colour escapes
		case r < 0x20, r == 0x7f:
			control++
		}
	}
	// Text has next to no other control bytes; random or compressed data
	// has about one in nine.
	if control*maxControlShare > total {
		return ErrBinary
	}
	return nil
}

// maxControlShare: more than one control byte in 20 means binary.
const maxControlShare = 20
