package runtime

// Executable extensions: a pinned program that answers one
// shell-hook-json-v1 request (hookjson.go) per run.
//
// How a run is confined, and what it is not:
//
//   - Pin. Before every run the file is opened, checked (a regular file
//     with an execute bit, at most MaxHookExecutable bytes, an ELF binary or
//     a #! script) and copied into a sealed memfd while it is hashed. Only
//     then is the SHA-256 compared with the pin, and what runs is the memfd:
//     exactly the bytes that were hashed, whatever happens to the path
//     afterwards. The seals (write, grow, shrink, seal) stop the hook, or
//     anyone it passes the descriptor to, from changing them. There is no
//     fallback to running the path: without memfd_create (Linux < 3.17, or a
//     seccomp filter that refuses it) executable extensions do not run.
//   - #! scripts. The kernel runs their interpreter with /proc/self/fd/3
//     as the script, so the memfd stays open, without close-on-exec, as
//     descriptor 3 of the hook (and, by the same token, of an ELF hook: a
//     read-only view of its own bytes). The interpreter itself (/bin/sh,
//     python3, ...) is resolved and run from the file system as usual: it
//     is not pinned. Needs /proc.
//   - Limits. os/exec cannot set resource limits on a child, so the child
//     is /bin/sh running `ulimit -c 0 && ulimit -t CPU && ulimit -d KiB &&
//     exec /proc/self/fd/3`: the limits (soft and hard) are in place before
//     any of the hook's own code runs, and a shell that lacks one of the
//     options fails the run instead of running unlimited. RLIMIT_DATA
//     rather than RLIMIT_AS, because Go programs reserve far more address
//     space than they use; since Linux 4.7 it covers anonymous mappings.
//     Core dumps are off. At the CPU limit the kernel kills the hook.
//   - Process. No arguments; the environment is exactly PATH=/usr/bin:/bin
//     and HOME=/nonexistent (so tools that fall back to the password file
//     for a missing HOME do not find the user's); the working directory is
//     the manifest's folder. The request is written to stdin, which is then
//     closed; stdout is read up to MaxHookResponse bytes (one more and the
//     hook is killed: a truncated reply is a failure), stderr up to
//     MaxHookStderr (the rest is read and dropped).
//   - Process group. The hook leads its own process group, which is killed
//     with SIGKILL on timeout, cancellation, an oversized reply, and also
//     when the hook exits (so a background child does not outlive it). The
//     group is killed before the hook is reaped, so its id cannot have been
//     reused. The hook is always reaped and every goroutine of a run ends
//     before Run returns.
//
// Not covered: a descendant that leaves the process group (setsid,
// setpgid) survives it; if it keeps stdout or stderr open the run fails
// when the wall time is up, and it keeps running. A setuid program the hook
// runs cannot be killed by us. There is no file system, network or
// process-count confinement here: that would be a hook-worker sandbox
// (the protocol's original runtime runs hooks with no network and
// read-only roots, docs/hook-protocol.md, "Transport"), which this package
// does not provide. If /bin/sh is bash, the hook also sees SHLVL.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-shell/agent-shell/builtins"
)

// Failures of executable extensions, beside the script failures (a timeout
// or cancellation is FailTimeout, a reply that is not one valid response is
// FailMalformed, a hook that could not be started is FailError, a request
// over the limits or not data is FailInput).
const (
	FailPin  Failure = "pin"  // the file is not the pinned, runnable one: it was not run
	FailExit Failure = "exit" // the hook exited nonzero or was killed by a signal
	// FailSkipped: the caller runs no executable (replay, unless told to):
	// it was not run.
	FailSkipped Failure = "skipped"
)

// Defaults of an Executable that sets none.
const (
	DefaultHookTimeout    = 5 * time.Second
	DefaultHookCPUSeconds = 5
	DefaultHookMemory     = 1 << 30 // RLIMIT_DATA: generous, Go hooks map memory in large steps
	MaxHookExecutable     = 64 << 20
)

// hookEnv is the whole environment of a hook.
var hookEnv = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}

// Executable is a pinned executable extension of one kind.
type Executable struct {
	ID          string        // the hook id the request names
	Kind        builtins.Kind // any kind but a matcher
	Path        string        // absolute
	SHA256      string        // the pin, hex (either case)
	Dir         string        // the working directory; "" is the folder of Path (the manifest's)
	Timeout     time.Duration // wall time; 0 is DefaultHookTimeout
	CPUSeconds  int           // RLIMIT_CPU; 0 is DefaultHookCPUSeconds
	MemoryBytes int64         // RLIMIT_DATA; 0 is DefaultHookMemory
}

// ExecResult is the outcome of one run: a Result (with Output the hook's
// stderr, bounded, for the audit record after redaction; no State, hooks
// are stateless) plus what only hooks answer.
type ExecResult struct {
	Result // its ExpiresAt is set by an approve_scope reply that gives one
}

func execFail(f Failure, err *HookError) ExecResult {
	return ExecResult{Result: Result{Failure: f, Err: &Error{Failure: f, Err: err}}}
}

// Verify checks the declaration and that the file is the pinned one,
// without running it: what `policy check` does.
func (x *Executable) Verify() error {
	if err := x.check(); err != nil {
		return err
	}
	return x.load(io.Discard)
}

func (x *Executable) check() *HookError {
	if _, ok := HookKind(x.Kind); !ok {
		return hookErr(CodeExecution, "hook %q: kind %q has no executable form", x.ID, x.Kind)
	}
	if !filepath.IsAbs(x.Path) {
		return hookErr(CodeExecution, "hook %q: path %q is not absolute", x.ID, x.Path)
	}
	if b, err := hex.DecodeString(x.SHA256); err != nil || len(b) != sha256.Size {
		return hookErr(CodeExecution, "hook %q: sha256 %q is not 64 hex digits", x.ID, clipString(x.SHA256))
	}
	return nil
}

// Run sends one request and decodes the one response, strictly. payload is
// the kind's payload (see KindSpec.HookEvent); an after-interceptor's
// carries the original status, which a replace_result may not change. Run
// never panics: every failure is a result with Failure set and an Err whose
// message starts with the protocol's error code (see HookCode).
func (x *Executable) Run(ctx context.Context, requestID string, p HookPayload) (res ExecResult) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res = execFail(FailError, hookErr(CodeExecution, "hook %q: internal error: %v", x.ID, r))
		}
		res.Elapsed = time.Since(start)
	}()
	if err := x.check(); err != nil {
		return execFail(FailError, err)
	}
	if ctx.Err() != nil {
		return execFail(FailTimeout, hookErr(CodeExecution, "hook %q: cancelled before it ran: %v", x.ID, context.Cause(ctx)))
	}
	if requestID == "" {
		return execFail(FailInput, hookErr(CodeInputLimit, "empty request id"))
	}
	payload := p.Payload()
	req, err := encodeRequest(x.ID, x.Kind, requestID, payload)
	if err != nil {
		var he *HookError
		if !errors.As(err, &he) {
			he = hookErr(CodeInputLimit, "%v", err)
		}
		return execFail(FailInput, he)
	}
	var orig *hookStatus
	if x.Kind == builtins.KindAfter {
		st, err := payloadStatus(payload)
		if err != nil {
			return execFail(FailInput, hookErr(CodeInputLimit, "%v", err))
		}
		orig = &st
	}

	exe, err := x.memfd()
	if err != nil {
		var pe *pinError
		if errors.As(err, &pe) {
			return execFail(FailPin, pe.HookError)
		}
		return execFail(FailError, hookErr(CodeExecution, "hook %q: %v", x.ID, err))
	}
	out := x.exchange(ctx, exe, req)
	exe.Close()

	if !res.tookProcess(out) {
		return res
	}
	d, err := decodeResponse(x.Kind, requestID, orig, out.stdout)
	if err != nil {
		res.Failure, res.Err = FailMalformed, &Error{Failure: FailMalformed, Err: err}
		return res
	}
	res.Action, res.ExpiresAt = d.Action, d.ExpiresAt
	return res
}

// pinError is a file that is not the pinned, runnable one.
type pinError struct{ *HookError }

func (e *pinError) Unwrap() error { return e.HookError }

func (x *Executable) pinErr(format string, args ...any) error {
	return &pinError{hookErr(CodeExecution, "hook %q: %s: %s", x.ID, x.Path, fmt.Sprintf(format, args...))}
}

// load reads the file into w, checking it and its pin on the way. w gets
// every byte before the verdict: it is only used if load succeeds.
func (x *Executable) load(w io.Writer) error {
	// O_NONBLOCK: opening a FIFO planted at the path must not hang.
	f, err := os.OpenFile(x.Path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return x.pinErr("%v", unwrapPathError(err))
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return x.pinErr("%v", err)
	case !st.Mode().IsRegular():
		return x.pinErr("not a regular file")
	case st.Mode().Perm()&0o111 == 0:
		return x.pinErr("not executable (no execute permission)")
	case st.Size() > MaxHookExecutable:
		return x.pinErr("%d bytes, more than %d", st.Size(), MaxHookExecutable)
	}
	h := sha256.New()
	hw := &headWriter{n: 4}
	n, err := io.CopyBuffer(io.MultiWriter(w, h, hw), io.LimitReader(f, MaxHookExecutable+1), make([]byte, 256<<10))
	switch {
	case err != nil:
		return x.pinErr("reading: %v", err)
	case n > MaxHookExecutable:
		return x.pinErr("more than %d bytes", MaxHookExecutable)
	}
	if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, x.SHA256) {
		return x.pinErr("pin mismatch: its sha256 is %s, the pin is %s; not run", got, strings.ToLower(x.SHA256))
	}
	if head := string(hw.b); !strings.HasPrefix(head, "\x7fELF") && !strings.HasPrefix(head, "#!") {
		// A shell would run any other file as a shell script.
		return x.pinErr("neither an ELF binary nor a #! script")
	}
	return nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// headWriter keeps the first n bytes written to it.
type headWriter struct {
	b []byte
	n int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if k := w.n - len(w.b); k > 0 {
		w.b = append(w.b, p[:min(k, len(p))]...)
	}
	return len(p), nil
}

// memfd copies the pinned file into a sealed memfd, verifying the pin on
// the way; the caller runs and closes it.
func (x *Executable) memfd() (*os.File, error) {
	fd, err := unix.MemfdCreate("agent-shell-hook", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if err == unix.EINVAL { // before Linux 6.3 there is no MFD_EXEC, and memfds are executable
		fd, err = unix.MemfdCreate("agent-shell-hook", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w (executable extensions need it)", err)
	}
	mf := os.NewFile(uintptr(fd), "memfd:agent-shell-hook")
	if err := x.load(mf); err != nil {
		mf.Close()
		return nil, err
	}
	seals := unix.F_SEAL_WRITE | unix.F_SEAL_GROW | unix.F_SEAL_SHRINK | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(mf.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		mf.Close()
		return nil, fmt.Errorf("sealing the memfd: %w", err)
	}
	return mf, nil
}

// exchanged is what came back from one process.
type exchanged struct {
	stdout    []byte
	stderr    string
	stderrCut bool
	failure   Failure
	fail      *HookError // nil when stdout is a complete reply of an exit-0 hook
}

// group is the hook's process group. It is killed only while its leader is
// unreaped, so its id still names it.
type group struct {
	mu     sync.Mutex
	pgid   int
	reaped bool
}

func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.reaped {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
}

// exchange runs the memfd exe once with req on stdin.
func (x *Executable) exchange(ctx context.Context, exe *os.File, req []byte) (out exchanged) {
	timeout, cpu, mem := x.Timeout, x.CPUSeconds, x.MemoryBytes
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	if cpu <= 0 {
		cpu = DefaultHookCPUSeconds
	}
	if mem <= 0 {
		mem = DefaultHookMemory
	}
	dir := x.Dir
	if dir == "" {
		dir = filepath.Dir(x.Path)
	}
	// Limits first, then exec exactly the verified bytes (fd 3). &&: a
	// shell without one of the options fails the run rather than run the
	// hook unlimited.
	script := fmt.Sprintf("unset PWD OLDPWD; ulimit -c 0 && ulimit -t %d && ulimit -d %d && exec /proc/self/fd/3",
		cpu, max(mem>>10, 1))
	return runProc(ctx, procSpec{
		label: fmt.Sprintf("hook %q", x.ID), path: "/bin/sh", args: []string{"sh", "-c", script}, env: hookEnv, dir: dir,
		extra: []*os.File{exe}, timeout: timeout, cpu: cpu, maxOut: MaxHookResponse,
	}, req)
}

// procSpec is one process run by runProc.
type procSpec struct {
	label   string // how errors name it: hook "id"
	path    string
	args    []string
	env     []string
	dir     string
	extra   []*os.File
	timeout time.Duration
	cpu     int // the CPU limit it runs under, for the exit message; 0 when none
	maxOut  int // stdout beyond this fails the run (the process group is killed)
}

// runProc runs one process in its own process group with req on stdin,
// reading stdout up to spec.maxOut and stderr up to MaxHookStderr, and
// kills the group on timeout, cancellation, oversized output and when the
// leader exits.
// tookProcess keeps what a program printed on stderr as res's output and,
// when the run failed, the failure; it reports whether the run succeeded.
func (res *Result) tookProcess(out exchanged) bool {
	res.Output = out.stderr
	if out.stderrCut {
		res.Output += "\n[stderr truncated]\n"
	}
	if out.fail != nil {
		res.Failure, res.Err = out.failure, &Error{Failure: out.failure, Err: out.fail}
		return false
	}
	return true
}

func runProc(ctx context.Context, spec procSpec, req []byte) (out exchanged) {
	timeout, cpu := spec.timeout, spec.cpu
	failed := func(f Failure, code, format string, args ...any) exchanged {
		out.failure, out.fail = f, hookErr(code, "%s: %s", spec.label, fmt.Sprintf(format, args...))
		return out
	}

	var pipes []*os.File // every end we hold, closed on the way out
	defer func() {
		for _, p := range pipes {
			p.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			pipes = append(pipes, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		return failed(FailError, CodeExecution, "pipes: %v", err)
	}

	cmd := &exec.Cmd{
		Path:        spec.path,
		Args:        spec.args,
		Env:         spec.env,
		Dir:         spec.dir,
		Stdin:       inR,
		Stdout:      outW,
		Stderr:      errW,
		ExtraFiles:  spec.extra,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	if err := cmd.Start(); err != nil {
		return failed(FailError, CodeExecution, "start: %v", err)
	}
	// Only the child holds its ends now: EOF on stdout means every
	// process of the group closed it.
	inR.Close()
	outW.Close()
	errW.Close()
	g := &group{pgid: cmd.Process.Pid}

	var wg sync.WaitGroup
	var stdoutOver bool
	overflow := make(chan struct{})
	readers := make(chan struct{})
	exited := make(chan struct{})
	wg.Go(func() {
		_, _ = inW.Write(req) // EPIPE when the hook does not read it all: its answer decides
		inW.Close()
	})
	var rw sync.WaitGroup
	rw.Go(func() {
		buf, over := readUpTo(outR, spec.maxOut)
		out.stdout = buf
		if over {
			stdoutOver = true
			close(overflow)
		}
	})
	rw.Go(func() {
		buf, over := readUpTo(errR, MaxHookStderr)
		out.stderr, out.stderrCut = string(buf), over
		if over {
			_, _ = io.Copy(io.Discard, errR)
		}
	})
	wg.Go(func() { rw.Wait(); close(readers) })
	wg.Go(func() {
		// Wait for the leader to exit without reaping it: its pid (the
		// group id) stays taken until cmd.Wait below.
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, g.pgid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(exited)
	})

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var timedOut, cancelled, escaped bool
	done := ctx.Done()
	// Until the leader exits: kill the group on timeout, cancellation or
	// an oversized reply.
	for waiting := true; waiting; {
		select {
		case <-exited:
			waiting = false
		case <-timer.C:
			select {
			case <-exited: // it exited just in time
			default:
				timedOut = true
				g.kill()
				<-exited
			}
			waiting = false
		case <-done:
			cancelled = true
			g.kill()
			<-exited
			waiting = false
		case <-overflow:
			g.kill()
			overflow = nil
		}
	}
	// The leader is gone: so is the rest of its group. Its output is
	// complete once every member has closed it, which is at once unless
	// one left the group; give that one until the time is up.
	g.kill()
	if !timedOut && !cancelled {
		select {
		case <-readers:
		case <-timer.C:
			escaped = true
		case <-done:
			cancelled = true
		}
	}
	g.mu.Lock()
	g.reaped = true
	g.mu.Unlock()
	_ = cmd.Wait() // reaps; the status is read from ProcessState
	outR.Close()   // unblocks a reader still held by an escaped process
	errR.Close()
	inW.Close()
	rw.Wait()
	wg.Wait()

	switch {
	case cancelled:
		return failed(FailTimeout, CodeExecution, "cancelled: %v (its process group was killed)", context.Cause(ctx))
	case timedOut:
		return failed(FailTimeout, CodeExecution, "timed out after %s (its process group was killed)", timeout)
	case stdoutOver:
		return failed(FailMalformed, CodeOutputLimit, "stdout is over %d bytes (the reply would be truncated)", spec.maxOut)
	}
	if st := cmd.ProcessState; st == nil || !st.Success() {
		return failed(FailExit, CodeNonzeroExit, "%s%s", describeExit(st, cpu), stderrNote(out.stderr))
	}
	if escaped {
		return failed(FailError, CodeExecution, "its output stayed open after it exited: a process left its process group")
	}
	return out
}

// readUpTo reads r to EOF or until it has more than max bytes: then it
// returns the first max and true.
func readUpTo(r io.Reader, max int) ([]byte, bool) {
	buf, _ := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if len(buf) > max {
		return buf[:max], true
	}
	return buf, false
}

func describeExit(st *os.ProcessState, cpu int) string {
	if st == nil {
		return "no exit status"
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return fmt.Sprintf("exit status %d", st.ExitCode())
	}
	msg := "killed by signal " + unix.SignalName(ws.Signal())
	if cpu <= 0 {
		return msg
	}
	// The kernel kills at the limit by its own tick accounting, which the
	// usage reported at exit can trail by a good part of a second on a
	// busy machine.
	if used := st.UserTime() + st.SystemTime(); (ws.Signal() == syscall.SIGKILL || ws.Signal() == syscall.SIGXCPU) &&
		used >= time.Duration(cpu)*time.Second/2 {
		msg += fmt.Sprintf(" (it used %.1fs of CPU, the limit is %ds)", used.Seconds(), cpu)
	}
	return msg
}

// stderrNote is the start of stderr for an error message; Output keeps it
// all (up to MaxHookStderr). It is not redacted here: callers redact errors
// and output before anything shows them.
func stderrNote(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	const n = 4 << 10
	if len(s) > n {
		s = clipTo(s, n) + "..."
	}
	return "; stderr: " + s
}

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
