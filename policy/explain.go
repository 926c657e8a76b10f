package policy

import "github.com/agent-shell/agent-shell/telemetry"

// Explanation is a decision's path as data: what `policy explain --json`
// prints and what the MCP server's explain_policy tool returns.
type Explanation struct {
	Command    string                   `json:"command"`
	Decision   Action                   `json:"decision"`
	Guard      string                   `json:"guard,omitempty"`
	Rule       string                   `json:"rule,omitempty"`
	Reason     string                   `json:"reason"`
	Unknown    string                   `json:"unknown,omitempty"`
	LoadError  string                   `json:"load_error,omitempty"`
	Commands   []ExplainedCommand       `json:"commands"`
	Extensions []telemetry.ExtensionRun `json:"extensions,omitempty"`
	Packs      []string                 `json:"packs,omitempty"`
}

// ExplainedCommand is one simple command (one layer of it) of an
// Explanation.
type ExplainedCommand struct {
	Argv    []string         `json:"argv"`
	Layer   int              `json:"layer"`
	Effects []string         `json:"effects"`
	Matches []ExplainedMatch `json:"matches"`
	Action  Action           `json:"action"`
}

// ExplainedMatch is one rule or pattern that matched a command.
type ExplainedMatch struct {
	Action Action `json:"action"`
	Source string `json:"source"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason"`
}

// Explain turns the decision e made about command into an Explanation.
func Explain(command string, e *Engine, d Decision) Explanation {
	out := Explanation{Command: command, Decision: d.Action, Guard: d.Guard, Rule: d.Rule, Reason: d.Reason, Unknown: d.Unknown,
		Commands: []ExplainedCommand{}, Extensions: d.Extensions}
	if e.LoadErr != nil {
		out.LoadError = e.LoadErr.Error()
	}
	for _, c := range d.Commands {
		s := ExplainedCommand{Argv: c.Argv, Layer: c.Layer, Effects: c.Effects, Matches: []ExplainedMatch{}, Action: c.Action}
		for _, m := range c.Matches {
			s.Matches = append(s.Matches, ExplainedMatch{m.Action, m.Source, m.Rule, m.Reason()})
		}
		out.Commands = append(out.Commands, s)
	}
	if e.Manifest != nil {
		for _, p := range e.Manifest.LoadedPacks() {
			out.Packs = append(out.Packs, p.Decl.Name)
		}
	}
	return out
}
