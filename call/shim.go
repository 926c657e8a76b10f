package call

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agent-shell/agent-shell/internal/spawn"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"
)

const shell = "/bin/sh"

// exitUsage is the shim's exit status when npm's call is malformed.
const exitUsage = 2

// forwardedSignals reach the script's process group. SIGCONT goes with SIGTSTP
// so that a script stopped through the shim can be resumed through it.
var forwardedSignals = []os.Signal{
	syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGTSTP, syscall.SIGCONT,
}

// Passthrough replaces this process with /bin/sh and the same arguments: no
// recording, nothing between npm and the shell. It returns only on failure.
func Passthrough(args []string) {
	err := syscall.Exec(shell, append([]string{shell}, args...), os.Environ())
	os.Stderr.WriteString("agent-shell: exec " + shell + ": " + err.Error() + "\n")
	os.Exit(127)
}

// Shim runs `/bin/sh -c COMMAND [ARG0 ARG...]` the way npm expects of its
// script-shell, then records one script_end event. It returns the script's
// exit status, or 128+N when a signal N killed it.
func (p *Process) Shim(args []string) int {
	if len(args) == 0 {
		p.errorf("-c: option requires an argument")
		return exitUsage
	}
	command := args[0]
	// One session for a script and every npm run it starts (npm test running
	// npm run lint): the children inherit it.
	if id := p.Getenv("AGENTSHELL_SESSION_ID"); !telemetry.ValidSessionID(id) {
		id, warn := telemetry.SessionID(p.Getenv)
		if warn != nil {
			p.errorf("%v", warn)
		}
		os.Setenv("AGENTSHELL_SESSION_ID", id)
	}
	// A script that will not stop (runtime.Budget) before the command runs
	// stops it from running; after, the command's output and status stand.
	runtime.SetBudget(runtime.Budget{Memory: hookMemory, Runaway: func(reason string) {
		p.errorf("%s; the script is not run", reason)
		os.Exit(shimExitIntercepted)
	}})
	// The project's interceptors (intercept.go); si is nil without any.
	si, code, done := p.shimBefore(command)
	if done {
		return code
	}

	cmd := exec.Command(shell, append([]string{"-c"}, si.args(args)...)...)
	var started func(error)
	// With [enforce] mode = "sandbox", the script runs where agent-shell's
	// files are read-only (Process.Sandbox, agent-shell exec's sandbox).
	sb, err := p.shimSandbox(cmd.Args)
	if err != nil {
		p.errorf("sandbox: %v; the script is not run", err)
		p.Record(&telemetry.Event{Event: telemetry.EventShimError, Command: command, Error: "not run: sandbox: " + err.Error()}, "")
		return 126
	}
	if sb != nil {
		cmd, started = sb.Cmd, sb.Started
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Stdin, p.Stdout, p.Stderr
	si.capture(cmd)
	group := NewChildGroup(cmd)
	if sb != nil {
		group.Spawn = sb.Spawn
	}
	start := time.Now()
	if err := group.Start(started); err != nil {
		p.errorf("start %s: %v", shell, err)
		si.recording(p).Write(append(si.recorded(), &telemetry.Event{Event: telemetry.EventShimError, Command: command, Error: "start " + shell + ": " + err.Error()})...)
		return 127
	}
	// While the script runs, get everything ready to record it.
	rec := si.recording(p)
	code, sig := group.Wait(func() error { return si.wait(cmd) })
	elapsed := time.Since(start)
	group.Done()
	if sb != nil {
		sig = sb.Finish(sig)
	}
	runtime.SetBudget(runtime.Budget{Memory: hookMemory, Runaway: func(reason string) {
		si.releaseUnseen()
		p.errorf("%s; the script's output and exit status stand, its run is not recorded", reason)
		os.Exit(code)
	}})
	si.ran(code, sig) // after-interceptors, then the captured output goes out
	// Where npm ran the script: replay decides it there again.
	h, _ := p.Here()
	e := &telemetry.Event{
		Cwd:            h.Cwd,
		Event:          telemetry.EventScriptEnd,
		Command:        command,
		ExitCode:       code,
		Signal:         sig,
		DurationMS:     telemetry.Millis(elapsed.Milliseconds()),
		Script:         p.Getenv("npm_lifecycle_event"),
		Package:        p.Getenv("npm_package_name"),
		PackageVersion: p.Getenv("npm_package_version"),
	}
	rec.Write(append(si.recorded(), e)...)
	p.onEnd() // the OTLP export, when an endpoint is set
	return code
}

// shimSandbox is the sandbox a script runs in, nil when the project's
// [enforce] mode is not "sandbox". Inside a sandbox already, the script
// runs in a nested one, whose mounts are the outer one's.
func (p *Process) shimSandbox(argv []string) (*Sandboxed, error) {
	h, err := p.Here()
	if err != nil || !h.InRepo || !p.mayMention(h.Root, "enforce") {
		return nil, nil
	}
	root := h.Root
	e := p.LoadPolicy()
	if e.LoadErr != nil {
		return nil, fmt.Errorf("the policy does not load, so whether the script runs in the sandbox cannot be known: %v", e.LoadErr)
	}
	if e.Manifest == nil || !e.Manifest.Enforce.Sandbox() {
		return nil, nil
	}
	if p.Sandbox == nil {
		return nil, fmt.Errorf("this build cannot run a sandbox")
	}
	return p.Sandbox(root, e, argv)
}

// ChildGroup is a child run in a process group of its own, which takes
// over our terminal when we own it (a script in a background group is
// stopped when it reads the terminal), with the signals we get passed on
// to its group.
type ChildGroup struct {
	// Spawn, when not nil, starts the child when its streams are files
	// (with them as its descriptors 0, 1, 2, ..., then ExtraFiles), in
	// place of a fork and exec of the command's Path.
	Spawn      func([]*os.File, *syscall.SysProcAttr) (int, error)
	cmd        *exec.Cmd
	foreground bool
	sigs       chan os.Signal
	direct     []*os.File // the child's streams, when started by spawn
	pid        int
}

func NewChildGroup(cmd *exec.Cmd) *ChildGroup {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	g := &ChildGroup{cmd: cmd, foreground: ownsTerminal(), sigs: make(chan os.Signal, 16)}
	if g.foreground {
		cmd.SysProcAttr.Foreground = true
		cmd.SysProcAttr.Ctty = 0
	}
	return g
}

// Start starts the child: by fork and exec directly (spawn) when its
// streams are files, as npm's and a terminal's are, else with cmd.Start
// (which copies other streams). started, when not nil, is called once the
// start was tried. Start passes signals on to the child's group. Signals
// stay caught and passed on until we exit: stopping them costs time, and a
// signal after the child must not cut the recording short.
func (g *ChildGroup) Start(started func(error)) error {
	signal.Notify(g.sigs, forwardedSignals...)
	err := g.start()
	if started != nil {
		started(err)
	}
	if err != nil {
		signal.Stop(g.sigs)
		return err
	}
	pgid := g.pid
	go func() {
		for s := range g.sigs {
			_ = syscall.Kill(-pgid, s.(syscall.Signal))
		}
	}()
	return nil
}

func (g *ChildGroup) start() (err error) {
	if g.direct = streamFiles(g.cmd); g.direct != nil {
		if g.Spawn != nil {
			g.pid, err = g.Spawn(g.direct, g.cmd.SysProcAttr)
			return err
		}
		g.pid, err = spawn.Start(g.cmd.Path, g.cmd.Args, g.cmd.Environ(), g.direct, g.cmd.SysProcAttr)
		return err
	}
	if err := g.cmd.Start(); err != nil {
		return err
	}
	g.pid = g.cmd.Process.Pid
	return nil
}

// Wait waits for the child, with wait (the command's Wait, or one around
// it) unless Start started it by spawn, and says how it ended.
func (g *ChildGroup) Wait(wait func() error) (code int, signal string) {
	if g.direct == nil {
		return ExitStatus(g.cmd.ProcessState, wait())
	}
	_, ws, err := spawn.Wait(g.pid)
	if err != nil {
		return 1, ""
	}
	return spawn.Status(ws)
}

// streamFiles is cmd's stdin, stdout and stderr, then its extra files,
// when the three streams are files, else nil.
func streamFiles(cmd *exec.Cmd) []*os.File {
	in, ok0 := cmd.Stdin.(*os.File)
	out, ok1 := cmd.Stdout.(*os.File)
	errs, ok2 := cmd.Stderr.(*os.File)
	if !ok0 || !ok1 || !ok2 || in == nil || out == nil || errs == nil || cmd.Err != nil {
		return nil
	}
	return append([]*os.File{in, out, errs}, cmd.ExtraFiles...)
}

// Done takes the terminal back once the child has ended.
func (g *ChildGroup) Done() {
	if g.foreground {
		reclaimTerminal()
	}
}

// ExitStatus maps how the script ended to a shell exit code and signal name.
func ExitStatus(ps *os.ProcessState, waitErr error) (int, string) {
	if ps == nil {
		return 1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return 1, ""
	}
	return ps.ExitCode(), ""
}

// ownsTerminal reports whether stdin is a terminal whose foreground process
// group is ours.
func ownsTerminal() bool {
	pgrp, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	return err == nil && pgrp == syscall.Getpgrp()
}

// reclaimTerminal makes our process group the terminal's foreground group
// again. Doing so from the background raises SIGTTOU, which is ignored here.
func reclaimTerminal() {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, syscall.Getpgrp())
}
