package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/recorded"
	"github.com/llamactl/llamactl/machine"
)

// Scenario is one recorded machine (testdata/doctor/recordings/<name>/
// scenario.json): the commands it answered, its environment, a small file
// tree, registry values and host facts. GatherRecording replays it through
// the same Gather code the real machine uses.
type Scenario struct {
	Description string `json:"description"`
	// Sources cite where every recorded output came from (fixture files under testdata/doctor/recordings/fixtures).
	Sources []string `json:"sources,omitempty"`
	GOOS    string   `json:"goos"`
	GOARCH  string   `json:"goarch,omitempty"`
	// Self is the llamactl command line's program name when the NVML child
	// probe was recorded ("llamactl"); empty means NVML was not recorded.
	Self     string                       `json:"self,omitempty"`
	TakenAt  time.Time                    `json:"taken_at,omitempty"`
	Env      map[string]string            `json:"env,omitempty"`
	OS       *machine.OSInfo              `json:"os,omitempty"`
	Files    map[string]string            `json:"files,omitempty"` // path -> content; "dir/" or `dir\` is a directory
	Links    map[string]string            `json:"links,omitempty"` // symbolic link -> target
	FileErrs map[string]string            `json:"file_errors,omitempty"`
	Registry map[string]map[string]string `json:"registry,omitempty"`
	RegErrs  map[string]string            `json:"registry_errors,omitempty"`
	Commands map[string]RecordedCommand   `json:"commands,omitempty"`
}

// RecordedCommand is one command's recorded result. Output may be inline or
// taken from a fixture file (relative to the scenario dir): the fixture's
// "# ---" header is dropped, then Section (a "=== ... ===" block of a
// combined fixture) or Lines ("3-12", 1-based) select a part.
type RecordedCommand struct {
	Stdout     string `json:"stdout,omitempty"`
	Stderr     string `json:"stderr,omitempty"`
	StdoutFile string `json:"stdout_file,omitempty"`
	StderrFile string `json:"stderr_file,omitempty"`
	Section    string `json:"section,omitempty"`
	Lines      string `json:"lines,omitempty"`
	ExitCode   int    `json:"exit_code,omitempty"`
	Hang       bool   `json:"hang,omitempty"`
	NotFound   bool   `json:"not_found,omitempty"`
}

// LoadScenario reads dir/scenario.json and resolves its fixture files.
func LoadScenario(dir string) (*Scenario, error) {
	b, err := os.ReadFile(filepath.Join(dir, "scenario.json"))
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", dir, err)
	}
	var sc Scenario
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("recording %s/scenario.json is not a valid scenario: %w", dir, err)
	}
	switch sc.GOOS {
	case "windows", "linux", "darwin":
	default:
		return nil, fmt.Errorf("recording %s: goos %q must be windows, linux or darwin", dir, sc.GOOS)
	}
	for line, c := range sc.Commands {
		if c.StdoutFile != "" {
			s, err := readFixture(dir, c.StdoutFile, c.Section, c.Lines)
			if err != nil {
				return nil, fmt.Errorf("recording %s: command %q: %w", dir, line, err)
			}
			c.Stdout += s
		}
		if c.StderrFile != "" {
			s, err := readFixture(dir, c.StderrFile, c.Section, c.Lines)
			if err != nil {
				return nil, fmt.Errorf("recording %s: command %q: %w", dir, line, err)
			}
			c.Stderr += s
		}
		c.StdoutFile, c.StderrFile, c.Section, c.Lines = "", "", "", ""
		sc.Commands[line] = c
	}
	return &sc, nil
}

var reLines = regexp.MustCompile(`^(\d+)-(\d+)$`)

func readFixture(dir, rel, section, lines string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("fixture %q must be relative to the scenario", rel)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	s := recorded.Body(strings.ReplaceAll(string(b), "\r\n", "\n"))
	if section != "" {
		start := strings.Index(s, section+"\n")
		if start < 0 {
			return "", fmt.Errorf("fixture %s has no section %q", rel, section)
		}
		s = s[start+len(section)+1:]
		if end := strings.Index(s, "\n=== "); end >= 0 {
			s = s[:end+1]
		} else if strings.HasPrefix(s, "=== ") {
			s = ""
		}
	}
	if lines != "" {
		m := reLines.FindStringSubmatch(lines)
		if m == nil {
			return "", fmt.Errorf("lines %q: want FROM-TO", lines)
		}
		from, _ := strconv.Atoi(m[1])
		to, _ := strconv.Atoi(m[2])
		all := strings.Split(s, "\n")
		if from < 1 || to < from || to > len(all) {
			return "", fmt.Errorf("lines %q out of range (fixture %s has %d lines)", lines, rel, len(all))
		}
		s = strings.Join(all[from-1:to], "\n") + "\n"
	}
	return s, nil
}

// Deps builds the dependencies that replay the scenario.
func (sc *Scenario) Deps() Deps {
	env := sc.Env
	goos := sc.GOOS
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if goos == "windows" {
			for ek, v := range env {
				if strings.EqualFold(ek, k) {
					return v
				}
			}
		}
		return ""
	}
	fsys := NewMemFS(goos, sc.Files)
	for l, t := range sc.Links {
		fsys.AddLink(l, t)
	}
	for p, e := range sc.FileErrs {
		fsys.SetError(p, errors.New(e))
	}
	cmds := map[string]proc.Recording{}
	for line, c := range sc.Commands {
		cmds[line] = proc.Recording{Stdout: c.Stdout, Stderr: c.Stderr, ExitCode: c.ExitCode, Hang: c.Hang, NotFound: c.NotFound}
	}
	var reg Registry
	if goos == "windows" {
		reg = &MemRegistry{Keys: sc.Registry, Errors: sc.RegErrs}
	}
	arch := sc.GOARCH
	if arch == "" {
		arch = "amd64"
	}
	taken := sc.TakenAt
	if taken.IsZero() {
		taken = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	}
	var host Host
	if sc.OS != nil {
		host = recordedHost{*sc.OS}
	}
	return Deps{
		GOOS: goos, GOARCH: arch,
		Runner:   &proc.Replay{Commands: cmds},
		FS:       fsys,
		Getenv:   getenv,
		Environ:  func() []string { return envList(env) },
		Registry: reg,
		Host:     host,
		Now:      func() time.Time { return taken },
		Self:     sc.Self,
		// Recorded commands answer at once; a recorded hang must still end quickly.
		Timeout:        3 * time.Second,
		CommandTimeout: time.Second,
	}
}

func envList(env map[string]string) []string {
	var kv []string
	for _, k := range sortedKeys(env) {
		kv = append(kv, k+"="+env[k])
	}
	return kv
}

type recordedHost struct{ o machine.OSInfo }

func (h recordedHost) Info(context.Context) (machine.OSInfo, error) { return h.o, nil }

// GatherRecording replays the scenario in dir through Gather. The error is
// for a recording that cannot be read (missing, corrupt JSON, a fixture it
// names is absent); everything else becomes facts and ProbeErrors.
func GatherRecording(dir string) (*machine.Snapshot, error) {
	sc, err := LoadScenario(dir)
	if err != nil {
		return nil, err
	}
	s := Gather(context.Background(), sc.Deps())
	return s, nil
}
