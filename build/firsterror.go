package build

import (
	"bufio"
	"regexp"
	"strings"
)

// CompilerError is the first real compiler (or shader compiler, linker)
// error of a failed build's log, with where it points.
type CompilerError struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	LogLine int    `json:"log_line"` // 1-based line in llamactl-build.log
}

// String is "file:line: message" (or the message alone).
func (e CompilerError) String() string {
	if e.File == "" {
		return e.Message
	}
	if e.Line > 0 {
		return e.File + ":" + itoa(e.Line) + ": " + e.Message
	}
	return e.File + ": " + e.Message
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

var (
	// gcc/clang/nvcc: path:line[:col]: [fatal ]error: message
	gccErrorRE = regexp.MustCompile(`^(.+?):(\d+)(?::\d+)?: (?:fatal )?error: (.+)$`)
	// MSVC / nvcc on Windows: path(line[,col]): [fatal ]error C1234: message
	msvcErrorRE = regexp.MustCompile(`^(.+?)\((\d+)(?:,\d+)?\): (?:fatal )?error(?: ([A-Z]+\d+))?: (.+)$`)
	// a tool's own error without a location: "glslc: error: ...", "ld: error: ..."
	toolErrorRE = regexp.MustCompile(`^([\w.+-]+(?:\.exe)?): (?:fatal )?error: (.+)$`)
	ansiRE      = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
)

// FirstCompilerError returns the first line of log that is a compiler's
// error with a file and line (else a tool's own error); ok is false when
// there is none. Lines longer than 64 KiB are skipped.
func FirstCompilerError(log string) (CompilerError, bool) {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	var tool *CompilerError
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(ansiRE.ReplaceAllString(strings.TrimRight(sc.Text(), "\r"), ""))
		if l == "" || len(l) > 4096 {
			continue
		}
		if m := gccErrorRE.FindStringSubmatch(l); m != nil && !strings.ContainsAny(m[1], "[]") {
			return CompilerError{File: m[1], Line: atoi(m[2]), Message: m[3], LogLine: n}, true
		}
		if m := msvcErrorRE.FindStringSubmatch(l); m != nil {
			msg := m[4]
			if m[3] != "" {
				msg = m[3] + ": " + msg
			}
			return CompilerError{File: m[1], Line: atoi(m[2]), Message: msg, LogLine: n}, true
		}
		if tool == nil {
			if m := toolErrorRE.FindStringSubmatch(l); m != nil {
				tool = &CompilerError{File: m[1], Message: m[2], LogLine: n}
			} else if strings.Contains(l, "undefined reference to") {
				// the linker names the symbol; the line is the message
				tool = &CompilerError{Message: l, LogLine: n}
			}
		}
	}
	if tool != nil {
		return *tool, true
	}
	return CompilerError{}, false
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<30 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}
