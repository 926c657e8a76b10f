package setup

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/hostapi"
)

// Plan is what init sets up.
//
// Flight recording and policy share one thing: each agent's hook
// registration, written by its adapter's Install, which registers the pre-
// and post-tool hooks together (one `agent-shell hook` entry decides and
// records). So the hooks are installed when either is enabled; policy adds
// the starter manifest, the safety pack, when the repository has no policy.
type Plan struct {
	Agents         []string // whose hooks to install
	FlightRecorder bool
	Policy         bool
	NPM            bool
	// ReplaceScriptShell allows replacing another script-shell in .npmrc.
	ReplaceScriptShell bool
	Gitignore          bool
}

// Empty reports whether the plan sets up nothing.
func (p Plan) Empty() bool { return !p.FlightRecorder && !p.Policy && !p.NPM && !p.Gitignore }

func (p Plan) hooks() bool { return (p.FlightRecorder || p.Policy) && len(p.Agents) > 0 }

// Flags are init's command-line choices. Any flag at all means init asks
// nothing.
type Flags struct {
	Agents                           []string
	FlightRecorder, NoFlightRecorder bool
	Policy, NoPolicy                 bool
	NPM, NoNPM                       bool
	Yes                              bool
	Given                            bool // some flag was given
}

// UsageError is a wrong command line (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// CheckAgents validates agent names against the adapters hostapi has.
func CheckAgents(names []string) error {
	known := hostapi.Names()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return &UsageError{fmt.Sprintf("unknown agent %q (known: %s)", n, strings.Join(known, ", "))}
		}
	}
	return nil
}

// missing is every feature not set up yet for the agents, which is what
// init enables when it is not told otherwise. npm counts only with a
// package.json (or when asked for), and another script-shell is not
// replaced unless asked.
func (s *State) missing(agents []string) Plan {
	hooks := s.hooksMissing(agents)
	return Plan{
		Agents:         agents,
		FlightRecorder: hooks,
		Policy:         hooks || len(s.PolicyFiles) == 0,
		NPM:            s.HasPackageJSON && !s.NPM.Set && s.NPM.Other == "" && !s.NPM.Tracked,
		Gitignore:      !s.Gitignore,
	}
}

// PlanFromFlags turns the flags into a plan, asking nothing. The agents
// are --agent's, else the detected ones (Copilot when none). With a
// positive feature flag only the named features are enabled; otherwise
// every missing one is. A --no-* flag beats its twin. --npm or --yes
// replace another script-shell in .npmrc. .gitignore gets its entry unless
// every feature was turned off.
func (s *State) PlanFromFlags(f Flags) Plan {
	agents := f.Agents
	if len(agents) == 0 {
		agents = s.DetectedAgents()
	}
	m := s.missing(agents)
	p := Plan{Agents: agents}
	fr := f.FlightRecorder && !f.NoFlightRecorder
	pol := f.Policy && !f.NoPolicy
	npm := f.NPM && !f.NoNPM
	if f.FlightRecorder || f.Policy || f.NPM {
		p.FlightRecorder = fr && m.FlightRecorder
		p.Policy = pol && m.Policy
		p.NPM = npm && !s.NPM.Set
	} else {
		p.FlightRecorder = m.FlightRecorder && !f.NoFlightRecorder
		p.Policy = m.Policy && !f.NoPolicy
		p.NPM = !s.NPM.Set && !f.NoNPM && s.HasPackageJSON && (s.NPM.Other == "" || f.Yes)
	}
	// A committed .npmrc reaches machines without agent-shell: never there.
	p.NPM = p.NPM && !s.NPM.Tracked
	p.ReplaceScriptShell = p.NPM && s.NPM.Other != ""
	p.Gitignore = m.Gitignore && !(f.NoFlightRecorder && f.NoPolicy && f.NoNPM)
	return p
}

// unregistered filters the agents whose hooks are missing.
func (s *State) unregistered(agents []string) []string {
	var out []string
	for _, n := range agents {
		if !s.Agent(n).Registered {
			out = append(out, n)
		}
	}
	return out
}

// DefaultPlan is what init does with no terminal and no flags: every
// missing feature, for the detected agents.
func (s *State) DefaultPlan() Plan { return s.missing(s.DetectedAgents()) }

// Describe names the plan's features for one line of output.
func (s *State) Describe(p Plan) string {
	var parts []string
	agents := strings.Join(s.unregistered(p.Agents), ", ")
	switch {
	case p.FlightRecorder && p.Policy:
		parts = append(parts, "flight recording and policy hooks ("+agents+")")
	case p.FlightRecorder:
		parts = append(parts, "flight recording ("+agents+")")
	case p.Policy && s.hooksMissing(p.Agents):
		parts = append(parts, "policy hooks ("+agents+")")
	}
	if p.Policy && len(s.PolicyFiles) == 0 {
		parts = append(parts, "the safety pack")
	}
	if p.NPM {
		parts = append(parts, "npm script-shell")
	}
	if p.Gitignore {
		parts = append(parts, ".gitignore entry")
	}
	return strings.Join(parts, ", ")
}
