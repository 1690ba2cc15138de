package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestSecondHolderWaitsUntilTheFirstUnlocks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "entry.lock")
	first, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(p); !errors.Is(err, ErrBusy) {
		t.Fatalf("second TryLock: %v, want ErrBusy", err)
	}
	var waited atomic.Int32
	got := make(chan error, 1)
	go func() {
		l, err := Acquire(context.Background(), p, func() { waited.Add(1) })
		if err == nil {
			defer l.Unlock()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Acquire returned (%v) while the lock was held", err)
	case <-time.After(500 * time.Millisecond):
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Acquire did not get the released lock")
	}
	if waited.Load() != 1 {
		t.Errorf("waiting called %d times, want 1", waited.Load())
	}
}

func TestAcquireStopsWithItsContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), "entry.lock")
	first, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx, p, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v, want the context's error", err)
	}
}
