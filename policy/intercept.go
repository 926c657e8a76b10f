package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"

	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/internal/textcut"
)

// Interceptors: [[interceptor]] script = "ID", phase = "before" | "after".
//
// Before-interceptors run after the rules, only when the rules (and the
// guard before them) did not deny, and before grants and reviewers. Each
// simple command of the line goes, in line order, through the
// before-interceptors in declaration order. An interceptor's optional match
// (the rule matcher syntax) is tested against the command's layers,
// outermost first, with the rule matcher code: the first layer it holds for
// is the one the interceptor sees (a matcher script that fails counts as a
// match, so the interceptor runs; one whose declared failure is deny denies
// the line); without a match the interceptor sees the outermost layer. The
// script gets shell-context-v1 with phase "shell_before" and the line's
// policy decision (action, reason, and the matches of that command), or,
// for an executable, the before_command payload of shell-hook-json-v1.
//
//   - Intercept.proceed(): the next interceptor (then the next command).
//   - Intercept.reject(reason): deny "<id>: <reason>".
//   - Intercept.rewrite(argv): the argv, quoted as one simple command,
//     replaces the whole line, and the decision restarts from the top with
//     it: the guard (not on the npm shim), the rules, the interceptors and
//     the reviewers again. At most 8 restarts; the 9th rewrite denies. A
//     line that is not one simple command (several commands, a pipeline, a
//     substitution, a redirection or an environment assignment, which the
//     argv cannot carry) is denied naming the rewrite instead.
//   - Intercept.respond(stdout, stderr, exit): nothing runs; the synthetic
//     result (finalized: terminal escapes stripped, redacted, bounded)
//     stands for the command. On a line that is not one simple command it
//     is denied naming the answer, as a rewrite is.
//   - A failure (fuel, timeout, error, malformed answer, state, input) takes
//     the script's declared failure: deny (the default) names the
//     interceptor and the failure; proceed goes on to the next.
//
// How a path uses the outcome (Decision.Intercept): on the hook path a
// reject, a respond (its output in the reason) and a failure are denies, and
// a rewrite that the rules then allow is rendered by HookVerdict as the
// host's input rewrite where the adapter can carry one, else as a deny
// naming it. The npm shim (DecideShim) runs the rewritten command, prints a
// synthetic result without running anything, or refuses to run; it does
// not enforce the rules' own allow/ask/deny (they only decide whether the
// interceptors run), and it never runs reviewers.
//
// After-interceptors (no match) see every finished command's finalized
// output as shell-result-v1 (phase "shell_after"), in declaration order:
// Result.keep(), Result.replace(stdout, stderr) (re-finalized; the exit
// status never changes), Result.reject_disclosure(reason) (the output is
// withheld). A failure is the declared failure: deny (the default)
// withholds the output, keep keeps it. See After.

// InterceptorDecl is one [[interceptor]].
type InterceptorDecl struct {
	Script string   `toml:"script"`
	Phase  string   `toml:"phase"` // "before" or "after"
	Match  *Matcher `toml:"match"` // before only: when the interceptor runs
}

// The phases of an interceptor.
const (
	PhaseBefore = "before"
	PhaseAfter  = "after"
)

// maxRewrites bounds the restarts an interceptor's rewrites cause.
const maxRewrites = 8

// Output limits: what is captured of each stream of a command whose output
// after-interceptors see, and what a synthetic or replaced output keeps.
const (
	MaxInterceptOutput = builtins.MaxOutput // 256 KiB per stream
	// maxReasonOutput bounds each stream of a synthetic result quoted in a
	// hook's deny reason or added context.
	maxReasonOutput = 4 << 10
)

// validateInterceptors checks the [[interceptor]] list.
func (m *Manifest) validateInterceptors() error {
	lines := tableLines(m.src, "interceptor")
	for i, ic := range m.Interceptors {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		fail := func(key, format string, args ...any) error {
			return &ManifestError{Path: m.Path, Line: line, Key: fmt.Sprintf("interceptor[%d].%s", i+1, key), Msg: fmt.Sprintf(format, args...)}
		}
		var want builtins.Kind
		switch ic.Phase {
		case PhaseBefore:
			want = builtins.KindBefore
		case PhaseAfter:
			want = builtins.KindAfter
		case "":
			return fail("phase", "every interceptor says its phase: \"before\" or \"after\"")
		default:
			return fail("phase", "%q: want \"before\" or \"after\"", ic.Phase)
		}
		s := m.script(ic.Script)
		switch {
		case ic.Script == "":
			return fail("script", "every interceptor names its %s script", want)
		case s == nil:
			return fail("script", "no [[script]] has id %q", ic.Script)
		case builtins.Kind(s.Kind) != want:
			return fail("script", "script %q is a %s, not a %s (phase %q)", ic.Script, s.Kind, want, ic.Phase)
		}
		for _, prev := range m.Interceptors[:i] {
			if prev.Script == ic.Script {
				return fail("script", "interceptor %q is listed twice", ic.Script)
			}
		}
		if ic.Match == nil {
			continue
		}
		if ic.Phase == PhaseAfter {
			return fail("match", "an after-interceptor has no match: it sees every finished command's output")
		}
		if err := ic.Match.compile(); err != nil {
			return fail("match", "interceptor %q: %v", ic.Script, err)
		}
		for _, id := range ic.Match.scriptRefs(nil) {
			ms := m.script(id)
			if ms == nil {
				return fail("match.script", "no [[script]] has id %q", id)
			}
			if builtins.Kind(ms.Kind) != builtins.KindMatcher {
				return fail("match.script", "script %q is a %s, not a %s", id, ms.Kind, builtins.KindMatcher)
			}
		}
	}
	return nil
}

// interceptors lists the interceptors of one phase, in declaration order.
func (m *Manifest) interceptors(phase string) []*InterceptorDecl {
	if m == nil {
		return nil
	}
	var out []*InterceptorDecl
	for _, ic := range m.Interceptors {
		if ic.Phase == phase {
			out = append(out, ic)
		}
	}
	return out
}

// HasInterceptors reports whether the engine's manifest declares any
// interceptor (and loaded).
func (e *Engine) HasInterceptors() bool {
	return e != nil && e.LoadErr == nil && e.Manifest != nil && e.Manifest.runtime != nil && len(e.Manifest.Interceptors) > 0
}

// HasBeforeInterceptors reports whether the engine's manifest declares a
// before-interceptor.
func (e *Engine) HasBeforeInterceptors() bool {
	return e.HasInterceptors() && len(e.Manifest.interceptors(PhaseBefore)) > 0
}

// HasAfterInterceptors reports whether the engine's manifest declares an
// after-interceptor.
func (e *Engine) HasAfterInterceptors() bool {
	return e.HasInterceptors() && len(e.Manifest.interceptors(PhaseAfter)) > 0
}

// ConfigText is what a process that loads the policy only when it may
// need it (the npm shim) looks in first, without loading anything: the
// text of the configuration that may be in force under a root, the
// manifest and every authorized copy's (which decides while the current
// one is not authorized), read once. Mentions errs on the side of yes (a
// manifest it cannot read counts), so that a caller skipping the load when
// it says no never skips an interceptor, a sandbox or an audit filter.
type ConfigText struct {
	texts      [][]byte
	unreadable bool // a manifest or the authorized copies could not be read
}

// ReadConfigText reads the configuration's texts.
func ReadConfigText(root string) *ConfigText {
	c := &ConfigText{}
	read := func(path string) {
		data, err := readConfined(root, path, maxManifestBytes)
		switch {
		case err == nil:
			c.texts = append(c.texts, data)
		case !errors.Is(err, fs.ErrNotExist):
			c.unreadable = true
		}
	}
	read(filepath.Join(root, ManifestSubpath))
	dir := filepath.Join(root, filepath.FromSlash(AuthorizedSubpath))
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.unreadable = c.unreadable || !errors.Is(err, fs.ErrNotExist)
		return c
	}
	for _, d := range entries {
		if d.IsDir() {
			read(filepath.Join(dir, d.Name(), ManifestSubpath))
		}
	}
	return c
}

// Mentions reports whether the configuration may mention word: a text says
// it, or one could not be read (which errs on the side of loading).
func (c *ConfigText) Mentions(word string) bool {
	if c.unreadable {
		return true
	}
	for _, t := range c.texts {
		if bytes.Contains(t, []byte(word)) {
			return true
		}
	}
	return false
}

// Interception is what the before-interceptors did to a decision.
type Interception struct {
	// Outcome is InterceptProceed (nothing changed), InterceptRewrite (the
	// command to run is Command), InterceptRespond (nothing runs; the
	// synthetic result is Stdout, Stderr, Exit) or InterceptDeny (a reject, a
	// failure, a refused rewrite or answer, too many rewrites).
	Outcome string
	// Interceptor is the one whose answer decided ("" for proceed).
	Interceptor string
	// Command is, after a rewrite, the command line that runs instead (the
	// last one, after every restart).
	Command string
	// Rewrites counts the restarts.
	Rewrites int
	// The synthetic result of a respond, finalized.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	Exit                             int
	// Steps lists every interceptor that ran, in order, across restarts.
	Steps []InterceptStep
}

// The outcomes of an Interception.
const (
	InterceptProceed = "proceed"
	InterceptRewrite = "rewrite"
	InterceptRespond = "respond"
	InterceptDeny    = "deny"
)

// InterceptStep is one interceptor's run on one command: what an intercept
// audit event records.
type InterceptStep struct {
	Phase       string // PhaseBefore or PhaseAfter
	Command     string // the command line it was about
	Argv        []string
	Interceptor string
	// Answer is the action ("proceed", "rewrite", "respond", "reject",
	// "keep", "replace", "reject_disclosure") or the failure ("fuel",
	// "timeout", "error", "malformed", "state", "input", "pin").
	Answer string
	// Outcome is what the step did: before "proceed", "rewrite", "respond",
	// "deny"; after "keep", "replace", "withhold".
	Outcome string
	// Reason says why: the reject reason, the rewritten command, the
	// failure.
	Reason string
	// Failed is set when Answer is a failure; Reason then says why.
	Failed bool
	// Run is the extension run, for the record.
	Run telemetry.ExtensionRun
}

// stageKey carries, in a request's context, where the before stage is: how
// many rewrites led here, and whether it serves the npm shim.
type stageKey struct{}

type stage struct {
	depth int
	shim  bool
}

func stageOf(ctx context.Context) stage {
	if ctx == nil {
		return stage{}
	}
	st, _ := ctx.Value(stageKey{}).(stage)
	return st
}

// DecideShim decides on a command line for the npm shim: the rules decide
// only whether the interceptors run (the shim does not enforce them), no
// reviewer runs, and Decision.Intercept says what the interceptors did.
func (e *Engine) DecideShim(raw string, req Request) Decision {
	if req.Context == nil {
		req.Context = context.Background()
	}
	req.Context = context.WithValue(req.Context, stageKey{}, stage{shim: true})
	return e.DecideRequest(raw, req)
}

// interceptItem is one simple command of the line with the reports of its
// layers.
type interceptItem struct {
	cmd  *shellcmd.Command
	reps []CommandReport
	subs []*subject // per layer, built on first use
}

// beforeStage runs the before-interceptors on a decision the rules did not
// deny. It reports true when the decision is complete (a rewrite, an answer
// or a deny, or the shim, which has no reviewers), false when the reviewers
// are still to run.
func (e *Engine) beforeStage(d *Decision, ev *evaluation, raw string, line *shellcmd.Line) bool {
	st := stageOf(ev.req.Context)
	m := e.Manifest
	if d.Action == ActionDeny || m == nil || m.runtime == nil {
		return st.shim
	}
	chain := m.interceptors(PhaseBefore)
	if len(chain) == 0 {
		return st.shim
	}
	items, ok := interceptItems(d, line)
	it := &Interception{Outcome: InterceptProceed}
	deny := func(id, reason string) bool {
		d.Action, d.Reason, d.Rule = ActionDeny, reason, ""
		if id != "" {
			d.Rule = "interceptor:" + id
		}
		it.Outcome, it.Interceptor = InterceptDeny, id
		d.Intercept = it
		d.Extensions = ev.runs
		return true
	}
	if !ok {
		return deny("", fmt.Sprintf("Command '%s' denied: its commands cannot be put to the interceptors", raw))
	}
	for _, item := range items {
		for _, ic := range chain {
			li := 0
			if ic.Match != nil {
				n := len(ev.denies)
				li = item.match(ic.Match, ev, raw)
				if len(ev.denies) > n {
					d.Intercept = it
					return deny(ic.Script, ev.denies[n].Reason)
				}
				if li < 0 {
					continue
				}
			}
			argv := item.cmd.Layers[li]
			res := e.invokeBefore(ev, ic.Script, d, item, li)
			run := extensionRun(ic.Script, builtins.KindBefore, res)
			ev.runs = append(ev.runs, run)
			d.Intercept = it
			step := InterceptStep{Phase: PhaseBefore, Command: raw, Argv: argv, Interceptor: ic.Script, Answer: res.Outcome(), Run: run}
			add := func(outcome, reason string) {
				step.Outcome, step.Reason = outcome, reason
				it.Steps = append(it.Steps, step)
			}
			a := res.Action
			if a == nil {
				step.Failed = true
				why := fmt.Sprintf("%s: %v", res.Failure, res.Err)
				if decl := m.script(ic.Script); decl != nil && decl.Failure == "proceed" {
					add(InterceptProceed, why)
					continue
				}
				add(InterceptDeny, why)
				return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s failed (%s)", raw, ic.Script, why))
			}
			switch a.Op {
			case "proceed":
				add(InterceptProceed, "")
				continue
			case "reject":
				add(InterceptDeny, a.Reason)
				return deny(ic.Script, fmt.Sprintf("%s: %s", ic.Script, a.Reason))
			case "respond":
				if why := notSimple(line); why != "" {
					add(InterceptDeny, fmt.Sprintf("answered for %s, but the line %s", quoteWords(argv), why))
					return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s answered for %s with a synthetic result, which cannot stand for the whole line: it %s",
						raw, ic.Script, quoteWords(argv), why))
				}
				add(InterceptRespond, fmt.Sprintf("exit %d", a.Exit))
				it.Exit = a.Exit
				it.Stdout, it.StdoutTruncated = FinalizeOutput(a.Stdout, MaxInterceptOutput)
				it.Stderr, it.StderrTruncated = FinalizeOutput(a.Stderr, MaxInterceptOutput)
				it.Interceptor = ic.Script
				deny(ic.Script, respondReason(raw, it))
				it.Outcome = InterceptRespond // on the hook path a deny carrying the output
				return true
			case "rewrite":
				to := quoteWords(a.Argv)
				if why := notSimple(line); why != "" {
					add(InterceptDeny, fmt.Sprintf("rewrites %s to %s, but the line %s", quoteWords(argv), to, why))
					return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s rewrites %s to: %s, but only a line of one simple command can be rewritten, and this one %s",
						raw, ic.Script, quoteWords(argv), to, why))
				}
				if st.depth >= maxRewrites {
					add(InterceptDeny, "rewrites to "+to+": too many rewrites")
					return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s rewrites it to: %s, but a command may be rewritten at most %d times",
						raw, ic.Script, to, maxRewrites))
				}
				add(InterceptRewrite, "rewrites to: "+to)
				e.restart(d, ev, it, ic.Script, raw, to, st)
				return true
			}
			add(InterceptDeny, "answered "+a.String())
			return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s answered %s", raw, ic.Script, a))
		}
	}
	if len(it.Steps) > 0 {
		d.Intercept = it
	}
	d.Extensions = ev.runs
	return st.shim
}

// restart decides again on the rewritten command line, from the top, and
// makes that the decision.
func (e *Engine) restart(d *Decision, ev *evaluation, it *Interception, id, raw, to string, st stage) {
	req := ev.req
	req.Context = context.WithValue(req.Context, stageKey{}, stage{depth: st.depth + 1, shim: st.shim})
	var nd Decision
	if g := e.guardRewrite(req, to, st); g != nil {
		nd = Decision{Action: ActionDeny, Rule: "guard:" + g.Guard, Guard: g.Guard, Reason: g.Reason, SoleGate: d.SoleGate}
	} else {
		nd = e.decideRequest(to, req)
	}
	runs := slices.Clone(ev.runs)
	*d = nd
	d.Extensions = append(runs, nd.Extensions...)
	next := nd.Intercept
	merged := *it
	if next == nil || next.Outcome == InterceptProceed {
		merged.Outcome, merged.Interceptor, merged.Command = InterceptRewrite, id, to
		merged.Rewrites = 1
		if next != nil {
			merged.Steps = append(merged.Steps, next.Steps...)
		}
	} else {
		merged = *next
		merged.Steps = append(slices.Clone(it.Steps), next.Steps...)
		merged.Rewrites = next.Rewrites + 1
		if merged.Command == "" {
			merged.Command = to
		}
	}
	d.Intercept = &merged
	d.Reason = fmt.Sprintf("%s (interceptor %s rewrote '%s' to: %s)", d.Reason, id, raw, to)
}

// guardRewrite runs the built-in guard on a rewritten command, as
// DecideEvent does on the host's own; the npm shim has no guard.
func (e *Engine) guardRewrite(req Request, command string, st stage) *GuardDenial {
	if st.shim {
		return nil
	}
	return GuardCommand(e.Root, req.Cwd, command, e.allowEdits())
}

// interceptItems lines the decision's reports (one per layer, in order) up
// with the line's commands.
func interceptItems(d *Decision, line *shellcmd.Line) ([]*interceptItem, bool) {
	reports, ok := commandReports(d, line)
	if !ok {
		return nil, false
	}
	items := make([]*interceptItem, len(reports))
	for ci, reps := range reports {
		c := &line.Commands[ci]
		items[ci] = &interceptItem{cmd: c, reps: reps, subs: make([]*subject, len(c.Layers))}
	}
	return items, true
}

// match returns the first layer (outermost first) the matcher holds for,
// or a failed matcher counts as holding; -1 when none.
func (it *interceptItem) match(mt *Matcher, ev *evaluation, raw string) int {
	for li, layer := range it.cmd.Layers {
		s := it.subs[li]
		if s == nil {
			s = &subject{raw: raw, argv: layer, canon: shellcmd.Canonical(layer), cmd: it.cmd,
				innermost: li == len(it.cmd.Layers)-1, eval: ev, effects: it.reps[li].Effects}
			it.subs[li] = s
		}
		if mt.eval(s) != triNo {
			return li
		}
	}
	return -1
}

// invokeBefore runs one before-interceptor on one layer of a command.
func (e *Engine) invokeBefore(ev *evaluation, id string, d *Decision, item *interceptItem, li int) runtime.Result {
	m := e.Manifest
	argv := item.cmd.Layers[li]
	effects := item.reps[li].Effects
	if err := ev.checkInput(argv, effects, item.cmd); err != nil {
		return runtime.Result{Failure: runtime.FailInput, Err: err}
	}
	var matches []builtins.PolicyMatch
	for _, rep := range item.reps {
		for _, mt := range rep.Matches {
			pm := builtins.PolicyMatch{RuleID: mt.Rule, Action: string(mt.Action), Reason: mt.Reason}
			if !slices.Contains(matches, pm) {
				matches = append(matches, pm)
			}
		}
	}
	program := argv[0]
	if li == len(item.cmd.Layers)-1 && item.cmd.Path != "" {
		program = item.cmd.Path
	}
	ev.ensureRequestID()
	input := func() (starlark.Value, error) {
		c := &builtins.Context{
			Phase: "shell_before", RequestID: ev.requestID, SessionID: ev.req.SessionID, Agent: ev.req.Agent, Tool: ev.req.Tool,
			Argv: argv, Program: program, Cwd: ev.req.Cwd, Effects: effects, Timestamp: ev.timestamp,
			Policy: &builtins.Policy{Action: string(d.Action), Reason: d.Reason, Matches: matches},
		}
		ev.fill(c, item.cmd)
		return c.Value(), nil
	}
	payload := func() map[string]any {
		ids := make([]any, 0, len(matches))
		for _, mt := range matches {
			if mt.RuleID != "" && !slices.Contains(ids, any(mt.RuleID)) {
				ids = append(ids, mt.RuleID)
			}
		}
		return hookContext("before_command", ev.requestID, ev.req.SessionID, m.Digest, ev.req.Cwd, program, argv, effects,
			map[string]any{"action": string(d.Action), "matches": ids, "reason": ""})
	}
	return m.invoke(ev.req.Context, id, ev.req.SessionID, input, payload)
}

// notSimple says why a line is not one simple command whose argv can
// replace it, "" when it is.
func notSimple(line *shellcmd.Line) string {
	switch {
	case line.Err != nil:
		return "cannot be analysed: " + line.Err.Error()
	case len(line.Commands) != 1:
		return fmt.Sprintf("has %d simple commands", len(line.Commands))
	case len(line.Assigns) > 0:
		return "sets variables"
	}
	c := &line.Commands[0]
	switch {
	case c.Substitution:
		return "has a substitution"
	case len(c.Redirects) > 0:
		return "has redirections"
	case len(c.Assigns) > 0:
		return "sets environment variables"
	case c.Implied != "":
		return "stands for another command (" + c.Implied + ")"
	}
	return ""
}

// respondReason is the deny reason that carries a synthetic result to a
// host: its exit status and bounded output.
func respondReason(raw string, it *Interception) string {
	var b strings.Builder
	fmt.Fprintf(&b, "interceptor %s answered for '%s' without running it (exit %d)", it.Interceptor, raw, it.Exit)
	for _, s := range []struct{ name, text string }{{"stdout", it.Stdout}, {"stderr", it.Stderr}} {
		if s.text == "" {
			continue
		}
		text, cut := textcut.Cut(s.text, maxReasonOutput)
		fmt.Fprintf(&b, "\n%s:\n%s", s.name, text)
		if cut {
			b.WriteString("\n[truncated]")
		}
	}
	return b.String()
}

// HookVerdict is the verdict a host gets for a decision on ev, given what
// the host can carry on that event and its name: Verdict, except for a
// command an interceptor rewrote. That one is an allow with the host's input
// rewritten (UpdatedInput: the input as sent with its command replaced)
// where the host can carry a rewrite, and otherwise a deny naming the
// rewrite; a rewritten command that needs approval is a deny too (the host
// would ask about its original command).
func (d Decision) HookVerdict(ev *hostapi.Event, cov hostapi.Coverage, host string) hostapi.Verdict {
	v := d.Verdict()
	it := d.Intercept
	if it == nil || it.Outcome != InterceptRewrite || d.Action == ActionDeny {
		return v
	}
	if ev == nil { // no input to rewrite: never an allow of the original command
		return hostapi.Verdict{Decision: hostapi.Deny, Reason: fmt.Sprintf("interceptor %s rewrites the command to: %s; run that command instead", it.Interceptor, it.Command)}
	}
	orig := TrimCommand(ev.Command)
	if d.Action == ActionAsk {
		return hostapi.Verdict{Decision: hostapi.Deny, Reason: fmt.Sprintf(
			"Command '%s' denied: interceptor %s rewrites it to: %s, which needs approval (%s); a host cannot be asked about a command it did not send, so run that command if it is wanted",
			orig, it.Interceptor, it.Command, d.Reason)}
	}
	in, ok := RewriteInput(ev.Input, it.Command)
	if !cov.UpdatedInput || !ok {
		why := host + " cannot apply a rewritten command"
		if cov.UpdatedInput {
			why = "its tool input has no command field to rewrite"
		}
		return hostapi.Verdict{Decision: hostapi.Deny, Reason: fmt.Sprintf(
			"Command '%s' denied: interceptor %s rewrites it to: %s, and %s; run that command instead", orig, it.Interceptor, it.Command, why)}
	}
	v.UpdatedInput = in
	return v
}

// RewriteInput is a tool input (a JSON object) with its command field
// ("command", or Amp's "cmd") set to command, every other field kept; false
// when it has no such string field.
func RewriteInput(input json.RawMessage, command string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil || m == nil {
		return nil, false
	}
	for _, k := range []string{"command", "cmd"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		c, err := json.Marshal(command)
		if err != nil {
			return nil, false
		}
		m[k] = c
		out, err := json.Marshal(m)
		return out, err == nil
	}
	return nil, false
}

// FinalizeOutput is output as an observer may see it (reference §9):
// terminal escapes (CSI sequences) stripped, other control characters but
// newline, carriage return and tab dropped, invalid UTF-8 replaced, secrets
// redacted, then cut to limit bytes (true when cut).
func FinalizeOutput(s string, limit int) (string, bool) {
	s = telemetry.Redact(termtext.Strip(s))
	return textcut.Cut(s, limit)
}

// CommandResult is a finished command as after-interceptors see it.
type CommandResult struct {
	Command  string   // the command line as run, for the record ("" records Argv quoted)
	Argv     []string // the command (CommandArgv of its line)
	Signaled bool     // Status is a signal number, not an exit code
	Status   int
	// The output as captured (raw: After finalizes it), and whether the
	// capture was cut.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	// InterceptedBy names the before-interceptor whose synthetic result this
	// is, "" for a command that ran.
	InterceptedBy string
}

// AfterOutcome is what the after-interceptors made of a result.
type AfterOutcome struct {
	// Outcome is "keep" (the finalized output as it was), "replace" (an
	// interceptor replaced it) or "withhold" (it must not be shown; Note
	// says why).
	Outcome string
	// The output to release, finalized.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	// Interceptor is the last one that replaced, or the one that withheld.
	Interceptor string
	Note        string
	Steps       []InterceptStep
}

// The outcomes of the after stage.
const (
	AfterKeep     = "keep"
	AfterReplace  = "replace"
	AfterWithhold = "withhold"
)

// CommandArgv is the argv of a command line as after-interceptors see it:
// the outermost layer of its one simple command, else sh -c LINE.
func CommandArgv(raw string) []string {
	raw = trimSpace(raw)
	if len(raw) <= maxCommandBytes {
		line := shellcmd.Parse(raw)
		if notSimple(line) == "" && len(line.Commands[0].Layers) > 0 {
			return slices.Clone(line.Commands[0].Layers[0])
		}
	}
	return []string{"sh", "-c", raw}
}

// After runs the after-interceptors, in declaration order, on a finished
// command's output: the output is finalized first and again after each
// replacement; a reject_disclosure withholds it and ends the chain; a
// failure withholds it (declared failure deny, the default) or keeps it
// (keep). The exit status is never changed.
func (e *Engine) After(req Request, r CommandResult) AfterOutcome {
	out := AfterOutcome{Outcome: AfterKeep}
	out.Stdout, out.StdoutTruncated = FinalizeOutput(r.Stdout, MaxInterceptOutput)
	out.Stderr, out.StderrTruncated = FinalizeOutput(r.Stderr, MaxInterceptOutput)
	out.StdoutTruncated = out.StdoutTruncated || r.StdoutTruncated
	out.StderrTruncated = out.StderrTruncated || r.StderrTruncated
	if !e.HasAfterInterceptors() {
		return out
	}
	m := e.Manifest
	ev := e.newEvaluation(req)
	command := r.Command
	if command == "" {
		command = quoteWords(r.Argv)
	}
	if len(r.Argv) == 3 && r.Argv[0] == "sh" && r.Argv[1] == "-c" {
		command = r.Argv[2]
	}
	for _, ic := range m.interceptors(PhaseAfter) {
		res := e.invokeAfter(ev, ic.Script, r, out)
		run := extensionRun(ic.Script, builtins.KindAfter, res)
		step := InterceptStep{Phase: PhaseAfter, Command: command, Argv: r.Argv, Interceptor: ic.Script, Answer: res.Outcome(), Run: run}
		withhold := func(note string) AfterOutcome {
			out.Outcome, out.Interceptor, out.Note = AfterWithhold, ic.Script, note
			out.Stdout, out.Stderr, out.StdoutTruncated, out.StderrTruncated = "", "", false, false
			step.Outcome = AfterWithhold
			out.Steps = append(out.Steps, step)
			return out
		}
		a := res.Action
		if a == nil {
			step.Failed = true
			step.Reason = fmt.Sprintf("%s: %v", res.Failure, res.Err)
			if decl := m.script(ic.Script); decl != nil && decl.Failure == "keep" {
				step.Outcome = AfterKeep
				out.Steps = append(out.Steps, step)
				continue
			}
			return withhold(fmt.Sprintf("the command's output is withheld: after-interceptor %s failed (%s)", ic.Script, step.Reason))
		}
		switch a.Op {
		case "keep":
			step.Outcome = AfterKeep
		case "replace":
			step.Outcome = AfterReplace
			out.Outcome, out.Interceptor = AfterReplace, ic.Script
			out.Stdout, out.StdoutTruncated = FinalizeOutput(a.Stdout, MaxInterceptOutput)
			out.Stderr, out.StderrTruncated = FinalizeOutput(a.Stderr, MaxInterceptOutput)
		case "reject_disclosure":
			step.Reason = a.Reason
			return withhold(fmt.Sprintf("the command's output is withheld by interceptor %s: %s", ic.Script, a.Reason))
		default:
			step.Reason = "answered " + a.String()
			return withhold(fmt.Sprintf("the command's output is withheld: interceptor %s answered %s", ic.Script, a))
		}
		out.Steps = append(out.Steps, step)
	}
	return out
}

// invokeAfter runs one after-interceptor on the current result.
func (e *Engine) invokeAfter(ev *evaluation, id string, r CommandResult, cur AfterOutcome) runtime.Result {
	if err := checkInput(r.Argv, nil); err != nil {
		return runtime.Result{Failure: runtime.FailInput, Err: err}
	}
	kind, code := "exited", r.Status
	if r.Signaled {
		kind = "signaled"
	}
	input := func() (starlark.Value, error) {
		res := &builtins.CommandResult{Argv: r.Argv, Signaled: r.Signaled, Status: code, Stdout: cur.Stdout, Stderr: cur.Stderr,
			StdoutTruncated: cur.StdoutTruncated, StderrTruncated: cur.StderrTruncated, InterceptedBy: r.InterceptedBy}
		return res.Value(), nil
	}
	payload := func() map[string]any {
		args := make([]any, 0, len(r.Argv))
		for _, a := range r.Argv[1:] {
			args = append(args, a)
		}
		var by any
		if r.InterceptedBy != "" {
			by = r.InterceptedBy
		}
		return map[string]any{
			"command":          map[string]any{"program": r.Argv[0], "arguments": args},
			"event":            "after_command",
			"intercepted_by":   by,
			"status":           map[string]any{kind: int64(code)},
			"stdout":           cur.Stdout,
			"stderr":           cur.Stderr,
			"stdout_truncated": cur.StdoutTruncated,
			"stderr_truncated": cur.StderrTruncated,
			"untrusted_output": true,
		}
	}
	return e.Manifest.invoke(ev.req.Context, id, ev.req.SessionID, input, payload)
}

// PostToolResult reads a shell post-tool event's result as a
// CommandResult, as far as the host reports it: the output (stdout, or the
// host's one text: output, textResultForLlm, llmContent...), stderr and the
// exit code when there are such fields (else 0). false when the event is
// not a shell post-tool call with a result.
func PostToolResult(ev *hostapi.Event) (CommandResult, bool) {
	if ev == nil || ev.Kind != hostapi.KindPostTool || !ev.IsShell() || len(ev.Result) == 0 {
		return CommandResult{}, false
	}
	r := CommandResult{Argv: CommandArgv(ev.Command)}
	var v any
	if json.Unmarshal(ev.Result, &v) != nil {
		return CommandResult{}, false
	}
	if s, ok := v.(string); ok {
		var inner map[string]any
		if json.Unmarshal([]byte(s), &inner) == nil && inner != nil {
			v = inner
		} else {
			r.Stdout = s
		}
	}
	if obj, ok := v.(map[string]any); ok {
		for _, k := range []string{"stdout", "output", "textResultForLlm", "text_result_for_llm", "llmContent", "returnDisplay", "content", "result", "error"} {
			if s, ok := obj[k].(string); ok {
				r.Stdout = s
				break
			}
		}
		if s, ok := obj["stderr"].(string); ok {
			r.Stderr = s
		}
		code, found := exitField(obj)
		if !found {
			if meta, ok := obj["metadata"].(map[string]any); ok {
				code, _ = exitField(meta)
			}
		}
		r.Status = code
	}
	for _, p := range []*string{&r.Stdout, &r.Stderr} {
		if len(*p) > MaxInterceptOutput {
			*p, _ = textcut.Cut(*p, MaxInterceptOutput)
			if p == &r.Stdout {
				r.StdoutTruncated = true
			} else {
				r.StderrTruncated = true
			}
		}
	}
	return r, true
}

func exitField(obj map[string]any) (int, bool) {
	for _, k := range []string{"exitCode", "exit_code", "returncode", "exit"} {
		if f, ok := obj[k].(float64); ok && f == float64(int(f)) {
			return int(f), true
		}
	}
	return 0, false
}

// AfterEvent runs the after-interceptors on a shell post-tool event and
// says what the host gets: nothing (an allow that abstains) when the output
// is kept or the host can carry nothing; added context with the
// replacement where the host carries context on post-tool events; for
// withheld output a block where the host can block on them, else context
// saying the output is withheld. The outcome is nil when no
// after-interceptor ran.
func (e *Engine) AfterEvent(ev *hostapi.Event, cov hostapi.Coverage) (hostapi.Verdict, *AfterOutcome) {
	allow := hostapi.Verdict{Decision: hostapi.Allow}
	if !e.HasAfterInterceptors() {
		return allow, nil
	}
	r, ok := PostToolResult(ev)
	if !ok {
		return allow, nil
	}
	out := e.After(Request{Cwd: ev.Cwd, Home: e.Home, SessionID: ev.SessionID, Agent: ev.Agent, Tool: ev.Tool}, r)
	switch out.Outcome {
	case AfterReplace:
		if cov.Context {
			var b strings.Builder
			fmt.Fprintf(&b, "agent-shell: interceptor %s replaced this command's output; read this instead of the output shown:", out.Interceptor)
			for _, s := range []struct{ name, text string }{{"stdout", out.Stdout}, {"stderr", out.Stderr}} {
				text, cut := textcut.Cut(s.text, maxReasonOutput)
				fmt.Fprintf(&b, "\n%s:\n%s", s.name, text)
				if cut {
					b.WriteString("\n[truncated]")
				}
			}
			allow.Context = b.String()
		}
	case AfterWithhold:
		if cov.Deny {
			return hostapi.Verdict{Decision: hostapi.Deny, Reason: "agent-shell: " + out.Note}, &out
		}
		if cov.Context {
			allow.Context = "agent-shell: " + out.Note + ". Do not use, quote or repeat that output."
		}
	}
	return allow, &out
}
