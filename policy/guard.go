package policy

import (
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/guard"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The built-in guard (package guard) is the first stage of every pre-tool
// decision: it depends on nothing of the project's policy but the paths an
// authorized manifest opens.

// allowEdits returns the paths the manifest's [guard] allow_agent_edits
// opens, and only when the configuration in force is the one a human
// authorized (Authorized, set by LoadAuthorized): otherwise an agent that
// could write the manifest could open the guard with it.
func (e *Engine) allowEdits() []string {
	if e == nil || !e.Authorized || e.Manifest == nil {
		return nil
	}
	return e.Manifest.Guard.AllowAgentEdits
}

// guardEvent is the guard's decision on a pre-tool event, if it has one.
// It depends on nothing of the project's policy, so it must come before
// everything else a decision looks at.
func (e *Engine) guardEvent(ev *hostapi.Event, line *shellcmd.Line) (Decision, bool) {
	if ev == nil || ev.Kind != hostapi.KindPreTool {
		return Decision{}, false
	}
	g := guard.Check(e.Root, ev, line, e.allowEdits())
	if g == nil {
		return Decision{}, false
	}
	return guardDecision(g), true
}

// guardDecision is a guard denial as the decision it makes.
func guardDecision(g *guard.Denial) Decision {
	return Decision{Action: ActionDeny, Rule: "guard:" + g.Guard, Guard: g.Guard, Reason: g.Reason}
}

// ProtectedPaths lists, as absolute paths, what the built-in guards keep an
// agent's commands from changing, for the kernel to make read-only in
// enforced mode (guard.ProtectedPaths), less what an authorized
// allow_agent_edits opens whole. e may be nil (nothing is opened).
func (e *Engine) ProtectedPaths(root string) []string {
	return guard.ProtectedPaths(root, e.allowEdits())
}
