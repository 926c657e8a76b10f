package policy

import (
	"context"
	"fmt"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/guard"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// pass is one run of the decision pipeline: on a hook event, on a bare
// command line, or on the command an interceptor rewrote one to.
type pass struct {
	event *hostapi.Event // the hook event; nil for a command line and for a rewrite
	raw   string         // the command line, as given
	req   Request
	// shim: the pass serves the npm shim, which has no guard and no
	// reviewers, and does not enforce what the rules say.
	shim bool
	// rewrites counts the interceptor rewrites that led to this pass.
	rewrites int
	// note is what the authorization adds to the end of the reason.
	note string

	d    Decision
	line *shellcmd.Line // the parsed command line, from the command stage on
	eval *evaluation    // the extensions' view, from the rules stage on
}

// decide runs the pipeline: every stage in this order, until one completes
// the decision. The restart after a rewrite (restart, in
// intercept_before.go) runs it again from the top.
func (e *Engine) decide(p *pass) Decision {
	stages := [...]func(*Engine, *pass) bool{
		(*Engine).guardStage,         // the built-in guard (guard.go): no configuration can overturn it
		(*Engine).authorizationStage, // a configuration no human authorized (authorized.go)
		(*Engine).commandStage,       // what there is to decide: load error, not a shell command, the parsed line
		(*Engine).rulesStage,         // policy.json, the manifest's rules and packs, matcher scripts, effects (rules.go)
		(*Engine).beforeStage,        // before-interceptors; a rewrite restarts, at most maxRewrites times (intercept_before.go)
		(*Engine).reviewStage,        // approval grants and reviewers, on an ask (review.go)
	}
	for _, stage := range stages {
		if stage(e, p) {
			break
		}
	}
	return p.d.withNote(p.note)
}

// DecideEvent decides on one hook event.
func (e *Engine) DecideEvent(ev *hostapi.Event) Decision {
	p := &pass{event: ev, raw: ev.Command,
		req: Request{Cwd: ev.Cwd, Home: e.Home, SessionID: ev.SessionID, Agent: ev.Agent, Tool: ev.Tool, DryRun: e.DryRun}}
	if e.Now != nil {
		p.req.Time = e.Now()
	}
	if e.EventTimeout > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), e.EventTimeout)
		defer cancel()
		p.req.Context = ctx
	}
	return e.decide(p)
}

// DecideRequest decides on one shell command line for a request. The
// built-in guard is the caller's: it runs here only on a rewrite.
func (e *Engine) DecideRequest(raw string, req Request) Decision {
	return e.decide(&pass{raw: raw, req: req})
}

// Decide decides on one shell command line run in cwd ("" when unknown).
func (e *Engine) Decide(raw, cwd string) Decision {
	return e.DecideRequest(raw, Request{Cwd: cwd})
}

// DecideShim decides on a command line for the npm shim: the rules decide
// only whether the interceptors run (the shim does not enforce them), no
// reviewer runs, and Decision.Intercept says what the interceptors did.
func (e *Engine) DecideShim(raw string, req Request) Decision {
	return e.decide(&pass{raw: raw, req: req, shim: true})
}

// guardStage: the guard depends on nothing of the project's policy, so no
// rule, load error, script or authorization state can overturn it, or
// change its reason. It sees a hook event, and a command an interceptor
// rewrote one to as the host's own; the npm shim has no guard.
func (e *Engine) guardStage(p *pass) bool {
	switch {
	case p.event != nil:
		var line *shellcmd.Line
		if ev := p.event; ev.Kind == hostapi.KindPreTool && ev.IsShell() && ev.CommandErr == nil {
			line = p.parsed()
		}
		d, ok := e.guardEvent(p.event, line)
		if ok {
			p.d = d
		}
		return ok
	case p.rewrites > 0 && !p.shim:
		if g := guard.Command(e.Root, p.req.Cwd, p.raw, p.parsed(), e.allowEdits()); g != nil {
			p.d = guardDecision(g)
			p.d.SoleGate = e.soleGate()
			return true
		}
	}
	return false
}

// authorizationStage: a configuration in force that no human authorized
// denies everything, or has every decision say so (LoadAuthorized). A
// rewrite's pass leaves the note to the pass it restarts.
func (e *Engine) authorizationStage(p *pass) bool {
	if e.auth.deny != "" {
		p.d = Decision{Action: ActionDeny, Reason: e.auth.deny}
		return true
	}
	if p.rewrites == 0 {
		p.note = e.auth.suffix
	}
	return false
}

// commandStage settles what there is to decide: a policy that did not load
// denies, a tool call that is not a shell command is allowed, a command
// that cannot be read denied, and without any policy every command is
// allowed; otherwise the command line is parsed for the rules.
func (e *Engine) commandStage(p *pass) bool {
	if e.LoadErr != nil {
		p.d = Decision{Action: ActionDeny, Reason: ErrLoad.Error()}
		return true
	}
	if ev := p.event; ev != nil {
		if ev.Kind != hostapi.KindPreTool || !ev.IsShell() {
			p.d = Decision{Action: ActionAllow, Reason: "not a shell command", SoleGate: e.soleGate()}
			return true
		}
		if ev.CommandErr != nil {
			p.d = Decision{Action: ActionDeny, Reason: ev.CommandErr.Error()}
			return true
		}
	}
	p.d = Decision{SoleGate: e.soleGate()}
	if e.File == nil && e.Manifest == nil {
		p.d.Action, p.d.Reason = ActionAllow, "no policy.json or agent-shell.toml: allowed by default"
		return true
	}
	p.d.Unknown = p.parsedLine().UnknownReason()
	return false
}

// parsedLine is the pass's command line parsed, once: the guard and the
// rules read the same Line.
func (p *pass) parsedLine() *shellcmd.Line {
	if p.line == nil {
		command := shellcmd.TrimSpace(p.raw)
		if len(command) > maxCommandBytes {
			// Parsing a megabyte of shell takes longer than a hook should; a
			// command this long is not one a policy can vouch for.
			p.line = &shellcmd.Line{Err: fmt.Errorf("%w: it is %d bytes, longer than the %d bytes checked", shellcmd.ErrTooLarge, len(command), maxCommandBytes)}
		} else {
			p.line = shellcmd.ParseWith(command, lineDisk(p.req.Cwd, p.req.Home))
		}
	}
	return p.line
}

// parsed is the parsed line for the guard, nil when the line is longer
// than the rules read: the guard reads further (guard.Command).
func (p *pass) parsed() *shellcmd.Line {
	if len(shellcmd.TrimSpace(p.raw)) > maxCommandBytes {
		return nil
	}
	return p.parsedLine()
}

// reviewStage runs the grants and reviewers (review.go); the npm shim has
// none.
func (e *Engine) reviewStage(p *pass) bool {
	if !p.shim {
		e.review(&p.d, p.eval, p.raw, p.line)
	}
	return true
}

func (e *Engine) soleGate() bool { return e.Manifest != nil && e.Manifest.Policy.SoleGate }

// maxCommandBytes bounds the command line that is parsed; a longer one is
// unknown.
const maxCommandBytes = 64 << 10
