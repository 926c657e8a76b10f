package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
)

func newPolicyCmd(a *app) *cobra.Command {
	var initPolicy, write, yes bool
	var refineWith string
	var refineTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Propose, explain and check the project's policy",
		Example: `  agent-shell policy --init      # propose policy.json and agent-shell.toml from the project
  agent-shell policy --init --refine-with './ask-model.sh'   # and have a model refine it
  agent-shell policy explain 'CMD'
  agent-shell policy check`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if refineWith != "" && !initPolicy {
				return &runtimeError{err: errors.New("--refine-with goes with --init"), code: exitUsage}
			}
			if !initPolicy {
				return cmd.Help()
			}
			h, err := a.here()
			if err != nil {
				return err
			}
			return a.runPolicyInit(h.Root, write, yes, refiner{cmd: refineWith, timeout: refineTimeout})
		}),
	}
	cmd.Flags().BoolVar(&initPolicy, "init", false, "scan the project and propose an agent-shell.toml (written where none exists)")
	cmd.Flags().BoolVar(&write, "write", false, "with --init: merge the proposal into an existing agent-shell.toml, showing the change and asking on a terminal")
	cmd.Flags().BoolVar(&yes, "yes", false, "with --init --write: write without asking")
	cmd.Flags().StringVar(&refineWith, "refine-with", "", "with --init: ask the program `CMD` (run by /bin/sh -c; a wrapper around a model) to refine the proposal; applied only with --write")
	cmd.Flags().DurationVar(&refineTimeout, "refine-timeout", 2*time.Minute, "with --refine-with: how long the refiner may take")
	var cwd, agent string
	var asJSON bool
	explain := &cobra.Command{
		Use:   "explain COMMAND",
		Short: "Show how the hook would decide on a shell command, step by step",
		Long: `Decides COMMAND as an agent's hook call would (the built-in guards, the rules, packs,
scripts, interceptors and reviewers, with no grant stored) and shows each step.
It exits 0 when the command would be allowed, 1 when denied, 2 when asked.`,
		Example: `  agent-shell policy explain 'cd web && npm test'
  agent-shell policy explain 'bash -lc "rm -rf /"'
  agent-shell policy explain --json 'git push --force'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(_ *cobra.Command, args []string) error {
			return a.runExplain(args[0], cwd, agent, asJSON)
		}),
	}
	explain.Flags().StringVar(&cwd, "cwd", "", "the `DIR` the command would run in (default: the current directory)")
	explain.Flags().StringVar(&agent, "agent", "", "the `AGENT` whose call it would be (default: none in particular)")
	explain.Flags().BoolVar(&asJSON, "json", false, "print the decision as one JSON object")
	var checkJSON bool
	check := &cobra.Command{
		Use:   "check",
		Short: "Load and validate policy.json and agent-shell.toml, examples included",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runPolicyCheck(checkJSON)
		}),
	}
	check.Flags().BoolVar(&checkJSON, "json", false, `print one JSON object: {"ok", "error", "checks": [{"check", "detail"}]}`)
	cmd.AddCommand(explain, check)
	return cmd
}

// explainExit is policy explain's exit status for a decision.
var explainExit = map[policy.Action]int{policy.ActionAllow: 0, policy.ActionDeny: 1, policy.ActionAsk: 2}

func (a *app) runExplain(command, cwd, agent string, asJSON bool) error {
	e := a.loadPolicy()
	if cwd == "" {
		// As an agent's call from here would be: paths resolve against it.
		if wd, err := os.Getwd(); err == nil {
			cwd = wd
		}
	}
	// The hook's own path: a pre-tool shell call, guards first.
	e.DryRun = true
	ev := &hostapi.Event{Agent: agent, Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Command: command,
		Cwd: cwd, SessionID: a.callSession("")}
	d := e.DecideEvent(ev)
	if asJSON {
		if err := a.printExplainJSON(command, e, d); err != nil {
			return err
		}
	} else {
		a.printExplain(command, e, d)
	}
	return exitCode(explainExit[d.Action])
}

// decidedBy names what decided: a guard, a rule or pattern, or the default.
func decidedBy(d policy.Decision) string {
	switch {
	case d.Guard != "":
		return "guard: " + d.Guard
	case d.Rule != "":
		return "rule: " + d.Rule
	}
	return "rule: none"
}

func (a *app) printExplain(command string, e *policy.Engine, d policy.Decision) {
	w := a.stdout
	fmt.Fprintf(w, "command: %s\n", command)
	if e.LoadErr != nil {
		fmt.Fprintf(w, "load error: %v\n", e.LoadErr)
	}
	if d.Unknown != "" {
		fmt.Fprintf(w, "unknown: %s\n", d.Unknown)
	}
	for i, c := range d.Commands {
		layer := ""
		if c.Layer > 0 {
			layer = fmt.Sprintf("  (wrapped, layer %d)", c.Layer+1)
		}
		if c.Guessed {
			layer += "  (may be run by the command before it: only rules that object count)"
		}
		fmt.Fprintf(w, "\n[%d] %s%s\n", i+1, quoteArgv(c.Argv), layer)
		fmt.Fprintf(w, "    effects: %s\n", joinOr(c.Effects, "none"))
		switch {
		case len(c.Matches) == 0 && c.Guessed:
			fmt.Fprintf(w, "    rules:   none object\n")
		case len(c.Matches) == 0:
			fmt.Fprintf(w, "    rules:   none matched, the default applies\n")
		}
		for _, m := range c.Matches {
			rule := m.Rule
			if rule == "" {
				rule = "-"
			}
			fmt.Fprintf(w, "    %-7s  %s %s: %s\n", m.Action, m.Source, rule, m.Reason())
		}
		fmt.Fprintf(w, "    => %s\n", c.Action)
	}
	if len(d.Extensions) > 0 {
		fmt.Fprintf(w, "\nscripts:\n")
		for _, r := range d.Extensions {
			fmt.Fprintf(w, "    %-22s %-26s %s\n", r.Script, r.Kind, r.Outcome)
		}
	}
	if d.Intercept != nil {
		for _, s := range d.Intercept.Steps {
			fmt.Fprintf(w, "interceptor %s: %s -> %s %s\n", s.Interceptor, s.Answer, s.Outcome, s.Reason)
		}
	}
	if d.Review != nil {
		for _, s := range d.Review.Steps {
			fmt.Fprintf(w, "review %s: %s -> %s %s\n", s.Reviewer, s.Answer, s.Outcome, s.Reason)
		}
	}
	fmt.Fprintf(w, "\ndecision: %s (%s)\nreason:   %s\n", d.Action, decidedBy(d), d.Reason)
	if e.Manifest != nil {
		for _, p := range e.Manifest.LoadedPacks() {
			fmt.Fprintf(w, "pack:     %s%s\n", p.Decl.Name, packNote(p))
		}
	}
}

func (a *app) printExplainJSON(command string, e *policy.Engine, d policy.Decision) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(policy.Explain(command, e, d))
}

func (a *app) runPolicyCheck(asJSON bool) error {
	// Check the files as they are now, authorized or not, compiled from
	// source whatever the cache holds: this is how a human validates an
	// edit before running agent-shell authorize.
	h, err := a.here()
	if err != nil {
		return err
	}
	root, ok := h.Root, h.InRepo
	if !ok {
		return fmt.Errorf("%s is not inside a git repository", h.Cwd)
	}
	checks, err := checkPolicy(root, a.getenv)
	if !asJSON {
		for _, c := range checks {
			fmt.Fprintf(a.stdout, "ok  %s: %s\n", c.Check, c.Detail)
		}
		return err
	}
	out := struct {
		OK     bool          `json:"ok"`
		Error  string        `json:"error,omitempty"`
		Checks []policyCheck `json:"checks"`
	}{OK: err == nil, Checks: checks}
	if err != nil {
		out.Error = err.Error()
	}
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	if werr := enc.Encode(out); werr != nil {
		return werr
	}
	if err != nil {
		return exitCode(exitError)
	}
	return nil
}

// policyCheck is one thing policy check found sound.
type policyCheck struct {
	Check  string `json:"check"`
	Detail string `json:"detail"`
}

// checkPolicy loads and validates the configuration under root: what it
// found sound, up to the first error.
func checkPolicy(root string, getenv func(string) string) ([]policyCheck, error) {
	checks := []policyCheck{}
	add := func(check, format string, args ...any) {
		checks = append(checks, policyCheck{check, fmt.Sprintf(format, args...)})
	}
	e := policy.LoadFromSource(root, getenv)
	if e.LoadErr != nil {
		return checks, e.LoadErr
	}
	if e.File == nil && e.Manifest == nil {
		add("policy", "no policy.json or agent-shell.toml: every command is allowed")
		return checks, nil
	}
	if e.File != nil {
		allow := "no allow list"
		if e.File.HasAllow {
			allow = fmt.Sprintf("%d allow patterns", len(e.File.Allow))
		}
		add(rel(e.File.Path), "%d deny patterns, %s", len(e.File.Deny), allow)
	}
	m := e.Manifest
	if m == nil {
		return checks, nil
	}
	if err := e.CheckPackExamples(); err != nil {
		return checks, err
	}
	examples := 0
	for _, r := range m.AllRules() {
		examples += len(r.Examples.Match) + len(r.Examples.NotMatch)
	}
	add(rel(m.Path), "%d rules, %d examples checked, default %s, unknown %s", len(m.AllRules()), examples, m.Policy.Default, m.Policy.Unknown)
	if len(m.Scripts) > 0 {
		// Compiling happened on load; this also runs each script's top
		// level and checks its entry function.
		if err := m.Runtime().Check(); err != nil {
			return checks, err
		}
		if err := m.VerifyExecutables(); err != nil {
			return checks, err
		}
		add("scripts", "%d compiled and initialised (manifest digest %s)", len(m.Scripts), m.Digest[:16])
	}
	for _, p := range m.LoadedPacks() {
		add("pack "+p.Decl.Name, "%s %s%s", p.File.Name, p.File.Version, packNote(p))
	}
	return checks, nil
}

// packNote says where a pack comes from and what of it is turned off.
func packNote(p *policy.Pack) string {
	var parts []string
	if p.Builtin() {
		parts = append(parts, "built in")
	} else {
		parts = append(parts, "vendored, matches the lock")
	}
	for _, name := range sortedKeys(p.Options) {
		parts = append(parts, fmt.Sprintf("%s = %v", name, p.Options[name]))
	}
	if len(p.Decl.Disable) > 0 {
		parts = append(parts, "disabled: "+strings.Join(p.Decl.Disable, ", "))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// rel shows a path relative to the current directory when that is shorter.
func rel(p string) string {
	if cwd, err := os.Getwd(); err == nil {
		if r, ok := strings.CutPrefix(p, cwd+string(os.PathSeparator)); ok {
			return r
		}
	}
	return p
}

func quoteArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>(){}*?[]#~") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}
