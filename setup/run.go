package setup

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Options are what Run takes from `agent-shell init`.
type Options struct {
	Dir    string // where init was run; the repository is found from it
	Getenv func(string) string
	Stdout io.Writer
	Stderr io.Writer
	// Terminal is set when stdin and stdout are a terminal; with no flags,
	// init then asks there.
	Terminal *Terminal
	Flags    Flags
}

// AlreadySetUp is what a run that changes nothing says.
const AlreadySetUp = "agent-shell is already set up here; nothing changed"

// Run is `agent-shell init`. Flags decide without asking; with none, a
// terminal gets the prompt, and anything else gets every missing feature
// for the detected agents, said on stderr.
func Run(o Options) error {
	o.Flags.Agents = cleanAgents(o.Flags.Agents)
	if err := CheckAgents(o.Flags.Agents); err != nil {
		return err
	}
	s, err := Detect(o.Dir, o.Getenv)
	if err != nil {
		return err
	}
	if s.PolicyErr != nil {
		fmt.Fprintf(o.Stderr, "agent-shell: warning: the existing policy does not load; it was left unchanged (agent-shell policy check): %v\n", s.PolicyErr)
	}
	var p Plan
	switch {
	case o.Flags.Given:
		p = s.PlanFromFlags(o.Flags)
	case o.Terminal != nil:
		if !s.DefaultPlan().Empty() {
			var ok bool
			p, ok, err = o.Terminal.Ask(s)
			if errors.Is(err, ErrCanceled) {
				fmt.Fprintf(o.Stderr, "agent-shell: init %v\n", err)
				return err
			}
			if err != nil {
				return err
			}
			if !ok {
				return nil // the prompt said nothing changed
			}
		}
	default:
		p = s.DefaultPlan()
		if !p.Empty() {
			fmt.Fprintf(o.Stderr, "agent-shell: non-interactive mode, enabling: %s\n", s.Describe(p))
		}
	}
	enabled := s.Describe(p)
	res, err := Apply(s, p)
	if err != nil {
		for _, f := range res.Files {
			fmt.Fprintf(o.Stdout, "wrote %s\n", f)
		}
		return err
	}
	report(o.Stdout, s, res, enabled, s.missing(p.Agents).Empty())
	return nil
}

// cleanAgents forgives "claude, Gemini" and repeats: names are trimmed,
// lower-cased and kept once, in order.
func cleanAgents(names []string) []string {
	var out []string
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// report prints the files written, the notes, and how to verify. complete
// says whether nothing was missing before, so that a run that changes
// nothing because features were left out does not claim all is set up.
func report(w io.Writer, s *State, res *Result, enabled string, complete bool) {
	for _, f := range res.Files {
		fmt.Fprintf(w, "wrote %s\n", f)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	switch {
	case len(res.Files) == 0 && complete:
		fmt.Fprintln(w, AlreadySetUp)
		return
	case len(res.Files) == 0:
		fmt.Fprintln(w, "nothing to set up for the features asked for; nothing changed")
		return
	}
	fmt.Fprintf(w, "enabled: %s\n", enabled)
	starter := false
	for _, f := range res.Files {
		starter = starter || strings.HasSuffix(f, "/agent-shell.toml")
	}
	switch {
	case len(s.PolicyFiles) > 0 || starter:
		// The policy is what can be wrong right away; the hooks load it.
		fmt.Fprintln(w, "verify: agent-shell policy check")
	default:
		fmt.Fprintln(w, "verify: agent-shell log verify (after an agent's first tool call)")
	}
	if starter {
		fmt.Fprintln(w, "policy: the built-in safety pack at level standard (agent-shell pack show safety); agent-shell policy --init proposes rules from this project")
	}
}
