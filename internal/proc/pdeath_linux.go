package proc

import "syscall"

// setParentDeathSignal asks the kernel to SIGKILL the child when llamactl
// dies (PR_SET_PDEATHSIG), so a kill -9 of `llamactl run` does not leave
// llama-server holding its port. (The signal follows the thread that
// started the child; Go ends a thread only when a goroutine locked to it
// exits, which llamactl's goroutines that start processes never do.)
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
