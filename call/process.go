// Package call answers the calls agent-shell gets on every tool call and
// every npm script: a host's hook call (Hook, Alias: read the payload,
// parse it, decide, render the answer in the host's terms, write it, then
// record) and npm's script-shell (Shim: before-interceptors, /bin/sh -c,
// the sandbox when [enforce] asks for it, after-interceptors, the record).
//
// It sits between the command layer and what decides and records:
// cmd/agent-shell -> call -> policy, hostapi, telemetry, runtime. It is on
// the hook's hot path, so it imports no command-line library and nothing
// of onboarding (setup, init, pack): what it needs of the commands (the
// export helper, the sandbox) is given to it as functions.
package call

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy"
)

// Process is what a call reads from its process, so tests can run calls
// in-process with their own streams, environment and clock, and what it
// holds once for the process (the policy, whether an answer is out).
type Process struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time

	MaxPayload int64 // the cap on a hook payload

	// OnEnd runs at the end of an agent's session and of an npm script
	// (the OTLP export); nil runs nothing.
	OnEnd func()
	// Sandbox prepares argv to run in the sandbox of root's [enforce]
	// under e; the shim needs it only when [enforce] mode = "sandbox".
	Sandbox func(root string, e *policy.Engine, argv []string) (*Sandboxed, error)

	engine *policy.Engine       // the policy, once loaded
	auth   policy.Authorization // what the authorization check found

	answerMu   sync.Mutex // the watchdog may answer too (hookRunaway)
	answered   bool       // a hook answer was written
	answerCode int        // and the exit code it gave
	unfiltered bool       // record without the audit filter: it would not stop

	configText *policy.ConfigText // what mayMention reads, once a process
	configRoot string

	hereOnce sync.Once    // the watchdog may ask too
	here     project.Here // the current directory and its project, once read
	hereErr  error
}

// Sandboxed is a command about to run in the sandbox: Spawn starts it when
// its streams are files, Started is called once its start was tried (with
// the error, if it failed), and Finish, after it ended, is given the signal
// its wait saw and returns the one that ended the command ("" when none
// did).
type Sandboxed struct {
	Cmd     *exec.Cmd
	Spawn   func([]*os.File, *syscall.SysProcAttr) (int, error) // ChildGroup.Spawn
	Started func(error)
	Finish  func(sig string) string
}

// New is a Process on the given streams and the real environment and clock.
func New(stdin io.Reader, stdout, stderr io.Writer) *Process {
	return &Process{
		Stdin:   stdin,
		Stdout:  stdout,
		Stderr:  stderr,
		Getenv:  os.Getenv,
		Environ: os.Environ,
		Now:     time.Now,
	}
}

// errorf prints one message in agent-shell's voice.
func (p *Process) errorf(format string, args ...any) {
	fmt.Fprintf(p.Stderr, "agent-shell: "+format+"\n", args...)
}

// mayMention asks the configuration's text whether it may mention word,
// read once for the questions a process asks before its command runs (the
// shim: interceptors, then [enforce]). What is asked after the command
// has started (the audit filter) reads it again: the command may have
// changed it.
func (p *Process) mayMention(root, word string) bool {
	if p.configText == nil || p.configRoot != root {
		p.configText, p.configRoot = policy.ReadConfigText(root), root
	}
	return p.configText.Mentions(word)
}

// Here is the current directory and the project around it, read once per
// process: a call does not change directory, and every stage (the policy,
// the interceptors, the sandbox, the recorder) asks.
func (p *Process) Here() (project.Here, error) {
	p.hereOnce.Do(func() { p.here, p.hereErr = project.Current() })
	return p.here, p.hereErr
}

func (p *Process) onEnd() {
	if p.OnEnd != nil {
		p.OnEnd()
	}
}
