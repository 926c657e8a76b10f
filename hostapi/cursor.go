package hostapi

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Cursor speaks Cursor's hooks (IDE agent and cursor-agent CLI,
// docs/host-protocols.md, "Cursor"): payloads that name their own event,
// answered with a JSON object on exit 0. Besides the generic preToolUse, Cursor has a gate per action
// (beforeShellExecution, beforeMCPExecution, beforeReadFile) whose payloads
// and answers differ.
type Cursor struct{}

func (Cursor) Name() string { return "cursor" }

func (Cursor) Events() []string {
	return []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "postToolUse"}
}

var cursorKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{
		"preToolUse": KindPreTool, "beforeShellExecution": KindPreTool, "beforeMCPExecution": KindPreTool,
		"beforeReadFile": KindPreTool, "postToolUse": KindPostTool,
	}
}}

// cursorNativeAsk are the gates where Cursor enforces "ask";
// preToolUse accepts it but does not enforce it.
var cursorNativeAsk = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"beforeShellExecution": true, "beforeMCPExecution": true}
}}

// cursorTool maps Cursor's tool names (Shell, Read, Write, MCP:<tool>;
// edits collapse into Write). Shell is matched in any case so that a differently cased shell
// tool is never waved through as a non-shell tool.
func cursorTool(native string) string {
	switch strings.ToLower(native) {
	case "shell":
		return ToolBash
	case "write":
		return ToolWrite
	case "read":
		return ToolRead
	}
	return native
}

var (
	errCursorShellNoCommand  = errors.New("missing command field in beforeShellExecution")
	errCursorShellBadCommand = errors.New("command field in beforeShellExecution must be a string")
)

// cursorDialect: the session is the conversation (conversation_id is
// documented, session_id only seen in captures, equal to it); postToolUse's
// result is tool_output, a JSON string. generation_id, workspace_roots,
// cursor_version, user_email and the rest land in Meta.
var cursorDialect = dialect{
	agent: "cursor", kinds: cursorKinds.Get(), tool: cursorTool, command: shellCommand,
	eventKey: "hook_event_name", session: "conversation_id", toolName: "tool_name", toolInput: "tool_input",
	results: []string{"tool_output"}, output: cursorOutput,
}

// cursorOutput: postToolUse's tool_output is a JSON string; for Shell it
// holds {"exitCode": N, "stdout": ...} (stderr is read when present). A
// string that holds neither is read the combined way.
func cursorOutput(native string, result json.RawMessage) *ToolOutput {
	var s string
	if json.Unmarshal(result, &s) != nil {
		return combinedOutput(native, result)
	}
	obj := jsonObject(json.RawMessage(s))
	_, hasOut := obj["stdout"].(string)
	code, hasExit := exitField(obj, "exitCode")
	if !hasOut && !hasExit {
		return combinedOutput(native, result)
	}
	o := &ToolOutput{Exit: code, ExitKnown: hasExit}
	o.Output, _ = obj["stdout"].(string)
	o.Stderr, _ = obj["stderr"].(string)
	return o
}

// Parse reads a Cursor payload. Cursor always names the event; a payload
// without it is refused unless the caller names the event, since guessing
// could let a gate call through as an unknown, observe-only event.
func (Cursor) Parse(payload []byte, nativeEvent string) (*Event, error) {
	fields, err := objectFields(payload)
	if err != nil {
		return nil, err
	}
	if err := requireEventName(fields, nativeEvent); err != nil {
		return nil, err
	}
	if name := stringField(fields["hook_event_name"]); name != "" {
		nativeEvent = name
	}
	d := cursorDialect
	if _, ok := fields["conversation_id"]; !ok {
		d.session = "session_id"
	}
	var e *Event
	switch nativeEvent {
	case "beforeShellExecution":
		e = cursorActionEvent(d, fields, nativeEvent, "Shell", "command")
	case "beforeReadFile":
		e = cursorActionEvent(d, fields, nativeEvent, "Read", "file_path")
	default:
		if e, err = d.parse(fields, nativeEvent); err != nil {
			return nil, err
		}
	}
	if e.Cwd == "" {
		// cwd is "" in real captures; the workspace is the best guess.
		e.Cwd = cursorWorkspaceRoot(e.Meta["workspace_roots"])
	}
	return e, nil
}

// cursorActionEvent parses a gate whose payload names no tool because the
// event is the tool: beforeShellExecution carries the command at the top
// level, beforeReadFile the file_path. The tool is named as
// preToolUse would name it, so that both gates record the same tool, and
// the argument becomes the Input; the other fields (sandbox, the file's
// content, attachments) stay in Meta.
func cursorActionEvent(d dialect, fields map[string]json.RawMessage, event, nativeTool, arg string) *Event {
	d.kinds = nil // parse only what every event has; the tool is filled in here
	e, _ := d.parse(fields, event)
	e.Kind = KindPreTool
	e.NativeTool, e.Tool = nativeTool, cursorTool(nativeTool)
	raw, present := e.Meta[arg]
	delete(e.Meta, arg)
	if present {
		e.Input, _ = json.Marshal(map[string]json.RawMessage{arg: raw})
	}
	if e.IsShell() {
		switch cmd, ok := jsonString(raw); {
		case !present:
			e.CommandErr = errCursorShellNoCommand
		case !ok:
			e.CommandErr = errCursorShellBadCommand
		default:
			e.Command = cmd
		}
	}
	return e
}

// cursorWorkspaceRoot is the first of workspace_roots, or "".
func cursorWorkspaceRoot(raw json.RawMessage) string {
	var roots []json.RawMessage
	if json.Unmarshal(raw, &roots) != nil || len(roots) == 0 {
		return ""
	}
	return stringField(roots[0])
}

// Coverage (docs/host-protocols.md, "Cursor"). Coverage takes a kind, and the
// four pre-tool gates differ, so it claims what all of them can carry: a
// deny. NativeAsk is false because preToolUse accepts "ask" without
// enforcing it; Render still asks natively on beforeShellExecution
// and beforeMCPExecution, which enforce it. UpdatedInput is false because
// only preToolUse takes updated_input, documented only beside an explicit
// permission (which would make agent-shell the sole gate): every
// rewrite becomes a deny naming it. postToolUse takes additional_context.
func (Cursor) Coverage(k Kind) Coverage {
	switch k {
	case KindPreTool:
		return Coverage{Deny: true}
	case KindPostTool:
		return Coverage{Context: true}
	}
	return Coverage{}
}

// cursorDefaultReason stands in for an empty reason, which would tell the
// user and the agent nothing.
const cursorDefaultReason = "blocked by agent-shell policy"

// Render always prints a JSON object on exit 0: some Cursor versions treat
// invalid or empty output on a permission hook as a block, so
// abstaining is {}. An allow abstains unless agent-shell is the sole gate.
func (c Cursor) Render(e *Event, v Verdict) Response {
	if e == nil {
		e = &Event{Agent: "cursor", Kind: KindPreTool}
	}
	switch e.Kind {
	case KindPreTool:
		return cursorPermission(e.NativeEvent, v)
	case KindPostTool:
		if v.Context != "" {
			return Response{Stdout: marshalLine(map[string]any{"additional_context": v.Context})}
		}
	}
	return cursorAbstain()
}

// cursorPermission answers a gate: {"permission": ..., "user_message": ...,
// "agent_message": ...}; beforeReadFile takes no agent_message.
func cursorPermission(event string, v Verdict) Response {
	v = rewriteAsDeny(v)
	if !cursorNativeAsk.Get()[event] {
		host := "Cursor"
		if event != "" {
			host = "Cursor's " + event
		}
		v = askAsDeny(v, host)
	}
	if v.Decision == Allow {
		if !v.SoleGate {
			return cursorAbstain()
		}
		return Response{Stdout: marshalLine(map[string]any{"permission": "allow"})}
	}
	permission := "deny" // and any decision this adapter does not know
	if v.Decision == Ask {
		permission = "ask"
	}
	reason := v.Reason
	if strings.TrimSpace(reason) == "" {
		reason = cursorDefaultReason
	}
	out := map[string]any{"permission": permission, "user_message": reason}
	if event != "beforeReadFile" {
		out["agent_message"] = reason
	}
	return Response{Stdout: marshalLine(out)}
}

func cursorAbstain() Response { return Response{Stdout: marshalLine(map[string]any{})} }

// Failure denies a gate, and a call whose payload could not be read (e is
// nil): Cursor fails open on a crash unless failClosed is set, so
// only its own deny stops the tool. Other events abstain with {}.
func (c Cursor) Failure(e *Event, err error) Response {
	if e == nil {
		e = &Event{Agent: "cursor", Kind: KindPreTool}
	}
	if e.Kind != KindPreTool {
		return cursorAbstain()
	}
	reason := "agent-shell failed"
	if err != nil {
		reason = err.Error()
	}
	return c.Render(e, Verdict{Decision: Deny, Reason: reason})
}

// CursorHooksFile is where agent-shell registers its Cursor hooks: the
// project's hooks, run from the project root in trusted workspaces.
const CursorHooksFile = ".cursor/hooks.json"

// cursorTimeoutSeconds bounds one hook call; Cursor's timeout is in
// seconds.
const cursorTimeoutSeconds = 10

// Install merges agent-shell's hooks into .cursor/hooks.json ("version": 1),
// keeping every other entry and key. An event that already runs agent-shell
// is left alone.
func (Cursor) Install(root string) ([]string, error) {
	path := filepath.Join(root, CursorHooksFile)
	var bad error
	changed, err := mergeJSONFile(path, func(doc map[string]any) bool {
		hooks, err := hookLists(path, doc, cursorInstallEvents())
		if err != nil {
			bad = err
			return false
		}
		changed := false
		if _, ok := doc["version"]; !ok {
			doc["version"] = 1
			changed = true
		}
		for _, ev := range cursorInstallEvents() {
			entry := map[string]any{"command": HookCommand + "cursor", "timeout": cursorTimeoutSeconds}
			changed = appendOnce(hooks, ev, entry, cursorRunsAgentShell) || changed
		}
		return changed
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil || !changed {
		return nil, err // mergeJSONFile's errors name the file
	}
	return []string{path}, nil
}

// cursorInstallEvents are the events Install registers: every one the
// adapter claims.
func cursorInstallEvents() []string { return Cursor{}.Events() }

func cursorRunsAgentShell(entry any) bool {
	m, _ := entry.(map[string]any)
	cmd, _ := m["command"].(string)
	return strings.HasPrefix(cmd, "agent-shell ")
}

var _ Adapter = Cursor{}

func init() {
	register("cursor", func(func(string) string) Adapter { return Cursor{} })
}

// Describe: Cursor is recognised only by its agent's markers:
// CURSOR_TRACE_ID is set in every terminal of the editor, including the
// ones a human types in.
func (Cursor) Describe() Descriptor { return cursorDescriptor }

var cursorDescriptor = Descriptor{
	Name: "cursor", Actor: "cursor",
	ActorEnv:          []EnvMarker{{Name: "CURSOR_AGENT"}, {Name: "CURSOR_EXTENSION_HOST_ROLE", Value: "agent-exec"}},
	Markers:           []Marker{{Path: ".cursor"}},
	Installs:          []string{CursorHooksFile},
	Registrations:     []Registration{{CursorHooksFile, "Cursor's hook registration", ""}},
	HomeRegistrations: []Registration{{".cursor/hooks.json", "Cursor's user hook registration", HooksAlways}},
	NoSandbox:         "Cursor runs commands in a terminal that keeps state between commands",
}
