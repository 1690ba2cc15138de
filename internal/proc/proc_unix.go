//go:build !windows

package proc

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in its own group so a timeout kills the whole tree.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.Process.Kill()
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
