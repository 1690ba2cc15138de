// Package rpccmd is `llamactl rpc serve`: start llama.cpp's RPC worker
// (ggml-rpc-server, rpc-server in older builds) from the installed or built
// engine, so another machine's `llamactl run --rpc HOST:PORT` can offload
// layers to this machine's devices (docs/distributed.md).
package rpccmd

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/llamactl/llamactl/build"
	"github.com/llamactl/llamactl/internal/cmdutil"
	"github.com/llamactl/llamactl/internal/lang"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/internal/ui"
	"github.com/llamactl/llamactl/runner/engine"
)

// Options are `llamactl rpc serve`'s inputs.
type Options struct {
	F          *cmdutil.Factory
	EnginePath string
	Host       string
	Port       int
	Device     string
	Threads    int
	Cache      bool
	// Lang is --lang: the language of the human output (zh-CN, en).
	Lang string
	// Interrupt returns a context cancelled on Ctrl-C / SIGTERM.
	Interrupt func(context.Context) (context.Context, func())

	t *lang.Catalog
}

//go:embed data/text.en.json
var textEN []byte

//go:embed data/text.zh-CN.json
var textZhCN []byte

// texts is rpc serve's sentences (data/text.en.json) in l.
func texts(l string) *lang.Catalog { return lang.FromFiles(l, textEN, textZhCN) }

// chooseLang sets the texts of the human output from --lang and the
// environment; --json output stays English.
func (o *Options) chooseLang() error {
	l, err := o.F.ChooseLang(o.Lang, "llamactl rpc serve --lang zh-CN")
	if err != nil {
		return err
	}
	if o.F.IO.JSON {
		l = lang.EN
	}
	o.t = texts(l)
	return nil
}

// Doc is `llamactl rpc serve --json` (schema 1), printed once the worker
// was started.
type Doc struct {
	Schema   int      `json:"schema"`
	Worker   string   `json:"worker"`
	Endpoint string   `json:"endpoint"`
	Argv     []string `json:"argv"`
	Warnings []string `json:"warnings"`
	ExitCode int      `json:"exit_code,omitempty"`
}

// NewCmd builds `llamactl rpc` with its `serve` subcommand.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "rpc", Short: "Serve this machine's devices to another llamactl run (llama.cpp RPC)",
		Long: `Share this machine's devices with 'llamactl run --rpc' on another machine through
llama.cpp's RPC worker. See docs/distributed.md.

  llamactl rpc serve --host 192.168.1.20 --port 50052`}
	o := &Options{F: f}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Start a llama.cpp RPC worker (ggml-rpc-server) until Ctrl-C",
		Long: `Start llama.cpp's RPC worker from the installed or built engine, so that
'llamactl run MODEL --rpc THIS-HOST:PORT' on another machine puts layers on this
machine's devices. It listens on 127.0.0.1 unless --host is given.

The RPC protocol has no authentication and no encryption: whoever can reach the
port can use this machine's devices and memory. Listen on a trusted network only.

  llamactl rpc serve                          127.0.0.1:50052, every device
  llamactl rpc serve --host 192.168.1.20      reachable from the LAN (trusted only)
  llamactl rpc serve --device Vulkan0 --cache

See docs/distributed.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.chooseLang(); err != nil {
				return err
			}
			if o.Port < 1 || o.Port > 65535 {
				return cmdutil.UsageErrorf("%s", o.t.T("err.port", "port", o.Port))
			}
			if o.Threads < 0 {
				return cmdutil.UsageErrorf("%s", o.t.T("err.threads", "threads", o.Threads))
			}
			return Serve(cmd.Context(), o)
		},
	}
	fl := serve.Flags()
	fl.StringVar(&o.EnginePath, "engine", "", "the engine folder (or its llama-server) whose RPC worker to start (default: last 'llamactl build', then PATH)")
	fl.StringVar(&o.Host, "host", "127.0.0.1", "address to listen on; anything but loopback exposes the unauthenticated protocol")
	fl.IntVar(&o.Port, "port", 50052, "TCP port")
	fl.StringVar(&o.Device, "device", "", "devices to serve, comma-separated (llama-server --list-devices names them; default all)")
	fl.IntVar(&o.Threads, "threads", 0, "threads for the CPU device (default: the worker's)")
	fl.BoolVar(&o.Cache, "cache", false, "keep received tensors in a local file cache (faster reloads of the same model)")
	cmdutil.AddLangFlag(serve, &o.Lang)
	root.AddCommand(serve)
	return root
}

// WorkerNames are the worker binary's names, newest first.
var WorkerNames = build.RPCWorkerNames

// NoWorkerError is FindWorker's answer when no worker binary is found.
type NoWorkerError struct {
	Names []string // the worker's names (WorkerNames)
	Dirs  []string // the engine folders searched before PATH
}

func (e *NoWorkerError) Error() string { return e.In(texts(lang.EN)) }

// In is the error's text in the catalog's language.
func (e *NoWorkerError) In(t *lang.Catalog) string {
	return t.T("err.no-worker", "names", fmt.Sprint(e.Names), "dirs", fmt.Sprint(e.Dirs))
}

// FindWorker returns the RPC worker next to the engine the locator finds
// (or on PATH); *NoWorkerError when there is none.
func FindWorker(o *Options) (string, error) {
	f := o.F
	loc := engine.Locator{Flag: o.EnginePath, Getenv: f.Getenv, ReadFile: os.ReadFile, Stat: os.Stat,
		CacheDir: paths.CacheDir(runtime.GOOS, f.Getenv), Runner: f.Runner}
	var dirs []string
	if p, _, err := loc.Find(); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	} else if o.EnginePath != "" {
		if st, serr := os.Stat(o.EnginePath); serr == nil && st.IsDir() {
			dirs = append(dirs, o.EnginePath)
		} else {
			return "", err
		}
	}
	for _, d := range dirs {
		if w := build.RPCWorker(runtime.GOOS, d); w != "" {
			return filepath.Join(d, w), nil
		}
	}
	for _, n := range WorkerNames {
		if p, err := f.Runner.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", &NoWorkerError{Names: WorkerNames, Dirs: dirs}
}

// Argv is the worker's command line.
func Argv(o *Options) []string {
	a := []string{"-H", o.Host, "-p", strconv.Itoa(o.Port)}
	if o.Device != "" {
		a = append(a, "-d", o.Device)
	}
	if o.Threads > 0 {
		a = append(a, "-t", strconv.Itoa(o.Threads))
	}
	if o.Cache {
		a = append(a, "-c")
	}
	return a
}

// Warnings are what a user must know before exposing a worker, in English
// (--json).
func Warnings(host string) []string { return warnings(texts(lang.EN), host) }

// warnings are Warnings in t's language.
func warnings(t *lang.Catalog, host string) []string {
	w := []string{t.T("warn.unauthenticated")}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		w = append(w, t.T("warn.not-loopback", "host", host))
	}
	return w
}

// Serve starts the worker and waits until it exits or Ctrl-C.
func Serve(ctx context.Context, o *Options) error {
	f := o.F
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Interrupt == nil {
		o.Interrupt = func(ctx context.Context) (context.Context, func()) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		}
	}
	if o.t == nil {
		if err := o.chooseLang(); err != nil {
			return err
		}
	}
	w, err := FindWorker(o)
	var nw *NoWorkerError
	if errors.As(err, &nw) {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%s", nw.In(o.t))
	}
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
	}
	doc := Doc{Schema: 1, Worker: w, Endpoint: net.JoinHostPort(o.Host, strconv.Itoa(o.Port)), Argv: Argv(o), Warnings: Warnings(o.Host)}
	if f.IO.JSON {
		if err := ui.WriteJSON(f.IO.Out, doc); err != nil {
			return err
		}
	} else {
		p := ui.NewErrPrinter(f.IO)
		for _, x := range warnings(o.t, o.Host) {
			p.Line(ui.Warn, x)
		}
		p.Line(ui.Info, o.t.T("started", "worker", filepath.Base(w), "endpoint", doc.Endpoint))
	}
	ctx, stop := o.Interrupt(ctx)
	defer stop()
	c := proc.Cmd{Name: w, Args: doc.Argv, Timeout: 100 * 365 * 24 * time.Hour, Stderr: f.IO.ErrOut}
	if !f.IO.JSON {
		c.Stdout = f.IO.ErrOut
	}
	res, err := f.Runner.Run(ctx, c)
	if ctx.Err() != nil {
		return cmdutil.Exit(cmdutil.ExitSignal)
	}
	if err != nil {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%v", err)
	}
	if res.ExitCode != 0 {
		return cmdutil.Errorf(cmdutil.ExitEngine, "%s", o.t.T("err.worker-exit", "worker", w, "code", res.ExitCode, "port", o.Port))
	}
	return nil
}
