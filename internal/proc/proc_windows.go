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
	"unsafe"

	"golang.org/x/sys/windows"
)

// setProcessGroup makes a deadline or Ctrl-C end the whole tree: Windows has
// no process groups to signal, and Process.Kill ends only the direct child
// (cmake, not the ninja and cl.exe under it). taskkill /T walks the tree.
// Callers that start long-lived engines also hold a kill-on-close Job object
// (GuardChildren, taken once at start by internal/cli) for when llamactl
// itself dies.
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

// GuardChildren puts llamactl in a Job object that kills every process in
// it when its last handle closes: the engine and anything it starts die
// with llamactl, even when llamactl itself is killed (Windows has no
// process groups for internal/proc to signal). Best effort: on failure
// (an older Windows refusing nested jobs) the engine is still stopped
// directly.
func GuardChildren() {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return
	}
	// The handle stays open for llamactl's lifetime: closing it would kill
	// llamactl too. The OS closes it at exit, which ends the children.
}
