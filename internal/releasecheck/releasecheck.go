// Package releasecheck finds the latest llamactl release and compares it
// with this build (`llamactl version --check`). It reads the release's
// checksums.txt, the same file the installers verify against, so a mirror
// (LLAMACTL_INSTALL_BASE) needs nothing more than the release's files.
package releasecheck

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llamactl/llamactl/internal/version"
)

// DefaultBase is where the installers and the check look for a release's
// files: GitHub redirects .../latest/download/NAME to the newest release.
const DefaultBase = "https://github.com/llamactl/llamactl/releases/latest/download"

// ReleasesPage is shown to users when the check cannot complete.
const ReleasesPage = "https://github.com/llamactl/llamactl/releases"

// BaseEnv overrides DefaultBase (mirrors, tests); the installers read it too.
const BaseEnv = "LLAMACTL_INSTALL_BASE"

// DefaultTimeout bounds the whole check: a user waits no longer than this.
const DefaultTimeout = 5 * time.Second

// maxIndexBytes caps what is read of checksums.txt (a release has ~20 lines).
const maxIndexBytes = 1 << 20

// Entry is one line of checksums.txt.
type Entry struct {
	SHA256 string `json:"sha256"`
	Name   string `json:"name"`
}

// Archive is a release archive named by goreleaser's template
// llamactl_VERSION_OS_ARCH.(tar.gz|zip).
type Archive struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	SHA256  string `json:"sha256"`
}

var archiveRE = regexp.MustCompile(`^llamactl_([0-9][0-9A-Za-z.+~-]*)_(linux|windows)_(amd64|arm64)\.(tar\.gz|zip)$`)

// ParseArchiveName reads an archive's version, OS and CPU from its name.
func ParseArchiveName(name string) (Archive, bool) {
	m := archiveRE.FindStringSubmatch(name)
	if m == nil {
		return Archive{}, false
	}
	return Archive{Name: name, Version: m[1], OS: m[2], Arch: m[3]}, true
}

// ParseChecksums reads a sha256sum-style file ("HEX  NAME" per line, as
// goreleaser and sha256sum write it). Blank lines are skipped; any other
// malformed line is an error, since the file decides what gets installed.
func ParseChecksums(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(io.LimitReader(r, maxIndexBytes))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		if !ok || len(sum) != 64 {
			return nil, fmt.Errorf("line %d is not \"SHA256  NAME\"", n)
		}
		if _, err := hex.DecodeString(sum); err != nil {
			return nil, fmt.Errorf("line %d: the checksum is not hexadecimal", n)
		}
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*")
		if name == "" || strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || strings.TrimSpace(name) != name {
			return nil, fmt.Errorf("line %d: %q is not a plain file name", n, name)
		}
		out = append(out, Entry{SHA256: strings.ToLower(sum), Name: name})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("it lists no files")
	}
	return out, nil
}

// Archives are the release archives in a checksums file, newest version
// first (a release lists one version; a mirror folder may hold several).
func Archives(entries []Entry) []Archive {
	var as []Archive
	for _, e := range entries {
		if a, ok := ParseArchiveName(e.Name); ok {
			a.SHA256 = e.SHA256
			as = append(as, a)
		}
	}
	sort.SliceStable(as, func(i, j int) bool { return Compare(as[i].Version, as[j].Version) > 0 })
	return as
}

// Compare orders two llamactl versions (semantic versions, "v" optional,
// "0.2.0-rc1" before "0.2.0"); an unparsable version sorts first.
func Compare(a, b string) int { return version.CompareSemver(a, b) }

// Verdict of a check.
const (
	UpToDate = "up-to-date"
	Newer    = "newer" // a newer release exists
	Ahead    = "ahead" // this build is newer than the latest release
)

// Result is the outcome of a successful check (the `check` field of
// `llamactl version --check --json`).
type Result struct {
	Current string `json:"current"`
	Latest  string `json:"latest"`
	Status  string `json:"status"`
	URL     string `json:"url"`
}

// Error is a check that could not complete; Kind is a message ID of
// data/messages.json (unreachable, http-status, bad-index).
type Error struct {
	Kind   string
	URL    string
	Reason string
	// Timeout is the limit the check ran under.
	Timeout time.Duration
}

func (e *Error) Error() string {
	switch e.Kind {
	case "unreachable":
		return Message(e.Kind, e.URL, e.Timeout.String(), e.Reason, ReleasesPage)
	default:
		return Message(e.Kind, e.URL, e.Reason, ReleasesPage)
	}
}

// Check fetches BASE/checksums.txt within timeout and compares its newest
// archive's version with current.
func Check(ctx context.Context, client *http.Client, base, current string, timeout time.Duration) (*Result, error) {
	if base == "" {
		base = DefaultBase
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if client == nil {
		client = http.DefaultClient
	}
	url := strings.TrimRight(base, "/") + "/checksums.txt"
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, &Error{Kind: "bad-index", URL: url, Reason: err.Error()}
	}
	req.Header.Set("User-Agent", "llamactl/"+current)
	resp, err := client.Do(req)
	if err != nil {
		return nil, &Error{Kind: "unreachable", URL: url, Reason: reason(ctx, err), Timeout: timeout}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Kind: "http-status", URL: url, Reason: resp.Status}
	}
	entries, err := ParseChecksums(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Kind: "unreachable", URL: url, Reason: reason(ctx, err), Timeout: timeout}
		}
		return nil, &Error{Kind: "bad-index", URL: url, Reason: err.Error()}
	}
	as := Archives(entries)
	if len(as) == 0 {
		return nil, &Error{Kind: "bad-index", URL: url, Reason: "it names no llamactl_VERSION_OS_ARCH archive"}
	}
	r := &Result{Current: current, Latest: as[0].Version, URL: url}
	switch c := Compare(current, r.Latest); {
	case c < 0:
		r.Status = Newer
	case c > 0:
		r.Status = Ahead
	default:
		r.Status = UpToDate
	}
	return r, nil
}

func reason(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "timed out"
	}
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap().Error()
	}
	return err.Error()
}

//go:embed data/messages.json
var messagesJSON []byte

type messageDef struct {
	Text string   `json:"text"`
	Args []string `json:"args"`
}

var messages = sync.OnceValue(func() map[string]messageDef {
	var doc struct {
		Messages map[string]messageDef `json:"messages"`
	}
	if err := json.Unmarshal(messagesJSON, &doc); err != nil {
		panic("releasecheck: embedded data/messages.json: " + err.Error())
	}
	return doc.Messages
})

//go:embed data/messages.zh-CN.json
var messagesZhCNJSON []byte

// messagesZhCN are the Simplified Chinese texts by message ID (%[n]s takes
// the English message's n-th argument).
var messagesZhCN = sync.OnceValue(func() map[string]messageDef {
	var doc struct {
		Messages map[string]messageDef `json:"messages"`
	}
	if err := json.Unmarshal(messagesZhCNJSON, &doc); err != nil {
		panic("releasecheck: embedded data/messages.zh-CN.json: " + err.Error())
	}
	return doc.Messages
})

// MessageIn is Message in the language l ("zh-CN", else English); an ID
// the translation lacks is English.
func MessageIn(l, id string, a ...any) string {
	if l == "zh-CN" {
		if m, ok := messagesZhCN()[id]; ok && m.Text != "" {
			return fmt.Sprintf(m.Text, a...)
		}
	}
	return Message(id, a...)
}

// In is the error's message in the language l (MessageIn).
func (e *Error) In(l string) string {
	switch e.Kind {
	case "unreachable":
		return MessageIn(l, e.Kind, e.URL, e.Timeout.String(), e.Reason, ReleasesPage)
	default:
		return MessageIn(l, e.Kind, e.URL, e.Reason, ReleasesPage)
	}
}

// Message is the English text of a message ID with its arguments.
func Message(id string, a ...any) string {
	m, ok := messages()[id]
	if !ok {
		return fmt.Sprint(append([]any{id + ":"}, a...)...)
	}
	return fmt.Sprintf(m.Text, a...)
}

// InstallCommand is the one-line installer for goos, as README shows it.
func InstallCommand(goos string) string {
	if goos == "windows" {
		return "irm " + DefaultBase + "/install.ps1 | iex"
	}
	return "curl -fsSL " + DefaultBase + "/install.sh | sh"
}
