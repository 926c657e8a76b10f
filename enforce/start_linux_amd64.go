package enforce

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fastArch: Spawn can start a command without a first process of ours.
const fastArch = true

// step is one system call the sandbox's process makes between clone and
// execve (startSteps, in assembly). Its result goes to store when store is
// not nil; a checked step that fails ends the process.
type step struct {
	nr    uintptr
	args  [6]uintptr
	store *uintptr
	check uintptr
}

// program is what startSteps runs; the child writes failed (the failing
// step's number, from 1) and errno into it, in the memory it shares with us
// until execve.
type program struct {
	flags  uintptr
	steps  *step
	n      uintptr
	all    uint64 // every signal, blocked around clone
	old    uint64 // the mask before
	failed uintptr
	errno  uintptr
}

func startSteps(p *program) (pid uintptr)

// steps builds a program: the calls, what each is (for errors), and the
// memory their pointers reach, kept alive until the child has run.
type steps struct {
	calls  []step
	names  []string
	stores []struct{ from, to, arg int }
	keep   []any
}

// call adds a system call; check makes its failure end the start.
func (s *steps) call(name string, check bool, nr uintptr, args ...uintptr) int {
	st := step{nr: nr}
	copy(st.args[:], args)
	if check {
		st.check = 1
	}
	s.calls = append(s.calls, st)
	s.names = append(s.names, name)
	return len(s.calls) - 1
}

// result makes the result of step from the argument arg of step to (one
// per step from).
func (s *steps) result(from, to, arg int) {
	s.stores = append(s.stores, struct{ from, to, arg int }{from, to, arg})
}

// str is a NUL-terminated copy of v the steps may point to.
func (s *steps) str(v string) uintptr {
	b := append([]byte(v), 0)
	s.keep = append(s.keep, b)
	return uintptr(unsafe.Pointer(&b[0]))
}

// ptr keeps v alive and returns its address.
func (s *steps) ptr(v unsafe.Pointer) uintptr {
	s.keep = append(s.keep, v)
	return uintptr(v)
}

// writeFile adds an open and a write of a /proc file. Its descriptor is
// closed on exec.
func (s *steps) writeFile(path, data string) {
	open := s.call("open "+path, true, unix.SYS_OPEN, s.str(path), unix.O_WRONLY|unix.O_CLOEXEC)
	write := s.call("write "+path, true, unix.SYS_WRITE, 0, s.str(data), uintptr(len(data)))
	s.result(open, write, 0)
}

// fastStart starts the command of c with files as its descriptors 0, 1,
// 2, ... and sys's process group, terminal and parent-death signal: one
// clone (sharing our memory, as os/exec's starts do) whose child makes the
// namespaces' mounts, restricts itself and execs the command. No second
// program starts, and the command is our child.
func (c *Cmd) fastStart(files []*os.File, sys *syscall.SysProcAttr) (int, error) {
	f := c.fast
	if sys.Setsid || sys.Setctty || sys.Noctty || sys.Chroot != "" || sys.Credential != nil || len(sys.AmbientCaps) > 0 || sys.UseCgroupFD || sys.PidFD != nil {
		return 0, errors.New("sandbox: the fast start sets only the process group, the terminal and the parent-death signal")
	}
	fd, flags, err := rulesetFD(c.plan)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	var s steps
	if sys.Pdeathsig != 0 {
		s.call("set the parent-death signal", true, unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(sys.Pdeathsig))
	}
	if sys.Setpgid || sys.Foreground {
		s.call("set the process group", true, unix.SYS_SETPGID, 0, uintptr(sys.Pgid))
	}
	if sys.Foreground {
		pgrp := new(uintptr)
		*pgrp = uintptr(sys.Pgid)
		s.keep = append(s.keep, pgrp)
		if sys.Pgid == 0 {
			s.calls[s.call("getpid", false, unix.SYS_GETPID)].store = pgrp
		}
		s.call("take the terminal", true, unix.SYS_IOCTL, uintptr(sys.Ctty), unix.TIOCSPGRP, uintptr(unsafe.Pointer(pgrp)))
	}
	// Every descriptor first moved above the ones the command gets, so
	// that no dup3 overwrites one still to be moved.
	var high []int
	defer func() {
		for _, h := range high {
			unix.Close(h)
		}
	}()
	for i, file := range files {
		h, err := unix.FcntlInt(file.Fd(), unix.F_DUPFD_CLOEXEC, len(files))
		if err != nil {
			return 0, err
		}
		high = append(high, h)
		s.call(fmt.Sprintf("descriptor %d", i), true, unix.SYS_DUP3, uintptr(h), uintptr(i), 0)
	}
	if lim, ok := startLimit(); ok {
		s.call("file limit", false, unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, s.ptr(unsafe.Pointer(lim)), 0)
	}
	if !c.plan.nested {
		uid, gid := os.Getuid(), os.Getgid()
		s.writeFile("/proc/self/setgroups", "deny")
		s.writeFile("/proc/self/uid_map", fmt.Sprintf("%d %d 1\n", uid, uid))
		s.writeFile("/proc/self/gid_map", fmt.Sprintf("%d %d 1\n", gid, gid))
		s.call("make the mounts private", true, unix.SYS_MOUNT, s.str(""), s.str("/"), 0, unix.MS_REC|unix.MS_PRIVATE, 0)
		for _, w := range f.writable {
			p := s.str(w)
			s.call("bind "+w, true, unix.SYS_MOUNT, p, p, 0, unix.MS_BIND, 0)
		}
		for i, b := range f.bound {
			p := s.str(b)
			s.call("bind "+b, true, unix.SYS_MOUNT, p, p, 0, unix.MS_BIND|unix.MS_REC, 0)
			s.call("make "+b+" read-only", true, unix.SYS_MOUNT, s.str(""), p, 0, f.remount[i], 0)
		}
		// The working directory is still the one from before the mounts:
		// a relative path from it would reach under them.
		s.call("enter "+f.cwd+" again", true, unix.SYS_CHDIR, s.str(f.cwd))
	}
	s.call("set no_new_privs", true, unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	s.call("restrict with Landlock", true, unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), uintptr(flags))
	// No Go signal handler may run in the child once signals are let in
	// again; execve would reset them, but only after.
	dfl := s.ptr(unsafe.Pointer(new([4]uint64)))
	for sig := 1; sig <= 64; sig++ {
		if sig == int(unix.SIGKILL) || sig == int(unix.SIGSTOP) || signal.Ignored(syscall.Signal(sig)) {
			continue
		}
		s.call("reset a signal", false, unix.SYS_RT_SIGACTION, uintptr(sig), dfl, 0, 8)
	}
	p := &program{flags: unix.CLONE_VM | unix.CLONE_VFORK | uintptr(unix.SIGCHLD), all: ^uint64(0)}
	if !c.plan.nested {
		p.flags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	}
	s.call("unblock signals", false, unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&p.old)), 0, 8)
	argv, err := syscall.SlicePtrFromStrings(f.argv)
	if err != nil {
		return 0, err
	}
	env, err := syscall.SlicePtrFromStrings(c.Env)
	if err != nil {
		return 0, err
	}
	s.call("exec "+f.path, true, unix.SYS_EXECVE, s.str(f.path), s.ptr(unsafe.Pointer(&argv[0])), s.ptr(unsafe.Pointer(&env[0])))
	for _, st := range s.stores {
		s.calls[st.from].store = &s.calls[st.to].args[st.arg]
	}
	p.steps, p.n = &s.calls[0], uintptr(len(s.calls))

	syscall.ForkLock.Lock()
	pid := int(startSteps(p))
	syscall.ForkLock.Unlock()
	runtime.KeepAlive(&s)
	runtime.KeepAlive(argv)
	runtime.KeepAlive(env)
	if pid < 0 {
		return 0, fmt.Errorf("clone: %w", syscall.Errno(-pid))
	}
	if p.failed != 0 {
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, 0, nil)
		err := error(syscall.Errno(p.errno))
		if p.failed == uintptr(len(s.calls)) {
			return 0, &os.PathError{Op: "exec", Path: f.path, Err: err}
		}
		return 0, fmt.Errorf("%s: %w", s.names[p.failed-1], err)
	}
	return pid, nil
}

// startLimit is the open-file limit to give the command: Go raised ours to
// just under the hard limit at start, and a command expects the one we
// were given, which our parent still has when its hard limit is ours.
func startLimit() (*unix.Rlimit, bool) {
	var own, parent unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &own) != nil || own.Cur != own.Max-1 {
		return nil, false
	}
	if unix.Prlimit(os.Getppid(), unix.RLIMIT_NOFILE, nil, &parent) != nil || parent.Max != own.Max || parent.Cur >= own.Cur {
		return nil, false
	}
	return &parent, true
}
