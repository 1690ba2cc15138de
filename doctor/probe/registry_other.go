//go:build !windows

package probe

func systemRegistry() Registry { return nil }
