package runcmd

import (
	"errors"
	"testing"

	"github.com/llamactl/llamactl/runner/plan"
)

func TestCgroupLimit(t *testing.T) {
	h := plan.Host{AvailableMiB: 20000}
	read := func(s string) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return []byte(s), nil }
	}
	if got := capByCgroup(h, read("4294967296\n")); got.AvailableMiB != 4096 {
		t.Errorf("4 GiB limit: %d", got.AvailableMiB)
	}
	used := func(p string) ([]byte, error) {
		if p == "/sys/fs/cgroup/memory.current" {
			return []byte("1073741824"), nil
		}
		return []byte("4294967296"), nil
	}
	if got := capByCgroup(h, used); got.AvailableMiB != 3072 {
		t.Errorf("4 GiB limit, 1 GiB used: %d", got.AvailableMiB)
	}
	if got := capByCgroup(h, read("max\n")); got.AvailableMiB != 20000 {
		t.Errorf("no limit: %d", got.AvailableMiB)
	}
	if got := capByCgroup(h, func(string) ([]byte, error) { return nil, errors.New("no cgroup v2") }); got.AvailableMiB != 20000 {
		t.Errorf("unreadable: %d", got.AvailableMiB)
	}
	if got := capByCgroup(h, read("garbage")); got.AvailableMiB != 20000 {
		t.Errorf("garbage: %d", got.AvailableMiB)
	}
}
