//go:build windows

package proc

import (
	"errors"
	"io/fs"
	"os/exec"
)

// setProcessGroup: on Windows CommandContext's Kill terminates the process;
// child trees are handled by the callers that start long-lived engines.
func setProcessGroup(cmd *exec.Cmd) {}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
