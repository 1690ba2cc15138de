//go:build windows

package faketool

import "os"

// crash ends the program with an access violation's status.
func crash() { os.Exit(statusAccessViolation) }
