// Command faketool is a stand-in tool for the smoke suite of the real
// llamactl.exe (scripts/stages): copied under a tool's name (nvidia-smi.exe,
// vswhere.exe, cl.exe, nvcc.exe...) with a faketool.Spec beside it, it
// replays that tool's recorded output.
package main

import (
	"fmt"
	"os"

	"github.com/llamactl/llamactl/internal/testutil/faketool"
)

func main() {
	faketool.Main()
	exe, _ := os.Executable()
	fmt.Fprintf(os.Stderr, "faketool: no %s beside %s\n", faketool.SpecSuffix, exe)
	os.Exit(125)
}
