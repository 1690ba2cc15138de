package machine

import (
	"context"
	"errors"
	"testing"
)

func TestCapByCgroup(t *testing.T) {
	m := Memory{TotalMiB: 32000, AvailableMiB: 20000}
	read := func(s string) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return []byte(s), nil }
	}
	if got := CapByCgroup(m, read("4294967296\n")); got.AvailableMiB != 4096 || got.TotalMiB != 4096 {
		t.Errorf("4 GiB limit: %+v", got)
	}
	used := func(p string) ([]byte, error) {
		if p == "/sys/fs/cgroup/memory.current" {
			return []byte("1073741824"), nil
		}
		return []byte("4294967296"), nil
	}
	if got := CapByCgroup(m, used); got.AvailableMiB != 3072 || got.TotalMiB != 4096 {
		t.Errorf("4 GiB limit, 1 GiB used: %+v", got)
	}
	if got := CapByCgroup(m, read("68719476736")); got != m {
		t.Errorf("a limit above the host: %+v", got)
	}
	if got := CapByCgroup(m, read("max\n")); got != m {
		t.Errorf("no limit: %+v", got)
	}
	if got := CapByCgroup(m, func(string) ([]byte, error) { return nil, errors.New("no cgroup v2") }); got != m {
		t.Errorf("unreadable: %+v", got)
	}
	if got := CapByCgroup(m, read("garbage")); got != m {
		t.Errorf("garbage: %+v", got)
	}
}

func TestHostMemory(t *testing.T) {
	m, err := HostMemory(context.Background())
	if err != nil {
		t.Skipf("no memory figures here: %v", err)
	}
	if m.TotalMiB == 0 || m.AvailableMiB == 0 || m.AvailableMiB > m.TotalMiB {
		t.Errorf("HostMemory = %+v", m)
	}
}
