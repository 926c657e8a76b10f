package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry"
)

func newPolicyCheckCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "policy-check",
		Short: "Copilot preToolUse hook: allow or deny a tool call by the project's policy",
		Long: `Reads a Copilot preToolUse payload on stdin and answers with Copilot's
{"permissionDecision": ...} on stdout (always exit 0: Copilot ignores exit
codes on preToolUse). Anything that cannot be read or decided is denied.
The decision is recorded after the answer is written.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			a.runPreTool(a.copilot(), "preToolUse")
			return nil
		}),
	}
}

func newRecordCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "record",
		Short: "Copilot postToolUse hook: record a tool call in the flight recorder",
		Long: `Reads a Copilot postToolUse payload on stdin and appends a tool_use event with
a redacted summary of the tool's result. It always exits 0.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			a.runPostTool(a.copilot(), "postToolUse")
			return nil
		}),
	}
}

func (a *app) copilot() hostapi.Copilot {
	// The cloud agent runs in GitHub Actions and has no human to ask.
	return hostapi.Copilot{CloudAgent: a.getenv("GITHUB_ACTIONS") == "true" || a.getenv("COPILOT_AGENT") != ""}
}

// runPreTool answers one pre-tool hook call. The answer is written in full
// before anything is recorded, and every failure is the host's own deny.
// (Loading the policy in a goroutine while the payload is read was measured
// slower: a fresh process pays more for a second thread than it saves.)
func (a *app) runPreTool(ad hostapi.Adapter, nativeEvent string) {
	payload, err := hostapi.ReadPayload(a.stdin, hostapi.DefaultMaxPayload)
	if err != nil {
		a.answer(ad.Failure(nil, fmt.Errorf("unexpected error reading the hook payload: %w", err)))
		a.recordDecision(ad, nil, policy.Decision{Action: policy.ActionDeny, Reason: err.Error()})
		return
	}
	ev, err := ad.Parse(payload, nativeEvent)
	if err != nil {
		a.answer(ad.Failure(nil, err))
		a.recordDecision(ad, nil, policy.Decision{Action: policy.ActionDeny, Reason: err.Error()})
		return
	}
	engine := a.loadPolicy()
	if engine.LoadErr != nil {
		a.errorf("policy load error: %v", engine.LoadErr)
	}
	d := engine.DecideEvent(ev)
	a.answer(ad.Render(ev, d.Verdict()))
	a.recordDecision(ad, ev, d)
}

// loadPolicy loads the policy of the repository around the current
// directory. Outside a repository there is no policy to trust: deny.
func (a *app) loadPolicy() *policy.Engine {
	cwd, err := os.Getwd()
	if err != nil {
		return &policy.Engine{LoadErr: fmt.Errorf("current directory: %w", err)}
	}
	root, ok := telemetry.RepoRoot(cwd)
	if !ok {
		return &policy.Engine{LoadErr: fmt.Errorf("%s is not inside a git repository", cwd)}
	}
	return policy.Load(root, a.getenv)
}

func (a *app) answer(r hostapi.Response) {
	if err := hostapi.WriteResponse(a.stdout, a.stderr, r); err != nil {
		a.errorf("%v", err)
	}
}

func (a *app) recordDecision(ad hostapi.Adapter, ev *hostapi.Event, d policy.Decision) {
	session := ""
	if ev != nil {
		session = ev.SessionID
	}
	a.record(decisionEvent(ad, ev, d), session)
}

func decisionEvent(ad hostapi.Adapter, ev *hostapi.Event, d policy.Decision) *telemetry.Event {
	e := &telemetry.Event{
		Event:       telemetry.EventPolicyDecision,
		Decision:    string(d.Action),
		MatchedRule: d.Rule,
		Agent:       ad.Name(),
		Rule:        d.Rule,
		Reason:      d.Reason,
		Effects:     d.Effects,
	}
	if ev != nil && ev.IsShell() {
		e.Command = policy.TrimCommand(ev.Command)
	}
	return e
}

// runPostTool records one post-tool hook call. It never fails the host.
func (a *app) runPostTool(ad hostapi.Adapter, nativeEvent string) {
	payload, err := hostapi.ReadPayload(a.stdin, hostapi.DefaultMaxPayload)
	if err != nil {
		a.errorf("record: %v", err)
		return
	}
	ev, err := ad.Parse(payload, nativeEvent)
	if err != nil {
		a.errorf("record: %v", err)
		return
	}
	a.answer(ad.Render(ev, hostapi.Verdict{Decision: hostapi.Allow}))
	e := &telemetry.Event{
		Event:      telemetry.EventToolUse,
		ToolName:   ev.NativeTool,
		Agent:      ad.Name(),
		ToolResult: summarizeResult(ev.Result),
	}
	if ev.IsShell() {
		e.Command = ev.Command
	}
	a.record(e, ev.SessionID)
}

// summarizeResult keeps the shape of a tool's result, not its text: the
// result type, an exit code when the host reports one, and the length.
func summarizeResult(raw json.RawMessage) *telemetry.ToolResult {
	if len(raw) == 0 {
		return nil
	}
	var r struct {
		ResultType      string          `json:"resultType"`
		ResultTypeSnake string          `json:"result_type"`
		Text            json.RawMessage `json:"textResultForLlm"`
		TextSnake       json.RawMessage `json:"text_result_for_llm"`
		ExitCode        *int            `json:"exitCode"`
		ExitCodeSnake   *int            `json:"exit_code"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return &telemetry.ToolResult{Length: len(raw)}
	}
	out := &telemetry.ToolResult{Type: r.ResultType, ExitCode: r.ExitCode, Length: len(raw)}
	if out.Type == "" {
		out.Type = r.ResultTypeSnake
	}
	if out.ExitCode == nil {
		out.ExitCode = r.ExitCodeSnake
	}
	for _, t := range []json.RawMessage{r.Text, r.TextSnake} {
		var s string
		if json.Unmarshal(t, &s) == nil && s != "" {
			out.Length = len(s)
		}
	}
	return out
}
