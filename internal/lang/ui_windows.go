//go:build windows

package lang

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var procGetUserDefaultLocaleName = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetUserDefaultLocaleName")

// systemUILanguage is the user's Windows display language ("zh-CN",
// "en-US"): Windows sets no LANG, so a Chinese Windows is told by this.
// The first preferred UI language, else the user's default locale name.
func systemUILanguage() string {
	if l, err := windows.GetUserPreferredUILanguages(windows.MUI_LANGUAGE_NAME); err == nil && len(l) > 0 && l[0] != "" {
		return l[0]
	}
	buf := make([]uint16, 85) // LOCALE_NAME_MAX_LENGTH
	if n, _, _ := procGetUserDefaultLocaleName.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))); n > 0 {
		return windows.UTF16ToString(buf)
	}
	return ""
}
