package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
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

// maxToolName bounds the tool name, as the reference does.
const maxToolName = 1024

func (Copilot) Name() string { return "copilot" }

var copilotKinds = map[string]Kind{
	"preToolUse": KindPreTool, "postToolUse": KindPostTool, "postToolUseFailure": KindPostTool,
	"userPromptSubmitted": KindPrompt, "sessionStart": KindSessionStart, "sessionEnd": KindSessionEnd,
	"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "PostToolUseFailure": KindPostTool,
	"UserPromptSubmit": KindPrompt, "SessionStart": KindSessionStart, "SessionEnd": KindSessionEnd,
}

// copilotShellTools are compared case-insensitively: `Bash` must not slip
// past as a non-shell tool the way it did in the reference tool.
var copilotShellTools = map[string]bool{"bash": true, "zsh": true, "ash": true, "sh": true, "powershell": true}

var copilotTools = map[string]string{
	"edit": ToolEdit, "create": ToolWrite, "view": ToolRead, "web_fetch": ToolWebFetch,
	"write": ToolWrite, "multiedit": ToolEdit, "read": ToolRead, "webfetch": ToolWebFetch,
}

func normalizeCopilotTool(name string) string {
	lower := strings.ToLower(name)
	if copilotShellTools[lower] {
		return ToolBash
	}
	if t, ok := copilotTools[lower]; ok {
		return t
	}
	return name
}

func (c Copilot) Parse(payload []byte, nativeEvent string) (*Event, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil || fields == nil {
		return nil, ErrInvalidJSON
	}
	keys := camelKeys
	if _, ok := fields["hook_event_name"]; ok {
		keys = snakeKeys
		nativeEvent = stringField(fields["hook_event_name"])
		delete(fields, "hook_event_name")
	} else if nativeEvent == "" {
		nativeEvent = inferCopilotEvent(fields)
	}
	return c.parseFields(fields, keys, nativeEvent)
}

// payloadKeys name the fields of one of Copilot's two payload formats.
type payloadKeys struct {
	session, toolName, toolInput string
	results                      []string
}

var (
	camelKeys = payloadKeys{"sessionId", "toolName", "toolArgs", []string{"toolResult"}}
	snakeKeys = payloadKeys{"session_id", "tool_name", "tool_input", []string{"tool_result", "tool_response"}}
)

func (c Copilot) parseFields(fields map[string]json.RawMessage, keys payloadKeys, nativeEvent string) (*Event, error) {
	e := &Event{Agent: c.Name(), NativeEvent: nativeEvent, Kind: kindOf(copilotKinds, nativeEvent), Meta: map[string]json.RawMessage{}}
	take := func(k string) (json.RawMessage, bool) {
		v, ok := fields[k]
		delete(fields, k)
		return v, ok
	}
	raw, _ := take(keys.session)
	e.SessionID = stringField(raw)
	raw, _ = take("cwd")
	e.Cwd = stringField(raw)
	switch e.Kind {
	case KindPreTool, KindPostTool:
		raw, _ = take(keys.toolName)
		name, ok := toolName(raw)
		if !ok {
			return nil, ErrInvalidToolName
		}
		e.NativeTool, e.Tool = name, normalizeCopilotTool(name)
		args, hasArgs := take(keys.toolInput)
		e.Input = args
		if s, ok := jsonString(args); ok && json.Valid([]byte(s)) {
			e.Input = json.RawMessage(s) // record the arguments, not their quoted form
		}
		if e.IsShell() {
			e.Command, e.CommandErr = copilotCommand(args, hasArgs)
		}
		for _, k := range keys.results {
			if r, ok := take(k); ok {
				e.Result = r
			}
		}
	case KindPrompt:
		raw, _ = take("prompt")
		e.Prompt = stringField(raw)
	}
	for k, v := range fields {
		e.Meta[k] = v
	}
	return e, nil
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
	decision, reason := v.Decision, v.Reason
	if decision == Ask && !c.Coverage(KindPreTool).NativeAsk {
		decision = Deny
		reason = "needs approval, and Copilot's cloud agent cannot ask: " + reason
	}
	if isSnake(e) {
		return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": permissionOutput(e.NativeEvent, decision, reason)})}
	}
	out := map[string]any{"permissionDecision": string(decision)}
	if decision != Allow {
		out["permissionDecisionReason"] = reason
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
