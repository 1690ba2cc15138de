//go:build !windows

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "winsetup runs on Windows (under wine: scripts/wine-run winsetup.exe PLAN.json)")
	os.Exit(2)
}
