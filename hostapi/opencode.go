package hostapi

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-shell/agent-shell/internal/atomicfile"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Opencode speaks to agent-shell's opencode plugin. opencode hooks are
// functions in an in-process JS plugin (docs/host-protocols.md,
// "opencode"), so there is no native
// wire format: the plugin (opencode_plugin.js, written by Install) sends
// each tool.execute.before and tool.execute.after call to
// `agent-shell hook --agent=opencode` as a request agent-shell defines,
//
//	{"v":1,"event":"tool.execute.before","tool":"bash","sessionID":"ses_…",
//	 "callID":"call_…","args":{"command":"…"},"cwd":"/project"}
//
// with the names of opencode's V1 API (input.tool, input.sessionID,
// input.callID, output.args; the plugin's directory as cwd), plus
// "result" ({title, output, metadata}) after the call. The answer to a
// tool.execute.before is one JSON object on exit 0: {"decision":"allow"},
// optionally with "args" to merge over output.args, or
// {"decision":"deny","reason":"…"}, on which the plugin throws. The plugin
// blocks the call on anything else.
type Opencode struct{}

// OpencodeProtocol is the request version this agent-shell speaks. It
// changes only when a change is incompatible: added fields are kept in Meta.
const OpencodeProtocol = 1

//go:embed opencode_plugin.js
var opencodePlugin []byte

func (Opencode) Name() string { return "opencode" }

func (Opencode) Events() []string {
	return []string{"tool.execute.before", "tool.execute.after"}
}

var opencodeKinds = lazy.Value[map[string]Kind]{New: func() map[string]Kind {
	return map[string]Kind{"tool.execute.before": KindPreTool, "tool.execute.after": KindPostTool}
}}

// opencodeTools maps opencode's built-in tool ids.
var opencodeTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"bash": ToolBash, "edit": ToolEdit, "multiedit": ToolEdit, "patch": ToolEdit,
		"write": ToolWrite, "read": ToolRead, "webfetch": ToolWebFetch,
	}
}}

func normalizeOpencodeTool(name string) string {
	if t, ok := opencodeTools.Get()[strings.ToLower(name)]; ok {
		return t
	}
	return name
}

var (
	errOpencodeArgs       = errors.New("bash args must be a JSON object")
	errOpencodeCommand    = errors.New("missing command field in the bash args")
	errOpencodeCommandStr = errors.New("command field must be a string")
)

func opencodeCommand(args json.RawMessage, present bool) (string, error) {
	var m map[string]json.RawMessage
	if !present || json.Unmarshal(args, &m) != nil || m == nil {
		return "", errOpencodeArgs
	}
	raw, ok := m["command"]
	if !ok {
		return "", errOpencodeCommand
	}
	cmd, ok := jsonString(raw)
	if !ok {
		return "", errOpencodeCommandStr
	}
	return cmd, nil
}

var opencodeDialect = dialect{
	agent: "opencode", kinds: opencodeKinds.Get(), tool: normalizeOpencodeTool, command: opencodeCommand,
	eventKey: "event", session: "sessionID", toolName: "tool", toolInput: "args", results: []string{"result"},
	output: opencodeOutput,
}

// opencodeOutput: the plugin sends tool.execute.after's output as result
// {title, output, metadata}; bash's metadata holds the exit code as exit.
// A result cut by the plugin is {title, output, truncated, length}.
func opencodeOutput(native string, result json.RawMessage) *ToolOutput {
	obj := jsonObject(result)
	s, ok := obj["output"].(string)
	if !ok {
		return combinedOutput(native, result)
	}
	o := &ToolOutput{Output: s}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		o.Exit, o.ExitKnown = exitField(meta, "exit")
	}
	return o
}

// Parse reads one plugin request. Its "v" must be OpencodeProtocol: the
// plugin always sends it, and a plugin from another agent-shell version may
// mean something else by the same fields.
func (Opencode) Parse(payload []byte, nativeEvent string) (*Event, error) {
	fields, err := objectFields(payload)
	if err != nil {
		return nil, err
	}
	v, ok := fields["v"]
	if !ok {
		return nil, errors.New(`opencode request has no protocol version "v": it does not come from agent-shell's opencode plugin`)
	}
	if string(bytes.TrimSpace(v)) != "1" {
		return nil, fmt.Errorf("opencode plugin speaks protocol %s, this agent-shell speaks %d: run `agent-shell hook install --agent=opencode` with this agent-shell", bytes.TrimSpace(v), OpencodeProtocol)
	}
	delete(fields, "v")
	e, err := opencodeDialect.parse(fields, nativeEvent)
	if err != nil {
		return nil, fmt.Errorf("opencode request: %w", err)
	}
	return e, nil
}

// Coverage: the plugin blocks by throwing and rewrites by changing
// output.args; it has no way to ask before a call (opencode asks only through
// permission.ask, for calls that already need permission) and none to add
// context.
func (Opencode) Coverage(k Kind) Coverage {
	if k != KindPreTool {
		return Coverage{}
	}
	return Coverage{Deny: true, UpdatedInput: true}
}

// Render answers a tool.execute.before. Returning normally skips no prompt
// of opencode's (its permission checks are separate), so allow is
// {"decision":"allow"} with or without sole_gate. An ask becomes a deny; a
// rewrite is an allow with the new args, unless they are not an object.
// Other events get no answer: the plugin only records them.
func (Opencode) Render(e *Event, v Verdict) Response {
	if e == nil || e.Kind != KindPreTool {
		return Response{}
	}
	v = askAsDeny(v, "opencode")
	if v.Decision == Allow && len(v.UpdatedInput) > 0 {
		if in := bytes.TrimSpace(v.UpdatedInput); len(in) > 0 && in[0] == '{' && json.Valid(in) {
			return Response{Stdout: marshalLine(map[string]any{"decision": "allow", "args": json.RawMessage(in)})}
		}
		v = rewriteAsDeny(v)
	}
	if v.Decision == Allow {
		return Response{Stdout: marshalLine(map[string]any{"decision": "allow"})}
	}
	reason := v.Reason
	if reason == "" {
		reason = "denied by agent-shell's policy"
	}
	return Response{Stdout: marshalLine(map[string]any{"decision": "deny", "reason": reason})}
}

// Failure denies a tool.execute.before (or a request that could not be
// read); the plugin throws on it.
func (o Opencode) Failure(e *Event, err error) Response {
	if e == nil {
		e = &Event{Agent: "opencode", Kind: KindPreTool}
	}
	return o.Render(e, Verdict{Decision: Deny, Reason: err.Error()})
}

var _ Adapter = Opencode{}

func init() {
	register("opencode", func(func(string) string) Adapter { return Opencode{} })
}

func (Opencode) Describe() Descriptor { return opencodeDescriptor }

var opencodeDescriptor = Descriptor{
	Name: "opencode", Actor: "opencode",
	ActorEnv: []EnvMarker{{Name: "OPENCODE"}},
	Markers:  []Marker{{Path: ".opencode"}, {Path: "opencode.json"}},
	Installs: []string{OpencodePluginFile},
	// Every plugin runs in-process beside agent-shell's and may change a
	// tool's arguments after it has judged them, so the plugin folders
	// and the configuration that lists npm plugins are registrations.
	Registrations: []Registration{
		{OpencodePluginFile, "agent-shell's opencode plugin", ""},
		{".opencode/plugins/*", "an opencode plugin, which can change a command after agent-shell judged it", HooksAlways},
		{".opencode/plugin/*", "an opencode plugin (the older folder)", HooksAlways},
		{"opencode.json", "opencode's configuration, whose plugin list loads npm plugins", `"plugin"`},
		{"opencode.jsonc", "opencode's configuration, whose plugin list loads npm plugins", `"plugin"`},
	},
	HomeRegistrations: []Registration{
		{".config/opencode/plugins/*", "a user-wide opencode plugin, which can change a command after agent-shell judged it", HooksAlways},
		{".config/opencode/plugin/*", "a user-wide opencode plugin (the older folder)", HooksAlways},
		{".config/opencode/opencode.json", "opencode's user configuration, whose plugin list loads npm plugins", `"plugin"`},
		{".config/opencode/opencode.jsonc", "opencode's user configuration, whose plugin list loads npm plugins", `"plugin"`},
	},
	NoSandbox: "opencode's plugin rewrite of the bash tool's arguments is not verified",
}

// OpencodePluginFile is where Install writes the plugin; opencode loads every
// file in .opencode/plugins/ at startup.
const OpencodePluginFile = ".opencode/plugins/agent-shell.js"

// opencodeChecksumPrefix starts the header line holding the checksum of the
// plugin below it, which tells an unedited plugin from an edited one.
const opencodeChecksumPrefix = "// agent-shell-sha256: "

// opencodePluginFile is the plugin as Install writes it.
func opencodePluginFile() []byte { return opencodeWithHeader(opencodePlugin) }

// opencodeWithHeader puts a header above a plugin's source, with a checksum
// of everything but the checksum line itself.
func opencodeWithHeader(body []byte) []byte {
	head := "// agent-shell's opencode plugin, written by `agent-shell hook install --agent=opencode`.\n" +
		"// Install replaces this file while it is as written; once edited, it is left alone.\n"
	h := sha256.New()
	h.Write([]byte(head))
	h.Write(body)
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteString(opencodeChecksumPrefix + hex.EncodeToString(h.Sum(nil)) + "\n")
	b.Write(body)
	return b.Bytes()
}

// opencodeUnedited reports whether data is a plugin file agent-shell wrote
// (this version or another) that nobody has changed since.
func opencodeUnedited(data []byte) bool {
	i := bytes.Index(data, []byte("\n"+opencodeChecksumPrefix))
	if i < 0 {
		return false
	}
	rest := data[i+1+len(opencodeChecksumPrefix):]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return false
	}
	want, err := hex.DecodeString(string(rest[:nl]))
	h := sha256.New()
	h.Write(data[:i+1])
	h.Write(rest[nl+1:])
	return err == nil && bytes.Equal(want, h.Sum(nil))
}

// Install writes the plugin to .opencode/plugins/agent-shell.js. An identical
// file is left as it is and an unedited one from another agent-shell
// version is replaced; any other file there is an error and is left
// unchanged, since it is the user's own (or their edit of ours).
func (Opencode) Install(root string) ([]string, error) {
	path := filepath.Join(root, OpencodePluginFile)
	want := opencodePluginFile()
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("opencode install: %w", err)
	case bytes.Equal(old, want):
		return nil, nil
	case !opencodeUnedited(old):
		return nil, fmt.Errorf("opencode install: %s was edited or is not agent-shell's plugin; it was left unchanged: move it away and install again (then merge your changes), or keep it", path)
	}
	if err := atomicfile.Write(path, want, 0); err != nil {
		return nil, fmt.Errorf("opencode install: %w", err)
	}
	return []string{path}, nil
}
