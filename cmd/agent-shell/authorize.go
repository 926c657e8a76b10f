package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/setup"
)

func newAuthorizeCmd(a *app) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "authorize",
		Short: "Review the agent-shell configuration and authorize it (run by a human)",
		Long: `Shows what changed in the agent-shell configuration (policy.json, the manifest,
its scripts and packs) since it was last authorized, asks for confirmation, and
records the digest of the whole configuration in your configuration directory
($XDG_CONFIG_HOME/agent-shell/authorized.json, outside the repository), with
who confirmed it and from where, the programs its scripts compile to, and a
copy of the configuration under .agent-shell/state/authorized/.

Every decision checks the configuration in force against that digest. While it
differs, the authorized configuration's [policy] unauthorized decides:
"last-authorized" (the default) decides with the authorized copy and says so,
"deny" denies every call, "warn" decides with the changed configuration and
says so. A repository never authorized uses its configuration as it is.

Only a human authorizes: the confirmation is a code shown on the controlling
terminal and typed back there, new each time; nothing replaces it. It refuses
without a controlling terminal, outside its foreground, and in an agent's
session (an agent's marker, such as CLAUDECODE, set for it or for a process
above it). A configuration that does not load is never authorized.`,
		Example: `  agent-shell authorize`,
		Args:    cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return a.runAuthorize(yes)
		}),
	}
	// Kept, hidden, to say why it is refused rather than that it is unknown.
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "refused: only a human authorizes, on a terminal")
	cmd.Flags().MarkHidden("yes") //nolint:errcheck // the flag is defined above
	return cmd
}

func (a *app) runAuthorize(yes bool) error {
	if yes {
		return errors.New("authorize --yes is refused: only a human authorizes, by typing the code authorize shows on their terminal")
	}
	if why := agentSession(a.getenv); why != "" {
		return fmt.Errorf("authorize refuses to run in an agent's session (%s): a human runs it in a terminal of their own, outside the agent", why)
	}
	tty, err := controllingTerminal()
	if err != nil {
		return err
	}
	defer tty.Close()
	h, err := a.here()
	if err != nil {
		return err
	}
	root, ok := h.Root, h.InRepo
	if !ok {
		return errors.New("run agent-shell authorize inside a git repository")
	}
	cfgDir, err := authority.ConfigDir(a.getenv)
	if err != nil {
		return err
	}
	if inside(root, cfgDir) {
		a.errorf("warning: the authorization store %s is inside this repository, where an agent could change it; set XDG_CONFIG_HOME to a folder outside it", termtext.Escape(cfgDir))
	}
	p, err := policy.ProposeAuthorization(root, a.getenv, cfgDir)
	if err != nil {
		return err
	}
	defer p.Discard()
	hosts, err := registeredHosts(root, a.getenv)
	if err != nil {
		return err
	}
	w := a.stdout
	var prevHosts []string
	switch {
	case p.Previous == nil:
		fmt.Fprintln(w, "First authorization of this repository's agent-shell configuration.")
		a.printFiles(p)
	case p.PreviousProblem != "":
		prevHosts = p.Previous.Hosts
		fmt.Fprintf(w, "The last authorized configuration (%s) cannot be compared with: %s.\n", p.Previous.AuthorizedAt.UTC().Format(time.RFC3339), p.PreviousProblem)
		fmt.Fprintln(w, "Every file is shown as new:")
		fmt.Fprint(w, p.Diff)
	default:
		prevHosts = p.Previous.Hosts
		if p.Unchanged && slices.Equal(prevHosts, hosts) && !p.ProgramsChanged && p.Previous.By != nil {
			fmt.Fprintf(w, "Already authorized: configuration %s (authorized %s); nothing changed.\n", p.Digest, p.Previous.AuthorizedAt.UTC().Format(time.RFC3339))
			return nil
		}
		fmt.Fprintf(w, "Changes since the authorization of %s:\n", p.Previous.AuthorizedAt.UTC().Format(time.RFC3339))
		switch {
		case p.Diff != "":
			fmt.Fprint(w, p.Diff)
		case p.Digest != p.Previous.Digest:
			// Same files, other digest: what the scripts load from
			// agent-shell itself (the @agent-shell// library) changed.
			fmt.Fprintln(w, "No file changed; the scripts' built-in @agent-shell// library did (a new agent-shell version).")
		case p.Previous.By == nil:
			fmt.Fprintln(w, "No file changed; the authorization does not say who confirmed it (an older agent-shell's, or not agent-shell's).")
		case p.ProgramsChanged:
			fmt.Fprintln(w, "No file changed; the scripts compile to other programs, or the manifest to another snapshot (a new agent-shell version).")
		default:
			fmt.Fprintln(w, "No file changed.")
		}
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(w, "Left out (not regular files: symbolic links are not copied): %s\n", escapeJoin(p.Skipped))
	}
	hostLine := "Hosts registered: " + joinOr(hosts, "none")
	if p.Previous != nil && !slices.Equal(prevHosts, hosts) {
		hostLine += " (were: " + joinOr(prevHosts, "none") + ")"
	}
	fmt.Fprintln(w, hostLine)
	fmt.Fprintf(w, "Configuration digest: %s\n", p.Digest)

	if !confirm(tty, p) {
		fmt.Fprintln(w, "Not authorized; nothing changed.")
		return exitCode(exitError)
	}
	if err := p.Accept(hosts, provenance(a.getenv), a.now()); err != nil {
		return err
	}
	fmt.Fprintf(w, "Authorized configuration %s.\n", p.Digest)
	fmt.Fprintf(w, "Recorded in %s; its copy is %s.\n", displayPath(cfgDir+string(os.PathSeparator)+authority.FileName), relRoot(root, policy.AuthorizedCopy(root, p.Digest)))
	return nil
}

func (a *app) printFiles(p *policy.Proposal) {
	if len(p.Files) == 0 {
		fmt.Fprintln(a.stdout, "There is no policy.json and no agent-shell.toml: every command is allowed.")
		return
	}
	fmt.Fprintln(a.stdout, "Its files:")
	for _, f := range p.Files {
		fmt.Fprintf(a.stdout, "  %s\n", termtext.Escape(f))
	}
}

func escapeJoin(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = termtext.Escape(s)
	}
	return strings.Join(out, ", ")
}

// confirm asks on the controlling terminal for the code that authorizes p.
// A signal (Ctrl-C) removes the staged copy and ends the process.
func confirm(tty *os.File, p *policy.Proposal) bool {
	defer setup.ExitOnSignal(func() {
		p.Discard()
		fmt.Fprintln(tty)
	})()
	return askCode(tty, "To authorize this configuration,")
}

// registeredHosts lists the hosts whose hook registration runs agent-shell
// for every event it registers: `agent-shell hook install` would change
// nothing (the reading init uses).
func registeredHosts(root string, getenv func(string) string) ([]string, error) {
	s, err := setup.Detect(root, getenv)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ag := range s.Agents {
		if ag.Registered && ag.Err == nil && registrationExists(root, ag.Name) {
			out = append(out, ag.Name)
		}
	}
	return out, nil
}

// inside reports whether p is root or below it.
func inside(root, p string) bool {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for d := filepath.Clean(p); ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			// The deepest folder that exists decides.
			rel, err := filepath.Rel(root, filepath.Join(r, strings.TrimPrefix(filepath.Clean(p), d)))
			return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// relRoot shows p relative to the repository root.
func relRoot(root, p string) string {
	if r, ok := strings.CutPrefix(p, root+string(os.PathSeparator)); ok {
		return termtext.Escape(r)
	}
	return termtext.Escape(p)
}
