// Package spawn starts a child process with fork and exec and waits for it,
// without os.StartProcess. The first start through os in a process checks
// that the kernel's pidfd calls work, by starting a child of its own: that
// took 0.38 ms of a process that lives 3 ms here. The shim and the
// sandbox's first process each start one child and wait for it, which
// needs no pidfd.
package spawn

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start starts path with argv and env, files as its descriptors 0, 1,
// 2, ..., and sys's attributes (nil for none); it returns the child's pid.
func Start(path string, argv, env []string, files []*os.File, sys *syscall.SysProcAttr) (int, error) {
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: fds, Sys: sys})
	if err != nil {
		return 0, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	return pid, nil
}

// Wait waits for the child pid to end (pid -1: any child) and returns
// which child ended and how.
func Wait(pid int) (int, unix.WaitStatus, error) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return got, ws, err
	}
}

// Status is a shell's reading of how a child ended: its exit code, or
// 128+N and the signal's name when a signal N ended it.
func Status(ws unix.WaitStatus) (code int, signal string) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}
