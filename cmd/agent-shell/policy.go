package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry"
)

func newPolicyCmd(a *app) *cobra.Command {
	var initPolicy bool
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Propose, explain and check the project's policy",
		Example: `  agent-shell policy --init      # propose policy.json and agent-shell.toml from the project
  agent-shell policy explain 'CMD'
  agent-shell policy check`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if !initPolicy {
				return cmd.Help()
			}
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			return a.runPolicyInit(telemetry.FindRoot(cwd))
		}),
	}
	cmd.Flags().BoolVar(&initPolicy, "init", false, "scan the project and propose policy.json and agent-shell.toml (written only where none exists)")
	cwd := ""
	explain := &cobra.Command{
		Use:   "explain COMMAND",
		Short: "Show how the policy decides on a shell command, step by step",
		Example: `  agent-shell policy explain 'cd web && npm test'
  agent-shell policy explain 'bash -lc "rm -rf /"'`,
		Args: cobra.ExactArgs(1),
		RunE: runE(func(_ *cobra.Command, args []string) error {
			return a.runExplain(args[0], cwd)
		}),
	}
	explain.Flags().StringVar(&cwd, "cwd", "", "the `DIR` the command would run in (default: the current directory)")
	check := &cobra.Command{
		Use:   "check",
		Short: "Load and validate policy.json and agent-shell.toml, examples included",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runPolicyCheck()
		}),
	}
	cmd.AddCommand(explain, check)
	return cmd
}

func (a *app) runExplain(command, cwd string) error {
	e := a.loadPolicy()
	if e.LoadErr != nil {
		return e.LoadErr
	}
	if cwd == "" {
		// As an agent's call from here would be: paths resolve against it.
		if wd, err := os.Getwd(); err == nil {
			cwd = wd
		}
	}
	d := e.DecideRequest(command, policy.Request{Cwd: cwd, Home: a.getenv("HOME"), SessionID: a.callSession(""), DryRun: true})
	w := a.stdout
	fmt.Fprintf(w, "command: %s\n", command)
	if d.Unknown != "" {
		fmt.Fprintf(w, "unknown: %s\n", d.Unknown)
	}
	for i, c := range d.Commands {
		layer := ""
		if c.Layer > 0 {
			layer = fmt.Sprintf("  (wrapped, layer %d)", c.Layer+1)
		}
		fmt.Fprintf(w, "\n[%d] %s%s\n", i+1, quoteArgv(c.Argv), layer)
		fmt.Fprintf(w, "    effects: %s\n", joinOr(c.Effects, "none"))
		if len(c.Matches) == 0 {
			fmt.Fprintf(w, "    rules:   none matched, the default applies\n")
		}
		for _, m := range c.Matches {
			rule := m.Rule
			if rule == "" {
				rule = "-"
			}
			fmt.Fprintf(w, "    %-7s  %s %s: %s\n", m.Action, m.Source, rule, m.Reason)
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
	rule := d.Rule
	if rule == "" {
		rule = "none"
	}
	fmt.Fprintf(w, "\ndecision: %s (rule: %s)\nreason:   %s\n", d.Action, rule, d.Reason)
	if e.Manifest != nil {
		for _, p := range e.Manifest.LoadedPacks() {
			fmt.Fprintf(w, "pack:     %s%s\n", p.Decl.Name, packNote(p))
		}
	}
	return nil
}

func (a *app) runPolicyCheck() error {
	// Check the files as they are now, authorized or not, compiled from
	// source whatever the cache holds: this is how a human validates an
	// edit before running agent-shell authorize.
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, ok := telemetry.RepoRoot(cwd)
	if !ok {
		return fmt.Errorf("%s is not inside a git repository", cwd)
	}
	e := policy.LoadFromSource(root, a.getenv)
	if e.LoadErr != nil {
		return e.LoadErr
	}
	if e.File == nil && e.Manifest == nil {
		fmt.Fprintln(a.stdout, "no policy.json or agent-shell.toml: every command is allowed")
		return nil
	}
	if e.File != nil {
		allow := "no allow list"
		if e.File.HasAllow {
			allow = fmt.Sprintf("%d allow patterns", len(e.File.Allow))
		}
		fmt.Fprintf(a.stdout, "ok  %s: %d deny patterns, %s\n", rel(e.File.Path), len(e.File.Deny), allow)
	}
	if m := e.Manifest; m != nil {
		if err := e.CheckPackExamples(); err != nil {
			return err
		}
		examples := 0
		for _, r := range m.Rules {
			examples += len(r.Examples.Match) + len(r.Examples.NotMatch)
		}
		fmt.Fprintf(a.stdout, "ok  %s: %d rules, %d examples checked, default %s, unknown %s\n",
			rel(m.Path), len(m.Rules), examples, m.Policy.Default, m.Policy.Unknown)
		if len(m.Scripts) > 0 {
			// Compiling happened on load; this also runs each script's
			// top level and checks its entry function.
			if err := m.Runtime().Check(); err != nil {
				return err
			}
			if err := m.VerifyExecutables(); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "ok  %d scripts compiled and initialised (manifest digest %s)\n", len(m.Scripts), m.Digest[:16])
		}
		for _, p := range m.LoadedPacks() {
			fmt.Fprintf(a.stdout, "ok  pack %s: %s %s%s\n", p.Decl.Name, p.File.Name, p.File.Version, packNote(p))
		}
	}
	return nil
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
