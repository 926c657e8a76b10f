package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/atomicfile"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Amp speaks Amp's permission delegate protocol (docs/host-protocols.md,
// "Amp"): an
// `amp.permissions` rule with "action": "delegate" makes Amp run one program,
// without arguments, for each matching tool call, with AGENT_TOOL_NAME,
// AMP_THREAD_ID and AGENT=amp in its environment and the tool's parameters
// (Bash: {"cmd": ...}; edit_file: {"path": ...}) as JSON on stdin. Amp reads
// only the exit status: 0 allow, 1 ask the operator, 2 or more reject, with
// stderr shown to the model. So every call is a pre-tool gate, named
// "delegate" here, and an answer is an exit code and never stdout.
//
// A third-party library assumes a {"tool", "input", "session_id", "cwd"}
// envelope instead, contradicting Amp's docs; Parse accepts it too.
type Amp struct {
	// ToolName is AGENT_TOOL_NAME, the tool Amp asks about. Amp always sets
	// it; without it only an envelope payload names its tool.
	ToolName string
	// ThreadID is AMP_THREAD_ID, Amp's session.
	ThreadID string
}

// AmpEvent is the one event of the delegate protocol: a tool call Amp asks
// about.
const AmpEvent = "delegate"

func (Amp) Name() string     { return "amp" }
func (Amp) Events() []string { return []string{AmpEvent} }

var ampKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind { return map[string]Kind{AmpEvent: KindPreTool} }}

// ampTools maps Amp's tool names, compared in lower case so that a shell
// call never slips past as a non-shell tool by its spelling.
var ampTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"bash": ToolBash, "edit_file": ToolEdit, "create_file": ToolWrite,
		"read_file": ToolRead, "read": ToolRead, "read_web_page": ToolWebFetch,
	}
}}

func normalizeAmpTool(name string) string {
	if t, ok := ampTools.Get()[strings.ToLower(name)]; ok {
		return t
	}
	return name
}

var (
	errAmpCmdMissing   = errors.New("missing cmd field in the Bash parameters")
	errAmpCmdNotString = errors.New("cmd field must be a string")
	errAmpParamsObject = errors.New("the Bash parameters must be a JSON object")
	errAmpNoToolName   = errors.New(`AGENT_TOOL_NAME is not set and the payload is not a {"tool", "input"} envelope: not a call of Amp's delegate`)
)

// ampCommand reads a Bash call's command from its parameters: "cmd" as Amp
// documents it, or "command", the name the envelope library uses.
func ampCommand(params json.RawMessage, present bool) (string, error) {
	var m map[string]json.RawMessage
	if !present || json.Unmarshal(params, &m) != nil || m == nil {
		return "", errAmpParamsObject
	}
	raw, ok := m["cmd"]
	if !ok {
		raw, ok = m["command"]
	}
	if !ok {
		return "", errAmpCmdMissing
	}
	cmd, ok := jsonString(raw)
	if !ok {
		return "", errAmpCmdNotString
	}
	return cmd, nil
}

// ampEnvelope is the third-party shape's dialect.
var ampEnvelope = dialect{
	agent: "amp", kinds: ampKinds.Get(), tool: normalizeAmpTool, command: ampCommand,
	session: "session_id", toolName: "tool", toolInput: "input",
}

// Parse reads one delegate call. nativeEvent is "" (or "delegate") for every
// call Amp makes; another name parses as an unknown event.
//
// The payload is the tool's parameters, named by AGENT_TOOL_NAME, unless it
// is an envelope: a string "tool" (equal to AGENT_TOOL_NAME when that is set)
// beside an object "input". A parameter object of that shape is not one any
// Amp tool has. Parameters with no tool name at all are an error: Amp always
// sets AGENT_TOOL_NAME, so the call did not come from Amp's delegate rule,
// and the caller's Failure rejects it.
func (a Amp) Parse(payload []byte, nativeEvent string) (*Event, error) {
	fields, err := objectFields(payload)
	if err != nil {
		return nil, err
	}
	if nativeEvent == "" {
		nativeEvent = AmpEvent
	}
	if a.isEnvelope(fields) {
		e, err := ampEnvelope.parse(fields, nativeEvent)
		if err != nil {
			return nil, fmt.Errorf("amp envelope: %w", err)
		}
		if e.SessionID == "" {
			e.SessionID = a.ThreadID
		}
		return e, nil
	}
	e := &Event{Agent: "amp", NativeEvent: nativeEvent, Kind: kindOf(ampKinds.Get(), nativeEvent),
		SessionID: a.ThreadID, Input: json.RawMessage(bytes.TrimSpace(payload)), Meta: map[string]json.RawMessage{}}
	if a.ToolName == "" {
		if e.Kind == KindPreTool {
			return nil, errAmpNoToolName
		}
		return e, nil
	}
	if len(a.ToolName) > maxToolName {
		return nil, fmt.Errorf("AGENT_TOOL_NAME is longer than %d bytes", maxToolName)
	}
	e.NativeTool, e.Tool = a.ToolName, normalizeAmpTool(a.ToolName)
	if e.IsShell() && e.Kind == KindPreTool {
		e.Command, e.CommandErr = ampCommand(e.Input, true)
	}
	return e, nil
}

func (a Amp) isEnvelope(fields map[string]json.RawMessage) bool {
	tool, ok := toolName(fields["tool"])
	if !ok || (a.ToolName != "" && tool != a.ToolName) {
		return false
	}
	in := bytes.TrimSpace(fields["input"])
	return len(in) > 0 && in[0] == '{'
}

// Coverage: Amp's delegate can reject and can ask the operator (exit 1), and
// nothing else: no rewrite, no context, no post-tool or prompt calls.
func (Amp) Coverage(k Kind) Coverage {
	if k != KindPreTool {
		return Coverage{}
	}
	return Coverage{Deny: true, NativeAsk: true}
}

// Amp's exit statuses.
const (
	ampExitAllow  = 0
	ampExitAsk    = 1
	ampExitReject = 2
)

// Render answers with an exit status; nothing goes to stdout.
//
// Amp has no way to abstain: exit 0 grants the call without
// Amp's own checks, since the first matching rule wins. So an allow is
// exit 1, "ask the operator", which reproduces Amp's default (the main thread
// asks, a subagent rejects) and never makes agent-shell the only gate by
// accident; only a sole-gate allow is exit 0. An ask is exit 1 as well, with
// the reason on stderr for whoever reads it. A deny is exit 2 with a
// non-empty reason on stderr, which Amp shows to the model. A rewrite cannot
// be carried, so it is a deny naming the suggestion.
func (a Amp) Render(e *Event, v Verdict) Response {
	if e == nil || e.Kind != KindPreTool {
		// Observe-only: the answer that leaves the call to Amp's default.
		return Response{Exit: ampExitAsk}
	}
	v = rewriteAsDeny(v)
	switch v.Decision {
	case Allow:
		if v.SoleGate {
			return Response{Exit: ampExitAllow}
		}
		return Response{Exit: ampExitAsk}
	case Ask:
		if v.Reason == "" {
			return Response{Exit: ampExitAsk}
		}
		return Response{Stderr: []byte("agent-shell: needs approval: " + v.Reason + "\n"), Exit: ampExitAsk}
	default:
		reason := v.Reason
		if reason == "" {
			reason = "denied by agent-shell's policy"
		}
		return Response{Stderr: []byte(reason + "\n"), Exit: ampExitReject}
	}
}

// Failure rejects: Amp runs the delegate only to gate a tool call, so an
// undecided call is a reject whatever the event looked like.
func (a Amp) Failure(e *Event, err error) Response {
	if e == nil || e.Kind != KindPreTool {
		e = &Event{Agent: "amp", Kind: KindPreTool, NativeEvent: AmpEvent}
	}
	return a.Render(e, Verdict{Decision: Deny, Reason: err.Error()})
}

var _ Adapter = Amp{}

func init() {
	register("amp", func(getenv func(string) string) Adapter {
		return Amp{ToolName: getenv("AGENT_TOOL_NAME"), ThreadID: getenv("AMP_THREAD_ID")}
	})
}

// Describe: Amp keeps its settings in the home as often as in the
// repository, so AGENT=amp in init's environment says it is used too.
func (Amp) Describe() Descriptor { return ampDescriptor }

var ampDescriptor = Descriptor{
	Name: "amp", Actor: "amp",
	ActorEnv:          []EnvMarker{{Name: "AGENT", Value: "amp"}, {Name: "AMP_CURRENT_THREAD_ID"}, {Name: "AMP_THREAD_ID"}},
	Markers:           []Marker{{Path: ".amp"}, {Env: EnvMarker{Name: "AGENT", Value: "amp"}}},
	Installs:          []string{AmpSettingsFile, AmpDelegate},
	InstallNote:       "amp's rule in " + AmpSettingsFile + " holds this checkout's absolute path: every checkout runs agent-shell init itself",
	Registrations:     []Registration{{AmpSettingsFile, "Amp's delegate registration", ""}},
	HomeRegistrations: []Registration{{".config/amp/settings.json", "Amp's user settings", ""}},
	NoSandbox:         "Amp's delegate protocol cannot rewrite a command",
}

// AmpSettingsFile is the workspace settings file agent-shell registers its
// delegate rule in. Amp's settings paths are not all documented (this one
// and ~/.config/amp/settings.json are unconfirmed); this is the workspace
// one.
const AmpSettingsFile = ".amp/settings.json"

// AmpDelegate is the wrapper Amp runs: Amp passes the delegate no
// arguments, so the --agent flag has to live in an executable of its own.
const AmpDelegate = ".agent-shell/bin/agent-shell-amp"

const ampPermissionsKey = "amp.permissions"

func ampDelegateScript() []byte {
	return []byte("#!/bin/sh\n" +
		"# Amp's permission delegate for agent-shell, written by `agent-shell hook install --agent=amp`.\n" +
		"# Amp runs a delegate without arguments; this adds them.\n" +
		"exec " + HookCommand + "amp \"$@\"\n")
}

// Install writes the delegate wrapper and appends a rule delegating Bash to
// it to .amp/settings.json, keeping every other key and rule.
//
// The rule's "to" is the wrapper's absolute path (Amp runs a program on $PATH
// or an absolute path), so the settings file belongs to this checkout; a
// rule whose agent-shell-amp no longer exists (a moved checkout) is pointed
// at the new one. The rule is appended, so the user's earlier rules keep
// winning (the first match wins), and only Bash is delegated: for the tools
// it covers the delegate replaces Amp's built-in rules, and the policy only
// judges shell commands.
func (a Amp) Install(root string) ([]string, error) {
	var changed []string
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("amp install: %w", err)
	}
	wrapper := filepath.Join(absRoot, AmpDelegate)
	wrote, err := ampWriteExecutable(wrapper, ampDelegateScript())
	if err != nil {
		return nil, fmt.Errorf("amp install: %w", err)
	}
	if wrote {
		changed = append(changed, wrapper)
	}
	settings := filepath.Join(absRoot, AmpSettingsFile)
	var editErr error
	edited, err := mergeJSONFile(settings, func(doc map[string]any) bool {
		added, ok := ampAddRule(doc, wrapper)
		if !ok {
			editErr = fmt.Errorf("%s: %q is not a list; it was left unchanged", settings, ampPermissionsKey)
		}
		return added
	})
	if err == nil {
		err = editErr
	}
	if err != nil {
		return changed, fmt.Errorf("amp install: %w", err)
	}
	if edited {
		changed = append(changed, settings)
	}
	return changed, nil
}

// ampAddRule appends the delegate rule unless one to an agent-shell-amp is
// there; ok is false when amp.permissions holds something else than a list.
func ampAddRule(doc map[string]any, wrapper string) (changed, ok bool) {
	v, present := doc[ampPermissionsKey]
	rules, isList := v.([]any)
	if present && !isList {
		return false, false
	}
	for _, r := range rules {
		m, _ := r.(map[string]any)
		to, _ := m["to"].(string)
		if m["action"] != "delegate" || filepath.Base(to) != filepath.Base(AmpDelegate) {
			continue
		}
		if to == wrapper {
			return false, true
		}
		if filepath.IsAbs(to) {
			if _, err := os.Stat(to); err != nil {
				m["to"] = wrapper // a stale path from another checkout
				return true, true
			}
		}
		return false, true // the user's own agent-shell-amp (on $PATH, or elsewhere)
	}
	doc[ampPermissionsKey] = append(rules, map[string]any{"tool": "Bash", "action": "delegate", "to": wrapper})
	return true, true
}

// ampWriteExecutable writes data to path with mode 0755 unless it already
// holds exactly that, executable; it reports whether it wrote.
func ampWriteExecutable(path string, data []byte) (bool, error) {
	old, err := os.ReadFile(path)
	if err == nil && bytes.Equal(old, data) {
		fi, err := os.Stat(path)
		if err == nil && fi.Mode().Perm()&0o111 == 0o111 {
			return false, nil
		}
	}
	if err := atomicfile.Write(path, data, 0); err != nil {
		return false, err
	}
	return true, os.Chmod(path, 0o755)
}
