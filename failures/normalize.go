package failures

import (
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The normalizer turns one raw log line into the message signatures are
// written against. It removes what differs between machines and tools but
// not between failures: colours, CR, timestamps, progress counters, the
// prefixes build tools (Ninja, MSBuild, CMake's indentation, cargo, docker,
// llama.cpp's log) put before a compiler's message, the file location, and
// the language of the severity word.

var (
	ansiRe  = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)
	spaceRe = regexp.MustCompile(`[ \t\x{00a0}]+`)

	// Each prefix is stripped repeatedly, in any order, from the start. A
	// prefix is only tried when the line starts with one of its first bytes,
	// which keeps large logs fast.
	prefixes = []struct {
		first string
		re    *regexp.Regexp
	}{
		// GitHub Actions / ISO timestamps, "[12:01:02]" clocks
		{"0123456789", regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?Z? `)},
		{"[", regexp.MustCompile(`^\[\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\] `)},
		// llama.cpp's log prefix with timestamps: "1.06.520.077 E "
		{"0123456789", regexp.MustCompile(`^\d+\.\d{2}\.\d{3}\.\d{3} [DIWE] `)},
		// docker buildkit "#11 1.361 " and plain "2.272 "
		{"#", regexp.MustCompile(`^#\d+ \d+\.\d+ `)},
		{"0123456789", regexp.MustCompile(`^\d+\.\d{3} `)},
		// CMake's status marker
		{"-", regexp.MustCompile(`^-- `)},
		// Ninja progress and failure marker
		{"[", regexp.MustCompile(`^\[\d+/\d+\] `)},
		{"F", regexp.MustCompile(`^FAILED: `)},
		// cargo build-script output
		{"c", regexp.MustCompile(`^cargo:warning=`)},
		{"w", regexp.MustCompile(`^warning: [\w.-]+@[\w.+-]+: `)},
		{"=", regexp.MustCompile(`^= note: `)},
		// MSBuild's "  1>" node prefix and the LINK tool name
		{"0123456789", regexp.MustCompile(`^\d+>`)},
		{"L", regexp.MustCompile(`^LINK ?: `)},
		// MSBuild's own "error :" / "warning :" before a tool's message
		// ("foo.vcxproj(12,5): error : nvcc fatal : ..."): compilers write
		// "error:" or "error C1234:", never a space before the colon
		{"ew", regexp.MustCompile(`^(?:error|warning) : `)},
		// pip's boxes
		{"\xe2\xc3", regexp.MustCompile(`^[│×╰─] ?`)},
		// journald/syslog "Apr 17 01:25:10 host ollama[56169]: "
		{"ADFJMNOS", regexp.MustCompile(`^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d{2}:\d{2}:\d{2} \S+ [\w.@/-]+(?:\[\d+\])?: `)},
		// LM Studio / electron-log "[2025-02-08 01:29:29.905] [error] "
		{"[", regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?\](?: \[\w+\])? `)},
		// VS Code's CMake Tools output channel names the step on every line:
		// "[cmake] CMake Error at ...", "[build] FAILED: ...", "[proc] ..."
		{"[", regexp.MustCompile(`^\[(?:cmake|build|proc|main|driver|ctest|cpack|kit|variant|cmakefileapi-driver)\] `)},
		// a Kubernetes container log (CRI) after its timestamp: "stderr F "
		{"s", regexp.MustCompile(`^(?:stdout|stderr) [FP] `)},
		// a GitHub/e-mail quote "> " (nested: "> > ")
		{">", regexp.MustCompile(`^>+ `)},
		// a Markdown list item "- " / "* " a user put the line in (one
		// marker and a space: CMake's "-- " and make's "*** " stay; a shell
		// trace's "+ " is a command, not a message)
		{"-*", regexp.MustCompile(`^[-*] `)},
		// Python's logging.basicConfig "ERROR:llama_cpp:" / "INFO:root:"
		{"DIWEC", regexp.MustCompile(`^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.-]+:`)},
	}

	composeRe = regexp.MustCompile(`^[A-Za-z][\w.-]{0,40}  +\| `)

	quotes = strings.NewReplacer("‘", "'", "’", "'", "“", `"`, "”", `"`)

	// MSBuild appends the project to every message.
	msbuildSuffixRe = regexp.MustCompile(` \[[^\[\]]+\.(?:vcxproj|csproj|proj|sln|targets)\]$`)

	// Localized severity words (compiler and linker messages), mapped to the
	// English ones signatures use. Order matters: "fatal error" forms first.
	localized = []struct{ from, to string }{
		{"致命错误", "fatal error"}, {"錯誤", "error"}, {"错误", "error"}, {"警告", "warning"},
		{"фатальная ошибка", "fatal error"}, {"неустранимая ошибка", "fatal error"}, {"ошибка", "error"}, {"предупреждение", "warning"},
		{"schwerwiegender Fehler", "fatal error"}, {"Schwerwiegender Fehler", "fatal error"}, {"Fehler", "error"}, {"Warnung", "warning"},
		{"erreur fatale", "fatal error"}, {"erreur irrécupérable", "fatal error"}, {"erreur", "error"}, {"avertissement", "warning"},
		{"errore irreversibile", "fatal error"}, {"errore", "error"}, {"avviso", "warning"},
		{"error grave", "fatal error"}, {"error fatal", "fatal error"}, {"advertencia", "warning"},
		{"致命的なエラー", "fatal error"}, {"エラー", "error"},
		{"erro fatal", "fatal error"}, {"aviso", "warning"},
	}
)

// maxMessage bounds the normalized text; longer lines are cut (they are
// command lines or dumps, and no signature needs their tail).
const maxMessage = 4096

// Normalize returns the message of one log line.
func Normalize(line string) string { return normalize(line, true) }

// normalize is Normalize; nested allows one more pass over the message a
// log record quoted (ollama's msg="..."), whose own colours and prefixes
// were escaped inside the quotes.
func normalize(line string, nested bool) string {
	if len(line) > maxMessage*2 {
		line = line[:maxMessage*2]
	}
	if strings.IndexByte(line, '&') >= 0 && strings.IndexByte(line, ';') >= 0 {
		line = unescapeHTML(line)
	}
	// One pass over the bytes decides which of the costlier steps apply.
	var esc, ctl, high, dbl bool
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == 0x1b:
			esc = true
		case c == '\r' || c == '\n' || c == '\t':
			ctl = true
		case c >= 0x80:
			high = true
		case c == ' ' && i > 0 && line[i-1] == ' ':
			dbl = true
		}
	}
	if esc {
		line = ansiRe.ReplaceAllString(line, "")
	}
	if ctl {
		line = strings.TrimRight(line, "\r\n")
		line = strings.ReplaceAll(line, "\r", "")
		line = strings.ReplaceAll(line, "\n", " ") // callers pass one line; be safe if not
	}
	if high {
		line = strings.TrimSuffix(line, "␍") // a CR glyph some forums leave in pasted logs
		if strings.ContainsAny(line, "‘’“”") {
			line = quotes.Replace(line) // gcc quotes with U+2018/2019 in UTF-8 locales
		}
	}
	if ctl {
		line = errorListRow(strings.Trim(line, " "))
	}
	line = strings.TrimSpace(line)
	line = unwrapMarkdown(line)
	if dbl {
		// docker compose pads the service name: "ollama  | ", "llama-1  | "
		if loc := composeRe.FindStringIndex(line); loc != nil && loc[1] < len(line) {
			line = strings.TrimLeft(line[loc[1]:], " \t")
		}
	}
	if dbl || ctl || high || esc {
		line = spaceRe.ReplaceAllString(line, " ")
	}
	line = canonicalShapes(line, high)
	if strings.HasSuffix(line, "]") {
		line = msbuildSuffixRe.ReplaceAllString(line, "")
	}
	unprefixed := line
	for i := 0; i < 8; i++ {
		before := line
		for _, p := range prefixes {
			if line == "" || strings.IndexByte(p.first, line[0]) < 0 {
				continue
			}
			if loc := p.re.FindStringIndex(line); loc != nil && loc[1] < len(line) {
				line = strings.TrimLeft(line[loc[1]:], " ")
			}
		}
		if nested && strings.HasPrefix(line, "time=") {
			if msg := slogMessage(line); msg != line {
				return normalize(msg, false)
			}
		}
		if nested && strings.HasPrefix(line, "{") && strings.HasSuffix(line, "}") {
			if msg, ok := jsonMessage(line); ok {
				return normalize(msg, false)
			}
		}
		if n := locationPrefix(line); n > 0 && n < len(line) {
			line = line[n:]
		}
		line = localize(line)
		if line == before {
			break
		}
	}
	if line != unprefixed {
		// shapes anchored at the start ("/bin/sh: 1: nvcc: not found") see
		// the line without the prefixes too
		line = canonicalShapes(line, high)
	}
	if len(line) > maxMessage {
		n := maxMessage
		for n > 0 && line[n]&0xC0 == 0x80 { // a shape may have grown it: do not split a rune
			n--
		}
		line = line[:n]
	}
	return line
}

// unwrapMarkdown takes off the emphasis or inline code a user wrapped a
// whole pasted line in ("**/usr/bin/sh: g++: command not found**",
// "`No CUDA toolset found.`"); a code fence ("```") and a line that only
// starts or ends with one (gcc's "`foo'" quotes) are left as they are. A line
// that holds a backtick itself is wrapped in two and a space ("“ x “"), as
// Markdown writes it.
func unwrapMarkdown(line string) string {
	if len(line) > 6 && strings.HasPrefix(line, "`` ") && strings.HasSuffix(line, " ``") {
		if inner := strings.TrimSpace(line[3 : len(line)-3]); inner != "" && !strings.Contains(inner, "``") {
			return inner
		}
	}
	for _, m := range []string{"**", "__", "`"} {
		if len(line) > 2*len(m)+1 && strings.HasPrefix(line, m) && strings.HasSuffix(line, m) && !strings.HasPrefix(line, "``") {
			inner := strings.TrimSpace(line[len(m) : len(line)-len(m)])
			if inner != "" && !strings.Contains(inner, m) {
				return inner
			}
		}
	}
	return line
}

// htmlEntities are the escapes a log pasted into a web page shows (GitHub's
// rendered HTML, a forum); a line holding none is left as it is.
var htmlEntities = []string{"&lt;", "&gt;", "&quot;", "&amp;", "&nbsp;", "&#"}

func unescapeHTML(line string) string {
	for _, e := range htmlEntities {
		if strings.Contains(line, e) {
			return html.UnescapeString(line)
		}
	}
	return line
}

// slogRe is the head of a Go log/slog text record (ollama's server log):
// "time=2024-05-01T12:00:00.000Z level=ERROR source=server.go:12 msg=".
var slogRe = regexp.MustCompile(`^time=\S+ level=\w+(?: source=\S+)? msg=`)

// slogMessage returns the message of a slog text record, unquoted (the
// engine's own line, its quotes escaped), followed by the attributes after
// it ("error=..."); other lines are returned as they are.
func slogMessage(line string) string {
	loc := slogRe.FindStringIndex(line)
	if loc == nil || loc[1] >= len(line) {
		return line
	}
	rest := line[loc[1]:]
	if rest[0] != '"' {
		return rest
	}
	var b strings.Builder
	s := rest[1:]
	for len(s) > 0 {
		if s[0] == '"' {
			return strings.TrimSpace(b.String() + s[1:])
		}
		v, multi, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil { // not Go quoting after all: keep the text as written
			b.WriteByte(s[0])
			s = s[1:]
			continue
		}
		if v == '\n' || v == '\r' || v == '\t' {
			v = ' '
		}
		if v < utf8.RuneSelf || multi {
			b.WriteRune(v)
		} else {
			b.WriteByte(byte(v))
		}
		s = tail
	}
	return strings.TrimSpace(b.String())
}

// jsonMessageKeys are the fields that hold a JSON log record's text: slog's
// and llama.cpp's server ("msg"), most loggers ("message"), docker's json-file
// driver ("log"), journalctl -o json ("MESSAGE").
var jsonMessageKeys = []string{"msg", "message", "log", "MESSAGE"}

// jsonErrorKeys are the fields appended after the text, the way slog's text
// form shows its attributes ("error=...").
var jsonErrorKeys = []string{"error", "err", "reason"}

// jsonMessage returns the text of a one-line JSON log record (docker's
// json-file log, a JSON-lines server log, journalctl -o json) followed by its
// error attributes, and whether line was such a record. Only string fields
// count; the record's length is already bounded by normalize.
func jsonMessage(line string) (string, bool) {
	var rec map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &rec) != nil {
		return "", false
	}
	str := func(k string) string {
		var v string
		if raw, ok := rec[k]; ok && json.Unmarshal(raw, &v) == nil {
			return strings.TrimSpace(v)
		}
		return ""
	}
	msg := ""
	for _, k := range jsonMessageKeys {
		if msg = str(k); msg != "" {
			break
		}
	}
	if msg == "" {
		return "", false
	}
	for _, k := range jsonErrorKeys {
		if v := str(k); v != "" {
			msg += " " + k + "=" + v
		}
	}
	return msg, true
}

// locationPrefix returns the length of a compiler's file location at the
// start of line, including the ": " after it, or 0. It recognises MSVC/nvcc
// "C:\\x\\y.h(153): ", "y.h(12,5) : " and gcc/clang "a/b.h:132:2: ". The path
// holds no ':' after an optional drive letter, so only the first ':' can end
// it; that also keeps this linear.
func locationPrefix(line string) int {
	start := 0
	if len(line) > 2 && line[1] == ':' && (line[0]|0x20) >= 'a' && (line[0]|0x20) <= 'z' {
		start = 2
	}
	if len(line) <= start || strings.IndexByte(" \t:()\"'<>|", line[start]) >= 0 {
		return 0
	}
	colon := strings.IndexByte(line[start:], ':')
	if colon < 0 {
		return 0
	}
	colon += start
	path := line[:colon]
	if strings.ContainsAny(path, "\"<>|") {
		return 0
	}
	// gcc: path:LINE[:COL]: message
	if i := digitsAt(line, colon+1); i > colon+1 {
		if i < len(line) && line[i] == ':' {
			if j := digitsAt(line, i+1); j > i+1 {
				i = j
			}
		}
		if strings.HasPrefix(line[i:], ": ") {
			return i + 2
		}
		return 0
	}
	// MSVC: path(LINE[,COL])[ ]: message
	p := strings.TrimSuffix(path, " ")
	if !strings.HasSuffix(p, ")") || !strings.HasPrefix(line[colon:], ": ") {
		return 0
	}
	open := strings.LastIndexByte(p, '(')
	if open <= 0 {
		return 0
	}
	inner := p[open+1 : len(p)-1]
	num, col, _ := strings.Cut(inner, ",")
	if digitsAt(num, 0) != len(num) || num == "" || (col != "" && digitsAt(col, 0) != len(col)) {
		return 0
	}
	return colon + 2
}

// digitsAt returns the index after the run of ASCII digits starting at i.
func digitsAt(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// localize maps a localized severity word at the start of the message to
// English, so "LINK : errore irreversibile LNK1181" reads "fatal error LNK1181".
func localize(line string) string {
	for _, l := range localized {
		if strings.HasPrefix(line, l.from) {
			rest := line[len(l.from):]
			if rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] >= 0x80 {
				return l.to + rest
			}
		}
	}
	return line
}

// Shapes of the same message in other words: a shell that does not find a
// command, Windows that does not find a file or a DLL, in the languages of
// Windows. Each is rewritten to one English form ("command not found: X",
// "The system cannot find the file specified", "The code execution cannot
// proceed because X was not found") so signatures name the invariant (the
// tool or DLL) once. trigger is a literal the line must contain first.
var shapes = []struct {
	trigger string
	re      *regexp.Regexp
	to      string
}{
	// commands
	{"is not recognized as an internal or external command", regexp.MustCompile(`'([^'\s]+)' is not recognized as an internal or external command,?(?: ?operable program or batch file\.?)?`), "command not found: $1"},
	{"is not recognized as the name of a cmdlet", regexp.MustCompile(`(?:\S+ : )?The term '([^'\s]+)' is not recognized as the name of a cmdlet[^.]*\.?`), "command not found: $1"},
	{"ist entweder falsch geschrieben", regexp.MustCompile(`Der Befehl "([^"\s]+)" ist entweder falsch geschrieben oder ?(?:konnte nicht gefunden werden\.?)?`), "command not found: $1"},
	{"no se reconoce como un comando interno", regexp.MustCompile(`'([^'\s]+)' no se reconoce como un comando interno o externo,?(?: ?programa o archivo por lotes ejecutable\.?)?`), "command not found: $1"},
	{"n'est pas reconnu en tant que commande", regexp.MustCompile(`'([^'\s]+)' n'est pas reconnu en tant que commande interne(?: ?ou externe,?)?(?: ?un programme ex[ée]cutable ou un fichier de commandes\.?)?`), "command not found: $1"},
	{"non è riconosciuto come comando", regexp.MustCompile(`'([^'\s]+)' non è riconosciuto come comando interno o esterno,?(?: ?un programma eseguibile o un file batch\.?)?`), "command not found: $1"},
	{"não é reconhecido como um comando", regexp.MustCompile(`'([^'\s]+)' não é reconhecido como um comando interno(?: ?ou externo,?)?(?: ?um programa operável ou um arquivo em lotes\.?)?`), "command not found: $1"},
	{"не является внутренней или внешней", regexp.MustCompile(`["«']([^"»'\s]+)["»'] не является внутренней или внешней ?(?:командой,?)?(?: ?исполняемой программой или пакетным файлом\.?)?`), "command not found: $1"},
	{"不是内部或外部命令", regexp.MustCompile(`'([^'\s]+)' ?不是内部或外部命令[，,]?(?:也不是可运行的程序)?(?:或批处理文件。?)?`), "command not found: $1"},
	{"不是內部或外部命令", regexp.MustCompile(`'([^'\s]+)' ?不是內部或外部命令[，,]?(?:、可執行的程式或批次檔。?)?`), "command not found: $1"},
	{"内部コマンドまたは外部コマンド", regexp.MustCompile(`'([^'\s]+)' ?は、内部コマンドまたは外部コマンド、?(?:操作可能なプログラムまたはバッチ ?ファイルとして認識されていません。?)?`), "command not found: $1"},
	{"은(는) 내부 또는 외부 명령", regexp.MustCompile(`'([^'\s]+)'\s?은\(는\) 내부 또는 외부 명령,?(?: ?실행할 수 있는 프로그램,?)?(?: ?또는 배치 파일이 아닙니다\.?)?`), "command not found: $1"},
	// PowerShell in other languages (the quotes may be typographic or guillemets)
	{"wurde nicht als Name eines Cmdlet", regexp.MustCompile(`(?:\S+ : )?Die Benennung ["'](\S+?)["'] wurde nicht als Name eines Cmdlet[^.]*\.?`), "command not found: $1"},
	{"no se reconoce como nombre de un cmdlet", regexp.MustCompile(`(?:\S+ : )?El término ["'](\S+?)["'] no se reconoce como nombre de un cmdlet[^.]*\.?`), "command not found: $1"},
	{"n'est pas reconnu comme nom d'applet de commande", regexp.MustCompile(`(?:\S+ : )?Le terme ["'«]\s?(\S+?)\s?["'»] n'est pas reconnu comme nom d'applet de commande[^.]*\.?`), "command not found: $1"},
	{"non riconosciuto come nome di cmdlet", regexp.MustCompile(`(?:\S+ : )?Termine ["'](\S+?)["'] non riconosciuto come nome di cmdlet[^.]*\.?`), "command not found: $1"},
	{"não é reconhecido como nome de cmdlet", regexp.MustCompile(`(?:\S+ : )?O termo ["'](\S+?)["'] não é reconhecido como nome de cmdlet[^.]*\.?`), "command not found: $1"},
	{"не распознано как имя командлета", regexp.MustCompile(`(?:\S+ : )?Имя ["«'](\S+?)["»'] не распознано как имя командлета[^.]*\.?`), "command not found: $1"},
	{"项识别为 cmdlet", regexp.MustCompile(`(?:\S+ : )?无法将["'“‘](\S+?)["'”’]项识别为 cmdlet.*$`), "command not found: $1"},
	{"の名前として認識されません", regexp.MustCompile(`(?:\S+ : )?用語 ["'](\S+?)["'] は、コマンドレット[^。]*の名前として認識されません。?`), "command not found: $1"},
	{"용어가 cmdlet", regexp.MustCompile(`(?:\S+ : )?["'](\S+?)["'] 용어가 cmdlet[^.]*\.?`), "command not found: $1"},
	// zsh before bash/sh: bash's shape would read zsh's "zsh: command not found: X" as a command named "zsh"
	{"zsh: command not found: ", regexp.MustCompile(`zsh: command not found: (\S+)`), "command not found: $1"},
	{": command not found", regexp.MustCompile(`(?:^|\S+: (?:line \d+: )?)([^\s:]+): command not found`), "command not found: $1"},
	// dash running a script says "<script>: <line>: <script>: X: not found" (speedinghzl/CCNet#56)
	{": not found", regexp.MustCompile(`^(?:(?:/bin/)?sh|\S+\.sh): \d+: (?:\S+\.sh: )?([^\s:]+): not found`), "command not found: $1"},
	// bash in Chinese: "bash: X: 未找到命令", "./x.sh: 行 15: X: 未找到命令" (tranluan/Nonlinear_Face_3DMM#42)
	{"未找到命令", regexp.MustCompile(`(?:^|\S+: (?:行 \d+: )?)([^\s:：]+)[:：] ?未找到命令`), "command not found: $1"},
	// files
	{"找不到指定的文件", regexp.MustCompile(`系统找不到指定的文件。?`), "The system cannot find the file specified"},
	{"找不到指定的檔案", regexp.MustCompile(`系統找不到指定的檔案。?`), "The system cannot find the file specified"},
	{"no puede encontrar el archivo especificado", regexp.MustCompile(`El sistema no puede encontrar el archivo especificado\.?`), "The system cannot find the file specified"},
	{"kann die angegebene Datei nicht finden", regexp.MustCompile(`Das System kann die angegebene Datei nicht finden\.?`), "The system cannot find the file specified"},
	{"Le fichier spécifié est introuvable", regexp.MustCompile(`Le fichier spécifié est introuvable\.?`), "The system cannot find the file specified"},
	{"Impossibile trovare il file specificato", regexp.MustCompile(`Impossibile trovare il file specificato\.?`), "The system cannot find the file specified"},
	{"não pode encontrar o arquivo especificado", regexp.MustCompile(`O sistema não pode encontrar o arquivo especificado\.?`), "The system cannot find the file specified"},
	{"Не удается найти указанный файл", regexp.MustCompile(`Не удается найти указанный файл\.?`), "The system cannot find the file specified"},
	{"指定されたファイルが見つかりません", regexp.MustCompile(`指定されたファイルが見つかりません。?`), "The system cannot find the file specified"},
	{"지정된 파일을 찾을 수 없습니다", regexp.MustCompile(`지정된 파일을 찾을 수 없습니다\.?`), "The system cannot find the file specified"},
	// modules (LoadLibrary's error 126)
	{"找不到指定的模块", regexp.MustCompile(`找不到指定的模块。?`), "The specified module could not be found."},
	{"Das angegebene Modul wurde nicht gefunden", regexp.MustCompile(`Das angegebene Modul wurde nicht gefunden\.?`), "The specified module could not be found."},
	{"No se puede encontrar el módulo especificado", regexp.MustCompile(`No se puede encontrar el módulo especificado\.?`), "The specified module could not be found."},
	{"Le module spécifié est introuvable", regexp.MustCompile(`Le module spécifié est introuvable\.?`), "The specified module could not be found."},
	{"Не найден указанный модуль", regexp.MustCompile(`Не найден указанный модуль\.?`), "The specified module could not be found."},
	{"指定されたモジュールが見つかりません", regexp.MustCompile(`指定されたモジュールが見つかりません。?`), "The specified module could not be found."},
	{"找不到指定的模組", regexp.MustCompile(`找不到指定的模組。?`), "The specified module could not be found."},
	{"Impossibile trovare il modulo specificato", regexp.MustCompile(`Impossibile trovare il modulo specificato\.?`), "The specified module could not be found."},
	{"encontrar o módulo especificado", regexp.MustCompile(`Não foi possível encontrar o módulo especificado\.?`), "The specified module could not be found."},
	{"지정된 모듈을 찾을 수 없습니다", regexp.MustCompile(`지정된 모듈을 찾을 수 없습니다\.?`), "The specified module could not be found."},
	// DLLs
	{"无法继续执行代码", regexp.MustCompile(`由于找不到 ?([\w.+-]+\.(?:dll|DLL)) ?[，,]无法继续执行代码。?`), "The code execution cannot proceed because $1 was not found."},
	{"kann nicht fortgesetzt werden", regexp.MustCompile(`Die Ausführung des Codes kann nicht fortgesetzt werden, (?:da|weil) ([\w.+-]+\.(?:dll|DLL)) nicht gefunden wurde\.?`), "The code execution cannot proceed because $1 was not found."},
	{"no puede continuar porque no se encontr", regexp.MustCompile(`La ejecución de código no puede continuar porque no se encontró ([\w.+-]+\.(?:dll|DLL))\.?`), "The code execution cannot proceed because $1 was not found."},
	{"ne peut pas continuer", regexp.MustCompile(`L.exécution du code ne peut pas continuer,? car ([\w.+-]+\.(?:dll|DLL)) est introuvable\.?`), "The code execution cannot proceed because $1 was not found."},
	{"Не удается продолжить выполнение кода", regexp.MustCompile(`Не удается продолжить выполнение кода, поскольку система не обнаружила ([\w.+-]+\.(?:dll|DLL))\.?`), "The code execution cannot proceed because $1 was not found."},
	{"コードの実行を続行できません", regexp.MustCompile(`([\w.+-]+\.(?:dll|DLL)) ?が見つからないため、コードの実行を続行できません。?`), "The code execution cannot proceed because $1 was not found."},
	{"所以無法繼續執行程式碼", regexp.MustCompile(`因為找不到 ?([\w.+-]+\.(?:dll|DLL)) ?[，,]所以無法繼續執行程式碼。?`), "The code execution cannot proceed because $1 was not found."},
	{"non può continuare perché", regexp.MustCompile(`L.esecuzione del codice non può continuare perché non è stato trovato ([\w.+-]+\.(?:dll|DLL))\.?`), "The code execution cannot proceed because $1 was not found."},
	{"não pode continuar porque", regexp.MustCompile(`A execução de código não pode continuar porque ([\w.+-]+\.(?:dll|DLL)) não foi encontrado\.?`), "The code execution cannot proceed because $1 was not found."},
	{"찾을 수 없으므로 코드 실행을 진행할 수 없습니다", regexp.MustCompile(`([\w.+-]+\.(?:dll|DLL))을\(를\) 찾을 수 없으므로 코드 실행을 진행할 수 없습니다\.?`), "The code execution cannot proceed because $1 was not found."},
	{"Impossibile continuare l", regexp.MustCompile(`Impossibile continuare l.esecuzione del codice perché non è stato trovato ([\w.+-]+\.(?:dll|DLL))\.?`), "The code execution cannot proceed because $1 was not found."},
	{"없어 코드 실행을 진행할 수 없습니다", regexp.MustCompile(`([\w.+-]+\.(?:dll|DLL))이\(가\) 없어 코드 실행을 진행할 수 없습니다\.?`), "The code execution cannot proceed because $1 was not found."},
	{"缺少文件", regexp.MustCompile(`缺少文件 ?([\w.+-]+\.(?:dll|DLL|so(?:\.\d+)*))`), "$1 was not found"},
}

// asciiShape reports whether an ASCII line may hold one of the shapes: every
// ASCII trigger holds a quote (the commands of cmd, PowerShell and their
// translations), "not found" (POSIX shells) or one of the file sentences.
func asciiShape(line string) bool {
	return strings.IndexByte(line, '\'') >= 0 || strings.IndexByte(line, '"') >= 0 ||
		strings.Contains(line, "not found") || strings.Contains(line, "System") ||
		strings.Contains(line, "sistema") || strings.Contains(line, "Impossibile")
}

func canonicalShapes(line string, high bool) string {
	if !high && !asciiShape(line) {
		return line
	}
	for _, s := range shapes {
		if strings.Contains(line, s.trigger) {
			line = s.re.ReplaceAllString(line, s.to)
		}
	}
	return line
}

// errorListRe is a row copied from Visual Studio's Error List window:
// severity, code, description, project, file, line and suppression state,
// tab-separated (the columns VS shows by default, in its language;
// IntelliSense rows say "Error (active)").
var errorListRe = regexp.MustCompile(`^([^\t]{1,20}?)(?: \([^\t()]{1,20}\))?\t([A-Z]{1,4}[0-9]{3,5})?\t([^\t]+)\t[^\t]*\t([^\t]*)\t([0-9]*)(?:\t[^\t]*)?$`)

// errorListSeverity maps the Error List's severity word, in the languages
// Visual Studio ships, to the word the compiler prints.
var errorListSeverity = map[string]string{
	"Error": "error", "错误": "error", "錯誤": "error", "Fehler": "error", "Erreur": "error", "Errore": "error",
	"Erro": "error", "Ошибка": "error", "エラー": "error", "오류": "error", "Błąd": "error", "Hata": "error", "Chyba": "error",
	"Warning": "warning", "警告": "warning", "Warnung": "warning", "Avertissement": "warning", "Avviso": "warning",
	"Advertencia": "warning", "Aviso": "warning", "Предупреждение": "warning", "경고": "warning", "Ostrzeżenie": "warning",
	"Uyarı": "warning", "Upozornění": "warning",
}

// errorListRow rewrites an Error List row as the compiler's own line
// ("FILE(LINE): fatal error C1083: DESCRIPTION"), so the signatures written
// for console output read it; any other line is returned as it is.
func errorListRow(line string) string {
	if strings.IndexByte(line, '\t') < 0 {
		return line
	}
	m := errorListRe.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	sev, ok := errorListSeverity[strings.TrimSpace(m[1])]
	if !ok {
		return line
	}
	code, desc, file, row := m[2], strings.TrimSpace(m[3]), strings.TrimSpace(m[4]), m[5]
	if sev == "error" && (strings.HasPrefix(code, "C1") || strings.HasPrefix(code, "LNK1")) && len(code) >= 5 {
		sev = "fatal error"
	}
	out := sev
	if code != "" {
		out += " " + code
	}
	out += ": " + desc
	switch {
	case file != "" && row != "":
		out = file + "(" + row + "): " + out
	case file != "":
		out = file + " : " + out
	}
	return out
}
