//go:build !windows

package proc

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in its own group so a timeout or Ctrl-C
// kills the whole tree, and (on Linux) has the kernel kill the child when
// llamactl dies, even by kill -9 (see setParentDeathSignal).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.Process.Kill()
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// GuardChildren is a no-op here: children are in process groups that
// KillAll and the deadlines end, and on Linux they die with llamactl.
func GuardChildren() {}
