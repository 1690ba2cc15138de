// Package engine finds a llama.cpp binary and learns what it can do: its
// version (from --version), the flags it knows (from --help) and the
// devices it sees (from --list-devices). Everything goes through
// proc.Runner so it is tested with recorded outputs.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/enginefacts"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
)

// probeTimeout bounds --version/--help/--list-devices: they print and exit.
const probeTimeout = 20 * time.Second

// Engine is one llama.cpp installation.
type Engine struct {
	Path    string `json:"path"`   // llama-server
	Dir     string `json:"dir"`    // its directory (siblings: llama-cli, llama-bench...)
	Source  string `json:"source"` // flag, last-build, env, PATH
	Version string `json:"version"`
	Build   int    `json:"build"` // 0 when unknown
	Commit  string `json:"commit,omitempty"`
	Caps    Caps   `json:"capabilities"`
}

// Tool returns the path of a sibling binary (llama-cli, llama-bench...).
func (e *Engine) Tool(name string) string {
	return filepath.Join(e.Dir, name+exeSuffix())
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// Locator says where to look. Getenv and ReadFile are the outside world.
type Locator struct {
	Flag     string // --engine: a binary or a directory
	Getenv   func(string) string
	ReadFile func(string) ([]byte, error)
	Stat     func(string) (os.FileInfo, error)
	CacheDir string // llamactl's cache dir (internal/paths); "" or "-" skips the last-build record
	Runner   proc.Runner
}

// LastBuildFile is where `llamactl build` records the binaries it produced
// ({"bin_dir": "..."}); relative to llamactl's cache dir.
const LastBuildFile = paths.LastBuildName

// ErrNoEngine means no llama-server was found anywhere.
var ErrNoEngine = errors.New("no llama.cpp engine found")

// Find returns the engine path: --engine, else LLAMACTL_ENGINE_DIR, else
// the last `llamactl build`, else llama-server on PATH.
func (l Locator) Find() (path, source string, err error) {
	server := "llama-server" + exeSuffix()
	try := func(p string) (string, bool) {
		st, err := l.Stat(p)
		if err != nil {
			return "", false
		}
		if st.IsDir() {
			p = filepath.Join(p, server)
			if st, err = l.Stat(p); err != nil || st.IsDir() {
				return "", false
			}
		}
		return p, true
	}
	if l.Flag != "" {
		if p, ok := try(l.Flag); ok {
			return p, "flag", nil
		}
		return "", "", fmt.Errorf("%w: --engine %s is neither llama-server nor a directory holding %s", ErrNoEngine, l.Flag, server)
	}
	if d := l.Getenv("LLAMACTL_ENGINE_DIR"); d != "" {
		if p, ok := try(d); ok {
			return p, "env", nil
		}
	}
	if l.CacheDir != "" && l.CacheDir != "-" && l.ReadFile != nil {
		if b, err := l.ReadFile(filepath.Join(l.CacheDir, LastBuildFile)); err == nil {
			var rec struct {
				BinDir string `json:"bin_dir"`
			}
			if json.Unmarshal(b, &rec) == nil && rec.BinDir != "" {
				if p, ok := try(rec.BinDir); ok {
					return p, "last-build", nil
				}
			}
		}
	}
	if p, err := l.Runner.LookPath("llama-server"); err == nil {
		return p, "PATH", nil
	}
	return "", "", fmt.Errorf("%w: pass --engine PATH, or build one with 'llamactl build', or put llama-server on PATH", ErrNoEngine)
}

// Probe runs --version and --help on the binary.
func Probe(ctx context.Context, r proc.Runner, path, source string) (*Engine, error) {
	e := &Engine{Path: path, Dir: filepath.Dir(path), Source: source}
	res, err := r.Run(ctx, proc.Cmd{Name: path, Args: []string{"--version"}, Timeout: probeTimeout})
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", path, err)
	}
	e.Version, e.Build, e.Commit = ParseVersion(res.Combined())
	if e.Version == "" {
		return nil, fmt.Errorf("%s --version printed no version (exit %d): is this llama.cpp's llama-server?", path, res.ExitCode)
	}
	res, err = r.Run(ctx, proc.Cmd{Name: path, Args: []string{"--help"}, Timeout: probeTimeout})
	if err != nil {
		return nil, fmt.Errorf("%s --help: %w", path, err)
	}
	e.Caps = ParseHelp(res.Combined())
	return e, nil
}

// ParseVersion extracts the version string ("0.7.0", or "9049" in the
// older banner), the build number and the commit (without "-dirty");
// enginefacts.ParseVersion reads the banner for build's verifier too.
func ParseVersion(out string) (version string, build int, commit string) {
	v, _ := enginefacts.ParseVersion(out)
	return v.Version, v.Build, v.Commit
}

// Caps are the flags this engine accepts. Unknown builds get what their
// --help lists, so generated command lines always parse.
type Caps struct {
	Flags map[string]bool `json:"-"`

	Fit          bool `json:"fit"`            // -fit on|off
	FitPrint     bool `json:"fit_print"`      // -fitp: memory estimate oracle
	FlashAttnArg bool `json:"flash_attn_arg"` // -fa on|off|auto (else bare -fa)
	SpecType     bool `json:"spec_type"`      // --spec-type draft-simple needed with -md
	SpecDraftN   bool `json:"spec_draft_n"`   // --spec-draft-n-max (else --draft-max)
	LoadMode     bool `json:"load_mode"`      // --load-mode none (else --no-mmap)
	NGLAuto      bool `json:"ngl_auto"`       // -ngl auto|all
	ListDevices  bool `json:"list_devices"`
	CPUMoE       bool `json:"n_cpu_moe"` // --n-cpu-moe N
	Verbosity    bool `json:"log_verbosity"`
	Embedding    bool `json:"embedding"`
	DraftModel   bool `json:"draft_model"`
	CacheTypes   bool `json:"cache_types"` // -ctk/-ctv
}

// descGapRE is the gap before the description: two or more spaces not
// followed by another flag name ("-c,    --ctx-size N     size of...").
var descGapRE = regexp.MustCompile(`\s{2,}[^\s-]`)

var helpFlagRE = regexp.MustCompile(`(?:^|[\s,])(--?[a-zA-Z][a-zA-Z0-9-]*)`)

// ParseHelp reads the option column of --help: each option line starts
// with the flag names, comma-separated, before the description.
func ParseHelp(help string) Caps {
	c := Caps{Flags: map[string]bool{}}
	var faLine, nglLine string
	for _, line := range strings.Split(help, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "-") {
			continue
		}
		head, desc := t, ""
		if loc := descGapRE.FindStringIndex(t); loc != nil {
			head, desc = t[:loc[0]], t[loc[1]-1:] // the description starts after a wide gap
		}
		removed := strings.Contains(desc, "has been removed")
		for _, m := range helpFlagRE.FindAllStringSubmatch(head, -1) {
			if removed {
				delete(c.Flags, m[1])
				continue
			}
			c.Flags[m[1]] = true
		}
		if strings.Contains(head, "--flash-attn") {
			faLine = head
		}
		if strings.Contains(head, "--n-gpu-layers") || strings.Contains(head, "--gpu-layers") {
			nglLine = t
		}
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if c.Flags[n] {
				return true
			}
		}
		return false
	}
	c.Fit = has("--fit")
	c.FitPrint = has("--fit-print", "-fitp")
	c.FlashAttnArg = strings.Contains(faLine, "on|off")
	c.SpecType = has("--spec-type")
	c.SpecDraftN = has("--spec-draft-n-max")
	c.LoadMode = has("--load-mode")
	c.NGLAuto = strings.Contains(help, "'auto', or 'all'") || strings.Contains(nglLine, "auto")
	c.ListDevices = has("--list-devices")
	c.CPUMoE = has("--n-cpu-moe")
	c.Verbosity = has("--log-verbosity", "-lv")
	c.Embedding = has("--embedding", "--embeddings")
	c.DraftModel = has("--model-draft", "-md", "--spec-draft-model")
	c.CacheTypes = has("--cache-type-k", "-ctk")
	return c
}

// Device is one backend device as ggml reports it.
type Device struct {
	ID       string `json:"id"` // CUDA0, Vulkan0, ROCm0, MTL0...
	Name     string `json:"name"`
	TotalMiB uint64 `json:"total_mib"`
	FreeMiB  uint64 `json:"free_mib"`
}

var deviceRE = regexp.MustCompile(`^\s*([A-Za-z_]+[0-9]+):\s+(.*?)\s+\((\d+) MiB,\s*(\d+) MiB free\)\s*$`)

// ParseDevices reads `--list-devices`: "  CUDA0: NAME (16375 MiB, 15046 MiB free)".
func ParseDevices(out string) []Device {
	var ds []Device
	in := false
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "Available devices:") {
			in = true
			continue
		}
		if !in {
			continue
		}
		m := deviceRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		total, _ := strconv.ParseUint(m[3], 10, 64)
		free, _ := strconv.ParseUint(m[4], 10, 64)
		ds = append(ds, Device{ID: m[1], Name: m[2], TotalMiB: total, FreeMiB: free})
	}
	return ds
}

// ListDevices asks the engine which devices it can use and their free memory.
func (e *Engine) ListDevices(ctx context.Context, r proc.Runner) ([]Device, error) {
	if !e.Caps.ListDevices {
		return nil, nil
	}
	res, err := r.Run(ctx, proc.Cmd{Name: e.Path, Args: []string{"--list-devices"}, Timeout: probeTimeout})
	if err != nil {
		return nil, fmt.Errorf("%s --list-devices: %w", e.Path, err)
	}
	return ParseDevices(res.Combined()), nil
}
