package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/enforce"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/telemetry"
)

func newExecCmd(a *app) *cobra.Command {
	var line, request, session, cwdFile string
	c := &cobra.Command{
		Use:   "exec [-c LINE | [--] COMMAND [ARG...]]",
		Short: "Run a command where the kernel keeps it from changing agent-shell's files",
		Long: `Runs a command (or, with -c, a bash command line) in a sandbox: agent-shell's
configuration, events and state, the agents' hook registrations, .npmrc, the
authorization record and the agent-shell binary are read-only for it and
everything it starts, whatever the command's text says; with [enforce] write
in agent-shell.toml it may write only to those folders, and with [enforce]
network = "deny" it may not open or accept TCP connections. Its exit status,
signal and duration are recorded as a command_end event.

It needs Linux with Landlock and user namespaces; 'agent-shell doctor' says
whether this machine has them. A program that gains privileges (sudo, su,
doas, any setuid program) cannot in the sandbox: run it outside.

The hooks run allowed commands through it when [enforce] mode = "sandbox"
(--request, --session and --cwd-file are how they link and track it).`,
		Example: `  agent-shell exec -- npm test
  agent-shell exec -c 'cd web && npm run build'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if (line == "") == (len(args) == 0) {
				return fmt.Errorf("give a command, or -c LINE")
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			argv := args
			command := strings.Join(args, " ")
			if line != "" {
				argv, command = shellLine(line, cwdFile), line
			}
			code := a.runSandboxed(argv, command, request, session, cwdFile)
			if code != 0 {
				return exitCode(code)
			}
			return nil
		}),
	}
	c.Flags().StringVarP(&line, "command", "c", "", "run this bash command line")
	c.Flags().StringVar(&request, "request", "", "the host's id of the tool call whose decision allowed the command")
	c.Flags().StringVar(&session, "session", "", "the host's session id, to record in the same session as the decision")
	c.Flags().StringVar(&cwdFile, "cwd-file", "", "with -c: write the line's last working directory to this file")
	return c
}

// shellLine is the argv that runs line in bash (sh where there is none).
// With cwdFile, the line reports the folder it ends in, whatever way it
// ends, for a host that tracks the shell's working directory.
func shellLine(line, cwdFile string) []string {
	sh, err := exec.LookPath("bash")
	if err != nil {
		sh = "/bin/sh"
	}
	if cwdFile != "" {
		line = "trap 'pwd -P >" + shellcmd.Quote(cwdFile) + "' EXIT\n" + line
	}
	return []string{sh, "-c", line}
}

// enforcePlan is the sandbox for commands run in root under e's [enforce].
func (a *app) enforcePlan(root string, e *policy.Engine) enforce.Plan {
	var cfg policy.EnforceConfig
	if e != nil && e.Manifest != nil {
		cfg = e.Manifest.Enforce
	}
	plan := enforce.Plan{ReadOnly: e.ProtectedPaths(root), DenyNetwork: cfg.DenyNetwork()}
	if self, err := os.Executable(); err == nil {
		plan.ReadOnly = append(plan.ReadOnly, self)
	}
	plan.Write = cfg.WriteRoots(root, a.getenv("HOME"))
	return plan
}

// runSandboxed runs argv in the sandbox of the project's [enforce], passes
// signals on, and records how it ended; it returns the exit status (128+N
// for a signal N).
func (a *app) runSandboxed(argv []string, command, request, session, cwdFile string) int {
	shortLived() // its heap is the policy and the plan, all of it live until the command starts
	cwd, err := os.Getwd()
	if err != nil {
		a.errorf("%v", err)
		return exitError
	}
	e := a.loadPolicy()
	if e.LoadErr != nil {
		// Its [enforce] (write, network) cannot be known: running without
		// them would be a weaker sandbox than the one asked for.
		a.errorf("the policy does not load, so the sandbox's [enforce] cannot be known; the command is not run: %v", e.LoadErr)
		return 126
	}
	plan := a.enforcePlan(project.FindRoot(cwd), e)
	if cwdFile != "" {
		plan.Writable = append(plan.Writable, filepath.Dir(cwdFile))
	}
	if p := privileged(argv, command); p != "" {
		a.errorf("%s cannot gain privileges in the sandbox (no_new_privs holds for everything in it); run it outside agent-shell exec", p)
		return 126
	}
	sb, err := a.sandboxCommand(plan, argv)
	if err != nil {
		a.errorf("sandbox: %v", err)
		return 126
	}
	cmd := sb.cmd.Cmd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	group := newChildGroup(cmd)
	group.Spawn = sb.cmd.Spawn
	start := time.Now()
	if err := group.start(sb.started); err != nil {
		a.errorf("sandbox: %v", err)
		a.record(&telemetry.Event{Event: telemetry.EventShimError, Command: command, RequestID: request, Error: "sandbox: " + err.Error()}, session)
		return 126
	}
	rec := a.startRecording(session)
	code, sig := group.wait(cmd.Wait)
	elapsed := time.Since(start)
	group.done()
	rec.write(&telemetry.Event{
		Event:      telemetry.EventCommandEnd,
		Command:    command,
		ExitCode:   code,
		Signal:     sb.finish(sig),
		DurationMS: telemetry.Millis(elapsed.Milliseconds()),
		RequestID:  request,
	})
	return code
}

// sandboxRun is a command about to run in the sandbox, with the relay
// over which agent-shell inside it records.
type sandboxRun struct {
	a       *app
	cmd     *enforce.Cmd
	relayed *os.File
	served  chan struct{}
}

// sandboxCommand prepares argv to run in a sandbox of plan; the caller
// sets its streams and process group, then calls start and, after Wait,
// finish.
func (a *app) sandboxCommand(plan enforce.Plan, argv []string) (*sandboxRun, error) {
	// agent-shell inside (npm's script-shell) records through us: the
	// events are read-only in there.
	relay, relayed, err := telemetry.NewRelayPair()
	if err != nil {
		return nil, err
	}
	cmd, err := enforce.Command(plan, argv, relay)
	if err != nil {
		relay.Close()
		relayed.Close()
		return nil, err
	}
	cmd.Env = append(cmd.Env, telemetry.RelayEnv+"=3")
	return &sandboxRun{a: a, cmd: cmd, relayed: relayed, served: make(chan struct{})}, nil
}

// started, once the sandbox's start was tried, lets go of what it passed
// on and, when it started, serves the relay.
func (s *sandboxRun) started(err error) {
	s.cmd.Started()
	if err != nil {
		s.relayed.Close()
		return
	}
	go func() {
		s.a.serveRelay(s.relayed)
		close(s.served)
	}()
}

// finish, after Wait (which saw sig), ends the sandbox's processes, waits
// for the relay to end and returns the signal that ended the command, if
// one did.
func (s *sandboxRun) finish(sig string) string {
	sig = s.cmd.Finish(sig)
	<-s.served
	return sig
}

// serveRelay appends what agent-shell inside the sandbox records, each
// event to its session's file.
func (a *app) serveRelay(f *os.File) {
	defer f.Close()
	writers := map[string]*recording{}
	telemetry.ServeRelay(f, func(e *telemetry.Event) {
		r := writers[e.SessionID]
		if r == nil {
			r = a.startRecording(e.SessionID)
			writers[e.SessionID] = r
		}
		e.SessionID = r.id
		r.append(e)
	})
	for _, r := range writers {
		r.close()
	}
}

// privileged names the program of argv (or of the line's first word) that
// would gain privileges, "" when there is none.
func privileged(argv []string, line string) string {
	first := filepath.Base(argv[0])
	if line != "" && len(argv) > 2 && argv[1] == "-c" {
		if f := strings.Fields(line); len(f) > 0 {
			first = filepath.Base(f[0])
		}
	}
	switch first {
	case "sudo", "su", "doas", "pkexec", "run0":
		return first
	}
	return ""
}
