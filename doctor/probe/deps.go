// Package probe gathers a machine.Snapshot of the machine: the facts every
// doctor rule reads. Everything external (commands, files, environment,
// registry, NVML, host counters, clock) comes through Deps, so the same
// Gather code runs on the real machine (System) and on a recorded one
// (GatherRecording), including a Windows machine replayed on Linux.
package probe

import (
	"context"
	"io/fs"
	"os"
	"runtime"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// FS is the read-only file system view probes use. Names are absolute paths
// in the target OS's syntax (C:\... on Windows), so a recorded Windows tree
// works on Linux.
type FS interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Realpath resolves symbolic links (Debian's /bin -> /usr/bin, /usr/local/cuda
	// -> cuda-12.4) so one file found twice is reported once.
	Realpath(name string) (string, error)
}

// Registry reads the Windows registry. Keys are written with their hive
// abbreviation: `HKLM\SOFTWARE\...`, `HKCU\Environment`.
type Registry interface {
	// Value returns the data of one value as a string (REG_SZ, REG_EXPAND_SZ
	// unexpanded, REG_DWORD in decimal, REG_MULTI_SZ joined by ';').
	Value(key, name string) (string, error)
	// SubKeys lists the immediate sub-key names of key.
	SubKeys(key string) ([]string, error)
	// ValueNames lists the value names of key.
	ValueNames(key string) ([]string, error)
}

// Host reports what the operating system knows about CPU, memory and disk
// (gopsutil on the real machine, recorded values in a scenario).
type Host interface {
	Info(ctx context.Context) (machine.OSInfo, error)
}

// Deps is everything Gather needs from the outside world.
type Deps struct {
	GOOS, GOARCH string
	Runner       proc.Runner
	FS           FS
	Getenv       func(string) string
	Environ      func() []string
	Registry     Registry // nil where there is none (Linux)
	Host         Host
	Now          func() time.Time
	// Self is llamactl's own executable, run as `Self __probe nvml` so that
	// native NVML calls that crash or hang cannot take doctor down. Empty
	// disables the NVML child probe (nvidia-smi still runs).
	Self string
	// Version is llamactl's version, recorded in the snapshot.
	Version string
	// CacheDir is where builds live; its free disk space is reported.
	CacheDir string
	// Timeout bounds each gatherer; CommandTimeout bounds each command.
	Timeout        time.Duration
	CommandTimeout time.Duration
}

// Default deadlines: a gatherer that takes longer is reported as a timed-out
// ProbeError and the rest of the snapshot is still returned.
const (
	DefaultGathererTimeout = 8 * time.Second
	DefaultCommandTimeout  = 5 * time.Second
)

// System returns the real machine's dependencies.
func System(f proc.Env) Deps {
	self := ""
	if f.Executable != nil {
		if p, err := f.Executable(); err == nil {
			self = p
		}
	}
	cache, _ := os.UserCacheDir()
	return Deps{
		GOOS:     runtime.GOOS,
		GOARCH:   runtime.GOARCH,
		Runner:   f.Runner,
		FS:       OSFS{},
		Getenv:   f.Getenv,
		Environ:  f.Environ,
		Registry: systemRegistry(),
		Host:     gopsutilHost{},
		Now:      f.Now,
		Self:     self,
		CacheDir: cache,
	}
}
