// Command testsum reads `go test -json` on stdin, prints what a person needs
// (package results, the output of failed tests, lines marked "[figures] ")
// and ends with the plain
// summary line "N passed, N failed, N skipped". It exits 1 if anything failed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	var passed, failed, skipped, pkgFail int
	outputs := map[string][]string{} // test key -> output lines (kept for failures)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			fmt.Println(string(line)) // build errors are not JSON
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			// Figures a test wants in every CI log (the explain corpus's
			// held-out scores) are marked; print them whatever the result.
			if i := strings.Index(e.Output, "[figures] "); i >= 0 {
				fmt.Print(strings.TrimLeft(e.Output[i:], " "))
			}
			if len(outputs[key]) < 400 {
				outputs[key] = append(outputs[key], e.Output)
			}
		case "pass":
			if e.Test != "" {
				passed++
			} else {
				fmt.Printf("ok    %s\t%.2fs\n", e.Package, e.Elapsed)
			}
			delete(outputs, key)
		case "skip":
			if e.Test != "" {
				skipped++
			} else {
				fmt.Printf("?     %s\t[no test files]\n", e.Package)
			}
			delete(outputs, key)
		case "fail":
			if e.Test != "" {
				failed++
				fmt.Printf("--- FAIL: %s (%s)\n%s", e.Test, e.Package, strings.Join(outputs[key], ""))
			} else {
				pkgFail++
				fmt.Printf("FAIL  %s\t%.2fs\n%s", e.Package, e.Elapsed, strings.Join(outputs[key], ""))
			}
			delete(outputs, key)
		}
	}
	fmt.Printf("\ngo test summary:\n%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || pkgFail > 0 {
		os.Exit(1)
	}
}
