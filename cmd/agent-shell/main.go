// Command agent-shell records and polices the commands that AI coding agents
// and npm scripts run. See the README for the commands and the event schema.

// A hook or shim call lives a few milliseconds: the runtime's goroutine that
// follows the CPU limit of a cgroup for GOMAXPROCS once a second is only a
// cost at start (hook --agent claude and the shim 2-3% faster).
//
//go:debug updatemaxprocs=0
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/call"
	"github.com/agent-shell/agent-shell/enforce"
)

func main() {
	// The sandbox's first process (agent-shell exec): before anything else.
	if enforce.IsEnter(os.Args[1:]) {
		enforce.Enter()
	}
	// npm runs its script-shell as `SHELL -c CMD`; that form is decided here,
	// before any command-line parsing, so the shim stays as cheap as possible.
	if len(os.Args) > 1 && os.Args[1] == "-c" {
		if os.Getenv("AGENTSHELL_PASSTHROUGH") == "1" {
			call.Passthrough(os.Args[1:])
		}
		shortLived()
		os.Exit(newApp(os.Stdin, os.Stdout, os.Stderr).call.Shim(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes of agent-shell's own commands (the shim exits with its child's).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// app carries what every command reads from its process, so tests can run
// commands in-process with their own streams, environment and clock.
type app struct {
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	environ func() []string
	now     func() time.Time

	call *call.Process // the hook's and the shim's calls, and what they hold
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{
		stdin:   stdin,
		stdout:  stdout,
		stderr:  stderr,
		getenv:  os.Getenv,
		environ: os.Environ,
		now:     time.Now,
		call:    call.New(stdin, stdout, stderr),
	}
	a.call.OnEnd = a.exportOnEnd // export.go
	a.call.Sandbox = a.sandboxed // calls.go
	return a
}

// errorf prints one message in agent-shell's voice.
func (a *app) errorf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "agent-shell: "+format+"\n", args...)
}

// runtimeError marks an error returned by a command's own work (exit 1 or the
// code it carries), as opposed to cobra's usage errors (exit 2).
type runtimeError struct {
	err  error
	code int
}

func (e *runtimeError) Error() string { return e.err.Error() }

// exitCode makes a command end with code without printing anything more: it
// has already said what it needed to.
func exitCode(code int) error {
	return &runtimeError{err: errSilent, code: code}
}

var errSilent = errors.New("silent exit")

// runE adapts a command body so that its errors are told apart from usage
// errors when the exit code is chosen.
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := fn(cmd, args)
		if err == nil {
			return nil
		}
		var re *runtimeError
		if errors.As(err, &re) {
			return err
		}
		return &runtimeError{err: err, code: exitError}
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := newApp(stdin, stdout, stderr)
	// A host's hook call does not pay for building the command tree.
	if code, ok := runHot(a, args); ok {
		return code
	}
	root := newRootCmd(a)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var re *runtimeError
	if errors.As(err, &re) {
		if !errors.Is(re.err, errSilent) {
			a.errorf("%v", re.err)
		}
		return re.code
	}
	a.errorf("%v", err)
	fmt.Fprintln(stderr, "Run 'agent-shell help' for usage.")
	return exitUsage
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "agent-shell",
		Short: "Record and police what AI coding agents and npm scripts run",
		Long: `agent-shell records every npm script run and agent tool call as append-only,
hash-chained JSONL under .agent-shell/events/, and lets you query it (log),
decide it again under another policy (replay) and read it as a page (report).

As npm's script-shell it is invoked as: agent-shell -c COMMAND [ARG0 ARG...]`,
		// The real version is read from the build info only when asked for
		// (see the version template), not on every hook call.
		Version:       "-",
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cobra.AddTemplateFunc("buildVersion", version)
	root.SetVersionTemplate("agent-shell {{buildVersion}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return err })
	root.AddCommand(newLogCmd(a), newReplayCmd(a), newReportCmd(a), newHookCmd(a), newPolicyCheckCmd(a), newRecordCmd(a), newPolicyCmd(a), newDemoCmd(a), newInitCmd(a), newScriptCmd(a), newAuthorizeCmd(a), newStatusCmd(a), newGrantsCmd(a), newPackCmd(a), newUninstallCmd(a), newDoctorCmd(a), newExecCmd(a), newExportCmd(a), newMCPCmd(a))
	// Only a completion request pays for registering completions.
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], cobra.ShellCompRequestCmd) {
		addCompletions(root, a)
	}
	return root
}
