package hostapi

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Codex speaks OpenAI Codex CLI's command hooks (docs/host-protocols.md,
// "Codex CLI"; source of codex-rs/hooks and captures of 0.145.0): Claude-shaped
// payloads, but a stricter answer parser. Codex has no ask, rejects a bare
// allow, and treats a deny without a non-empty reason as a failed hook,
// which lets the tool run.
type Codex struct{}

func (Codex) Name() string { return "codex" }

func (Codex) Events() []string {
	return []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"}
}

var codexKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{
		"PreToolUse": KindPreTool, "PostToolUse": KindPostTool, "UserPromptSubmit": KindPrompt,
		"SessionStart": KindSessionStart, "Stop": KindStop,
	}
}}

// codexTool: Codex names every shell-like tool Bash, and sends file edits
// as apply_patch with the patch text in tool_input.command, which is not a
// shell command.
func codexTool(native string) string {
	switch native {
	case "Bash":
		return ToolBash
	case "apply_patch":
		return ToolEdit
	}
	return native
}

var (
	errCodexCommandType  = errors.New("command field in tool_input must be a string or an array of strings")
	errCodexCommandEmpty = errors.New("command field in tool_input is an empty argv array")
)

// codexCommand reads tool_input.command, a command line or an argv array.
// An argv array is joined into a shell-quoted line, so that the policy
// parser sees the same words: ["bash","-lc","rm -rf /"] reads as
// bash -lc 'rm -rf /', whose nested command the parser checks.
func codexCommand(input json.RawMessage, present bool) (string, error) {
	raw, err := commandField(input, present)
	if err != nil {
		return "", err
	}
	if cmd, ok := jsonString(raw); ok {
		return cmd, nil
	}
	var words []json.RawMessage
	if err := json.Unmarshal(raw, &words); err != nil || words == nil {
		return "", errCodexCommandType
	}
	if len(words) == 0 {
		return "", errCodexCommandEmpty
	}
	argv := make([]string, len(words))
	for i, w := range words {
		s, ok := jsonString(w) // a null word is no word, not ""
		if !ok {
			return "", errCodexCommandType
		}
		argv[i] = s
	}
	return codexShellJoin(argv), nil
}

// codexShellJoin quotes each word for a POSIX shell and joins them.
func codexShellJoin(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(codexQuote(w))
	}
	return b.String()
}

// codexQuote leaves a word made only of characters no shell treats
// specially as it is, and single-quotes anything else.
func codexQuote(w string) string {
	if w == "" {
		return "''"
	}
	for _, r := range w {
		safe := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)
		if !safe {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

var codexDialect = dialect{
	agent: "codex", kinds: codexKinds.Get(), tool: codexTool, command: codexCommand,
	eventKey: "hook_event_name", session: "session_id", toolName: "tool_name", toolInput: "tool_input",
	results: []string{"tool_response"}, output: codexOutput,
}

// codexOutput: PostToolUse's tool_response of a shell tool is a string,
// the output as the model sees it (no exit code, no stderr apart). It is
// taken as it is, even when it is JSON.
func codexOutput(native string, result json.RawMessage) *ToolOutput {
	var s string
	if json.Unmarshal(result, &s) != nil {
		return combinedOutput(native, result)
	}
	return &ToolOutput{Output: s}
}

func (Codex) Parse(payload []byte, nativeEvent string) (*Event, error) {
	return codexDialect.parseNamed(payload, nativeEvent)
}

// Coverage (docs/host-protocols.md, "Codex CLI"):
//   - pre-tool: deny only. NativeAsk is false: an ask is rejected as
//     unsupported, the hook counts as failed and the tool runs.
//     UpdatedInput is false: it works only with permissionDecision allow
//     in builds from about May 2026, and older builds reject it, which
//     again lets the original command run; a deny naming the suggestion is
//     safe on every version. Context is false: additionalContext on
//     PreToolUse is UNCERTAIN (rejected by the parser read in source), and
//     a rejected answer would discard the deny with it.
//   - post-tool, prompt, session start: hookSpecificOutput.additionalContext.
//   - stop: nothing (only decision:block, a continuation, not a context).
func (Codex) Coverage(k Kind) Coverage {
	switch k {
	case KindPreTool:
		return Coverage{Deny: true}
	case KindPostTool, KindPrompt, KindSessionStart:
		return Coverage{Context: true}
	}
	return Coverage{}
}

// codexDefaultReason replaces a blank deny reason, which Codex would
// reject, failing open.
const codexDefaultReason = "blocked by agent-shell policy"

// Render answers a pre-tool call with a JSON deny on exit 0 or nothing at
// all: an allow abstains even as the sole gate, since Codex rejects a bare
// allow (and would only log a failed hook).
func (c Codex) Render(e *Event, v Verdict) Response {
	if e == nil {
		return Response{}
	}
	if e.Kind == KindPreTool {
		v = rewriteAsDeny(v)
		if v.Decision == Ask && strings.TrimSpace(v.Reason) == "" {
			v.Reason = "agent-shell policy asks for a human's approval"
		}
		v = askAsDeny(v, "Codex")
		if v.Decision == Allow && v.Sandbox {
			return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": json.RawMessage(v.UpdatedInput),
			}})}
		}
		if v.Decision == Allow {
			return Response{}
		}
		reason := v.Reason
		if strings.TrimSpace(reason) == "" {
			reason = codexDefaultReason
		}
		return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason,
		}})}
	}
	if v.Context == "" || !c.Coverage(e.Kind).Context || e.NativeEvent == "" {
		return Response{}
	}
	return Response{Stdout: marshalLine(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": e.NativeEvent, "additionalContext": v.Context,
	}})}
}

// Failure denies a pre-tool call, and a call whose payload could not be
// read (e is nil), which is answered as a PreToolUse.
func (c Codex) Failure(e *Event, err error) Response {
	if e == nil {
		e = &Event{Agent: "codex", Kind: KindPreTool, NativeEvent: "PreToolUse"}
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

// CodexHooksFile is where agent-shell registers its Codex hooks. Codex
// loads a project's hooks only once the project is trusted.
const CodexHooksFile = ".codex/hooks.json"

// Install registers agent-shell for every event the adapter handles, in
// the same layout as Claude's settings, with an explicit timeout:
// Codex's default is 600 s.
func (Codex) Install(root string) ([]string, error) {
	path := filepath.Join(root, CodexHooksFile)
	tools := map[string]bool{"PreToolUse": true, "PostToolUse": true}
	changed, err := claudeMergeHooks(path, HookCommand+"codex", Codex{}.Events(), tools)
	if err != nil || !changed {
		return nil, err
	}
	return []string{path}, nil
}

var _ Adapter = Codex{}

func init() {
	register("codex", func(getenv func(string) string) Adapter { return Codex{} })
}

// Describe: Codex's config.toml can register hooks too.
func (Codex) Describe() Descriptor { return codexDescriptor }

var codexDescriptor = Descriptor{
	Name: "codex", Actor: "codex",
	ActorEnv: []EnvMarker{{Name: "CODEX_THREAD_ID"}, {Name: "CODEX_CI"}, {Name: "CODEX_SANDBOX"}, {Name: "CODEX_SANDBOX_NETWORK_DISABLED"}},
	Markers:  []Marker{{Path: ".codex"}},
	Installs: []string{CodexHooksFile},
	Registrations: []Registration{
		{CodexHooksFile, "Codex's hook registration", ""},
		{".codex/config.toml", "Codex's configuration, which can register hooks", "[hooks"},
	},
	HomeRegistrations: []Registration{
		{".codex/hooks.json", "Codex's user hook registration", HooksAlways},
		{".codex/config.toml", "Codex's user configuration, which can register hooks", "[hooks"},
	},
	Sandbox: SandboxPlain,
}
