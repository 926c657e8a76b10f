// Package atomicfile replaces files whole: a reader sees the old file or
// the new one, never half of either, and the new one survives a crash.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write replaces path with data: a temporary file beside it, written,
// given perm (or the permissions of the file it replaces, when perm is
// 0), fsynced and renamed over path, then the folder fsynced. Missing
// folders are created (0755). A symbolic link at path is refused: renaming
// over it would replace the link and leave its target as it was.
func Write(path string, data []byte, perm fs.FileMode) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; it was left unchanged (edit the file it points to)", path)
	}
	switch {
	case err == nil && perm == 0:
		perm = fi.Mode().Perm()
	case perm == 0:
		perm = 0o644
	}
	if err := write(path, "", data, perm, 0o755, true); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteLocked replaces path with data as Write does, for a caller that
// holds a lock over path, through the temporary file tmp (beside path): a
// leftover of a crash is overwritten by the next write rather than left
// behind. path must not be a symbolic link; missing folders are not made.
func WriteLocked(path, tmp string, data []byte, perm fs.FileMode) error {
	if err := write(path, tmp, data, perm, 0, true); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteCache replaces path with data as Write does, but for a cache that
// can be rebuilt: nothing is fsynced (a crash may lose the entry, never
// tear it), the file is 0600 and missing folders are made 0700.
func WriteCache(path string, data []byte) error {
	return write(path, "", data, 0o600, 0o700, false)
}

// write writes data to tmp (a new temporary file when ""), then renames it
// over path; dirPerm 0 makes no folders.
func write(path, tmp string, data []byte, perm, dirPerm fs.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	if dirPerm != 0 {
		if err := os.MkdirAll(dir, dirPerm); err != nil {
			return err
		}
	}
	var f *os.File
	var err error
	if tmp == "" {
		f, err = os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	} else {
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, perm)
	}
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // nothing is left to remove after the rename
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// Create writes a new file, whole, and never over an existing one: the
// complete temporary file is hard-linked to path, which fails with
// fs.ErrExist when path exists. Where the file system has no hard links,
// an exclusive create still never overwrites, though a crash could leave
// the file short.
func Create(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(f.Name(), path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			err = createExclusive(path, data, perm)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return err
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(dir)
}

func createExclusive(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SyncDir makes a folder's entries (a rename, a new file) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
