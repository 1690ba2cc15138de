package proc

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// GuardChildren really puts llamactl in a job (with kill-on-close, so its
// children die with it): IsProcessInJob says so afterwards.
func TestGuardChildrenJoinsAJob(t *testing.T) {
	GuardChildren()
	isProcessInJob := windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")
	var in int32
	r, _, err := isProcessInJob.Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&in)))
	if r == 0 {
		t.Fatalf("IsProcessInJob: %v", err)
	}
	if in == 0 {
		t.Error("llamactl is in no job after GuardChildren: its children would outlive it")
	}
}
