// Package report writes the support bundle of `llamactl doctor --report`:
// report.json (schema-versioned, replayable with `doctor --replay`),
// report.md (for a GitHub issue) and, as a zip, both plus the raw command
// outputs. Everything is redacted by default, and a self-check refuses to
// write when the real user name, host name or a secret from the
// environment survives.
package report

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/llamactl/llamactl/doctor/probe"
	"github.com/llamactl/llamactl/failures"
	"github.com/llamactl/llamactl/internal/buildinfo"
	"github.com/llamactl/llamactl/internal/jsonout"
	"github.com/llamactl/llamactl/internal/paths"
	"github.com/llamactl/llamactl/machine"
	"github.com/llamactl/llamactl/support/redact"
)

// Schema versions report.json (docs/support.md).
const Schema = 1

// Options say what goes into the bundle and where.
type Options struct {
	Path     string // output directory, or a .zip file
	Zip      bool
	Redact   bool
	Snapshot *machine.Snapshot
	Doctor   any // doctor's --json document
	Llamactl buildinfo.Info
	// BuildManifests are paths of recent build manifest.json files (or build
	// logs). nil means: look in llamactl's build cache (FindBuilds under
	// CacheRoot(Env)); an empty non-nil slice means none.
	BuildManifests []string
	Env            map[string]string // the real environment, for the self-check
	Stderr         io.Writer
	// Now stamps the report (defaults to time.Now).
	Now func() time.Time
}

// Result is what was written.
type Result struct {
	Path     string         `json:"path"`
	Files    []string       `json:"files"` // names inside the directory or zip
	Redacted bool           `json:"redacted"`
	Counts   map[string]int `json:"replacements,omitempty"` // per kind: user, host, secret...
}

// Doc is report.json.
type Doc struct {
	Schema      int               `json:"schema"`
	Kind        string            `json:"kind"` // "llamactl-report"
	GeneratedAt time.Time         `json:"generated_at"`
	Llamactl    buildinfo.Info    `json:"llamactl"`
	Redaction   Redaction         `json:"redaction"`
	Summary     Summary           `json:"summary"`
	Findings    json.RawMessage   `json:"findings,omitempty"`  // doctor's checks
	Selection   json.RawMessage   `json:"selection,omitempty"` // doctor's selection
	Snapshot    *machine.Snapshot `json:"snapshot"`
	Doctor      json.RawMessage   `json:"doctor,omitempty"` // the rest of doctor's document
	Builds      []Build           `json:"builds,omitempty"`
}

// Redaction records what was done, so a reader knows what "<user>" means.
type Redaction struct {
	Applied bool           `json:"applied"`
	Counts  map[string]int `json:"replacements,omitempty"`
	Note    string         `json:"note"`
}

// Summary is the one-screen view the markdown table shows.
type Summary struct {
	OS        string `json:"os,omitempty"`
	GPUs      string `json:"gpus,omitempty"`
	Driver    string `json:"driver,omitempty"`
	CUDA      string `json:"cuda_toolkits,omitempty"`
	Compilers string `json:"compilers,omitempty"`
	Backend   string `json:"backend,omitempty"`
	Errors    int    `json:"errors"`
	Warnings  int    `json:"warnings"`
}

// Build is one recent build: its manifest, the tail of its log and what the
// failure knowledge base reads in that tail.
type Build struct {
	Manifest  json.RawMessage     `json:"manifest,omitempty"`
	LogTail   string              `json:"log_tail,omitempty"`
	Diagnosis *failures.Diagnosis `json:"diagnosis,omitempty"`
	Error     string              `json:"error,omitempty"`
}

// LeakError is the self-check's refusal.
type LeakError struct{ Leaks []redact.Leak }

func (e *LeakError) Error() string {
	var parts []string
	for _, l := range e.Leaks {
		parts = append(parts, l.String())
	}
	return "refusing to write the report: after redaction it still contains " + strings.Join(parts, ", ") +
		". This is a llamactl bug; please report it without the bundle. For local use only: llamactl doctor --report FILE --no-redact"
}

// Limits that keep the bundle pasteable.
const (
	logTailBytes  = 32 << 10
	logTailLines  = 200
	maxManifest   = 1 << 20
	mdDetailLimit = 20000 // characters of one <details> block in report.md
)

// Write gathers, redacts, self-checks and writes the bundle.
func Write(o Options) (Result, error) {
	if o.Path == "" {
		return Result{}, errors.New("report: no output path")
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	zipOut := o.Zip || strings.EqualFold(filepath.Ext(o.Path), ".zip")
	if st, err := os.Stat(o.Path); err == nil && st.IsDir() && zipOut {
		// --zip into an existing folder: name the zip like does.
		o.Path = filepath.Join(o.Path, "llamactl-report-"+o.Now().UTC().Format("20060102-150405")+".zip")
	}

	doc, err := build(o)
	if err != nil {
		return Result{}, err
	}
	raw := map[string]string{}
	if zipOut && o.Snapshot != nil {
		for k, v := range o.Snapshot.Raw {
			raw[k] = v
		}
	}

	var red *redact.Redactor
	if o.Redact {
		red = newRedactor(o)
		if err := redactDoc(red, doc, raw); err != nil {
			return Result{}, err
		}
		doc.Redaction = Redaction{Applied: true, Counts: red.Counts(),
			Note: "user names, host names, GPU UUIDs/serials, MAC/IP addresses, secrets and environment values outside the allowlist were replaced (<user>, <host>, <gpu-uuid-N>, <secret>, <redacted>)"}
	} else {
		doc.Redaction = Redaction{Applied: false, Note: "NOT REDACTED: contains this machine's user name, host name, hardware identifiers and environment. For local use only."}
		fmt.Fprintln(o.Stderr, "WARNING: --no-redact: this report is NOT redacted. It contains your user name, host name, GPU UUIDs and")
		fmt.Fprintln(o.Stderr, "WARNING: environment values. Do not attach it to a public issue; run without --no-redact for that.")
	}

	jsonBytes, err := marshal(doc)
	if err != nil {
		return Result{}, err
	}
	md := Markdown(doc)
	files := []file{{"report.json", jsonBytes}, {"report.md", []byte(md)}}
	if zipOut {
		keys := sortedKeys(raw)
		for i, name := range rawNames(keys) {
			files = append(files, file{"raw/" + name, []byte("$ " + keys[i] + "\n" + raw[keys[i]])})
		}
	}
	if tamper != nil {
		tamper(files)
	}
	if red != nil {
		var leaks []redact.Leak
		for _, f := range files {
			leaks = append(leaks, red.Leaks(f.name, string(f.data))...)
		}
		if len(leaks) > 0 {
			return Result{}, &LeakError{Leaks: leaks}
		}
	}

	res := Result{Path: o.Path, Redacted: o.Redact}
	if red != nil {
		res.Counts = red.Counts()
	}
	for _, f := range files {
		res.Files = append(res.Files, f.name)
	}
	write := writeDir
	if zipOut {
		write = func(p string, fs []file) error { return writeZip(p, fs, doc.GeneratedAt) }
	}
	if err := write(o.Path, files); err != nil {
		return Result{}, &WriteError{Path: o.Path, Err: err}
	}
	return res, nil
}

// WriteError is a bundle that could not be written where the user asked
// (no such folder, read-only, a file in the way): the caller's input.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return "write " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// tamper lets a test corrupt the output after redaction, as a redaction bug
// would, to prove the self-check refuses it.
var tamper func([]file)

type file struct {
	name string
	data []byte
}

func build(o Options) (*Doc, error) {
	doc := &Doc{Schema: Schema, Kind: "llamactl-report", GeneratedAt: o.Now().UTC(), Llamactl: o.Llamactl, Snapshot: o.Snapshot}
	if o.Doctor != nil {
		b, err := json.Marshal(o.Doctor)
		if err != nil {
			return nil, fmt.Errorf("report: doctor document: %w", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err == nil {
			doc.Findings = m["checks"]
			if doc.Findings == nil {
				doc.Findings = m["findings"]
			}
			doc.Selection = m["selection"]
			delete(m, "checks")
			delete(m, "findings")
			delete(m, "selection")
			delete(m, "snapshot") // already at the top level
			rest, _ := json.Marshal(m)
			doc.Doctor = rest
		} else {
			doc.Doctor = b
		}
	}
	builds := o.BuildManifests
	if builds == nil {
		if root := CacheRoot(o.Env); root != "" {
			builds = FindBuilds(root, maxBuilds)
		}
	}
	for _, p := range builds {
		doc.Builds = append(doc.Builds, readBuild(p))
	}
	doc.Summary = summarize(doc)
	return doc, nil
}

// maxBuilds is how many recent builds a report shows.
const maxBuilds = 3

// CacheRoot is llamactl's cache folder as the build command computes it
// from the environment (LLAMACTL_CACHE_DIR, LOCALAPPDATA on Windows,
// XDG_CACHE_HOME, HOME/.cache), or "" when the environment names none.
func CacheRoot(env map[string]string) string {
	if len(env) == 0 {
		return ""
	}
	return paths.CacheDir(runtime.GOOS, func(k string) string { return env[k] })
}

// FindBuilds returns up to max of the most recent builds under root: each
// build folder's manifest.json, or its llamactl-build.log when the build
// failed before writing a manifest. The walk is bounded in depth.
func FindBuilds(root string, max int) []string {
	type cand struct {
		path string
		mod  time.Time
	}
	byDir := map[string]cand{}
	rootDepth := strings.Count(filepath.Clean(root), string(filepath.Separator))
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, string(filepath.Separator))-rootDepth > 5 || d.Name() == "CMakeFiles" || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "manifest.json" && d.Name() != "llamactl-build.log" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		dir := filepath.Dir(p)
		c := byDir[dir]
		if c.path == "" || d.Name() == "manifest.json" {
			c.path = p // the manifest wins over the log of the same build
		}
		if info.ModTime().After(c.mod) {
			c.mod = info.ModTime()
		}
		byDir[dir] = c
		return nil
	})
	var cs []cand
	for _, c := range byDir {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].mod.After(cs[j].mod) })
	var out []string
	for i := 0; i < len(cs) && i < max; i++ {
		out = append(out, cs[i].path)
	}
	return out
}

// readBuild reads a build manifest and the tail of the log beside it (the
// manifest's "log" field, else *.log files in its folder).
func readBuild(path string) Build {
	var b Build
	if strings.HasSuffix(path, ".log") { // a build that failed before its manifest
		tail, err := Tail(path, logTailBytes, logTailLines)
		if err != nil {
			b.Error = err.Error()
			return b
		}
		d := failures.Default().DiagnoseString(tail)
		b.LogTail, b.Diagnosis = tail, &d
		return b
	}
	data, err := readLimited(path, maxManifest)
	if err != nil {
		b.Error = err.Error()
		return b
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		b.Error = fmt.Sprintf("%s is not JSON: %v", path, err)
		return b
	}
	b.Manifest = data
	logPath := ""
	// llamactl's own manifests name no log (its log lies beside them); a
	// "log" field is followed only to a file in the manifest's folder, so a
	// planted manifest cannot pull /etc/shadow or ~/.ssh into a bundle.
	if s, ok := m["log"].(string); ok && s != "" && filepath.IsLocal(s) && !strings.ContainsAny(s, `/\`) {
		logPath = filepath.Join(filepath.Dir(path), s)
	} else if logs, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.log")); len(logs) > 0 {
		sort.Strings(logs)
		logPath = logs[len(logs)-1]
	}
	if logPath != "" {
		tail, err := Tail(logPath, logTailBytes, logTailLines)
		if err != nil {
			b.Error = err.Error()
		} else {
			b.LogTail = tail
			d := failures.Default().DiagnoseString(tail)
			b.Diagnosis = &d
		}
	}
	return b
}

func readLimited(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// Tail returns the last lines of a file, reading at most maxBytes from its end.
func Tail(path string, maxBytes int64, maxLines int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	off := st.Size() - maxBytes
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	s := string(buf)
	if off > 0 {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:] // drop the partial first line
		}
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n"), nil
}

func newRedactor(o Options) *redact.Redactor {
	k := redact.FromEnv(o.Env)
	if s := o.Snapshot; s != nil {
		k.Users = append(k.Users, s.OS.User)
		if s.OS.HomeDir != "" {
			k.Users = append(k.Users, filepath.Base(strings.ReplaceAll(s.OS.HomeDir, `\`, "/")))
		}
		k.Hosts = append(k.Hosts, s.OS.Hostname)
		for _, g := range s.NVIDIA.GPUs {
			// Serials have no recognisable shape: treat the known ones as secrets.
			if len(g.Serial) >= 4 && g.Serial != "[N/A]" {
				k.Secrets["GPU serial"] = g.Serial
			}
		}
	}
	if h, err := os.Hostname(); err == nil {
		k.Hosts = append(k.Hosts, h)
	}
	return redact.New(k)
}

// redactDoc rewrites every string of the document (and of the raw outputs)
// in two passes: first learn every user/host name, then replace, so the
// same name gets the same placeholder everywhere.
func redactDoc(r *redact.Redactor, doc *Doc, raw map[string]string) error {
	if doc.Snapshot != nil && doc.Snapshot.Env != nil {
		// Doctor records only toolchain variables; they stay readable (after
		// scrubbing) so a replayed report gives the same findings.
		names, prefixes := probe.EnvAllowlist()
		doc.Snapshot.Env = r.EnvAllowing(doc.Snapshot.Env, names, prefixes)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	walk(tree, r.Learn)
	for k, v := range raw {
		r.Learn(k)
		r.Learn(v)
	}
	tree = rewrite(tree, r.String)
	for k, v := range raw {
		delete(raw, k)
		raw[r.String(k)] = r.String(v)
	}
	b, err = json.Marshal(tree)
	if err != nil {
		return err
	}
	var out Doc
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	*doc = out
	return nil
}

func walk(v any, f func(string)) {
	switch t := v.(type) {
	case string:
		f(t)
	case []any:
		for _, e := range t {
			walk(e, f)
		}
	case map[string]any:
		for k, e := range t {
			f(k)
			walk(e, f)
		}
	}
}

func rewrite(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i, e := range t {
			t[i] = rewrite(e, f)
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[f(k)] = rewrite(e, f)
		}
		return out
	}
	return v
}

func marshal(doc *Doc) ([]byte, error) {
	var buf bytes.Buffer
	if err := jsonout.Write(&buf, doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// rawNameRe matches what a file name in a zip, on Windows and on Linux
// cannot hold or should not: '+' stays (g++-11 keeps its name).
var rawNameRe = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)

// rawName turns a command line into a file name.
func rawName(cmd string) string {
	n := strings.Trim(rawNameRe.ReplaceAllString(cmd, "_"), "_.")
	if len(n) > 80 {
		n = n[:80]
	}
	if n == "" {
		n = "output"
	}
	return n + ".txt"
}

// rawNames names each command's file, unique even where two command lines
// map to one name or differ only in case (Windows file systems and most
// unzip tools fold case): later ones get "-2", "-3"...
func rawNames(cmds []string) []string {
	out := make([]string, len(cmds))
	taken := map[string]bool{}
	for i, c := range cmds {
		n := rawName(c)
		base := strings.TrimSuffix(n, ".txt")
		for k := 2; taken[strings.ToLower(n)]; k++ {
			n = fmt.Sprintf("%s-%d.txt", base, k)
		}
		taken[strings.ToLower(n)] = true
		out[i] = n
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func writeDir(dir string, files []file) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for _, f := range files {
		if strings.Contains(f.name, "/") {
			continue // raw outputs only go into the zip
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeZip(path string, files []file, modified time.Time) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw := zip.NewWriter(tmp)
	for _, f := range files { // names are unique (rawNames)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: modified})
		if err != nil {
			tmp.Close()
			return err
		}
		if _, err := w.Write(f.data); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
