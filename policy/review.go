package policy

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/state"
)

// Review is what the approval stage did with an ask, kept on the decision
// for `policy explain` and for the record: one step per grant used and per
// reviewer answer.
type Review struct {
	Outcome string // one of the Review* outcomes
	Steps   []ReviewStep
}

// The outcomes of a review.
const (
	ReviewGranted  = "granted"  // live grants covered every command that asked: allow
	ReviewApproved = "approved" // reviewers (and maybe grants) approved every command: allow
	ReviewDenied   = "denied"   // a reviewer, a failure or the grant store denied
	ReviewDeferred = "deferred" // some command's reviewers all deferred: ask stays
	ReviewSkipped  = "skipped"  // nothing could be reviewed (see the step's reason): ask stays
)

// ReviewStep is one grant used or one reviewer's answer about one simple
// command: what a `review` audit event records.
type ReviewStep struct {
	Command []string // the simple command (its outermost layer)
	// Reviewer is the reviewer script that answered, or for a grant used,
	// the one that granted it.
	Reviewer string
	// Answer is "grant" (a live grant covered the command), "approve",
	// "approve_for", "deny", "rewrite", "defer", a failure ("fuel",
	// "timeout", "error", "malformed", "state", "input"), or "store" (the
	// grant store failed).
	Answer string
	Scope  string // the scope granted, asked for or used
	Grant  string // the grant used or stored
	// Outcome is what the step did: "allow", "deny", "defer" (next
	// reviewer, or the host when it was the last), "skip".
	Outcome string
	// Reason says why: a reviewer's deny reason, the suggested command, the
	// failure, the store error, a grant not stored.
	Reason string
}

// CommandLine is the step's command as a shell command line.
func (s ReviewStep) CommandLine() string { return quoteWords(s.Command) }

// Failed reports whether the step is a reviewer's failure (or the grant
// store's), whose Reason then says why.
func (s ReviewStep) Failed() bool {
	switch s.Answer {
	case "", "grant", builtins.OpApprove, builtins.OpApproveFor, builtins.OpDeny, builtins.OpRewrite, builtins.OpDefer:
		return false
	}
	return true
}

// askItem is one simple command that asked.
type askItem struct {
	cmd       *shellcmd.Command
	argv      []string // the outermost layer
	effects   []string
	matches   []builtins.PolicyMatch
	grantable bool
	query     state.GrantQuery
	program   string // program identity
	shifted   bool   // an earlier command of the line changes the directory or environment
	dup       int    // index of an earlier item with the same identity, or -1

	// the outcome
	outcome string // "allow", "deny", "defer"
	reason  string
	grant   *state.Grant // the grant used or to store
	store   bool         // grant is to be stored
}

// review runs the approval stage on a decision that says ask.
func (e *Engine) review(d *Decision, ev *evaluation, raw string, line *shellcmd.Line) {
	m := e.Manifest
	if d.Action != ActionAsk || m == nil || len(m.Reviewers) == 0 || m.runtime == nil {
		return
	}
	r := &Review{}
	d.Review = r
	skip := func(why string) {
		r.Outcome = ReviewSkipped
		r.Steps = append(r.Steps, ReviewStep{Outcome: "skip", Reason: why})
	}
	if line.Err != nil {
		skip("the command line cannot be analysed: " + line.Err.Error())
		return
	}
	items, ok := e.askItems(d, ev, line)
	if !ok {
		skip("the commands that asked cannot be told apart")
		return
	}
	if len(items) == 0 {
		skip("no simple command asked")
		return
	}
	now := ev.req.Time
	// Each use of the store gets its own deadline: reviewers run in between.
	storeCtx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(ev.req.Context, grantTimeout)
	}
	store := e.grantStore()
	ruleReason := d.Reason

	deny := func(reason string) {
		d.Action, d.Reason = ActionDeny, reason
		r.Outcome = ReviewDenied
	}

	// 1. Grants.
	if store != nil {
		var qs []state.GrantQuery
		var idx []int
		for i, it := range items {
			if it.grantable && it.dup < 0 {
				qs, idx = append(qs, it.query), append(idx, i)
			}
		}
		if len(qs) > 0 {
			ctx, cancel := storeCtx()
			found, err := store.UseGrants(ctx, ev.req.SessionID, qs, now)
			cancel()
			if err != nil {
				r.Steps = append(r.Steps, ReviewStep{Answer: "store", Outcome: "deny", Reason: err.Error()})
				deny(fmt.Sprintf("Command '%s' denied: approval grants cannot be read: %v", raw, err))
				return
			}
			for k, g := range found {
				if g == nil {
					continue
				}
				it := items[idx[k]]
				it.outcome, it.grant = "allow", g
				it.reason = fmt.Sprintf("approved by grant %s (%s, by reviewer %s)", g.ID, g.Scope, g.Reviewer)
				r.Steps = append(r.Steps, ReviewStep{Command: it.argv, Reviewer: g.Reviewer, Answer: "grant",
					Scope: g.Scope, Grant: g.ID, Outcome: "allow"})
			}
		}
	}

	// 2. Reviewers, for what no grant covers.
	for _, it := range items {
		if it.dup >= 0 {
			first := items[it.dup]
			it.outcome, it.reason, it.grant = first.outcome, first.reason, first.grant
			continue
		}
		if it.outcome != "" {
			continue
		}
		e.reviewItem(it, d, ev, r, raw, ruleReason)
		if it.outcome == "deny" {
			deny(it.reason)
			return
		}
	}

	// 3. The line.
	var reasons []string
	granted := true
	for _, it := range items {
		switch it.outcome {
		case "defer":
			d.Reason = "all reviewers deferred: " + ruleReason
			r.Outcome = ReviewDeferred
			return
		case "allow":
			if it.grant == nil || it.store {
				granted = false
			}
			if !slices.Contains(reasons, it.reason) {
				reasons = append(reasons, it.reason)
			}
		}
	}
	var toStore []*state.Grant
	for _, it := range items {
		if it.store { // never set on a duplicate, which shares its first item's grant
			toStore = append(toStore, it.grant)
		}
	}
	if len(toStore) > 0 && !ev.req.DryRun {
		err := fmt.Errorf("no state folder to keep grants in")
		if store != nil {
			ctx, cancel := storeCtx()
			err = store.AddGrants(ctx, toStore, now)
			cancel()
		}
		if err != nil {
			r.Steps = append(r.Steps, ReviewStep{Answer: "store", Outcome: "deny", Reason: err.Error()})
			deny(fmt.Sprintf("Command '%s' denied: the reviewer's grant cannot be stored: %v", raw, err))
			return
		}
	}
	d.Action, d.Reason = ActionAllow, strings.Join(reasons, "; ")
	r.Outcome = ReviewApproved
	if granted {
		r.Outcome = ReviewGranted
	}
}

// reviewItem runs the reviewer chain on one command and sets its outcome.
func (e *Engine) reviewItem(it *askItem, d *Decision, ev *evaluation, r *Review, raw, ruleReason string) {
	m := e.Manifest
	offered := m.Approvals.Scopes
	var input starlark.Value
	inputErr := ev.checkInput(it.argv, it.effects, it.cmd)
	if inputErr == nil {
		input = e.reviewContext(ev, it, ruleReason)
	}
	payload := func() runtime.HookPayload {
		program := it.argv[0]
		if len(it.cmd.Layers) == 1 && it.cmd.Path != "" {
			program = it.cmd.Path
		}
		ev.ensureRequestID()
		return runtime.CommandRequest{Event: runtime.HookEventReview, RequestID: ev.requestID, SessionID: ev.req.SessionID,
			ManifestSHA256: m.Digest, Cwd: ev.req.Cwd, Argv: it.argv, Path: program, Effects: it.effects,
			Policy: &runtime.RequestPolicy{Action: string(ActionAsk), Reason: ruleReason, Matches: it.matches},
			Review: &runtime.ReviewRequest{DisplayCommand: quoteWords(it.argv), OfferedScopes: offered}}
	}
	for _, rv := range m.Reviewers {
		id := rv.Name()
		var res runtime.Result
		kind := builtins.KindReviewer
		switch {
		case rv.Kind == ReviewerModel:
			kind = KindModelReviewer
			res = e.reviewByModel(ev, it, rv, ruleReason)
		case inputErr != nil:
			res = runtime.Result{Failure: runtime.FailInput, Err: inputErr}
		default:
			res = m.invoke(ev.req.Context, id, ev.req.SessionID, func() (starlark.Value, error) { return input, nil }, payload)
		}
		d.Extensions = append(d.Extensions, extensionRun(id, kind, res))
		step := ReviewStep{Command: it.argv, Reviewer: id, Answer: res.Outcome()}
		done := func(outcome, reason string) {
			step.Outcome, it.outcome, it.reason = outcome, outcome, reason
			if outcome == "deny" && step.Reason == "" {
				step.Reason = reason
			}
			r.Steps = append(r.Steps, step)
		}
		a := res.Action
		if a == nil {
			step.Reason = fmt.Sprintf("%s: %v", res.Failure, res.Err)
			if rv.failure(m) == runtime.OnFailureDefer {
				step.Outcome = "defer"
				r.Steps = append(r.Steps, step)
				continue
			}
			done("deny", fmt.Sprintf("Command '%s' denied: reviewer %s failed (%s: %v)", raw, id, res.Failure, res.Err))
			return
		}
		switch a.Op {
		case builtins.OpDefer:
			step.Outcome = "defer"
			r.Steps = append(r.Steps, step)
			continue
		case builtins.OpDeny:
			step.Reason = a.Reason
			done("deny", fmt.Sprintf("%s: %s", id, a.Reason))
			return
		case builtins.OpRewrite:
			step.Reason = "suggests: " + quoteWords(a.Argv)
			done("deny", fmt.Sprintf("Command '%s' denied: reviewer %s suggests: %s", raw, id, quoteWords(a.Argv)))
			return
		case builtins.OpApprove, builtins.OpApproveFor:
			scope := state.ScopeOnce
			if a.Op == builtins.OpApproveFor {
				scope = a.Scope
			}
			step.Scope = scope
			if !slices.Contains(offered, scope) {
				done("deny", fmt.Sprintf("Command '%s' denied: reviewer %s granted scope %s, which the manifest does not offer ([approvals] scopes = [%s])",
					raw, id, scope, strings.Join(offered, ", ")))
				return
			}
			switch {
			case scope == state.ScopeOnce:
				done("allow", fmt.Sprintf("approved once by reviewer %s", id))
			case !it.grantable:
				step.Reason = fmt.Sprintf("grant not stored: the command is not static (%s), so it is approved this once", it.notStatic())
				done("allow", fmt.Sprintf("approved once by reviewer %s (%s granted, but %s)", id, scope, step.Reason))
			case state.SessionScope(scope) && ev.req.SessionID == "":
				step.Reason = "grant not stored: the request has no session id to keep it with, so it is approved this once"
				done("allow", fmt.Sprintf("approved once by reviewer %s (%s granted, but %s)", id, scope, step.Reason))
			default:
				g := e.newGrant(it, ev, id, scope, res.ExpiresAt)
				step.Grant = g.ID
				it.grant, it.store = g, true
				done("allow", fmt.Sprintf("approved by reviewer %s for %s (grant %s)", id, scope, g.ID))
			}
			return
		}
		// An op the runtime should never let through.
		done("deny", fmt.Sprintf("Command '%s' denied: reviewer %s answered %s", raw, id, a))
		return
	}
	it.outcome = "defer"
}

// askItems lists the simple commands of a line whose decision is ask,
// from the decision's reports (one per layer of each command, in order).
// It reports false when the reports do not line up with the line.
func (e *Engine) askItems(d *Decision, ev *evaluation, line *shellcmd.Line) ([]*askItem, bool) {
	reports, ok := commandReports(d, line)
	if !ok {
		return nil, false
	}
	var items []*askItem
	// Once a command of the line changes the shell's state (cd, export, a
	// bare assignment, source...), the commands after it run somewhere or
	// with something the grant identity does not see: they are approved
	// once, never by or into a grant.
	changed := len(line.Assigns) > 0
	for ci, reps := range reports {
		c := &line.Commands[ci]
		shifted := changed
		if len(c.Argv) > 0 && changesShell[c.Argv[0]] {
			changed = true
		}
		asked := false
		it := &askItem{cmd: c, argv: c.Layers[0], dup: -1}
		for _, rep := range reps {
			if rep.Action == ActionAsk {
				asked = true
			}
			it.effects = appendNew(it.effects, rep.Effects...)
			for _, mt := range rep.Matches {
				pm := builtins.PolicyMatch{RuleID: mt.Rule, Action: string(mt.Action), Reason: mt.Reason()}
				if !slices.Contains(it.matches, pm) {
					it.matches = append(it.matches, pm)
				}
			}
		}
		if !asked {
			continue
		}
		it.grantable = c.Unknown == "" && !c.Dynamic && !c.Substitution && !shifted
		it.shifted = shifted
		for _, rd := range c.Redirects {
			if rd.Dynamic {
				it.grantable = false
			}
		}
		it.program = programIdentity(c)
		parts := []string{e.Manifest.Digest, "shell", it.program, cleanCwd(ev.req.Cwd), commandContext(c)}
		it.query = state.GrantQuery{ScopeHash: state.GrantHash(parts...), Hash: state.GrantHash(append(parts, it.argv...)...), Argv: it.argv}
		for j, prev := range items {
			if prev.query.Hash == it.query.Hash {
				it.dup = j
				break
			}
		}
		items = append(items, it)
	}
	return items, true
}

// changesShell are the commands after which the rest of a line runs in
// another directory or environment than the request says.
var changesShell = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "export": true, "unset": true, "set": true, "source": true, ".": true,
	"declare": true, "typeset": true, "local": true, "readonly": true, "alias": true, "shopt": true, "umask": true,
	"eval": true, "hash": true, "enable": true, "builtin": true,
}

func (it *askItem) notStatic() string {
	switch {
	case it.shifted:
		return "an earlier command of the line changes its directory or environment"
	case it.cmd.Unknown != "":
		return it.cmd.Unknown
	case it.cmd.Substitution:
		return "it has a substitution"
	case it.cmd.Dynamic:
		return "a word is only known when it runs"
	}
	return "a redirection target is only known when it runs"
}

// reviewContext builds shell-context-v1 for a reviewer: the command's
// outermost layer, the effects of all its layers, the policy decision, and
// offered_scopes, the scopes Review.approve_for may grant (an addition to
// the original payload, docs/hook-protocol.md, "Where agent-shell is
// stricter"; builtins.Context has no such field, so it is added here).
func (e *Engine) reviewContext(ev *evaluation, it *askItem, ruleReason string) starlark.Value {
	ev.ensureRequestID()
	program := it.argv[0]
	if len(it.cmd.Layers) == 1 && it.cmd.Path != "" {
		program = it.cmd.Path
	}
	c := &builtins.Context{
		Phase: builtins.PhaseReviewer, RequestID: ev.requestID, SessionID: ev.req.SessionID, Agent: ev.req.Agent, Tool: ev.req.Tool,
		Argv: it.argv, Program: program, Cwd: ev.req.Cwd, Effects: it.effects, Timestamp: ev.timestamp,
		Policy: &builtins.Policy{Action: string(ActionAsk), Reason: ruleReason, Matches: it.matches},
	}
	ev.fill(c, it.cmd)
	v := c.Value()
	s, ok := v.(*starlarkstruct.Struct)
	if !ok {
		return v
	}
	fields := starlark.StringDict{}
	s.ToStringDict(fields)
	scopes := make(starlark.Tuple, len(e.Manifest.Approvals.Scopes))
	for i, sc := range e.Manifest.Approvals.Scopes {
		scopes[i] = starlark.String(sc)
	}
	fields["offered_scopes"] = scopes
	out := starlarkstruct.FromStringDict(s.Constructor(), fields)
	out.Freeze()
	return out
}

// quoteWords renders argv as a shell command line.
func quoteWords(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		q, err := builtins.QuoteWord(a)
		if err != nil {
			q = fmt.Sprintf("%q", a)
		}
		out[i] = q
	}
	return strings.Join(out, " ")
}
