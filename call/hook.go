package call

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/authority"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"
)

// A host's hook call: read the payload, parse it, decide a pre-tool call,
// render the answer in the host's terms, write it, then record.

// Adapter is the host adapter of an agent named either way (AgentName).
func (p *Process) Adapter(name string) (hostapi.Adapter, error) {
	ad, ok := hostapi.ByName(AgentName(name), p.Getenv)
	if !ok {
		return nil, fmt.Errorf("unknown agent %q (known: %s)", name, strings.Join(hostapi.Names(), ", "))
	}
	return ad, nil
}

// AgentName is the adapter's name of an agent named either way: as its
// hook adapter is (claude) or as the log records it (claude-code).
func AgentName(name string) string {
	for _, n := range hostapi.Names() {
		if hostapi.Actor(n) == name {
			return n
		}
	}
	return name
}

// Alias runs policy-check or record: the payload names its agent unless
// --agent does; copilotEvent names the event for Copilot's camelCase
// payloads, which do not carry it, and kind says which the alias is for.
func (p *Process) Alias(agent, copilotEvent string, kind hostapi.Kind) int {
	payload, readErr := hostapi.ReadPayload(p.Stdin, p.MaxPayload)
	if agent == "" {
		agent = hostapi.Detect(payload)
	}
	if agent == "" {
		agent = "copilot"
	}
	ad, err := p.Adapter(agent)
	if err != nil {
		p.errorf("%v", err)
		ad, _ = hostapi.ByName("copilot", p.Getenv)
	}
	event := ""
	if ad.Name() == "copilot" {
		event = copilotEvent
	}
	return p.handle(ad, event, kind, payload, readErr)
}

func (p *Process) Hook(ad hostapi.Adapter, nativeEvent string) int {
	payload, err := hostapi.ReadPayload(p.Stdin, p.MaxPayload)
	// An unreadable payload may have been a pre-tool call: deny it.
	return p.handle(ad, nativeEvent, hostapi.KindPreTool, payload, err)
}

// handle answers one hook call and records it. The answer is written in
// full before anything is recorded, and a call that cannot be read or
// decided is, on a pre-tool event, the host's own deny. unreadable is the
// kind to assume when the payload cannot be read. It returns the exit code
// the host reads.
func (p *Process) handle(ad hostapi.Adapter, nativeEvent string, unreadable hostapi.Kind, payload []byte, readErr error) (code int) {
	// A bug must not answer nothing: an empty answer with a crash's exit
	// code is an allow to several hosts. Before the answer is out, a panic
	// is the host's own deny (or its failure answer on other events).
	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("internal error: %v", r)
			if p.answered {
				p.errorf("%v", err)
				return
			}
			code = p.fail(ad, unreadable, err)
		}
	}()
	if readErr != nil {
		return p.fail(ad, unreadable, fmt.Errorf("unexpected error reading the hook payload: %w", readErr))
	}
	ev, err := ad.Parse(payload, nativeEvent)
	if err != nil {
		return p.fail(ad, unreadable, err)
	}
	ev.SessionID = p.CallSession(ev.SessionID)
	runtime.SetBudget(runtime.Budget{Memory: hookMemory, Deadline: time.Now().Add(p.hookDeadline()), // the watchdog reads the real clock
		Runaway: func(reason string) { p.hookRunaway(ad, ev, reason) }})
	if ev.Kind != hostapi.KindPreTool {
		v, events := p.afterTool(ad, ev) // after-interceptors on a shell post-tool call (intercept.go)
		code = p.answer(ad.Render(ev, v))
		p.recordAll(append([]*telemetry.Event{observedEvent(ev)}, events...), ev.SessionID)
		if ev.Kind == hostapi.KindSessionEnd || ev.Kind == hostapi.KindStop {
			p.onEnd() // the OTLP export, when an endpoint is set
		}
		return code
	}
	// Loading the policy in a goroutine while the payload is read was
	// measured slower: a fresh process pays more for a second thread than
	// it saves.
	engine := p.LoadPolicy()
	if engine.LoadErr != nil {
		p.errorf("policy load error: %v", engine.LoadErr)
	}
	engine.EventTimeout = DecisionTimeout
	d := engine.DecideEvent(ev)
	code = p.answer(ad.Render(ev, sandboxVerdict(engine, ad, ev, d.HookVerdict(ev, ad.Coverage(ev.Kind), ad.Name()))))
	events := append(interceptEvents(ad, ev, d), reviewEvents(ad, ev, d)...)
	de := decisionEvent(ad, ev, d)
	switch {
	case d.Guard != "":
		de.Event = telemetry.EventGuard
	case p.auth.EventDue():
		de.Event = telemetry.EventConfigUnauthorized
	}
	p.recordAll(append(events, de), ev.SessionID)
	return code
}

// A hook call answers within hookDeadline, under the 10 s timeout hook
// install registers with every host, with its scripts' memory under
// hookMemory; DecisionTimeout, which bounds a decision's extensions, leaves
// room for the answer and the record.
const (
	hookDeadline    = 5 * time.Second
	hookMemory      = 256 << 20
	DecisionTimeout = 4 * time.Second
)

// hookDeadline is hookDeadline, or a shorter AGENTSHELL_HOOK_DEADLINE (a
// host with a shorter hook timeout).
func (p *Process) hookDeadline() time.Duration {
	if v := p.Getenv("AGENTSHELL_HOOK_DEADLINE"); v != "" {
		d, err := time.ParseDuration(v)
		if err == nil && d > 0 && d < hookDeadline {
			return d
		}
		p.errorf("AGENTSHELL_HOOK_DEADLINE=%q is not a duration between 0 and %s; using %s", v, hookDeadline, hookDeadline)
	}
	return hookDeadline
}

// hookRunaway ends a hook call whose script will not stop (runtime.Budget):
// the host gets the failure answer, a deny on a pre-tool call, unless an
// answer is out already; the call is recorded without the audit filter (a
// script too), and the process exits with the answer's code.
func (p *Process) hookRunaway(ad hostapi.Adapter, ev *hostapi.Event, reason string) {
	p.answerMu.Lock()
	answered, code := p.answered, p.answerCode
	p.answerMu.Unlock()
	if answered {
		p.errorf("%s; the answer stands, the call's events are not recorded", reason)
		os.Exit(code)
	}
	p.unfiltered = true
	err := fmt.Errorf("stopped: %s", reason)
	if ev.Kind != hostapi.KindPreTool {
		os.Exit(p.fail(ad, ev.Kind, err))
	}
	code = p.answer(ad.Failure(ev, err))
	p.Record(decisionEvent(ad, ev, policy.Decision{Action: policy.ActionDeny, Reason: "Command denied: " + err.Error()}), ev.SessionID)
	os.Exit(code)
}

// fail answers a call that could not be read: a pre-tool call is denied in
// the host's own terms and the denial recorded; anything else is reported.
func (p *Process) fail(ad hostapi.Adapter, kind hostapi.Kind, err error) int {
	if kind != hostapi.KindPreTool {
		p.errorf("%s hook: %v", ad.Name(), err)
		return p.answer(ad.Failure(&hostapi.Event{Kind: kind}, err))
	}
	code := p.answer(ad.Failure(nil, err))
	p.Record(decisionEvent(ad, nil, policy.Decision{Action: policy.ActionDeny, Reason: err.Error()}), "")
	return code
}

// LoadPolicy loads the policy of the repository around the current
// directory, once per process. Outside a repository there is no policy to
// trust: deny.
func (p *Process) LoadPolicy() *policy.Engine {
	if p.engine == nil {
		p.engine = p.readPolicy()
	}
	return p.engine
}

func (p *Process) readPolicy() *policy.Engine {
	h, err := p.Here()
	if err != nil {
		return &policy.Engine{LoadErr: fmt.Errorf("current directory: %w", err)}
	}
	if !h.InRepo {
		return &policy.Engine{LoadErr: fmt.Errorf("%s is not inside a git repository", h.Cwd)}
	}
	root := h.Root
	// Decide with the configuration a human authorized (see authorize);
	// without a config directory there is no authorization to check.
	cfgDir, _ := authority.ConfigDir(p.Getenv)
	e, auth := policy.LoadAuthorized(root, p.Getenv, cfgDir)
	e.Home = p.Getenv("HOME") // scripts' ctx.home, and what ctx.dir resolves ~ against
	p.auth = auth
	return e
}

// answer writes a hook response and returns its exit code.
func (p *Process) answer(r hostapi.Response) int {
	p.answerMu.Lock()
	defer p.answerMu.Unlock()
	if p.answered {
		return p.answerCode
	}
	p.answered, p.answerCode = true, r.Exit
	if err := hostapi.WriteResponse(p.Stdout, p.Stderr, r); err != nil {
		p.errorf("%v", err)
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
	if e.Manifest == nil || !e.Manifest.Enforce.Sandbox() || !ev.IsShell() || ev.MCPShell() || v.Decision != hostapi.Allow {
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
		if o := ev.Output; o != nil && o.ExitKnown {
			// The exit status in the host's own shape, as its adapter read it
			// (Gemini's "Exit Code:" line, Claude's failure text, opencode's
			// metadata).
			if e.ToolResult == nil {
				e.ToolResult = &telemetry.ToolResult{Length: len(o.Output) + len(o.Error)}
			}
			if e.ToolResult.ExitCode == nil {
				exit := o.Exit
				e.ToolResult.ExitCode = &exit
			}
		}
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
