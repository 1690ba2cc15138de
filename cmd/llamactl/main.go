// Command llamactl builds and runs llama.cpp right the first time.
package main

import (
	"os"

	"github.com/llamactl/llamactl/internal/cli"
	"github.com/llamactl/llamactl/internal/cmdutil"
)

func main() {
	f := cmdutil.New()
	code := cli.Execute(f, os.Args[1:])
	f.IO.Restore() // the console's code page, if System switched it
	os.Exit(code)
}
