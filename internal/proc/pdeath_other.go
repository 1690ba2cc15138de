//go:build !linux && !windows

package proc

import "syscall"

// setParentDeathSignal: only Linux has PR_SET_PDEATHSIG.
func setParentDeathSignal(*syscall.SysProcAttr) {}
