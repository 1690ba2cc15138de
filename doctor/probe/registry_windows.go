//go:build windows

package probe

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/windows/registry"
)

func systemRegistry() Registry { return winRegistry{} }

// winRegistry reads the real registry, read-only, 64-bit view (CUDA and the
// Khronos loader write their keys there).
type winRegistry struct{}

func openKey(key string) (registry.Key, error) {
	hive, rest, _ := strings.Cut(key, `\`)
	var root registry.Key
	switch strings.ToUpper(hive) {
	case "HKLM", "HKEY_LOCAL_MACHINE":
		root = registry.LOCAL_MACHINE
	case "HKCU", "HKEY_CURRENT_USER":
		root = registry.CURRENT_USER
	default:
		return 0, fmt.Errorf("%s: unknown hive %q", key, hive)
	}
	k, err := registry.OpenKey(root, rest, registry.READ|registry.WOW64_64KEY)
	if errors.Is(err, registry.ErrNotExist) {
		return 0, fmt.Errorf("%s: %w", key, ErrRegistryNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return k, nil
}

func (winRegistry) Value(key, name string) (string, error) {
	k, err := openKey(key)
	if err != nil {
		return "", err
	}
	defer k.Close()
	if s, _, err := k.GetStringValue(name); err == nil {
		return s, nil
	}
	if n, _, err := k.GetIntegerValue(name); err == nil {
		return strconv.FormatUint(n, 10), nil
	}
	if ss, _, err := k.GetStringsValue(name); err == nil {
		return strings.Join(ss, ";"), nil
	}
	return "", fmt.Errorf(`%s\%s: %w`, key, name, ErrRegistryNotFound)
}

func (winRegistry) SubKeys(key string) ([]string, error) {
	k, err := openKey(key)
	if err != nil {
		return nil, err
	}
	defer k.Close()
	return k.ReadSubKeyNames(-1)
}

func (winRegistry) ValueNames(key string) ([]string, error) {
	k, err := openKey(key)
	if err != nil {
		return nil, err
	}
	defer k.Close()
	return k.ReadValueNames(-1)
}
