package textenc

import (
	"bufio"
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// A log that a Windows console program wrote to a file is in the console's
// code page, not UTF-8: cl.exe, MSBuild, cmd's own messages and the loader's
// dialogs on a Chinese Windows are GBK (code page 936), on a Japanese one
// Shift_JIS (932), Korean 949, Traditional Chinese Big5 (950), Russian 866
// (the console) or 1251 (the ANSI page), Western European 850 or 1252
// (https://learn.microsoft.com/windows/win32/intl/code-page-identifiers).
// Such a log is read line by line: a line that is valid UTF-8 stays as it is,
// and the other lines are decoded with the code page that reads them best.

// legacyPage is one candidate code page and how plausible a text in it is.
type legacyPage struct {
	Name  string
	enc   encoding.Encoding
	score func([]byte) int
}

var legacyPages = []legacyPage{
	{"gbk", simplifiedchinese.GB18030, scoreGBK},
	{"big5", traditionalchinese.Big5, scoreBig5},
	{"shift_jis", japanese.ShiftJIS, scoreShiftJIS},
	{"euc-kr", korean.EUCKR, scoreEUCKR},
	{"cp1251", charmap.Windows1251, scoreCP1251},
	{"cp866", charmap.CodePage866, scoreCP866},
	{"cp1252", charmap.Windows1252, scoreCP1252},
	{"cp850", charmap.CodePage850, scoreCP850},
}

// GuessCodePage names the legacy code page a text that is not UTF-8 reads
// best in ("" when none reads it plausibly), from its lines that are not
// valid UTF-8.
func GuessCodePage(sample []byte) string {
	if p := guessPage(sample); p != nil {
		return p.Name
	}
	return ""
}

func guessPage(sample []byte) *legacyPage {
	var bad []byte
	for len(sample) > 0 {
		line := sample
		if i := bytes.IndexByte(sample, '\n'); i >= 0 {
			line, sample = sample[:i+1], sample[i+1:]
		} else {
			sample = nil
		}
		if !utf8.Valid(line) {
			bad = append(bad, line...)
		}
	}
	var best *legacyPage
	top := 0
	for i := range legacyPages {
		if s := legacyPages[i].score(bad); s > top {
			best, top = &legacyPages[i], s
		}
	}
	return best
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// scoreDBCS walks a double-byte code page's text: lead(c) says whether c
// starts a two-byte character, pair scores one.
func scoreDBCS(b []byte, lead func(byte) bool, trail func(byte) bool, pair func(l, t byte) int, single func(byte) int) int {
	s := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c < 0x80:
		case lead(c) && i+1 < len(b) && trail(b[i+1]):
			s += pair(c, b[i+1])
			i++
		case single != nil:
			s += single(c)
		default:
			s -= 6
		}
	}
	return s
}

// GBK: the 3,755 most used characters (GB 2312 level 1) are leads B0-D7,
// punctuation and full-width forms A1-A3.
func scoreGBK(b []byte) int {
	return scoreDBCS(b, func(c byte) bool { return c >= 0x81 && c <= 0xFE },
		func(c byte) bool { return c >= 0x40 && c <= 0xFE && c != 0x7F },
		func(l, t byte) int {
			switch {
			case l >= 0xB0 && l <= 0xD7 && t >= 0xA1:
				return 2
			case l >= 0xA1 && l <= 0xA3 && t >= 0xA1:
				return 1
			}
			return -2
		}, nil)
}

// Big5: frequent characters are leads A4-C6, punctuation A1-A3.
func scoreBig5(b []byte) int {
	return scoreDBCS(b, func(c byte) bool { return c >= 0xA1 && c <= 0xF9 },
		func(c byte) bool { return (c >= 0x40 && c <= 0x7E) || (c >= 0xA1 && c <= 0xFE) },
		func(l, t byte) int {
			switch {
			case l >= 0xA4 && l <= 0xC6:
				return 2
			case l <= 0xA3:
				return 1
			}
			return -2
		}, nil)
}

// Shift_JIS: hiragana and katakana (leads 82, 83), JIS level-1 kanji
// (88-98), punctuation (81); half-width katakana are rare in messages.
func scoreShiftJIS(b []byte) int {
	return scoreDBCS(b, func(c byte) bool { return (c >= 0x81 && c <= 0x9F) || (c >= 0xE0 && c <= 0xFC) },
		func(c byte) bool { return c >= 0x40 && c <= 0xFC && c != 0x7F },
		func(l, t byte) int {
			switch {
			case l == 0x82 && t >= 0x9F, l == 0x83 && t <= 0x96, l >= 0x88 && l <= 0x98:
				return 2
			case l == 0x81:
				return 1
			}
			return -2
		}, func(c byte) int {
			if c >= 0xA1 && c <= 0xDF {
				return -1
			}
			return -6
		})
}

// EUC-KR (code page 949's base): the 2,350 Hangul syllables are leads B0-C8.
func scoreEUCKR(b []byte) int {
	return scoreDBCS(b, func(c byte) bool { return c >= 0x81 && c <= 0xFE },
		func(c byte) bool {
			return (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x81 && c <= 0xFE)
		},
		func(l, t byte) int {
			switch {
			case l >= 0xB0 && l <= 0xC8 && t >= 0xA1:
				// GB 2312's level 1 shares these bytes; Chinese text also
				// uses leads C9-D7, which Korean text does not.
				return 3
			case l >= 0xA1 && l <= 0xA3 && t >= 0xA1:
				return 1
			}
			return -2
		}, nil)
}

// scoreAlphabet scores a single-byte Cyrillic text: lower-case letters
// count, upper-case ones count at a word's start, anything else counts
// against (an upper-case letter after a lower-case one, or a letter inside
// a Latin word, is how another script's bytes look).
func scoreAlphabet(b []byte, lower, upper func(byte) bool) int {
	s := 0
	prevLower := false
	for i, c := range b {
		switch {
		case c < 0x80:
			prevLower = false
		case (i > 0 && isLetter(b[i-1])) || (i+1 < len(b) && isLetter(b[i+1])):
			// a Cyrillic letter inside a Latin word is another script's byte
			s -= 3
			prevLower = false
		case lower(c):
			s += 2
			prevLower = true
		case upper(c):
			if prevLower {
				s -= 3
			} else {
				s++
			}
			prevLower = false
		default:
			s -= 3
			prevLower = false
		}
	}
	return s
}

func scoreCP1251(b []byte) int {
	return scoreAlphabet(b, func(c byte) bool { return c >= 0xE0 || c == 0xB8 },
		func(c byte) bool { return (c >= 0xC0 && c <= 0xDF) || c == 0xA8 })
}

func scoreCP866(b []byte) int {
	return scoreAlphabet(b, func(c byte) bool { return (c >= 0xA0 && c <= 0xAF) || (c >= 0xE0 && c <= 0xEF) || c == 0xF1 },
		func(c byte) bool { return (c >= 0x80 && c <= 0x9F) || c == 0xF0 })
}

// scoreLatin scores a Western European single-byte text: an accented
// lower-case letter counts when a Latin letter stands next to it (é in
// "fichier spécifié"), an accented capital when it starts a word or follows
// another capital; anything else counts against.
func scoreLatin(b []byte, lower, upper func(byte) bool) int {
	s := 0
	letterAt := func(i int) bool {
		return i >= 0 && i < len(b) && (isLetter(b[i]) || (b[i] >= 0x80 && (lower(b[i]) || upper(b[i]))))
	}
	lowerAt := func(i int) bool {
		return i >= 0 && ((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 0x80 && lower(b[i])))
	}
	for i, c := range b {
		switch {
		case c < 0x80:
		case lower(c) && (letterAt(i-1) || letterAt(i+1)):
			s += 2
		case upper(c) && !lowerAt(i-1) && (letterAt(i-1) || letterAt(i+1)):
			s++
		default:
			s -= 3
		}
	}
	return s
}

func scoreCP1252(b []byte) int {
	return scoreLatin(b, func(c byte) bool { return c >= 0xDF && c != 0xF7 },
		func(c byte) bool { return c >= 0xC0 && c <= 0xDE && c != 0xD7 })
}

// code page 850's accented letters (https://learn.microsoft.com/globalization/encoding/code-pages).
var cp850Lower, cp850Upper [256]bool

func init() {
	for _, c := range []byte{0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x91, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x9B, 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xC6, 0xD0, 0xD5, 0xE1, 0xE4, 0xE7, 0xEC} {
		cp850Lower[c] = true
	}
	for _, c := range []byte{0x80, 0x8E, 0x8F, 0x90, 0x92, 0x99, 0x9A, 0x9D, 0xA5, 0xB5, 0xB6, 0xB7, 0xC7, 0xD1, 0xD2, 0xD3, 0xD4, 0xD6, 0xD7, 0xD8, 0xDE, 0xE0, 0xE2, 0xE3, 0xE5, 0xE8, 0xE9, 0xEA, 0xEB, 0xED} {
		cp850Upper[c] = true
	}
}

func scoreCP850(b []byte) int {
	return scoreLatin(b, func(c byte) bool { return cp850Lower[c] }, func(c byte) bool { return cp850Upper[c] })
}

// lineReader passes valid UTF-8 lines through and decodes the others with
// the code page guessed at the first of them (from it and what follows).
type lineReader struct {
	r       *bufio.Reader
	page    *legacyPage
	guessed bool
	out     []byte
	err     error
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.out) == 0 && l.err == nil {
		line, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			err = nil
		}
		l.err = err
		if len(line) == 0 || utf8.Valid(line) {
			l.out = line // valid until the next read, which waits for out to drain
			continue
		}
		if !l.guessed {
			rest, _ := l.r.Peek(l.r.Buffered())
			l.page, l.guessed = guessPage(append(append([]byte(nil), line...), rest...)), true
		}
		if l.page == nil {
			l.out = line
			continue
		}
		dec, derr := l.page.enc.NewDecoder().Bytes(line)
		if derr != nil {
			dec = line
		}
		l.out = dec
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	if n == 0 && l.err != nil {
		return 0, l.err
	}
	return n, nil
}
