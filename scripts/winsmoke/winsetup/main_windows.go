//go:build windows

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows/registry"

	"github.com/llamactl/llamactl/internal/testutil/faketool"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: winsetup PLAN.json")
		os.Exit(2)
	}
	if err := setup(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "winsetup: %v\n", err)
		os.Exit(125)
	}
}

func setup(planPath string) error {
	b, err := os.ReadFile(planPath)
	if err != nil {
		return err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("%s: %v", planPath, err)
	}
	for _, d := range p.Dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for f, content := range p.Files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			return err
		}
	}
	for path, spec := range p.Tools {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if _, err := faketool.Place(p.Faketool, filepath.Dir(path), filepath.Base(path), spec); err != nil {
			return fmt.Errorf("tool %s: %v", path, err)
		}
	}
	for _, v := range p.Registry {
		if err := setValue(v); err != nil {
			return fmt.Errorf(`registry %s\%s: %v`, v.Key, v.Name, err)
		}
	}
	for _, k := range p.Unsetenv {
		os.Unsetenv(k)
	}
	for k, v := range p.Env {
		os.Setenv(k, v)
	}
	if len(p.Run) == 0 {
		return nil
	}
	cmd := exec.Command(p.Run[0], p.Run[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	return err
}

func setValue(v RegValue) error {
	hive, path, _ := strings.Cut(v.Key, `\`)
	var root registry.Key
	switch strings.ToUpper(hive) {
	case "HKLM", "HKEY_LOCAL_MACHINE":
		root = registry.LOCAL_MACHINE
	case "HKCU", "HKEY_CURRENT_USER":
		root = registry.CURRENT_USER
	default:
		return fmt.Errorf("unknown hive %s", hive)
	}
	k, _, err := registry.CreateKey(root, path, registry.ALL_ACCESS)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue(v.Name, v.Value)
}
