package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Lock polling: flock cannot be interrupted by a context, so the lock is
// tried without blocking, first at once, then every pollMin growing to
// pollMax, until it is free or the context ends.
const (
	pollMin = 1 * time.Millisecond
	pollMax = 4 * time.Millisecond
)

// openLockFile opens (creating as needed) the lock file beside a snapshot,
// creating its folders too when create is set; without create, a missing
// folder gives a nil file and no error. The lock file is never replaced or
// removed, so every process locks the same inode.
func openLockFile(path string, create bool) (*os.File, error) {
	const mode = syscall.O_RDWR | syscall.O_CREAT | syscall.O_NOFOLLOW
	fd, err := openNoPoll(path, mode, 0o600)
	if errors.Is(err, syscall.ENOENT) && !create {
		return nil, nil
	}
	if errors.Is(err, syscall.ENOENT) {
		if err = mkdirDurable(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("create state folder: %w", err)
		}
		fd, err = openNoPoll(path, mode, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("open state lock: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	return os.NewFile(uintptr(fd), path), nil
}

// waitLock takes an exclusive flock on f, giving up when ctx is done.
// flock belongs to the open file description, so two opens of the lock
// file in one process exclude each other as two processes do.
func waitLock(ctx context.Context, f *os.File, snapshot string) error {
	fd := int(f.Fd())
	err := flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	start := time.Now()
	wait := pollMin
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s (waited %v): %w", ErrLocked, snapshot, time.Since(start).Round(time.Millisecond), ctx.Err())
		case <-t.C:
		}
		err := flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if wait < pollMax {
			wait *= 2
		}
		t.Reset(wait)
	}
}

// flock retries on EINTR, which a forwarded signal can cause.
func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// mkdirDurable creates dir and its missing parents with mode 0700, and
// fsyncs the parent of each folder it creates, so that a committed snapshot
// is reachable after a crash. A folder created meanwhile by another process
// is fine.
func mkdirDurable(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		if err := os.Mkdir(d, 0o700); err != nil {
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return err
		}
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}
