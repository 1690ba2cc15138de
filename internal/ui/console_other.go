//go:build !windows

package ui

// systemConsole is nil: terminals outside Windows take UTF-8 as they are.
func systemConsole() Console { return nil }
