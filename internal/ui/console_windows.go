//go:build windows

package ui

import "golang.org/x/sys/windows"

type winConsole struct{}

// systemConsole is the real Windows console API.
func systemConsole() Console { return winConsole{} }

func (winConsole) IsConsole(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}

func (winConsole) OutputCP() (uint32, error) { return windows.GetConsoleOutputCP() }

func (winConsole) SetOutputCP(cp uint32) error { return windows.SetConsoleOutputCP(cp) }
