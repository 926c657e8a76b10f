package policy

import (
	"fmt"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// The example project: a pack rule's examples run at its root, with HOME
// its parent.
const (
	exampleProject = "/home/dev/project"
	exampleHome    = "/home/dev"
)

// CheckPackExamples verifies the examples of every pack rule, which loading
// skips (the pack's files are pinned, and a pack's examples cost every call
// time): what policy check and pack add do.
func (e *Engine) CheckPackExamples() error {
	if e.Manifest == nil || e.LoadErr != nil {
		return e.LoadErr
	}
	for _, r := range e.Manifest.AllRules() {
		if r.pack == "" {
			continue
		}
		if err := e.checkExamples(r); err != nil {
			return err
		}
	}
	return nil
}

// checkExamples verifies a rule's examples when the manifest loads.
func (e *Engine) checkExamples(r *Rule) error {
	for _, ex := range r.Examples.Match {
		ok, err := e.ruleMatchesLine(r, ex)
		if err != nil {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.match", Msg: err.Error()}
		}
		if !ok {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.match",
				Msg: fmt.Sprintf("rule %q does not match its example %q", r.ID, ex)}
		}
	}
	for _, ex := range r.Examples.NotMatch {
		ok, err := e.ruleMatchesLine(r, ex)
		if err != nil {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.not_match", Msg: err.Error()}
		}
		if ok {
			return &ManifestError{Path: e.Manifest.Path, Line: ruleLineByID(e.Manifest, r), Key: "examples.not_match",
				Msg: fmt.Sprintf("rule %q matches its counter-example %q", r.ID, ex)}
		}
	}
	return nil
}

func ruleLineByID(m *Manifest, r *Rule) int {
	for i, x := range m.AllRules() {
		if x == r {
			return m.ruleKeyLine(i, "examples")
		}
	}
	return 0
}

// ruleMatchesLine reports whether the rule matches any layer of any command
// of a command line, running its matchers and the analyzers as a decision
// would. A script that fails on an example is an error: the example cannot
// be checked.
func (e *Engine) ruleMatchesLine(r *Rule, command string) (bool, error) {
	line := shellcmd.Parse(command)
	req := Request{}
	if r.pack != "" {
		// A pack's rules judge paths against the project and HOME: their
		// examples run at the root of an example project.
		req = Request{Cwd: exampleProject, Project: exampleProject, Home: exampleHome}
	}
	ev := e.newEvaluation(req)
	ev.line = line
	for ci := range line.Commands {
		c := &line.Commands[ci]
		for li, layer := range c.Layers {
			sub := &subject{raw: command, argv: layer, canon: shellcmd.Canonical(layer), cmd: c, innermost: li == len(c.Layers)-1, eval: ev}
			sub.effects = ev.analyze(sub, commandEffects(layer, c, req.Cwd))
			res := r.Match.eval(sub)
			for _, run := range ev.runs {
				if run.Error != "" {
					return false, fmt.Errorf("rule %q: example %q: script %s failed: %s: %s", r.ID, command, run.Script, run.Outcome, firstLine(run.Error))
				}
			}
			if res == triYes {
				return true, nil
			}
		}
	}
	return false, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
