//go:build !windows

package faketool

import (
	"runtime/debug"
)

// crash ends the program by a real invalid memory access; with traceback
// "crash" the Go runtime then dies by a signal (SIGABRT), as a native crash
// does, instead of exiting with status 2.
func crash() {
	debug.SetTraceback("crash")
	var p *int
	println(*p)
}
