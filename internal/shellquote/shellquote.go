// Package shellquote quotes arguments so a printed command line can be
// pasted into a shell and runs with exactly those arguments: POSIX sh
// (bash, zsh), PowerShell and cmd.exe. build's scripts and run's printed
// engine command use it.
package shellquote

import "strings"

// Sh quotes s for a POSIX shell.
func Sh(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r\"'\\$`;&|<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PowerShell single-quotes s; embedded double quotes are escaped with a
// backslash so native programs (cmake) receive them literally.
func PowerShell(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r'\"$`;&|<>(){}@#,") {
		return s
	}
	s = strings.ReplaceAll(s, "'", "''")
	s = strings.ReplaceAll(s, `"`, `\"`)
	return "'" + s + "'"
}

// Cmd quotes s by the MS C runtime rules cmake.exe parses its arguments with.
func Cmd(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"&|<>^%") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// Line renders program and args as one command line for the shell a user of
// goos types into: PowerShell on Windows (with its call operator when the
// program needs quotes), sh elsewhere.
func Line(goos, program string, args ...string) string {
	q := Sh
	prefix := ""
	if goos == "windows" {
		q = PowerShell
		if p := PowerShell(program); p != program {
			prefix = "& "
		}
	}
	parts := []string{prefix + q(program)}
	for _, a := range args {
		parts = append(parts, q(a))
	}
	return strings.Join(parts, " ")
}
