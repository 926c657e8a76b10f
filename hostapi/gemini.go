package hostapi

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Gemini speaks Gemini CLI's hooks (docs/host-protocols.md, "Gemini CLI"):
// snake_case payloads that name their own event, answered with JSON on
// exit 0.
type Gemini struct{}

func (Gemini) Name() string { return "gemini" }

func (Gemini) Events() []string {
	return []string{"BeforeTool", "AfterTool", "BeforeAgent", "SessionStart"}
}

var geminiKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{
		"BeforeTool": KindPreTool, "AfterTool": KindPostTool,
		"BeforeAgent": KindPrompt, "SessionStart": KindSessionStart,
	}
}}

// geminiTools maps Gemini's built-in tool names (run_shell_command is the
// shell; write_file and replace edit; read_file, web_fetch); MCP
// tools and the rest keep their names, and mcp_context stays in Meta.
var geminiTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"run_shell_command": ToolBash, "write_file": ToolWrite, "replace": ToolEdit,
		"read_file": ToolRead, "web_fetch": ToolWebFetch,
	}
}}

func geminiTool(native string) string {
	if t, ok := geminiTools.Get()[native]; ok {
		return t
	}
	return native
}

var ()

// geminiDialect: AfterTool adds tool_response {llmContent, returnDisplay,
// error?}; transcript_path, timestamp, mcp_context and the like land
// in Meta.
var geminiDialect = dialect{
	agent: "gemini", kinds: geminiKinds.Get(), tool: geminiTool, command: shellCommand,
	eventKey: "hook_event_name", session: "session_id", toolName: "tool_name", toolInput: "tool_input",
	results: []string{"tool_response"}, output: geminiOutput,
}

// geminiOutput: AfterTool's tool_response is {llmContent, returnDisplay,
// error?}. llmContent is what the model reads; for run_shell_command it is
// lines such as "Command: ...", "Output: ...", "Exit Code: N", the exit
// code read from the last such line. error is a string or {message}.
func geminiOutput(native string, result json.RawMessage) *ToolOutput {
	obj := jsonObject(result)
	if obj == nil {
		return combinedOutput(native, result)
	}
	o := &ToolOutput{}
	if s, ok := obj["llmContent"].(string); ok {
		o.Output = s
		o.Exit, o.ExitKnown = exitLine(s, "Exit Code: ", false)
	} else if s, ok := obj["returnDisplay"].(string); ok {
		o.Output = s
	}
	switch e := obj["error"].(type) {
	case string:
		o.Failed, o.Error = true, e
	case map[string]any:
		o.Failed = true
		o.Error, _ = e["message"].(string)
	}
	return o
}

// Parse reads a Gemini payload. Gemini always names the event
// (hook_event_name); a payload without it is refused unless the
// caller names the event, since guessing could let a BeforeTool through as
// an unknown, observe-only event.
func (Gemini) Parse(payload []byte, nativeEvent string) (*Event, error) {
	return geminiDialect.parseNamed(payload, nativeEvent)
}

// Coverage (docs/host-protocols.md, "Gemini CLI"). BeforeTool: a deny with
// a reason, no ask tier (ask is a no-op, so it must become a deny), and
// a rewrite through hookSpecificOutput.tool_input, which Gemini merges over
// the model's arguments; no additionalContext (undocumented on
// BeforeTool). AfterTool, BeforeAgent and SessionStart take additionalContext;
// BeforeAgent can also deny (the prompt is discarded).
func (Gemini) Coverage(k Kind) Coverage {
	switch k {
	case KindPreTool:
		return Coverage{Deny: true, UpdatedInput: true}
	case KindPrompt:
		return Coverage{Deny: true, Context: true}
	case KindPostTool, KindSessionStart:
		return Coverage{Context: true}
	}
	return Coverage{}
}

// geminiDefaultReason stands in for an empty reason: Gemini sends the
// reason to the model as the tool error, and builds no decision from an
// empty one on exit 2, so a deny never goes out without one.
const geminiDefaultReason = "blocked by agent-shell policy"

// Render answers as JSON on exit 0. An allow abstains with {} unless
// agent-shell is the sole gate, since an explicit allow skips Gemini's own
// confirmation; an ask becomes a deny, since Gemini has no ask tier.
// A rewrite is sent as hookSpecificOutput.tool_input without a decision,
// so Gemini's own confirmation still applies; one a merge cannot express
// becomes a deny naming it.
func (g Gemini) Render(e *Event, v Verdict) Response {
	if e == nil {
		e = &Event{Agent: "gemini", Kind: KindPreTool, NativeEvent: "BeforeTool"}
	}
	switch e.Kind {
	case KindPreTool:
		return geminiBeforeTool(e, v)
	case KindPrompt:
		if v = askAsDeny(v, "Gemini CLI"); v.Decision != Allow {
			return geminiDeny(v.Reason)
		}
		return geminiContext(e.NativeEvent, v.Context)
	case KindPostTool, KindSessionStart:
		return geminiContext(e.NativeEvent, v.Context)
	}
	return geminiAbstain()
}

func geminiBeforeTool(e *Event, v Verdict) Response {
	if !geminiMergeable(e.Input, v.UpdatedInput) {
		v = rewriteAsDeny(v)
	}
	v = askAsDeny(v, "Gemini CLI")
	if v.Decision != Allow { // deny, and any decision this adapter does not know
		return geminiDeny(v.Reason)
	}
	out := map[string]any{}
	if v.SoleGate {
		out["decision"] = "allow"
	}
	if len(v.UpdatedInput) > 0 {
		event := e.NativeEvent
		if event == "" {
			event = "BeforeTool"
		}
		out["hookSpecificOutput"] = map[string]any{"hookEventName": event, "tool_input": json.RawMessage(v.UpdatedInput)}
	}
	return Response{Stdout: marshalLine(out)}
}

// geminiMergeable reports whether Gemini's Object.assign of updated over
// the original arguments yields exactly updated: both must be objects, and
// updated must keep every original key, since a merge cannot remove one.
// No rewrite at all is trivially mergeable.
func geminiMergeable(original, updated json.RawMessage) bool {
	if len(updated) == 0 {
		return true
	}
	var upd, orig map[string]json.RawMessage
	if json.Unmarshal(updated, &upd) != nil || upd == nil {
		return false
	}
	if len(original) > 0 && (json.Unmarshal(original, &orig) != nil || orig == nil) {
		return false
	}
	for k := range orig {
		if _, ok := upd[k]; !ok {
			return false
		}
	}
	return true
}

func geminiDeny(reason string) Response {
	if strings.TrimSpace(reason) == "" {
		reason = geminiDefaultReason
	}
	return Response{Stdout: marshalLine(map[string]any{"decision": "deny", "reason": reason})}
}

func geminiContext(event, context string) Response {
	if context == "" || event == "" {
		return geminiAbstain()
	}
	return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": event, "additionalContext": context,
	}})}
}

// geminiAbstain is {} rather than nothing: Gemini takes both as no
// decision, and {} is the documented form.
func geminiAbstain() Response { return Response{Stdout: marshalLine(map[string]any{})} }

// Failure denies a BeforeTool, and a call whose payload could not be read
// (e is nil): Gemini fails open on a crash, so only its own deny
// stops the tool. Other events abstain: a broken agent-shell must not
// discard the user's prompt.
func (g Gemini) Failure(e *Event, err error) Response {
	if e == nil {
		e = &Event{Agent: "gemini", Kind: KindPreTool, NativeEvent: "BeforeTool"}
	}
	if e.Kind != KindPreTool {
		return geminiAbstain()
	}
	reason := "agent-shell failed"
	if err != nil {
		reason = err.Error()
	}
	return g.Render(e, Verdict{Decision: Deny, Reason: reason})
}

// GeminiSettingsFile is where agent-shell registers its Gemini CLI hooks:
// the project settings, which take precedence over the user's.
const GeminiSettingsFile = ".gemini/settings.json"

// geminiTimeoutMillis bounds one hook call. Gemini's timeout is in
// milliseconds (default 60 000); 10 s is far above a decision's cost.
const geminiTimeoutMillis = 10000

// Install merges agent-shell's hooks into .gemini/settings.json, keeping
// every other key (including the reserved enabled/disabled/notifications
// inside "hooks"). An event whose definitions already run agent-shell is
// left alone.
func (Gemini) Install(root string) ([]string, error) {
	path := filepath.Join(root, GeminiSettingsFile)
	var bad error
	changed, err := mergeJSONFile(path, func(doc map[string]any) bool {
		hooks, err := hookLists(path, doc, geminiInstallEvents())
		if err != nil {
			bad = err
			return false
		}
		changed := false
		for _, ev := range geminiInstallEvents() {
			group := map[string]any{"hooks": []any{map[string]any{
				"name": "agent-shell", "type": "command",
				"command": HookCommand + "gemini", "timeout": geminiTimeoutMillis,
			}}}
			if geminiKinds.Get()[ev] == KindPreTool || geminiKinds.Get()[ev] == KindPostTool {
				group["matcher"] = "*" // tool matchers are regexes; "*" is every tool
			}
			changed = appendOnce(hooks, ev, group, geminiRunsAgentShell) || changed
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

// geminiInstallEvents are the events Install registers: every one the
// adapter claims.
func geminiInstallEvents() []string { return Gemini{}.Events() }

// geminiRunsAgentShell reports whether a hook definition (a matcher group
// with its "hooks" list, or a bare hook) already runs agent-shell.
func geminiRunsAgentShell(def any) bool {
	m, _ := def.(map[string]any)
	if cmd, _ := m["command"].(string); strings.HasPrefix(cmd, "agent-shell ") {
		return true
	}
	list, _ := m["hooks"].([]any)
	for _, h := range list {
		hm, _ := h.(map[string]any)
		if cmd, _ := hm["command"].(string); strings.HasPrefix(cmd, "agent-shell ") {
			return true
		}
	}
	return false
}

var _ Adapter = Gemini{}

func init() {
	register("gemini", func(func(string) string) Adapter { return Gemini{} })
}

func (Gemini) Describe() Descriptor { return geminiDescriptor }

var geminiDescriptor = Descriptor{
	Name: "gemini", Actor: "gemini-cli",
	ActorEnv: []EnvMarker{{Name: "GEMINI_CLI"}},
	Markers:  []Marker{{Path: ".gemini"}},
	Installs: []string{GeminiSettingsFile},
	Registrations: []Registration{
		{GeminiSettingsFile, "Gemini CLI's hook registration", ""},
		{".gemini/extensions/**", "Gemini CLI's workspace extensions, which can register hooks", ""},
	},
	HomeRegistrations: []Registration{
		{".gemini/settings.json", "Gemini CLI's user settings, which register hooks", `"hooks"`},
		{".gemini/extensions/**", "Gemini CLI's extensions, which can register hooks", ""},
	},
	NoSandbox: "Gemini CLI reports the jobs a command leaves running with &, which end with the sandbox",
}
