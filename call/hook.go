package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"
)

func newHookCmd(a *app) *cobra.Command {
	var agent, event string
	cmd := &cobra.Command{
		Use:   "hook --agent NAME",
		Short: "Handle one hook call of an agent: decide on tool calls, record every event",
		Long: `Reads one hook payload of the named agent on stdin and answers in that agent's
own protocol. A pre-tool event is decided by the project's policy; every event
is recorded after the answer is written. Anything that cannot be read or
decided on a pre-tool event is that agent's own deny.

Agents: ` + strings.Join(hostapi.Names(), ", "),
		Example: `  agent-shell hook --agent claude < payload.json
  agent-shell hook install --agent claude`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			ad, err := a.adapter(agent)
			if err != nil {
				return err
			}
			return exitCode(a.runHook(ad, event))
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that calls: "+strings.Join(hostapi.Names(), ", "))
	cmd.Flags().StringVar(&event, "event", "", "the agent's `NAME` for the event, for agents whose payloads do not carry it")
	cmd.Flags().Int64Var(&a.maxPayload, "max-payload", hostapi.DefaultMaxPayload, "refuse (deny) a payload over `BYTES`")
	_ = cmd.MarkFlagRequired("agent")

	var installAgents []string
	install := &cobra.Command{
		Use:   "install --agent NAME[,NAME...]",
		Short: "Register agent-shell in the agents' hook configuration of this repository",
		Args:  cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			for _, name := range installAgents {
				ad, err := a.adapter(name)
				if err != nil {
					return err
				}
				files, err := ad.Install(telemetry.FindRoot(cwd))
				if err != nil {
					return fmt.Errorf("install %s hooks: %w", ad.Name(), err)
				}
				if len(files) == 0 {
					fmt.Fprintf(a.stdout, "%s hooks already registered; nothing changed\n", ad.Name())
				}
				for _, f := range files {
					fmt.Fprintf(a.stdout, "wrote %s\n", rel(f))
				}
			}
			return nil
		}),
	}
	install.Flags().StringSliceVar(&installAgents, "agent", nil, "the agents, comma-separated: "+strings.Join(hostapi.Names(), ", "))
	_ = install.MarkFlagRequired("agent")
	cmd.AddCommand(install)
	return cmd
}

func (a *app) adapter(name string) (hostapi.Adapter, error) {
	ad, ok := hostapi.ByName(agentName(name), a.getenv)
	if !ok {
		return nil, &runtimeError{err: fmt.Errorf("unknown agent %q (known: %s)", name, strings.Join(hostapi.Names(), ", ")), code: exitUsage}
	}
	return ad, nil
}

// agentName is the adapter's name of an agent named either way: as its
// hook adapter is (claude) or as the log records it (claude-code).
func agentName(name string) string {
	for _, n := range hostapi.Names() {
		if telemetry.AgentActor(n) == name {
			return n
		}
	}
	return name
}

// The compatible entries of the reference tool: Copilot's preToolUse and
// postToolUse hooks, or any agent's with --agent or a payload that names it.
func newPolicyCheckCmd(a *app) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "policy-check",
		Short: "Pre-tool hook (Copilot's by default): allow or deny a tool call by the project's policy",
		Long: `Reads a pre-tool hook payload on stdin and answers in the agent's format:
Copilot's {"permissionDecision": ...} by default (always exit 0: Copilot
ignores exit codes on preToolUse). Another agent is taken from --agent or
recognized from its payload. Anything that cannot be read or decided is
denied. The decision is recorded after the answer is written.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			return exitCode(a.runAlias(agent, "preToolUse", hostapi.KindPreTool))
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that calls (default: recognized from the payload, else copilot)")
	cmd.Flags().Int64Var(&a.maxPayload, "max-payload", hostapi.DefaultMaxPayload, "refuse (deny) a payload over `BYTES`")
	return cmd
}

func newRecordCmd(a *app) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Post-tool hook (Copilot's by default): record a tool call in the flight recorder",
		Long: `Reads a post-tool hook payload on stdin and appends a tool_use event with a
redacted summary of the tool's result. It always exits 0.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			a.runAlias(agent, "postToolUse", hostapi.KindPostTool)
			return exitCode(0)
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent that calls (default: recognized from the payload, else copilot)")
	cmd.Flags().Int64Var(&a.maxPayload, "max-payload", hostapi.DefaultMaxPayload, "ignore a payload over `BYTES`")
	return cmd
}

// runAlias runs policy-check or record: the payload names its agent unless
// --agent does; copilotEvent names the event for Copilot's camelCase
// payloads, which do not carry it, and kind says which the alias is for.
func (a *app) runAlias(agent, copilotEvent string, kind hostapi.Kind) int {
	payload, readErr := hostapi.ReadPayload(a.stdin, a.maxPayload)
	if agent == "" {
		agent = hostapi.Detect(payload)
	}
	if agent == "" {
		agent = "copilot"
	}
	ad, err := a.adapter(agent)
	if err != nil {
		a.errorf("%v", err)
		ad, _ = hostapi.ByName("copilot", a.getenv)
	}
	event := ""
	if ad.Name() == "copilot" {
		event = copilotEvent
	}
	return a.handle(ad, event, kind, payload, readErr)
}

func (a *app) runHook(ad hostapi.Adapter, nativeEvent string) int {
	payload, err := hostapi.ReadPayload(a.stdin, a.maxPayload)
	// An unreadable payload may have been a pre-tool call: deny it.
	return a.handle(ad, nativeEvent, hostapi.KindPreTool, payload, err)
}

// handle answers one hook call and records it. The answer is written in
// full before anything is recorded, and a call that cannot be read or
// decided is, on a pre-tool event, the host's own deny. unreadable is the
// kind to assume when the payload cannot be read. It returns the exit code
// the host reads.
func (a *app) handle(ad hostapi.Adapter, nativeEvent string, unreadable hostapi.Kind, payload []byte, readErr error) (code int) {
	// A bug must not answer nothing: an empty answer with a crash's exit
	// code is an allow to several hosts. Before the answer is out, a panic
	// is the host's own deny (or its failure answer on other events).
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("internal error: %v", r)
			if a.answered {
				a.errorf("%v", err)
				return
			}
			code = a.fail(ad, unreadable, err)
		}
	}()
	if readErr != nil {
		return a.fail(ad, unreadable, fmt.Errorf("unexpected error reading the hook payload: %w", readErr))
	}
	ev, err := ad.Parse(payload, nativeEvent)
	if err != nil {
		return a.fail(ad, unreadable, err)
	}
	ev.SessionID = a.callSession(ev.SessionID)
	runtime.SetBudget(runtime.Budget{Memory: hookMemory, Deadline: time.Now().Add(a.hookDeadline()), // the watchdog reads the real clock
		Runaway: func(reason string) { a.hookRunaway(ad, ev, reason) }})
	if ev.Kind != hostapi.KindPreTool {
		v, events := a.afterTool(ad, ev) // after-interceptors on a shell post-tool call (intercept.go)
		code = a.answer(ad.Render(ev, v))
		a.recordAll(append([]*telemetry.Event{observedEvent(ev)}, events...), ev.SessionID)
		if ev.Kind == hostapi.KindSessionEnd || ev.Kind == hostapi.KindStop {
			a.exportOnEnd() // export.go: only when an OTLP endpoint is set
		}
		return code
	}
	// Loading the policy in a goroutine while the payload is read was
	// measured slower: a fresh process pays more for a second thread than
	// it saves.
	engine := a.loadPolicy()
	if engine.LoadErr != nil {
		a.errorf("policy load error: %v", engine.LoadErr)
	}
	engine.EventTimeout = decisionTimeout
	d := engine.DecideEvent(ev)
	code = a.answer(ad.Render(ev, sandboxVerdict(engine, ad, ev, d.HookVerdict(ev, ad.Coverage(ev.Kind), ad.Name()))))
	events := append(interceptEvents(ad, ev, d), reviewEvents(ad, ev, d)...)
	de := decisionEvent(ad, ev, d)
	switch {
	case d.Guard != "":
		de.Event = telemetry.EventGuard
	case a.auth.EventDue():
		de.Event = telemetry.EventConfigUnauthorized
	}
	a.recordAll(append(events, de), ev.SessionID)
	return code
}

// A hook call answers within hookDeadline, under the 10 s timeout hook
// install registers with every host, with its scripts' memory under
// hookMemory; decisionTimeout, which bounds a decision's extensions, leaves
// room for the answer and the record.
const (
	hookDeadline    = 5 * time.Second
	hookMemory      = 256 << 20
	decisionTimeout = 4 * time.Second
)

// hookDeadline is hookDeadline, or a shorter AGENTSHELL_HOOK_DEADLINE (a
// host with a shorter hook timeout).
func (a *app) hookDeadline() time.Duration {
	if v := a.getenv("AGENTSHELL_HOOK_DEADLINE"); v != "" {
		d, err := time.ParseDuration(v)
		if err == nil && d > 0 && d < hookDeadline {
			return d
		}
		a.errorf("AGENTSHELL_HOOK_DEADLINE=%q is not a duration between 0 and %s; using %s", v, hookDeadline, hookDeadline)
	}
	return hookDeadline
}

// hookRunaway ends a hook call whose script will not stop (runtime.Budget):
// the host gets the failure answer, a deny on a pre-tool call, unless an
// answer is out already; the call is recorded without the audit filter (a
// script too), and the process exits with the answer's code.
func (a *app) hookRunaway(ad hostapi.Adapter, ev *hostapi.Event, reason string) {
	a.answerMu.Lock()
	answered, code := a.answered, a.answerCode
	a.answerMu.Unlock()
	if answered {
		a.errorf("%s; the answer stands, the call's events are not recorded", reason)
		os.Exit(code)
	}
	a.unfiltered = true
	err := fmt.Errorf("stopped: %s", reason)
	if ev.Kind != hostapi.KindPreTool {
		os.Exit(a.fail(ad, ev.Kind, err))
	}
	code = a.answer(ad.Failure(ev, err))
	a.record(decisionEvent(ad, ev, policy.Decision{Action: policy.ActionDeny, Reason: "Command denied: " + err.Error()}), ev.SessionID)
	os.Exit(code)
}

// fail answers a call that could not be read: a pre-tool call is denied in
// the host's own terms and the denial recorded; anything else is reported.
func (a *app) fail(ad hostapi.Adapter, kind hostapi.Kind, err error) int {
	if kind != hostapi.KindPreTool {
		a.errorf("%s hook: %v", ad.Name(), err)
		return a.answer(ad.Failure(&hostapi.Event{Kind: kind}, err))
	}
	code := a.answer(ad.Failure(nil, err))
	a.record(decisionEvent(ad, nil, policy.Decision{Action: policy.ActionDeny, Reason: err.Error()}), "")
	return code
}

// loadPolicy loads the policy of the repository around the current
// directory, once per process. Outside a repository there is no policy to
// trust: deny.
func (a *app) loadPolicy() *policy.Engine {
	if a.engine == nil {
		a.engine = a.readPolicy()
	}
	return a.engine
}

func (a *app) readPolicy() *policy.Engine {
	cwd, err := os.Getwd()
	if err != nil {
		return &policy.Engine{LoadErr: fmt.Errorf("current directory: %w", err)}
	}
	root, ok := telemetry.RepoRoot(cwd)
	if !ok {
		return &policy.Engine{LoadErr: fmt.Errorf("%s is not inside a git repository", cwd)}
	}
	// Decide with the configuration a human authorized (see authorize);
	// without a config directory there is no authorization to check.
	cfgDir, _ := authority.ConfigDir(a.getenv)
	e, auth := policy.LoadAuthorized(root, a.getenv, cfgDir)
	e.Home = a.getenv("HOME") // scripts' ctx.home, and what ctx.dir resolves ~ against
	a.auth = auth
	return e
}

// answer writes a hook response and returns its exit code.
func (a *app) answer(r hostapi.Response) int {
	a.answerMu.Lock()
	defer a.answerMu.Unlock()
	if a.answered {
		return a.answerCode
	}
	a.answered, a.answerCode = true, r.Exit
	if err := hostapi.WriteResponse(a.stdout, a.stderr, r); err != nil {
		a.errorf("%v", err)
	}
	return r.Exit
}

// decisionEvent records a pre-tool decision; ev is nil when the payload
// could not be read.
func decisionEvent(ad hostapi.Adapter, ev *hostapi.Event, d policy.Decision) *telemetry.Event {
	e := &telemetry.Event{
		Event:       telemetry.EventPolicyDecision,
		Decision:    string(d.Action),
		MatchedRule: d.Rule,
		Agent:       ad.Name(),
		Rule:        d.Rule,
		Reason:      d.Reason,
		Effects:     d.Effects,
		Extensions:  d.Extensions,
	}
	if ev != nil {
		describe(e, ev)
		if ev.IsShell() {
			e.Command = policy.TrimCommand(ev.Command)
		}
		e.RequestID = ev.RequestID()
		e.Cwd = ev.Cwd // where the decision judged the call: replay judges it there again
	}
	return e
}

// sandboxVerdict sends an allowed shell command back to run through
// agent-shell exec, where [enforce] mode = "sandbox" and the host's shell
// tool keeps its semantics that way (hostapi.Sandbox); the command an
// interceptor rewrote is the one wrapped.
func sandboxVerdict(e *policy.Engine, ad hostapi.Adapter, ev *hostapi.Event, v hostapi.Verdict) hostapi.Verdict {
	if e.Manifest == nil || !e.Manifest.Enforce.Sandbox() || !ev.IsShell() || v.Decision != hostapi.Allow {
		return v
	}
	wrap, _ := hostapi.Sandbox(ad.Name())
	if wrap == hostapi.SandboxNone {
		return v
	}
	input, command := ev.Input, ev.Command
	if len(v.UpdatedInput) > 0 {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(v.UpdatedInput, &in) != nil || in.Command == "" {
			return v
		}
		input, command = v.UpdatedInput, in.Command
	}
	self, err := os.Executable()
	if err != nil {
		return v
	}
	wrapped, ok := policy.RewriteInput(input, hostapi.SandboxCommand(wrap, self, command, ev.RequestID(), ev.SessionID))
	if !ok {
		return v
	}
	v.UpdatedInput, v.Sandbox = wrapped, true
	return v
}

// reviewEvents records what each reviewer answered, and each grant used,
// on the way to a decision.
func reviewEvents(ad hostapi.Adapter, ev *hostapi.Event, d policy.Decision) []*telemetry.Event {
	if d.Review == nil {
		return nil
	}
	var out []*telemetry.Event
	for _, step := range d.Review.Steps {
		e := &telemetry.Event{
			Event: telemetry.EventReview, Command: step.CommandLine(), Decision: step.Outcome,
			Agent: ad.Name(), Rule: step.Reviewer, Reason: step.Reason,
			Answer: step.Answer, Scope: step.Scope, Grant: step.Grant,
		}
		if step.Failed() {
			e.Error = step.Reason
		}
		describe(e, ev)
		out = append(out, e)
	}
	return out
}

// observedEvent records an event agent-shell does not decide on.
func observedEvent(ev *hostapi.Event) *telemetry.Event {
	e := &telemetry.Event{}
	switch ev.Kind {
	case hostapi.KindPostTool:
		e.Event = telemetry.EventToolUse
		e.ToolResult = summarizeResult(ev.Result)
		if ev.IsShell() {
			e.Command = ev.Command
		}
	case hostapi.KindPrompt:
		e.Event, e.Prompt = telemetry.EventPrompt, ev.Prompt
	case hostapi.KindSessionStart:
		e.Event = telemetry.EventSessionStart
	case hostapi.KindSessionEnd:
		e.Event = telemetry.EventSessionEnd
	case hostapi.KindStop:
		e.Event = telemetry.EventStop
	default:
		e.Event = telemetry.EventUnknown
	}
	describe(e, ev)
	return e
}

// describe copies what every recorded hook event carries: the agent, its
// own event and tool names, and every field of the payload, redacted.
func describe(e *telemetry.Event, ev *hostapi.Event) {
	e.Agent, e.NativeEvent, e.ToolName = ev.Agent, ev.NativeEvent, ev.NativeTool
	e.Input = telemetry.RedactJSON(ev.Input)
	if len(ev.Meta) > 0 {
		if meta, err := json.Marshal(ev.Meta); err == nil {
			e.Meta = telemetry.RedactJSON(meta)
		}
	}
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
