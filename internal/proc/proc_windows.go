//go:build windows

package proc

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// setProcessGroup makes a deadline or Ctrl-C end the whole tree: Windows has
// no process groups to signal, and Process.Kill ends only the direct child
// (cmake, not the ninja and cl.exe under it). taskkill /T walks the tree.
// Callers that start long-lived engines also hold a kill-on-close Job object
// (runner/launch.GuardChildren) for when llamactl itself dies.
// Compiled and vetted here; not run (no Windows on the development machine).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		tk := exec.CommandContext(ctx, taskkill(), "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid))
		tk.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
		_ = tk.Run()
		return cmd.Process.Kill()
	}
}

// taskkill is System32's, not whatever a PATH entry calls taskkill.
func taskkill() string {
	if root := os.Getenv("SystemRoot"); root != "" {
		return filepath.Join(root, "System32", "taskkill.exe")
	}
	return "taskkill.exe"
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
