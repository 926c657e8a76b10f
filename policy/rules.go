package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// rulesStage decides on the parsed line by policy.json's lists and the
// manifest's rules and packs: every match counts, and the most severe
// decides.
func (e *Engine) rulesStage(p *pass) bool {
	d, line, raw := &p.d, p.line, p.raw
	defaultAction, unknownAction := ActionAllow, ActionAsk
	if e.Manifest != nil {
		defaultAction, unknownAction = e.Manifest.Policy.Default, e.Manifest.Policy.Unknown
	}
	hasAllowList := e.File != nil && e.File.HasAllow

	// Every match counts, and the most severe decides: deny beats ask beats
	// allow. A command that no rule matches takes the default.
	var decisive *Match
	d.Action = ActionAllow
	consider := func(m Match) {
		if decisive == nil || m.Action.severity() > decisive.Action.severity() {
			mm := m
			decisive = &mm
		}
		if m.Action.severity() > d.Action.severity() {
			d.Action = m.Action
		}
	}
	defaulted := false
	ev := e.newEvaluation(p.req)
	ev.line = line
	p.eval = ev
	// Every match's reason quotes the line: a long line is quoted in part,
	// or a line of n commands would cost n copies of itself. (The stages
	// after the rules get the line whole: it is what they record.)
	quoted := reasonCommand(raw)
	cwds := []string{p.req.Cwd} // where the line's commands may run, as its cd's go
	layers := 0
	for ci := range line.Commands {
		layers += len(line.Commands[ci].Layers)
	}
	d.Commands = slices.Grow(d.Commands, layers)
	for ci := range line.Commands {
		c := &line.Commands[ci]
		for li, layer := range c.Layers {
			sub := &subject{raw: quoted, argv: layer, canon: shellcmd.Canonical(layer), shape: layerShape(c, li),
				cmd: c, innermost: li == len(c.Layers)-1, eval: ev}
			sub.effects = ev.analyze(sub, lineEffects(layer, c, cwds))
			rep := CommandReport{Argv: layer, Layer: li, Guessed: c.Guessed, Effects: sub.effects}
			// A guessed command counts only where a rule objects to it: no
			// allow list, default or unknown part of it applies.
			rep.Matches = e.layerMatches(sub, li, unknownAction, hasAllowList && !c.Guessed)
			if c.Unknown != "" && !c.Guessed {
				rep.Matches = append(rep.Matches, unknownMatch(quoted, c.Unknown, unknownAction, hasAllowList))
			}
			if len(rep.Matches) == 0 && c.Guessed {
				rep.Action = ActionAllow
			} else if len(rep.Matches) == 0 {
				rep.Action = defaultAction
				defaulted = true
				if defaultAction.severity() > d.Action.severity() {
					d.Action = defaultAction
				}
			}
			for _, m := range rep.Matches {
				if m.Action.severity() >= rep.Action.severity() {
					rep.Action = m.Action
				}
				consider(m)
			}
			d.Effects = appendNew(d.Effects, rep.Effects...)
			d.Commands = append(d.Commands, rep)
		}
		cwds = followCd(c, cwds)
	}
	for _, m := range e.pipelineDenies(quoted, line, unknownAction, hasAllowList) {
		consider(m)
	}
	for _, m := range ev.denies {
		consider(m)
	}
	d.Extensions = ev.runs
	switch {
	case errors.Is(line.Err, shellcmd.ErrTooLarge):
		// Part of the line was never examined: padding must not carry a
		// command past the rules, whatever [policy] unknown says.
		consider(Match{Source: "policy", Action: ActionDeny,
			reason: fmt.Sprintf("Command denied: %v", line.Err)})
	case line.Err != nil:
		consider(unknownMatch(quoted, line.Err.Error(), unknownAction, hasAllowList))
	}
	if hasAllowList {
		for _, a := range line.Assigns {
			consider(Match{Source: "policy.json allow", Action: ActionDeny,
				reason: fmt.Sprintf("Command '%s' denied by policy rule: not in allow list (assignment %s)", quoted, a)})
		}
	}

	switch {
	case decisive != nil && decisive.Action == d.Action:
		d.Reason = decisive.Reason()
		if decisive.Source == "manifest" || decisive.Source == "policy.json deny" || decisive.Source == "script" {
			d.Rule = decisive.Rule
		}
	case defaulted:
		d.Reason = fmt.Sprintf("Command '%s' %s by the policy default", quoted, d.Action.past())
	default:
		d.Reason = "no command to run"
	}
	return false
}

// layerMatches lists the policy.json and manifest rules that match one
// layer of a command, or that some run-time value of it would match (see
// mayMatch).
func (e *Engine) layerMatches(sub *subject, li int, unknownAction Action, hasAllowList bool) []Match {
	var out []Match
	raw, c := sub.raw, sub.cmd
	for _, p := range e.deny {
		switch {
		case p.stages != nil:
		case p.deniesLayer(sub.writtenForms()):
			out = append(out, Match{Source: "policy.json deny", Rule: p.raw, Action: ActionDeny,
				reason: "Command '" + raw + "' denied by policy rule: " + p.raw})
		case sub.shape != nil && p.deniesLayer(sub.shapeForms()):
			if m, ok := mayMatch(sub, "policy.json deny", p.raw, ActionDeny, unknownAction, hasAllowList); ok {
				out = append(out, m)
			}
		}
	}
	if hasAllowList {
		if pattern, why := e.allowListMiss(strings.Join(sub.canon, " "), c, li); why != "" {
			out = append(out, Match{Source: "policy.json allow", Action: ActionDeny,
				reason: fmt.Sprintf("Command '%s' denied by policy rule: not in allow list (%s)", raw, why)})
		} else {
			out = append(out, Match{Source: "policy.json allow", Rule: pattern, Action: ActionAllow,
				reason: "Command '" + raw + "' allowed by policy rule: " + pattern})
		}
	}
	if e.Manifest != nil {
		for _, r := range e.Manifest.rulesFor(sub) {
			switch sub.matchRule(r) {
			case triYes:
				out = append(out, Match{Source: "manifest", Rule: r.ID, Action: r.Action, rule: r, quoted: raw, said: sub.scriptReasons(r.Match)})
			case triFailed:
				// A failed matcher is conservative: it cannot make an
				// allow rule match, nor make a deny or ask rule vanish.
				if r.Action != ActionAllow {
					out = append(out, Match{Source: "manifest", Rule: r.ID, Action: r.Action,
						rule: r, quoted: raw, said: sub.scriptReasons(r.Match), matcherFailed: true})
				}
			case triMaybe:
				// Only some run-time value matches: an allow rule does not allow.
				if r.Action == ActionAllow {
					continue
				}
				if m, ok := mayMatch(sub, "manifest", r.ID, r.Action, unknownAction, hasAllowList); ok {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func (a Action) past() string {
	switch a {
	case ActionDeny:
		return "denied"
	case ActionAsk:
		return "needs approval"
	}
	return "allowed"
}

// ruleReason is the reason of a manifest rule's match on the line raw,
// where its script matchers said said.
func ruleReason(raw string, r *Rule, said string) string {
	why := r.Reason
	if said != "" {
		// What the matcher saw comes first, the rule's advice after it.
		if why != "" {
			said += "; " + why
		}
		why = said
	}
	if why == "" {
		why = "matched"
	}
	// Concatenated, not formatted: a long line makes one reason per match.
	switch r.Action {
	case ActionDeny:
		return "Command '" + raw + "' denied by rule " + r.ID + ": " + why
	case ActionAsk:
		return "Command '" + raw + "' needs approval (rule " + r.ID + ": " + why + ")"
	}
	return "Command '" + raw + "' allowed by rule " + r.ID
}

// unknownMatch is the verdict on what cannot be known statically: denied
// under an allow list (which can only pass what it can see), else the
// policy's unknown action.
func unknownMatch(raw, why string, unknownAction Action, allowList bool) Match {
	if allowList {
		return Match{Source: "policy.json allow", Action: ActionDeny,
			reason: fmt.Sprintf("Command '%s' denied by policy rule: not in allow list (cannot be checked: %s)", raw, why)}
	}
	return Match{Source: "policy", Action: unknownAction,
		reason: fmt.Sprintf("Command '%s' cannot be checked: %s", raw, why)}
}

// envRisky names variables that change what a command runs or loads, so an
// allow pattern for the command does not cover running it with them set.
var envRisky = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "DYLD_INSERT_LIBRARIES": true,
	"NODE_OPTIONS": true, "BASH_ENV": true, "ENV": true, "PYTHONPATH": true, "PYTHONSTARTUP": true,
	"PERL5OPT": true, "RUBYOPT": true, "GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true, "IFS": true,
	"PROMPT_COMMAND": true, "SHELLOPTS": true, "npm_config_script_shell": true,
}

// allowListMiss says why one layer of a command is not covered by the
// allow list, or which pattern covers it.
func (e *Engine) allowListMiss(canon string, c *shellcmd.Command, layer int) (pattern, why string) {
	if c.Substitution {
		return "", "command substitution"
	}
	if layer == 0 {
		for _, r := range c.Redirects {
			if r.Write && r.File {
				return "", "writes " + r.Target
			}
			if r.Dynamic {
				return "", "redirection to " + r.Target
			}
		}
		for _, a := range c.Assigns {
			name, _, _ := strings.Cut(a, "=")
			if envRisky[name] || strings.HasPrefix(name, "AGENTSHELL_") {
				return "", "sets " + name
			}
		}
	}
	for _, a := range c.Layers[layer] {
		if strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-file=") {
			return "", "writes " + a[strings.IndexByte(a, '=')+1:]
		}
	}
	for _, p := range e.allow {
		if p.stages == nil && globMatch(p.glob, canon) {
			return p.raw, ""
		}
	}
	return "", fmt.Sprintf("%q is not allowed", canon)
}

// pipelineDenies tests deny patterns that contain a pipe against runs of
// consecutive pipeline stages: a run where every stage matches is denied;
// one where some stage only may match at run time is unknown (mayMatch).
func (e *Engine) pipelineDenies(raw string, line *shellcmd.Line, unknownAction Action, hasAllowList bool) []Match {
	var out []Match
	for _, p := range e.deny {
		if p.stages == nil {
			continue
		}
		for _, pl := range line.Pipelines {
			for start := 0; start+len(p.stages) <= len(pl); start++ {
				run, maybe := triYes, -1
				for j, stagePat := range p.stages {
					r := stageMatch(stagePat, line, pl[start+j])
					if r == triNo {
						run = triNo
						break
					}
					if r == triMaybe && maybe < 0 {
						run, maybe = triMaybe, start+j
					}
				}
				switch run {
				case triYes:
					out = append(out, Match{Source: "policy.json deny", Rule: p.raw, Action: ActionDeny,
						reason: fmt.Sprintf("Command '%s' denied by policy rule: %s", raw, p.raw)})
				case triMaybe:
					c := &line.Commands[pl[maybe][0]]
					sub := &subject{raw: raw, argv: c.Argv, shape: c.Shapes[len(c.Shapes)-1]}
					if m, ok := mayMatch(sub, "policy.json deny", p.raw, ActionDeny, unknownAction, hasAllowList); ok {
						out = append(out, m)
					}
				}
			}
		}
	}
	return out
}

// commandReports pairs each command of a line with its reports in d, one
// per layer in order; ok is false when they do not line up (the decision
// was not made on this line).
func commandReports(d *Decision, line *shellcmd.Line) ([][]CommandReport, bool) {
	out := make([][]CommandReport, 0, len(line.Commands))
	ri := 0
	for ci := range line.Commands {
		c := &line.Commands[ci]
		if len(c.Layers) == 0 || ri+len(c.Layers) > len(d.Commands) {
			return nil, false
		}
		reps := d.Commands[ri : ri+len(c.Layers)]
		ri += len(c.Layers)
		for li, rep := range reps {
			if !slices.Equal(rep.Argv, c.Layers[li]) {
				return nil, false
			}
		}
		out = append(out, reps)
	}
	return out, ri == len(d.Commands)
}

// TrimCommand is the command as the policy evaluates and records it: with
// Unicode spaces trimmed at both ends.
func TrimCommand(c string) string { return shellcmd.TrimSpace(c) }

// maxReasonCommand is how much of a command line a reason quotes.
const maxReasonCommand = 200

// reasonCommand is the command line as a reason quotes it.
func reasonCommand(raw string) string {
	if cut, ok := textcut.Cut(raw, maxReasonCommand); ok {
		return cut + "…"
	}
	return raw
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, have := range list {
			if have == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}
