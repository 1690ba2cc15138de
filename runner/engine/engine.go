// Package engine finds a llama.cpp binary and learns what it can do: its
// version (from --version), the flags it knows (from --help) and the
// devices it sees (from --list-devices). Everything goes through
// proc.Runner so it is tested with recorded outputs.
package engine

import (
	"context"
	_ "embed"
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
	"github.com/llamactl/llamactl/internal/lang"
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
// --help lists, so generated command lines always parse. The planner
// (runner/plan) reads them as they are: this is the one capability type.
type Caps struct {
	Flags map[string]bool `json:"-"`

	FlashAttn    bool `json:"flash_attn"`     // -fa/--flash-attn in any form
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
	// NoOpOffload: --no-op-offload (keep the compute of CPU-resident
	// layers on the host, nothing on the GPU at -ngl 0).
	NoOpOffload bool `json:"no_op_offload"`
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
	c.FlashAttn = has("-fa", "--flash-attn")
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
	c.NoOpOffload = has("--no-op-offload")
	return c
}

// Device is one backend device as ggml reports it (--list-devices), with
// NVML's free memory merged in where it is better; the planner
// (runner/plan) sizes models to these: this is the one device type.
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
	return e.ListDevicesRPC(ctx, r, nil)
}

// ListDevicesRPC is ListDevices with RPC workers (host:port): the engine
// connects to each and lists its devices and free memory as RPCn. A worker
// it cannot reach or whose protocol differs is an *RPCError.
func (e *Engine) ListDevicesRPC(ctx context.Context, r proc.Runner, rpc []string) ([]Device, error) {
	if !e.Caps.ListDevices {
		if len(rpc) > 0 {
			return nil, &ListError{Path: e.Path, RPC: rpc}
		}
		return nil, nil
	}
	var args []string
	if len(rpc) > 0 {
		// Before --list-devices: llama.cpp lists as it parses that flag.
		args = append(args, "--rpc", strings.Join(rpc, ","))
	}
	args = append(args, "--list-devices")
	res, err := r.Run(ctx, proc.Cmd{Name: e.Path, Args: args, Timeout: probeTimeout})
	if len(rpc) > 0 {
		if re := ParseRPCError(res.Combined()); re != nil {
			return nil, re
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s --list-devices: %w", e.Path, err)
	}
	if len(rpc) > 0 && res.ExitCode != 0 {
		return nil, &ListError{Path: e.Path, RPC: rpc, ExitCode: res.ExitCode, Line: lastLine(res.Combined())}
	}
	return ParseDevices(res.Combined()), nil
}

// RPCError is a failure of the engine's RPC client, as its log says it
// (ggml/src/ggml-rpc/ggml-rpc.cpp): Kind is "unreachable", "version" or
// "handshake"; Endpoint the worker; Line the engine's own words.
type RPCError struct {
	Kind     string
	Endpoint string
	Version  string // the worker's protocol version, for "version"
	Line     string
}

func (e *RPCError) Error() string { return e.In(Texts(lang.EN)) }

// In is the error's text in t's language (Texts).
func (e *RPCError) In(t *lang.Catalog) string {
	kind := e.Kind
	if kind != "unreachable" && kind != "version" {
		kind = "handshake"
	}
	return t.T("rpc."+kind, "endpoint", e.Endpoint, "version", e.Version, "line", strconv.Quote(e.Line))
}

// ListError is an engine that cannot list the RPC workers' devices: it
// has no --list-devices (ExitCode 0), or listing them failed otherwise.
type ListError struct {
	Path     string
	RPC      []string
	ExitCode int
	Line     string // the engine's last line
}

func (e *ListError) Error() string { return e.In(Texts(lang.EN)) }

// In is the error's text in t's language (Texts).
func (e *ListError) In(t *lang.Catalog) string {
	if e.ExitCode == 0 {
		return t.T("rpc.no-list-devices", "path", e.Path)
	}
	return t.T("rpc.list-exit", "path", e.Path, "rpc", strings.Join(e.RPC, ","), "code", e.ExitCode, "line", e.Line)
}

// Texter is an error that can say itself in another language.
type Texter interface {
	error
	In(t *lang.Catalog) string
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// Texts is the engine's human texts (data/text.en.json: RPCError's) in l.
func Texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

var (
	rpcConnectRE   = regexp.MustCompile(`Failed to connect to (\S+)`)
	rpcVersionRE   = regexp.MustCompile(`RPC server version mismatch: (\d+\.\d+\.\d+)`)
	rpcHandshakeRE = regexp.MustCompile(`RPC handshake failed for (\S+)`)
)

// ParseRPCError finds the RPC client failure in an engine's output. The
// version line (a log line) and the handshake abort (stderr) come in either
// order, so the whole output is read before deciding.
func ParseRPCError(out string) *RPCError {
	var version, vline, hsEndpoint, hsLine string
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		l = strings.TrimSpace(l)
		if m := rpcConnectRE.FindStringSubmatch(l); m != nil {
			return &RPCError{Kind: "unreachable", Endpoint: m[1], Line: l}
		}
		if m := rpcVersionRE.FindStringSubmatch(l); m != nil && version == "" {
			version, vline = m[1], l
		}
		if m := rpcHandshakeRE.FindStringSubmatch(l); m != nil && hsEndpoint == "" {
			hsEndpoint, hsLine = m[1], l
		}
	}
	switch {
	case hsEndpoint != "" && version != "":
		return &RPCError{Kind: "version", Endpoint: hsEndpoint, Version: version, Line: vline}
	case hsEndpoint != "":
		return &RPCError{Kind: "handshake", Endpoint: hsEndpoint, Line: hsLine}
	}
	return nil
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}
