// Package msvcenv imports the MSVC developer environment: it runs
// vcvarsall.bat through cmd.exe, captures the environment it leaves behind
// (`set`), and returns the difference to the caller's environment. The
// variables are applied to cmake and ninja only, never to llamactl's own
// process. vcvarsall reports problems as "[ERROR:...]" lines and still exits
// 0, so those lines are scanned for.
package msvcenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
)

// Marker separates vcvarsall's own output from `set`'s.
const Marker = "===LLAMACTL-ENV==="

// Change is one variable vcvarsall set or changed.
type Change struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Old   string `json:"old,omitempty"`
}

// Env is the imported environment.
type Env struct {
	Vars    []string `json:"-"`       // the full environment for child processes
	Changes []Change `json:"changes"` // what vcvarsall added or changed
}

// Script is the batch file that runs vcvarsall and prints the environment.
// A file avoids cmd.exe's quoting rules, which Go's argument escaping for
// Windows does not follow.
func Script(vcvarsall string, args []string) string {
	return fmt.Sprintf("@echo off\r\ncall \"%s\" %s\r\necho %s\r\nset\r\n", vcvarsall, strings.Join(args, " "), Marker)
}

// Command runs the script written at scriptPath.
func Command(scriptPath string) proc.Cmd {
	return proc.Cmd{Name: "cmd.exe", Args: []string{"/d", "/c", scriptPath}, Timeout: 2 * time.Minute}
}

// Import writes the script into dir, runs it and returns base updated with
// what vcvarsall set.
func Import(ctx context.Context, r proc.Runner, dir, vcvarsall string, args []string, base []string) (Env, error) {
	script := filepath.Join(dir, "llamactl-vcvars.cmd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Env{}, err
	}
	if err := os.WriteFile(script, []byte(Script(vcvarsall, args)), 0o644); err != nil {
		return Env{}, err
	}
	cmd := Command(script)
	cmd.Env = base
	res, err := r.Run(ctx, cmd)
	if err != nil {
		return Env{}, fmt.Errorf("running %s: %w", vcvarsall, err)
	}
	return Parse(string(res.Stdout)+string(res.Stderr), res.ExitCode, vcvarsall, base)
}

// Parse reads the output of Command (run with base as its environment).
func Parse(out string, exitCode int, vcvarsall string, base []string) (Env, error) {
	out = strings.ReplaceAll(out, "\r\n", "\n")
	head, tail, found := strings.Cut(out, Marker)
	var errs []string
	for _, l := range strings.Split(head, "\n") {
		if i := strings.Index(l, "[ERROR:"); i >= 0 {
			errs = append(errs, strings.TrimSpace(l[i:]))
		}
	}
	if len(errs) > 0 {
		return Env{}, fmt.Errorf("vcvarsall.bat reported errors:\n  %s\nRun it by hand to see the whole output: \"%s\"; if a toolset version is named, install it in the Visual Studio Installer (Individual components → MSVC v143 build tools) or build without --msvc-toolset", strings.Join(errs, "\n  "), vcvarsall)
	}
	if !found || exitCode != 0 {
		return Env{}, fmt.Errorf("vcvarsall.bat failed (exit %d) before printing its environment; run \"%s\" x64 in cmd.exe to see why (a damaged Visual Studio install is repaired from the Visual Studio Installer)", exitCode, vcvarsall)
	}
	old := map[string]string{}
	keys := map[string]string{} // upper -> original spelling (Windows names are case-insensitive)
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			old[strings.ToUpper(k)] = v
			keys[strings.ToUpper(k)] = k
		}
	}
	next := map[string]string{}
	for k, v := range old {
		next[k] = v
	}
	var changes []Change
	for _, l := range strings.Split(tail, "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		u := strings.ToUpper(k)
		if ov, had := old[u]; !had || ov != v {
			changes = append(changes, Change{Name: k, Value: v, Old: ov})
		}
		next[u] = v
		if _, had := keys[u]; !had {
			keys[u] = k
		}
	}
	sort.Slice(changes, func(i, j int) bool { return strings.ToUpper(changes[i].Name) < strings.ToUpper(changes[j].Name) })
	var vars []string
	for u, v := range next {
		vars = append(vars, keys[u]+"="+v)
	}
	sort.Strings(vars)
	return Env{Vars: vars, Changes: changes}, nil
}

// Get returns a variable of env (case-insensitively, as Windows does).
func Get(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
