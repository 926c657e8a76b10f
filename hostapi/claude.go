package hostapi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Claude speaks Claude Code's command hooks (docs/host-protocols.md,
// "Claude Code"; docs of about v2.1.240): a snake_case payload naming its event in
// hook_event_name, answered by hookSpecificOutput JSON on exit 0.
type Claude struct{}

func (Claude) Name() string { return "claude" }

func (Claude) Events() []string {
	return []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "PermissionRequest"}
}

// The adapters' tables are built on first use (lazy.Value): package
// initialisation runs on every hook call, and a call reads one host's.
//
// PermissionRequest is a gate too: it fires where Claude would show its
// permission prompt, and can allow or deny the call.
var claudeKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{
		"PreToolUse": KindPreTool, "PermissionRequest": KindPreTool,
		"PostToolUse": KindPostTool, "PostToolUseFailure": KindPostTool,
		"UserPromptSubmit": KindPrompt, "SessionStart": KindSessionStart, "SessionEnd": KindSessionEnd,
		"Stop": KindStop,
	}
}}

// Claude's tool names are exact (no case variants are sent). MultiEdit left
// the docs in late 2025 but may still be sent by older versions.
var claudeTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"Bash": ToolBash, "PowerShell": ToolBash,
		"Edit": ToolEdit, "MultiEdit": ToolEdit, "NotebookEdit": ToolEdit,
		"Write": ToolWrite, "Read": ToolRead, "WebFetch": ToolWebFetch,
	}
}}

func claudeTool(native string) string {
	if t, ok := claudeTools.Get()[native]; ok {
		return t
	}
	return native
}

// claudeDialect: PostToolUseFailure carries the failure in "error" instead
// of a tool_response; it is that call's result.
var claudeDialect = dialect{
	agent: "claude", kinds: claudeKinds.Get(), tool: claudeTool, command: shellCommand,
	eventKey: "hook_event_name", session: "session_id", toolName: "tool_name", toolInput: "tool_input",
	results: []string{"tool_response", "error"}, output: claudeOutput,
}

// claudeOutput: PostToolUse's tool_response of Bash is {stdout, stderr,
// interrupted, isImage}, with no exit code (a command that exits non-zero
// is a PostToolUseFailure); PostToolUseFailure's result is the error
// string, which for Bash starts with the line "Exit code N".
func claudeOutput(native string, result json.RawMessage) *ToolOutput {
	if native == "PostToolUseFailure" {
		var msg string
		if json.Unmarshal(result, &msg) != nil {
			return combinedOutput(native, result)
		}
		o := &ToolOutput{Failed: true, Error: msg}
		o.Exit, o.ExitKnown = exitLine(msg, "Exit code ", true)
		return o
	}
	var r struct {
		Stdout *string `json:"stdout"`
		Stderr string  `json:"stderr"`
	}
	if json.Unmarshal(result, &r) != nil || r.Stdout == nil {
		return combinedOutput(native, result)
	}
	return &ToolOutput{Output: *r.Stdout, Stderr: r.Stderr}
}

func (Claude) Parse(payload []byte, nativeEvent string) (*Event, error) {
	return claudeDialect.parseNamed(payload, nativeEvent)
}

// Coverage (docs/host-protocols.md, "Claude Code"):
//   - pre-tool (PreToolUse, PermissionRequest): deny, and a native ask.
//     UpdatedInput is false: Claude drops updatedInput in several versions
//     (Claude Code issues #15897, #32348, #47853, #79321, #81340), so a rewrite
//     renders as a deny naming the suggestion rather than risk the original
//     running. Context is false because PermissionRequest cannot carry it.
//   - post-tool, prompt, session start, stop: additionalContext. (The
//     answer table lists it for PostToolUse; Claude's docs and SDK types give
//     PostToolUseFailure the same field, and both are the post-tool kind.)
//   - session end: nothing (it cannot block and reads no output).
func (Claude) Coverage(k Kind) Coverage {
	switch k {
	case KindPreTool:
		return Coverage{Deny: true, NativeAsk: true}
	case KindPostTool, KindPrompt, KindSessionStart, KindStop:
		return Coverage{Context: true}
	}
	return Coverage{}
}

// claudeDefaultReason stands in for an empty reason: Claude shows the
// reason to the model (deny) or the user (ask), and a blank one explains
// nothing.
const claudeDefaultReason = "blocked by agent-shell policy"

// Render answers as JSON on exit 0, which Claude prefers over exit 2. An
// allow abstains unless agent-shell is the sole gate, since an explicit
// allow skips Claude's own prompt. Reasons are not
// shortened here: Claude caps them itself, and a cut answer is worse.
func (c Claude) Render(e *Event, v Verdict) Response {
	if e == nil {
		return Response{}
	}
	if e.Kind == KindPreTool {
		v = rewriteAsDeny(v)
		if e.NativeEvent == "PermissionRequest" {
			return claudePermissionRequest(v)
		}
		return claudePreToolUse(claudeEventOr(e.NativeEvent, "PreToolUse"), v)
	}
	if v.Context == "" || !c.Coverage(e.Kind).Context || e.NativeEvent == "" {
		return Response{}
	}
	return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": e.NativeEvent, "additionalContext": v.Context,
	}})}
}

func claudeEventOr(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

func claudePreToolUse(event string, v Verdict) Response {
	if v.Decision == Allow && !v.SoleGate && !v.Sandbox {
		return Response{}
	}
	out := map[string]any{"hookEventName": event}
	switch v.Decision {
	case Allow:
		out["permissionDecision"] = "allow"
		if v.Reason != "" {
			out["permissionDecisionReason"] = v.Reason
		}
		if v.Sandbox {
			out["updatedInput"] = json.RawMessage(v.UpdatedInput)
		}
	case Ask:
		out["permissionDecision"] = "ask"
		out["permissionDecisionReason"] = claudeReason(v.Reason)
	default: // deny, and any decision this adapter does not know
		out["permissionDecision"] = "deny"
		out["permissionDecisionReason"] = claudeReason(v.Reason)
	}
	return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": out})}
}

// claudePermissionRequest answers the permission prompt's hook. An ask
// abstains: the prompt the hook stands in front of is the ask.
func claudePermissionRequest(v Verdict) Response {
	var decision map[string]any
	switch {
	case v.Decision == Allow && v.SoleGate:
		decision = map[string]any{"behavior": "allow"}
	case v.Decision == Allow, v.Decision == Ask:
		return Response{}
	default:
		decision = map[string]any{"behavior": "deny", "message": claudeReason(v.Reason)}
	}
	return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PermissionRequest", "decision": decision,
	}})}
}

func claudeReason(r string) string {
	if strings.TrimSpace(r) == "" {
		return claudeDefaultReason
	}
	return r
}

// Failure denies a gate event, and a call whose payload could not be read
// (e is nil): that is most often a PreToolUse, and on other events Claude
// ignores a PreToolUse answer rather than acting on it. Other events get no
// answer.
func (c Claude) Failure(e *Event, err error) Response {
	if e == nil {
		e = &Event{Agent: "claude", Kind: KindPreTool, NativeEvent: "PreToolUse"}
	}
	if e.Kind != KindPreTool {
		return Response{}
	}
	reason := "agent-shell failed"
	if err != nil {
		reason = err.Error()
	}
	return c.Render(e, Verdict{Decision: Deny, Reason: reason})
}

// ClaudeSettingsFile is where agent-shell registers its Claude Code hooks:
// the project settings, which are committed and shared.
const ClaudeSettingsFile = ".claude/settings.json"

// Install registers agent-shell for Claude's tool, prompt, session and stop
// events. PermissionRequest is not registered: PreToolUse already gates
// every call, before the prompt.
func (Claude) Install(root string) ([]string, error) {
	path := filepath.Join(root, ClaudeSettingsFile)
	events := []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop"}
	tools := map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true}
	changed, err := claudeMergeHooks(path, HookCommand+"claude", events, tools)
	if err != nil || !changed {
		return nil, err
	}
	return []string{path}, nil
}

// claudeMergeHooks adds one matcher group running command to each event's
// list under "hooks" in the JSON file at path, unless a group there already
// runs agent-shell. Codex reads the same layout. toolEvents get matcher
// "*" (all tools); other events take no matcher.
func claudeMergeHooks(path, command string, events []string, toolEvents map[string]bool) (bool, error) {
	var editErr error
	changed, err := mergeJSONFile(path, func(doc map[string]any) bool {
		// Check before changing anything: appendOnce would replace a
		// value that is not a list.
		hooks, err := hookLists(path, doc, events)
		if err != nil {
			editErr = err
			return false
		}
		changed := false
		for _, ev := range events {
			entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 10}}}
			if toolEvents[ev] {
				entry["matcher"] = "*"
			}
			changed = appendOnce(hooks, ev, entry, claudeRunsAgentShell) || changed
		}
		return changed
	})
	if editErr != nil {
		return false, editErr
	}
	if err != nil {
		return false, fmt.Errorf("register hooks: %w", err)
	}
	return changed, nil
}

// claudeRunsAgentShell reports whether a matcher group has a handler that
// runs agent-shell, in the shell form ("agent-shell hook ...", any path)
// or the exec form ("command": "agent-shell" with "args").
func claudeRunsAgentShell(group any) bool {
	g, _ := group.(map[string]any)
	handlers, _ := g["hooks"].([]any)
	for _, h := range handlers {
		m, _ := h.(map[string]any)
		cmd, _ := m["command"].(string)
		first, _, _ := strings.Cut(strings.TrimSpace(cmd), " ")
		if first != "" && filepath.Base(first) == "agent-shell" {
			return true
		}
	}
	return false
}

var _ Adapter = Claude{}

func init() {
	register("claude", func(getenv func(string) string) Adapter { return Claude{} })
}

// Describe: Claude Code also reads hooks from settings.local.json, and
// evals each command in a shell whose folder it keeps.
func (Claude) Describe() Descriptor { return claudeDescriptor }

var claudeDescriptor = Descriptor{
	Name: "claude", Actor: "claude-code",
	ActorEnv: []EnvMarker{{Name: "CLAUDECODE"}, {Name: "CLAUDE_CODE"}},
	Markers:  []Marker{{Path: ".claude"}},
	Installs: []string{ClaudeSettingsFile},
	Registrations: []Registration{
		{ClaudeSettingsFile, "Claude Code's hook registration", ""},
		{".claude/settings.local.json", "Claude Code's hook registration", `"hooks"`},
		// Subagents and skills carry hooks in their frontmatter, which
		// run beside agent-shell's and could rewrite a command it judged.
		{".claude/agents/*", "a Claude Code subagent, whose frontmatter can register hooks", "hooks:"},
		{".claude/skills/*/SKILL.md", "a Claude Code skill, whose frontmatter can register hooks", "hooks:"},
	},
	HomeRegistrations: []Registration{
		{".claude/settings.json", "Claude Code's user settings, which register hooks", `"hooks"`},
		{".claude/agents/*", "a Claude Code user subagent, whose frontmatter can register hooks", "hooks:"},
		{".claude/skills/*/SKILL.md", "a Claude Code user skill, whose frontmatter can register hooks", "hooks:"},
		{".claude/plugins/**", "Claude Code's plugins, whose hooks/hooks.json register hooks", ""},
	},
	ProjectDirEnv: "CLAUDE_PROJECT_DIR",
	Sandbox:       SandboxTrackCwd,
	SandboxCaveat: "a Claude Code version that drops updatedInput runs the command with the text guard only",
}
