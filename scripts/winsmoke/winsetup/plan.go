// Command winsetup prepares a Windows machine inside wine for the smoke
// suite (scripts/winsmoke) and then runs one program on it: it creates
// folders and files, installs stand-in tools (faketool.exe copies with their
// Spec) where Windows keeps them, writes registry values, sets the
// environment a Windows session would have (and drops what wine leaks from
// Linux: LANG, LC_*), then runs Run and exits with its status.
//
//	winsetup.exe PLAN.json
package main

import "github.com/llamactl/llamactl/internal/testutil/faketool"

// Plan is winsetup's input, written by the smoke suite.
type Plan struct {
	Dirs     []string                 `json:"dirs,omitempty"`
	Files    map[string]string        `json:"files,omitempty"` // path -> content
	Faketool string                   `json:"faketool,omitempty"`
	Tools    map[string]faketool.Spec `json:"tools,omitempty"` // path -> what it does
	Registry []RegValue               `json:"registry,omitempty"`
	Env      map[string]string        `json:"env,omitempty"`
	Unsetenv []string                 `json:"unsetenv,omitempty"`
	Run      []string                 `json:"run,omitempty"`
}

// RegValue is one REG_SZ value (HKLM\... or HKCU\...).
type RegValue struct {
	Key   string `json:"key"`
	Name  string `json:"name"`
	Value string `json:"value"`
}
