package probe

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoRegistry is returned where there is no registry (not Windows).
var ErrNoRegistry = errors.New("no Windows registry on this system")

// ErrRegistryNotFound is a missing key or value.
var ErrRegistryNotFound = errors.New("registry key or value not found")

// MemRegistry is a recorded registry: key -> value name -> data. Keys match
// case-insensitively, as in the real registry. Errors maps a key to the
// error text its reads fail with (e.g. "Access is denied.").
type MemRegistry struct {
	Keys   map[string]map[string]string
	Errors map[string]string
}

func normKey(k string) string { return strings.ToLower(strings.Trim(k, `\`)) }

func (r *MemRegistry) find(key string) (map[string]string, error) {
	for k, e := range r.Errors {
		if normKey(k) == normKey(key) {
			return nil, fmt.Errorf("%s: %s", key, e)
		}
	}
	for k, v := range r.Keys {
		if normKey(k) == normKey(key) {
			return v, nil
		}
	}
	// a key that only has sub-keys exists too
	prefix := normKey(key) + `\`
	for k := range r.Keys {
		if strings.HasPrefix(normKey(k), prefix) {
			return map[string]string{}, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", key, ErrRegistryNotFound)
}

func (r *MemRegistry) Value(key, name string) (string, error) {
	vals, err := r.find(key)
	if err != nil {
		return "", err
	}
	for n, v := range vals {
		if strings.EqualFold(n, name) {
			return v, nil
		}
	}
	return "", fmt.Errorf(`%s\%s: %w`, key, name, ErrRegistryNotFound)
}

func (r *MemRegistry) ValueNames(key string) ([]string, error) {
	vals, err := r.find(key)
	if err != nil {
		return nil, err
	}
	var out []string
	for n := range vals {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

func (r *MemRegistry) SubKeys(key string) ([]string, error) {
	if _, err := r.find(key); err != nil {
		return nil, err
	}
	prefix := normKey(key) + `\`
	seen := map[string]bool{}
	var out []string
	for k := range r.Keys {
		nk := strings.Trim(k, `\`)
		if !strings.HasPrefix(strings.ToLower(nk), prefix) {
			continue
		}
		rest := nk[len(prefix):]
		if i := strings.Index(rest, `\`); i >= 0 {
			rest = rest[:i]
		}
		if rest != "" && !seen[strings.ToLower(rest)] {
			seen[strings.ToLower(rest)] = true
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out, nil
}
