package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Copilot speaks GitHub Copilot's hooks (CLI and cloud agent). Its hooks
// registered under camelCase names (preToolUse) get camelCase payloads with
// toolArgs as a JSON string or an object; under PascalCase names
// (PreToolUse) they get Claude-style snake_case payloads, detected by their
// hook_event_name field.
type Copilot struct {
	// CloudAgent is set when running in Copilot's cloud agent, which has no
	// human to ask: there an ask becomes a deny.
	CloudAgent bool
}

// Copilot's checks on a shell tool call, worded as the reference tool words
// them, since they are the deny reasons users and tests see.
var (
	ErrInvalidJSON      = errors.New("Invalid JSON input")
	ErrInvalidToolName  = errors.New("Missing or invalid toolName field")
	errToolArgsMissing  = errors.New("Missing or non-string toolArgs for terminal tool")
	errToolArgsJSON     = errors.New("Invalid JSON in toolArgs")
	errToolArgsNotPlain = errors.New("toolArgs must be a non-null plain object for terminal tools")
	errCommandMissing   = errors.New("Missing command field in toolArgs")
	errCommandNotString = errors.New("command field must be a string")
)

// maxToolName bounds the tool name, as the reference tool does.
const maxToolName = 1024

func (Copilot) Name() string { return "copilot" }

var copilotKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{
		"preToolUse": KindPreTool, "postToolUse": KindPostTool, "postToolUseFailure": KindPostTool,
		"userPromptSubmitted": KindPrompt, "sessionStart": KindSessionStart, "sessionEnd": KindSessionEnd,
		"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "PostToolUseFailure": KindPostTool,
		"UserPromptSubmit": KindPrompt, "SessionStart": KindSessionStart, "SessionEnd": KindSessionEnd,
	}
}}

// copilotShellTools are compared case-insensitively: `Bash` must not slip
// past as a non-shell tool the way it did in the reference tool.
var copilotShellTools = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"bash": true, "zsh": true, "ash": true, "sh": true, "powershell": true}
}}

var copilotTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"edit": ToolEdit, "create": ToolWrite, "view": ToolRead, "web_fetch": ToolWebFetch,
		"write": ToolWrite, "multiedit": ToolEdit, "read": ToolRead, "webfetch": ToolWebFetch,
	}
}}

func normalizeCopilotTool(name string) string {
	lower := strings.ToLower(name)
	if copilotShellTools.Get()[lower] {
		return ToolBash
	}
	if t, ok := copilotTools.Get()[lower]; ok {
		return t
	}
	return name
}

func (c Copilot) Parse(payload []byte, nativeEvent string) (*Event, error) {
	fields, err := objectFields(payload)
	if err != nil {
		return nil, err
	}
	d := copilotCamel
	if _, ok := fields["hook_event_name"]; ok {
		d = copilotSnake
		nativeEvent = ""
	} else if nativeEvent == "" {
		nativeEvent = inferCopilotEvent(fields)
	}
	return d.parse(fields, nativeEvent)
}

// Copilot's two payload formats.
var (
	copilotCamel = dialect{
		agent: "copilot", kinds: copilotKinds.Get(), tool: normalizeCopilotTool, command: copilotCommand,
		session: "sessionId", toolName: "toolName", toolInput: "toolArgs", results: []string{"toolResult"},
		output: copilotOutput,
	}
	copilotSnake = dialect{
		agent: "copilot", kinds: copilotKinds.Get(), tool: normalizeCopilotTool, command: copilotCommand,
		eventKey: "hook_event_name", session: "session_id", toolName: "tool_name", toolInput: "tool_input",
		results: []string{"tool_result", "tool_response"}, output: copilotOutput,
	}
)

// copilotOutput: postToolUse's toolResult is {resultType: "success" |
// "failure" | "denied", textResultForLlm}, the same as tool_result
// {result_type, text_result_for_llm} in the PascalCase payloads; no exit
// code, no stderr apart. VS Code's tool_response, a string, is the output.
func copilotOutput(native string, result json.RawMessage) *ToolOutput {
	var s string
	if json.Unmarshal(result, &s) == nil {
		return &ToolOutput{Output: s}
	}
	var r struct {
		Type      string  `json:"resultType"`
		TypeSnake string  `json:"result_type"`
		Text      *string `json:"textResultForLlm"`
		TextSnake *string `json:"text_result_for_llm"`
	}
	if json.Unmarshal(result, &r) != nil || (r.Text == nil && r.TextSnake == nil) {
		return combinedOutput(native, result)
	}
	o := &ToolOutput{}
	if r.Text != nil {
		o.Output = *r.Text
	} else {
		o.Output = *r.TextSnake
	}
	switch r.Type + r.TypeSnake {
	case "failure", "denied":
		o.Failed = true
	}
	return o
}

// inferCopilotEvent names the event of a camelCase payload, which does not
// carry its own name, from the fields each event has.
func inferCopilotEvent(f map[string]json.RawMessage) string {
	has := func(k string) bool { _, ok := f[k]; return ok }
	switch {
	case has("toolResult"):
		return "postToolUse"
	case has("toolName") && has("error"):
		return "postToolUseFailure"
	case has("toolName"):
		return "preToolUse"
	case has("prompt"):
		return "userPromptSubmitted"
	case has("source"):
		return "sessionStart"
	case has("reason"):
		return "sessionEnd"
	case has("error"):
		return "errorOccurred"
	}
	return ""
}

// copilotCommand reads the command out of toolArgs, which Copilot sends as a
// JSON-encoded string (older docs, every example) or as an object (newer).
func copilotCommand(args json.RawMessage, present bool) (string, error) {
	if !present {
		return "", errToolArgsMissing
	}
	obj := args
	if s, ok := jsonString(args); ok {
		obj = json.RawMessage(s)
		if !json.Valid(obj) {
			return "", errToolArgsJSON
		}
	}
	trimmed := bytes.TrimSpace(obj)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && (trimmed[0] == '[' || string(trimmed) == "null") {
			return "", errToolArgsNotPlain
		}
		if _, ok := jsonString(args); ok {
			return "", errToolArgsNotPlain
		}
		return "", errToolArgsMissing
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return "", errToolArgsJSON
	}
	raw, ok := m["command"]
	if !ok {
		return "", errCommandMissing
	}
	cmd, ok := jsonString(raw)
	if !ok {
		return "", errCommandNotString
	}
	return cmd, nil
}

func (c Copilot) Coverage(k Kind) Coverage {
	if k != KindPreTool {
		return Coverage{}
	}
	return Coverage{Deny: true, NativeAsk: !c.CloudAgent}
}

// Render answers in Copilot's format. Allow is the explicit
// {"permissionDecision":"allow"} the reference tool wrote, so existing
// setups behave the same; Copilot ignores exit 2 on preToolUse, so a deny is
// always JSON on exit 0.
func (c Copilot) Render(e *Event, v Verdict) Response {
	if e == nil || e.Kind != KindPreTool {
		return Response{}
	}
	v = rewriteAsDeny(v)
	if !c.Coverage(KindPreTool).NativeAsk {
		v = askAsDeny(v, "Copilot's cloud agent")
	}
	if isSnake(e) {
		return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": permissionOutput(e.NativeEvent, v.Decision, v.Reason)})}
	}
	out := map[string]any{"permissionDecision": string(v.Decision)}
	if v.Decision != Allow {
		out["permissionDecisionReason"] = v.Reason
	}
	return Response{Stdout: marshalLine(out)}
}

func (c Copilot) Failure(e *Event, err error) Response {
	if e == nil {
		e = &Event{Kind: KindPreTool}
	}
	if e.Kind != KindPreTool {
		return Response{}
	}
	return c.Render(e, Verdict{Decision: Deny, Reason: err.Error()})
}

func isSnake(e *Event) bool {
	return e.NativeEvent != "" && e.NativeEvent[0] >= 'A' && e.NativeEvent[0] <= 'Z'
}

func permissionOutput(event string, d Decision, reason string) map[string]any {
	out := map[string]any{"hookEventName": event, "permissionDecision": string(d)}
	if reason != "" {
		out["permissionDecisionReason"] = reason
	}
	return out
}

var _ Adapter = Copilot{}

func init() {
	register("copilot", func(getenv func(string) string) Adapter {
		// The cloud agent runs in GitHub Actions and has no human to ask.
		return Copilot{CloudAgent: getenv("GITHUB_ACTIONS") == "true" || getenv("COPILOT_AGENT") != ""}
	})
}

// Describe: Copilot reads every .json file in .github/hooks/, where init
// also writes agent-shell's own folder for any host: that folder alone
// does not say Copilot is used.
func (Copilot) Describe() Descriptor { return copilotDescriptor }

var copilotDescriptor = Descriptor{
	Name: "copilot", Actor: "copilot",
	ActorEnv: []EnvMarker{{Name: "COPILOT_AGENT"}, {Name: "COPILOT_CLI"}, {Name: "COPILOT_CLI_BINARY_VERSION"}},
	Markers:  []Marker{{Path: ".github/hooks", Besides: "agent-shell"}, {Path: CopilotHooksFile}},
	Installs: []string{CopilotHooksFile},
	Registrations: []Registration{
		{".github/hooks/*.json", "Copilot's hook registration", HooksAlways}, // agent-shell's is in agent-shell/
		{".github/copilot/settings.json", "Copilot CLI's settings, which can register hooks inline", `"hooks"`},
		{".github/copilot/settings.local.json", "Copilot CLI's local settings, which can register hooks inline", `"hooks"`},
	},
	HomeRegistrations: []Registration{
		{".copilot/hooks/*.json", "Copilot's user hook registration", HooksAlways},
		{".copilot/settings.json", "Copilot CLI's user settings, which can register hooks inline", `"hooks"`},
	},
	NoSandbox: "Copilot CLI's rewrite (modifiedArgs) is not confirmed on every version, and its shell " +
		"sessions keep state between commands",
}

func (Copilot) Events() []string {
	return []string{"preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted", "sessionStart", "sessionEnd", "PreToolUse"}
}

// CopilotHooksFile is where agent-shell registers its Copilot hooks.
const CopilotHooksFile = ".github/hooks/agent-shell/hooks.json"

// Install registers agent-shell for Copilot's tool, prompt and session
// events. An entry that already runs agent-shell for an event (including
// the older `agent-shell policy-check` and `agent-shell record`) counts.
func (c Copilot) Install(root string) ([]string, error) {
	path := filepath.Join(root, CopilotHooksFile)
	events := []string{"preToolUse", "postToolUse", "userPromptSubmitted", "sessionStart", "sessionEnd"}
	var editErr error
	changed, err := mergeJSONFile(path, func(doc map[string]any) bool {
		hooks, err := hookLists(path, doc, events)
		if err != nil {
			editErr = err
			return false
		}
		changed := false
		if _, ok := doc["version"]; !ok {
			doc["version"] = 1
			changed = true
		}
		for _, ev := range events {
			entry := map[string]any{"type": "command", "bash": HookCommand + "copilot", "timeoutSec": 10}
			changed = appendOnce(hooks, ev, entry, func(it any) bool {
				m, _ := it.(map[string]any)
				cmd, _ := m["bash"].(string)
				return strings.HasPrefix(cmd, "agent-shell ")
			}) || changed
		}
		return changed
	})
	if editErr != nil {
		return nil, editErr
	}
	if err != nil || !changed {
		return nil, err
	}
	return []string{path}, nil
}
