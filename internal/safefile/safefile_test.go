package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{"folder": dir}
	if runtime.GOOS == "windows" {
		cases["device"] = "NUL"
	} else {
		cases["fifo"] = mkfifo(t, filepath.Join(dir, "pipe"))
		cases["device"] = "/dev/zero"
	}
	for name, p := range cases {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(p, Snapshot); done <- err }()
		select {
		case err := <-done:
			var fe *Error
			if !errors.Is(err, ErrNotRegular) || !errors.As(err, &fe) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %v; want ErrNotRegular naming the path", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadFile blocked", name)
		}
	}
}

func TestCapsTheSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, Lock); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("2 MiB lock: %v", err)
	}
	b, err := ReadFile(p, Snapshot)
	if err != nil || len(b) != 2<<20 {
		t.Errorf("2 MiB snapshot: %d bytes, %v", len(b), err)
	}
	// Open alone (a model, a log) has no cap.
	fh, err := Open(p, Model)
	if err != nil {
		t.Fatal(err)
	}
	fh.Close()
}

func TestReadAllCaps(t *testing.T) {
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 11)), Kind{Name: "t", Max: 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("11 bytes with a 10-byte cap: %v", err)
	}
	if b, err := ReadAll(strings.NewReader("0123456789"), Kind{Name: "t", Max: 10}); err != nil || len(b) != 10 {
		t.Errorf("10 bytes: %q %v", b, err)
	}
}

func TestMissingFileIsNotExist(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "nope"), Snapshot); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%v", err)
	}
}
