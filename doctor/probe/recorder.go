package probe

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/llamactl/llamactl/internal/proc"
	"github.com/llamactl/llamactl/machine"
)

// Recorder captures what a real Gather read, as a Scenario: every command
// and its output, every file and directory looked at, the environment
// variables asked for, registry reads and host facts. It is how
// linux-ci-debian-bookworm was recorded, and how a support engineer can
// record a customer's machine.
type Recorder struct {
	mu sync.Mutex
	sc Scenario
	// SelfName replaces the real executable path in recorded command lines.
	self string
}

// Record wraps d so that a Gather through the returned Deps is recorded.
func Record(d Deps) (Deps, *Recorder) {
	d = withDefaults(d)
	r := &Recorder{self: d.Self}
	r.sc = Scenario{GOOS: d.GOOS, GOARCH: d.GOARCH, Env: map[string]string{}, Files: map[string]string{},
		Links: map[string]string{}, Commands: map[string]RecordedCommand{}}
	if d.Self != "" {
		r.sc.Self = "llamactl"
	}
	inner := d
	d.Runner = recRunner{r, inner.Runner}
	d.FS = recFS{r, inner.FS}
	d.Getenv = func(k string) string {
		v := inner.Getenv(k)
		if v != "" {
			r.mu.Lock()
			r.sc.Env[k] = v
			r.mu.Unlock()
		}
		return v
	}
	d.Environ = func() []string {
		all := inner.Environ()
		kept := allowedEnv(&Deps{GOOS: inner.GOOS, Environ: func() []string { return all }})
		r.mu.Lock()
		for k, v := range kept {
			r.sc.Env[k] = v
		}
		r.mu.Unlock()
		var out []string
		for k, v := range kept {
			out = append(out, k+"="+v)
		}
		return out
	}
	if inner.Host != nil {
		d.Host = recHost{r, inner.Host}
	}
	if inner.Registry != nil {
		d.Registry = recRegistry{r, inner.Registry}
	}
	return d, r
}

// Scenario returns what was recorded.
func (r *Recorder) Scenario(description string) *Scenario {
	r.mu.Lock()
	defer r.mu.Unlock()
	sc := r.sc
	sc.Description = description
	return &sc
}

// WriteScenario writes dir/scenario.json.
func (r *Recorder) WriteScenario(dir, description string) error {
	b, err := json.MarshalIndent(r.Scenario(description), "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "scenario.json"), append(b, '\n'), 0o644)
}

type recRunner struct {
	r     *Recorder
	inner proc.Runner
}

func (rr recRunner) Run(ctx context.Context, c proc.Cmd) (proc.Result, error) {
	res, err := rr.inner.Run(ctx, c)
	name := c.Name
	if rr.r.self != "" && name == rr.r.self {
		name = "llamactl"
	}
	key := strings.TrimSpace(joinCmd(proc.Cmd{Name: name, Args: c.Args}))
	rc := RecordedCommand{Stdout: string(res.Stdout), Stderr: string(res.Stderr), ExitCode: res.ExitCode, Hang: res.TimedOut}
	if err != nil && !res.TimedOut && strings.Contains(err.Error(), proc.ErrNotFound.Error()) {
		rc = RecordedCommand{NotFound: true}
	}
	rr.r.mu.Lock()
	rr.r.sc.Commands[key] = rc
	rr.r.mu.Unlock()
	return res, err
}

func (rr recRunner) LookPath(name string) (string, error) { return rr.inner.LookPath(name) }

type recFS struct {
	r     *Recorder
	inner FS
}

// maxRecordedFile keeps recordings small: files doctor reads are tiny
// (/proc/version, version.json, os-release).
const maxRecordedFile = 64 << 10

func (f recFS) note(p string, dir bool, data *string) {
	f.r.mu.Lock()
	defer f.r.mu.Unlock()
	key := p
	if dir {
		key = strings.TrimRight(p, "/\\") + sepOf(f.r.sc.GOOS)
		if p == "/" {
			key = "/"
		}
	}
	if data != nil {
		f.r.sc.Files[key] = *data
		return
	}
	if _, ok := f.r.sc.Files[key]; !ok {
		f.r.sc.Files[key] = ""
	}
}

func (f recFS) ReadFile(name string) ([]byte, error) {
	b, err := f.inner.ReadFile(name)
	if err == nil {
		s := string(b)
		if len(s) > maxRecordedFile {
			s = s[:maxRecordedFile]
		}
		f.note(name, false, &s)
	}
	return b, err
}

func (f recFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := f.inner.Stat(name)
	if err == nil {
		f.note(name, fi.IsDir(), nil)
	}
	return fi, err
}

func (f recFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := f.inner.ReadDir(name)
	if err == nil {
		f.note(name, true, nil)
		for _, e := range ents {
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if fi, err := f.inner.Stat(joinPath(f.r.sc.GOOS, name, e.Name())); err == nil {
					isDir = fi.IsDir()
				}
			}
			f.note(joinPath(f.r.sc.GOOS, name, e.Name()), isDir, nil)
		}
	}
	return ents, err
}

func (f recFS) Realpath(name string) (string, error) {
	rp, err := f.inner.Realpath(name)
	if err == nil && rp != name {
		f.r.mu.Lock()
		f.r.sc.Links[name] = rp
		f.r.mu.Unlock()
		if fi, err := f.inner.Stat(rp); err == nil {
			f.note(rp, fi.IsDir(), nil)
		}
	}
	return rp, err
}

type recHost struct {
	r     *Recorder
	inner Host
}

func (h recHost) Info(ctx context.Context) (machine.OSInfo, error) {
	o, err := h.inner.Info(ctx)
	h.r.mu.Lock()
	oc := o
	h.r.sc.OS = &oc
	h.r.mu.Unlock()
	return o, err
}

type recRegistry struct {
	r     *Recorder
	inner Registry
}

func (g recRegistry) put(key, name, val string) {
	g.r.mu.Lock()
	defer g.r.mu.Unlock()
	if g.r.sc.Registry == nil {
		g.r.sc.Registry = map[string]map[string]string{}
	}
	if g.r.sc.Registry[key] == nil {
		g.r.sc.Registry[key] = map[string]string{}
	}
	if name != "" {
		g.r.sc.Registry[key][name] = val
	}
}

func (g recRegistry) Value(key, name string) (string, error) {
	v, err := g.inner.Value(key, name)
	if err == nil {
		g.put(key, name, v)
	}
	return v, err
}

func (g recRegistry) SubKeys(key string) ([]string, error) {
	subs, err := g.inner.SubKeys(key)
	for _, s := range subs {
		g.put(key+`\`+s, "", "")
	}
	return subs, err
}

func (g recRegistry) ValueNames(key string) ([]string, error) {
	names, err := g.inner.ValueNames(key)
	for _, n := range names {
		if v, err := g.inner.Value(key, n); err == nil {
			g.put(key, n, v)
		}
	}
	return names, err
}
