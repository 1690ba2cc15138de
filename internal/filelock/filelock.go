// Package filelock is the cache's per-entry lock: an advisory lock on a
// small file (flock on Unix, LockFileEx on Windows) that two llamactl
// processes sharing a cache take before writing the same download or build
// folder. The OS releases it when the process ends, even on kill -9, so a
// crashed llamactl never leaves a stale lock behind.
package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// ErrBusy is returned by TryLock when another process holds the lock.
var ErrBusy = errors.New("locked by another process")

// Lock is a held lock; Unlock releases it.
type Lock struct{ f *os.File }

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = unlock(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}

func open(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
}

// TryLock takes the lock at path without waiting; ErrBusy when another
// process holds it.
func TryLock(path string) (*Lock, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f}, nil
}

// pollEvery is how often a waiting Acquire tries again.
const pollEvery = 200 * time.Millisecond

// Acquire takes the lock at path. When another process holds it, waiting is
// called once (to say so) and Acquire tries again until it gets the lock or
// ctx ends (Ctrl-C), then returns ctx's error.
func Acquire(ctx context.Context, path string, waiting func()) (*Lock, error) {
	l, err := TryLock(path)
	if !errors.Is(err, ErrBusy) {
		return l, err
	}
	if waiting != nil {
		waiting()
	}
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
		l, err := TryLock(path)
		if !errors.Is(err, ErrBusy) {
			return l, err
		}
	}
}
