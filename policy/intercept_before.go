package policy

import (
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// interceptItem is one simple command of the line with the reports of its
// layers.
type interceptItem struct {
	cmd  *shellcmd.Command
	reps []CommandReport
	subs []*subject // per layer, built on first use
}

// beforeStage runs the before-interceptors on a decision the rules did not
// deny. It reports true when the decision is complete (a rewrite, an answer
// or a deny), false when the reviewers are still to run.
func (e *Engine) beforeStage(p *pass) bool {
	d, ev, raw, line := &p.d, p.eval, p.raw, p.line
	m := e.Manifest
	if d.Action == ActionDeny || m == nil || m.runtime == nil {
		return false
	}
	chain := m.interceptors(PhaseBefore)
	if len(chain) == 0 {
		return false
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
		if item.cmd.Guessed {
			continue // what an unknown program may run is the rules' to judge, not a command to steer
		}
		for _, ic := range chain {
			li := 0
			if ic.Match != nil {
				n := len(ev.denies)
				li = item.match(ic.Match, ev, raw)
				if len(ev.denies) > n {
					d.Intercept = it
					return deny(ic.Script, ev.denies[n].Reason())
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
				if decl := m.script(ic.Script); decl != nil && decl.Failure == runtime.OnFailureProceed {
					add(InterceptProceed, why)
					continue
				}
				add(InterceptDeny, why)
				return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s failed (%s)", raw, ic.Script, why))
			}
			switch a.Op {
			case builtins.OpProceed:
				add(InterceptProceed, "")
				continue
			case builtins.OpReject:
				add(InterceptDeny, a.Reason)
				return deny(ic.Script, fmt.Sprintf("%s: %s", ic.Script, a.Reason))
			case builtins.OpRespond:
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
			case builtins.OpRewrite:
				to := quoteWords(a.Argv)
				if why := notSimple(line); why != "" {
					add(InterceptDeny, fmt.Sprintf("rewrites %s to %s, but the line %s", quoteWords(argv), to, why))
					return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s rewrites %s to: %s, but only a line of one simple command can be rewritten, and this one %s",
						raw, ic.Script, quoteWords(argv), to, why))
				}
				if p.rewrites >= maxRewrites {
					add(InterceptDeny, "rewrites to "+to+": too many rewrites")
					return deny(ic.Script, fmt.Sprintf("Command '%s' denied: interceptor %s rewrites it to: %s, but a command may be rewritten at most %d times",
						raw, ic.Script, to, maxRewrites))
				}
				add(InterceptRewrite, "rewrites to: "+to)
				e.restart(p, it, ic.Script, to)
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
	return false
}

// restart decides again on the rewritten command line, from the top of
// the pipeline, and makes that the decision.
func (e *Engine) restart(p *pass, it *Interception, id, to string) {
	d, ev, raw := &p.d, p.eval, p.raw
	nd := e.decide(&pass{raw: to, req: ev.req, shim: p.shim, rewrites: p.rewrites + 1})
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
			pm := builtins.PolicyMatch{RuleID: mt.Rule, Action: string(mt.Action), Reason: mt.Reason()}
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
			Phase: builtins.PhaseBefore, RequestID: ev.requestID, SessionID: ev.req.SessionID, Agent: ev.req.Agent, Tool: ev.req.Tool,
			Argv: argv, Program: program, Cwd: ev.req.Cwd, Effects: effects, Timestamp: ev.timestamp,
			Policy: &builtins.Policy{Action: string(d.Action), Reason: d.Reason, Matches: matches},
		}
		ev.fill(c, item.cmd)
		return c.Value(), nil
	}
	payload := func() runtime.HookPayload {
		return runtime.CommandRequest{Event: runtime.HookEventBefore, RequestID: ev.requestID, SessionID: ev.req.SessionID,
			ManifestSHA256: m.Digest, Cwd: ev.req.Cwd, Argv: argv, Path: program, Effects: effects,
			Policy: &runtime.RequestPolicy{Action: string(d.Action), Matches: matches}}
	}
	return m.invoke(ev.req.Context, id, ev.req.SessionID, input, payload)
}

// notSimple says why a line is not one simple command whose argv can
// replace it, "" when it is.
func notSimple(line *shellcmd.Line) string {
	switch {
	case line.Err != nil:
		return "cannot be analysed: " + line.Err.Error()
	case line.Written() != 1:
		return fmt.Sprintf("has %d simple commands", line.Written())
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
