//go:build !windows

package lang

// systemUILanguage is "" where the POSIX locale variables say it all.
func systemUILanguage() string { return "" }
