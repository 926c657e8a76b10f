// Package plainfile opens files without offering them to the runtime's
// poller. os.OpenFile offers every file it opens to epoll, which refuses
// regular files: four system calls wasted per file, and the poller itself
// set up on the first (epoll and an eventfd), in a hook call that opens
// four files and lives a few milliseconds. Files opened here do blocking
// reads and writes, as os's regular files do once epoll refused them.
package plainfile

import (
	"errors"
	"os"
	"syscall"
)

// Open opens name as os.OpenFile does (flag is syscall's O_ flags; close
// on exec is added), retrying when a signal interrupts the call. With
// O_NONBLOCK only the open does not wait (for a FIFO's other end): the file
// is blocking once open.
func Open(name string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		if flag&syscall.O_NONBLOCK != 0 {
			if err := syscall.SetNonblock(fd, false); err != nil {
				syscall.Close(fd)
				return nil, &os.PathError{Op: "fcntl", Path: name, Err: err}
			}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}
