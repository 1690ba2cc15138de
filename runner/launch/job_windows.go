//go:build windows

package launch

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// GuardChildren puts llamactl in a Job object that kills every process in
// it when its last handle closes: the engine and anything it starts die
// with llamactl, even when llamactl itself is killed (Windows has no
// process groups for internal/proc to signal). Best effort: on failure
// (an older Windows refusing nested jobs) the engine is still stopped
// directly.
func GuardChildren() (release func()) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return func() {}
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return func() {}
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return func() {}
	}
	// The handle stays open for llamactl's lifetime: closing it would kill
	// llamactl too. The OS closes it at exit, which ends the children.
	return func() {}
}
