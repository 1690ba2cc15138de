package rpccmd

import (
	"slices"
	"strings"
	"testing"
)

func TestArgvAndWarnings(t *testing.T) {
	o := &Options{Host: "127.0.0.1", Port: 50052}
	if got := Argv(o); !slices.Equal(got, []string{"-H", "127.0.0.1", "-p", "50052"}) {
		t.Errorf("argv %v", got)
	}
	o = &Options{Host: "0.0.0.0", Port: 6000, Device: "Vulkan0,CPU", Threads: 4, Cache: true}
	if got := Argv(o); !slices.Equal(got, []string{"-H", "0.0.0.0", "-p", "6000", "-d", "Vulkan0,CPU", "-t", "4", "-c"}) {
		t.Errorf("argv %v", got)
	}
	for host, n := range map[string]int{"127.0.0.1": 1, "::1": 1, "localhost": 1, "0.0.0.0": 2, "192.168.1.20": 2, "box.lan": 2} {
		w := Warnings(host)
		if len(w) != n || !strings.Contains(w[0], "unauthenticated") {
			t.Errorf("%s: %q", host, w)
		}
	}
}
