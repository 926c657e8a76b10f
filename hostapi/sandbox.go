package hostapi

import (
	"encoding/json"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// SandboxWrap is how an allowed shell command of a host is sent back to it
// to run through agent-shell exec ([enforce] mode = "sandbox"), keeping
// what the host's shell tool promises.
type SandboxWrap int

const (
	// SandboxNone: the host's command is not wrapped; the text guards
	// and the policy are all that apply to it.
	SandboxNone SandboxWrap = iota
	// SandboxPlain: each command runs in a shell of its own (bash -c in a
	// folder the call names), so the wrapped line needs nothing more.
	SandboxPlain
	// SandboxTrackCwd: the host runs each command in a shell whose working
	// directory it keeps for the next command (Claude Code evals the
	// command, then records pwd -P): the wrapper brings the folder the
	// line ended in back to the host's shell.
	SandboxTrackCwd
)

// Sandbox is how host's allowed shell commands run in the sandbox, and why
// they do not when they do not (its Descriptor's Sandbox and NoSandbox).
func Sandbox(host string) (SandboxWrap, string) {
	d, ok := Describe(host)
	if !ok {
		return SandboxNone, "an unknown host"
	}
	return d.Sandbox, d.NoSandbox
}

// SandboxCommand is the shell line that runs command through agent-shell
// exec (self: agent-shell's path, which a login shell's PATH may not
// find) for a host of the given wrap, recorded with the call's request and
// session ids.
func SandboxCommand(wrap SandboxWrap, self, command, request, session string) string {
	exec := shellcmd.Quote(self) + " exec"
	if request != "" {
		exec += " --request " + shellcmd.Quote(request)
	}
	if session != "" {
		exec += " --session " + shellcmd.Quote(session)
	}
	if wrap != SandboxTrackCwd {
		return exec + " -c " + shellcmd.Quote(command)
	}
	// The line's status stays the wrapper's last; the variables are the
	// host's shell's for this one command.
	return "__agent_shell_cwd=$(mktemp) && " + exec + ` --cwd-file "$__agent_shell_cwd" -c ` + shellcmd.Quote(command) +
		`; __agent_shell_status=$?; if [ -s "$__agent_shell_cwd" ]; then cd -- "$(cat "$__agent_shell_cwd")"; fi; ` +
		`rm -f "$__agent_shell_cwd"; (exit $__agent_shell_status)`
}

// RequestID is the host's id of a tool call, "" when the payload has none.
func (e *Event) RequestID() string {
	var id string
	if raw, ok := e.Meta["tool_use_id"]; ok && json.Unmarshal(raw, &id) == nil {
		return id
	}
	return ""
}
