package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/state"
)

// Reviewers and approval grants: the last step of a decision, run only when
// the rules say ask (a deny never gets here, so no reviewer or grant can
// overturn one).
//
//  1. Grants. Each simple command that asked is looked up among the live
//     grants of the request's session, then the durable ones. When every
//     one of them is covered, the line is allowed without running any
//     reviewer. A grant store that cannot be read denies (fail closed).
//  2. Reviewers. The commands no grant covers are reviewed one by one, each
//     by the [[reviewer]] chain in declaration order (strategy
//     first_terminal): defer (or a failure declared "defer") passes the
//     command to the next reviewer, any other answer ends its chain.
//     Reviewing stops at the first command denied. A reviewer sees its
//     command as shell-context-v1 with phase "shell_reviewer", the policy
//     decision (action, reason, matches) and offered_scopes.
//  3. The line: any command denied -> deny (the first denial's reason);
//     else any command whose reviewers all deferred -> ask stays, for the
//     host ("all reviewers deferred: <reason>"); else allow, and only then
//     are the grants the reviewers asked for stored (a store error denies).
//
// A reviewer reviews one simple command, not the line: "curl x && rm y"
// asks about curl and rm separately (when both asked), so that an answer,
// and a grant, is about one command whose identity can be checked later; a
// line is allowed only when every command that asked is approved or covered
// by a grant. The same command twice in one line is reviewed once.
//
// Answers: Review.approve() approves once (the scope "once", which must be
// offered too); Review.approve_for(scope) approves and leaves a grant of a
// scope the manifest offers ([approvals] scopes), and denies for a scope it
// does not offer, never downgrading silently; Review.deny(reason) denies
// "<script>: <reason>"; Review.rewrite(argv) denies, naming the suggested
// command (the hook path cannot run another command); Review.defer() passes.
// A failure (fuel, timeout, error, malformed answer, state) takes the
// script's declared failure: deny (the default) or defer. No failure
// approves.
//
// Grant identity (reference §7.2, with what the hook path knows): the scope
// parts are the manifest digest, the request kind ("shell"), the program
// identity, the cwd (cleaned) and a digest of what else changes what the
// command does: its environment assignments (PATH=... cmd) and
// redirections, in order (our stand-in for the reference's environment and
// stdin digests). The exact hash is GrantHash(scope parts ++ argv), where
// argv is the command's outermost layer (wrappers included, so a grant for
// `rm x` does not cover `sudo rm x`). The program identity is the innermost
// layer's program as written, shellcmd's Path: "name:<word>" for a word
// looked up in PATH, "path:<filepath.Clean(path)>" for one with a slash (a
// relative path is relative to the cwd, which is part of the identity).
// The hook path does not see the host's PATH or files, so the executable is
// not resolved or fingerprinted; a wrapper's own path is not kept by
// shellcmd either (its basename is in argv). exact_session: the same
// session and hash. prefix_session: the same session and scope hash, and an
// argv that starts with the approved request's full argv. durable_exact:
// the same hash, in any session, until it expires ([approvals]
// durable_days, default 30, at most 365) or is revoked.
//
// A command that is not static (an unknown program, a parameter
// expansion, a substitution, a dynamic redirection) has no identity a
// later request could be checked against: it is never looked up, and a
// reviewer's approve_for on it approves this request only (the review
// record says the grant was not stored).

// ReviewerDecl is one [[reviewer]], asked in declaration order about
// commands the rules say ask: a shell_reviewer script (script = "id"), or
// with kind = "model" a program that reaches a model (model.go).
type ReviewerDecl struct {
	Script string `toml:"script"`
	// Kind is "script" (the default) or "model".
	Kind string `toml:"kind"`
	// The keys of a model reviewer: its id (the reviewer's name in reasons,
	// grants and the record), the program and its arguments, how long it
	// may take, the largest request it is sent, and what its failure means.
	ID             string   `toml:"id"`
	Command        []string `toml:"command"`
	Timeout        string   `toml:"timeout"`
	MaxPromptBytes int      `toml:"max_prompt_bytes"`
	Failure        string   `toml:"failure"`

	timeout time.Duration
}

// The kinds of reviewer.
const (
	ReviewerScript = "script"
	ReviewerModel  = "model"
)

// Name is the reviewer's name: its script's id, or a model reviewer's id.
func (r *ReviewerDecl) Name() string {
	if r.Kind == ReviewerModel {
		return r.ID
	}
	return r.Script
}

// ApprovalsConfig is the manifest's [approvals] table.
type ApprovalsConfig struct {
	// Scopes lists the scopes reviewers may grant; default once and
	// exact_session.
	Scopes []string `toml:"scopes"`
	// DurableDays is how long a durable_exact grant lasts: default 30, at
	// most 365.
	DurableDays int `toml:"durable_days"`
}

var defaultScopes = []string{state.ScopeOnce, state.ScopeExactSession}

const (
	defaultDurableDays = 30
	maxDurableDays     = 365
	// grantTimeout bounds the wait for a grants file's lock.
	grantTimeout = 2 * time.Second
)

// validateReviewers checks [approvals] and the [[reviewer]] list, setting
// the defaults.
func (m *Manifest) validateReviewers() error {
	a := &m.Approvals
	fail := func(key string, line int, format string, args ...any) error {
		return &ManifestError{Path: m.Path, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if a.Scopes == nil {
		a.Scopes = slices.Clone(defaultScopes)
	}
	for i, s := range a.Scopes {
		if !state.ValidScope(s) {
			return fail("approvals.scopes", keyLine(m.src, "approvals", "scopes"), "%q: want %s", s, strings.Join(state.Scopes, ", "))
		}
		if slices.Contains(a.Scopes[:i], s) {
			return fail("approvals.scopes", keyLine(m.src, "approvals", "scopes"), "%q is listed twice", s)
		}
	}
	if a.DurableDays == 0 {
		a.DurableDays = defaultDurableDays
	}
	if a.DurableDays < 1 || a.DurableDays > maxDurableDays {
		return fail("approvals.durable_days", keyLine(m.src, "approvals", "durable_days"), "%d: want 1 to %d days", a.DurableDays, maxDurableDays)
	}
	lines := tableLines(m.src, "reviewer")
	for i, r := range m.Reviewers {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		key := fmt.Sprintf("reviewer[%d].script", i+1)
		switch r.Kind {
		case "", ReviewerScript:
			if k := r.modelKeys(); k != "" {
				return fail(fmt.Sprintf("reviewer[%d].%s", i+1, k), line, "%s is a key of kind = \"model\" reviewers; a script reviewer has only script", k)
			}
			s := m.script(r.Script)
			switch {
			case r.Script == "":
				return fail(key, line, "every reviewer names its shell_reviewer script (or is kind = \"model\" with a command)")
			case s == nil:
				return fail(key, line, "no [[script]] has id %q", r.Script)
			case builtins.Kind(s.Kind) != builtins.KindReviewer:
				return fail(key, line, "script %q is a %s, not a %s", r.Script, s.Kind, builtins.KindReviewer)
			}
		case ReviewerModel:
			if err := m.validateModelReviewer(i, r, line); err != nil {
				return err
			}
			key = fmt.Sprintf("reviewer[%d].id", i+1)
		default:
			return fail(fmt.Sprintf("reviewer[%d].kind", i+1), line, "%q: want script or model", r.Kind)
		}
		for _, prev := range m.Reviewers[:i] {
			if prev.Name() == r.Name() {
				return fail(key, line, "reviewer %q is listed twice", r.Name())
			}
		}
	}
	return nil
}

// modelKeys names the first model-reviewer key a declaration sets.
func (r *ReviewerDecl) modelKeys() string {
	switch {
	case r.ID != "":
		return "id"
	case r.Command != nil:
		return "command"
	case r.Timeout != "":
		return "timeout"
	case r.MaxPromptBytes != 0:
		return "max_prompt_bytes"
	case r.Failure != "":
		return "failure"
	}
	return ""
}

// maxModelTimeout bounds a model reviewer's timeout: the host waits for
// the hook meanwhile.
const maxModelTimeout = 10 * time.Minute

// validateModelReviewer checks a kind = "model" reviewer, setting its
// defaults: timeout 30s, max_prompt_bytes 32 KiB, failure deny.
func (m *Manifest) validateModelReviewer(i int, r *ReviewerDecl, line int) error {
	fail := func(key, format string, args ...any) error {
		return &ManifestError{Path: m.Path, Line: line, Key: fmt.Sprintf("reviewer[%d].%s", i+1, key), Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case m.inPack:
		return fail("kind", "a pack cannot declare a model reviewer: the project chooses which programs reach a model")
	case r.Script != "":
		return fail("script", "a model reviewer runs its command, not a script")
	case r.ID == "":
		return fail("id", "a model reviewer needs an id (its name in reasons, grants and the record)")
	case !validReviewerID(r.ID):
		return fail("id", "%q: use letters, digits, -, _ and . only", r.ID)
	case m.script(r.ID) != nil:
		return fail("id", "%q is also a [[script]] id; give the model reviewer its own", r.ID)
	case len(r.Command) == 0 || r.Command[0] == "":
		return fail("command", "a model reviewer needs command = [\"program\", \"arg\", ...]: the program that reaches the model")
	}
	r.timeout = runtime.DefaultModelTimeout
	if r.Timeout != "" {
		d, err := time.ParseDuration(r.Timeout)
		if err != nil || d <= 0 || d > maxModelTimeout {
			return fail("timeout", "%q: want a duration above 0 and at most %s, e.g. \"30s\"", r.Timeout, maxModelTimeout)
		}
		r.timeout = d
	}
	if r.MaxPromptBytes == 0 {
		r.MaxPromptBytes = runtime.DefaultModelPrompt
	}
	if r.MaxPromptBytes < 1024 || r.MaxPromptBytes > runtime.MaxModelPrompt {
		return fail("max_prompt_bytes", "%d: want 1024 to %d", r.MaxPromptBytes, runtime.MaxModelPrompt)
	}
	switch r.Failure {
	case "":
		r.Failure = "deny"
	case "deny", "defer":
	default:
		return fail("failure", "%q: want deny or defer (a failure never approves)", r.Failure)
	}
	return nil
}

func validReviewerID(id string) bool {
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return id != "" && len(id) <= 64
}

// ErrNoGrant is wrapped by the error of revoking an unknown grant.
var ErrNoGrant = state.ErrNoGrant

// StateDir is where the approval grants and the script state of the
// repository at root are kept: in the user's configuration directory
// (authority.ConfigDir), beside the record of what a human authorized, in
// a folder named after the repository's key. What is in it approves
// commands, so it lives outside the repository, where an agent that writes
// files there cannot forge a grant or a snapshot, and where the guard
// keeps shell commands from writing.
func StateDir(root string, getenv func(string) string) (string, error) {
	cfg, err := authority.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	key, err := authority.Key(root)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(cfg, "state", hex.EncodeToString(sum[:16])), nil
}

// GrantStore is the store of the approval grants (and script state) of the
// repository at root, in its StateDir.
func GrantStore(root string, getenv func(string) string) (*state.Store, error) {
	dir, err := StateDir(root, getenv)
	if err != nil {
		return nil, fmt.Errorf("approval grants and script state: %w", err)
	}
	return state.Open(dir), nil
}

// stateStore is GrantStore, nil when there is no configuration directory:
// then no grant is kept and every script starts from empty state.
func stateStore(root string, getenv func(string) string) *state.Store {
	s, _ := GrantStore(root, getenv)
	return s
}

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
	case "", "grant", "approve", "approve_for", "deny", "rewrite", "defer":
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
	payload := func() map[string]any {
		matches := make([]any, 0, len(it.matches))
		for _, mt := range it.matches {
			var reason any
			if mt.Reason != "" {
				reason = mt.Reason
			}
			matches = append(matches, map[string]any{"rule_id": mt.RuleID, "action": mt.Action, "reason": reason})
		}
		program := it.argv[0]
		if len(it.cmd.Layers) == 1 && it.cmd.Path != "" {
			program = it.cmd.Path
		}
		ev.ensureRequestID()
		p := hookContext("approval_request", ev.requestID, ev.req.SessionID, m.Digest, ev.req.Cwd, program, it.argv, it.effects,
			map[string]any{"action": string(ActionAsk), "reason": ruleReason, "matches": matches})
		p["display_command"] = quoteWords(it.argv)
		p["rationale"] = nil
		scopes := make([]any, len(offered))
		for i, sc := range offered {
			scopes[i] = sc
		}
		p["offered_scopes"] = scopes // our addition: reviewers know what they may grant
		return p
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
			if rv.failure(m) == "defer" {
				step.Outcome = "defer"
				r.Steps = append(r.Steps, step)
				continue
			}
			done("deny", fmt.Sprintf("Command '%s' denied: reviewer %s failed (%s: %v)", raw, id, res.Failure, res.Err))
			return
		}
		switch a.Op {
		case "defer":
			step.Outcome = "defer"
			r.Steps = append(r.Steps, step)
			continue
		case "deny":
			step.Reason = a.Reason
			done("deny", fmt.Sprintf("%s: %s", id, a.Reason))
			return
		case "rewrite":
			step.Reason = "suggests: " + quoteWords(a.Argv)
			done("deny", fmt.Sprintf("Command '%s' denied: reviewer %s suggests: %s", raw, id, quoteWords(a.Argv)))
			return
		case "approve", "approve_for":
			scope := state.ScopeOnce
			if a.Op == "approve_for" {
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

// newGrant is the grant a reviewer gives one command.
// A reviewer's own expiry (an executable's expires_at) can only shorten the
// grant, never make a durable one outlast [approvals] durable_days.
func (e *Engine) newGrant(it *askItem, ev *evaluation, reviewer, scope string, expires time.Time) *state.Grant {
	g := &state.Grant{
		ID: state.NewGrantID(), Scope: scope, Hash: it.query.Hash, ScopeHash: it.query.ScopeHash,
		Argv: it.argv, Program: it.program, Cwd: cleanCwd(ev.req.Cwd), ManifestSHA256: e.Manifest.Digest,
		Reviewer: reviewer, CreatedAt: ev.req.Time,
	}
	if state.SessionScope(scope) {
		g.SessionID = ev.req.SessionID
	}
	if scope == state.ScopeDurableExact {
		exp := ev.req.Time.Add(time.Duration(e.Manifest.Approvals.DurableDays) * 24 * time.Hour)
		g.ExpiresAt = &exp
	}
	if !expires.IsZero() && (g.ExpiresAt == nil || expires.Before(*g.ExpiresAt)) {
		g.ExpiresAt = &expires
	}
	return g
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
				pm := builtins.PolicyMatch{RuleID: mt.Rule, Action: string(mt.Action), Reason: mt.Reason}
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

// programIdentity is the program of a command's innermost layer as
// written: "name:git" for a word looked up in PATH, "path:/usr/bin/git"
// (cleaned) for a path.
func programIdentity(c *shellcmd.Command) string {
	p := c.Path
	if p == "" && len(c.Argv) > 0 {
		p = c.Argv[0]
	}
	if strings.Contains(p, "/") {
		return "path:" + filepath.Clean(p)
	}
	return "name:" + p
}

// commandContext digests what changes a command's meaning beside its argv:
// its environment assignments and redirections, in order.
func commandContext(c *shellcmd.Command) string {
	if len(c.Assigns) == 0 && len(c.Redirects) == 0 {
		return ""
	}
	parts := make([]string, 0, len(c.Assigns)+len(c.Redirects))
	for _, a := range c.Assigns {
		parts = append(parts, "assign "+a)
	}
	for _, r := range c.Redirects {
		parts = append(parts, "redirect "+r.Op+" "+r.Target)
	}
	return state.GrantHash(parts...)
}

func cleanCwd(cwd string) string {
	if cwd == "" {
		return ""
	}
	return filepath.Clean(cwd)
}

// grantStore is where the engine keeps grants: the StateDir of the
// repository it was loaded for, or the store it was built with; nil when it
// has none, and then no grant is found or stored.
func (e *Engine) grantStore() *state.Store { return e.store }

// reviewContext builds shell-context-v1 for a reviewer: the command's
// outermost layer, the effects of all its layers, the policy decision, and
// offered_scopes, the scopes Review.approve_for may grant (reference §13
// item 10; builtins.Context has no such field, so it is added here).
func (e *Engine) reviewContext(ev *evaluation, it *askItem, ruleReason string) starlark.Value {
	ev.ensureRequestID()
	program := it.argv[0]
	if len(it.cmd.Layers) == 1 && it.cmd.Path != "" {
		program = it.cmd.Path
	}
	c := &builtins.Context{
		Phase: "shell_reviewer", RequestID: ev.requestID, SessionID: ev.req.SessionID, Agent: ev.req.Agent, Tool: ev.req.Tool,
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

// failure is what a reviewer's failure means: "deny" or "defer".
func (r *ReviewerDecl) failure(m *Manifest) string {
	if r.Kind == ReviewerModel {
		return r.Failure
	}
	if decl := m.script(r.Script); decl != nil && decl.Failure == "defer" {
		return "defer"
	}
	return "deny"
}
