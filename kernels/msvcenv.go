package kernels

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/llamactl/llamactl/internal/proc"
)

// ImportMSVCEnv runs vcvarsall.bat (x64, with -vcvars_ver when a toolset is
// pinned) and returns the environment it leaves, so nvcc finds cl.exe,
// the Windows SDK and the right LIB/INCLUDE without a developer prompt.
// It goes through the runner so it is tested with recorded `set` output.
func ImportMSVCEnv(ctx context.Context, r proc.Runner, vcvarsall, toolset string, timeout time.Duration) ([]string, error) {
	call := `call "` + vcvarsall + `" x64`
	if toolset != "" {
		call += " -vcvars_ver=" + toolset
	}
	res, err := r.Run(ctx, proc.Cmd{Name: "cmd.exe", Args: []string{"/d", "/s", "/c", call + " >nul && set"}, Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("importing the Visual Studio environment (%s): %w", vcvarsall, err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("%s exited with %d: %s", vcvarsall, res.ExitCode, strings.TrimSpace(res.Combined()))
	}
	env := ParseSetOutput(string(res.Stdout))
	if !hasVar(env, "VCToolsInstallDir") {
		return nil, fmt.Errorf("%s ran but set no VCToolsInstallDir: the C++ tools (or toolset %q) are not installed", vcvarsall, toolset)
	}
	return env, nil
}

// ParseSetOutput reads cmd's `set` listing (KEY=VALUE lines, CRLF).
func ParseSetOutput(out string) []string {
	var env []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimRight(l, "\r")
		if i := strings.IndexByte(l, '='); i > 0 {
			env = append(env, l)
		}
	}
	return env
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
