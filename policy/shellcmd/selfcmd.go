package shellcmd

import (
	"fmt"
	"strings"
)

// agent-shell runs commands two ways: as npm's script-shell (agent-shell
// -c LINE [ARG0 ARG...], which records the line and runs it with bash)
// and with agent-shell exec [--] COMMAND... or exec -c LINE (in the
// sandbox, which keeps agent-shell's own files read-only and nothing
// else unless [enforce] write says so). Neither is a way around the
// rules: what they run is walked as what sh -c or a wrapper runs.

// agentShellStep unwraps agent-shell exec COMMAND....
func agentShellStep(l []word) step {
	line, op, why := agentShellExec(l)
	switch {
	case why != "":
		return unknownStep(why)
	case op < 0 || line != nil:
		return step{} // not exec, or exec -c LINE: a shell body (agentShellBody)
	}
	return wrapAt(op, l)
}

// agentShellBody finds the line agent-shell -c or agent-shell exec -c
// runs.
func agentShellBody(l []word) bodyResult {
	if len(l) > 1 && !l[1].dyn && l[1].s == "-c" {
		return shellBody("agent-shell", l)
	}
	if line, _, why := agentShellExec(l); why == "" && line != nil {
		return oneBody("agent-shell exec -c", *line)
	}
	return bodyResult{}
}

// agentShellExec reads agent-shell exec's flags as its command-line
// library does (--name=V or --name V, -c V or -cV): line is -c's value, or
// nil, and op the index of the command, -1 when l is no exec.
func agentShellExec(l []word) (line *word, op int, why string) {
	if len(l) < 2 || l[1].dyn || l[1].s != "exec" {
		return nil, -1, ""
	}
	for i := 2; i < len(l); i++ {
		x := l[i]
		if x.dyn {
			return nil, -1, fmt.Sprintf("agent-shell exec: option or program %q is not static", x.s)
		}
		name, v, eq := strings.Cut(x.s, "=")
		switch {
		case x.s == "--":
			return line, i + 1, ""
		case name == "-c" || name == "--command" || strings.HasPrefix(x.s, "-c"):
			switch {
			case eq:
				line = &word{s: v}
			case x.s != "-c" && x.s != "--command":
				line = &word{s: x.s[2:]}
			case i+1 < len(l):
				i++
				line = &l[i]
			}
		case name == "--request" || name == "--session" || name == "--cwd-file":
			if !eq {
				i++
			}
		case strings.HasPrefix(x.s, "-"):
		default:
			return line, i, ""
		}
	}
	return line, len(l), ""
}
