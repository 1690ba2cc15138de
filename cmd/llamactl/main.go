// Command llamactl builds and runs llama.cpp right the first time.
package main

import (
	"os"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

func main() {
	os.Exit(cli.Execute(cmdutil.New(), os.Args[1:]))
}
