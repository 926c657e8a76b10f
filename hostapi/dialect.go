package hostapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// dialect describes the JSON payload of one host: which fields carry what
// the contract models. Every other field is kept in Event.Meta.
type dialect struct {
	agent string
	kinds map[string]Kind
	// tool normalizes the host's tool name.
	tool func(native string) string
	// command reads the shell command out of a shell tool's input.
	command func(input json.RawMessage, present bool) (string, error)

	eventKey  string // field naming the event ("" when the registration says it)
	session   string
	cwd       string // "" means "cwd"
	toolName  string
	toolInput string
	results   []string
	// output reads a shell post-tool result (nil: the combined reading,
	// for a host whose result shape is not established).
	output outputReader
	prompt string // "" means "prompt"
}

// objectFields decodes a payload's top level; anything but a JSON object
// is ErrInvalidJSON.
func objectFields(payload []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil || fields == nil {
		return nil, ErrInvalidJSON
	}
	return fields, nil
}

// parse builds the Event of a payload's fields. nativeEvent names the event
// when the payload does not (eventKey is ""). Tool events must name their
// tool; nothing else is required.
func (d dialect) parse(fields map[string]json.RawMessage, nativeEvent string) (*Event, error) {
	take := func(k string) (json.RawMessage, bool) {
		if k == "" {
			return nil, false
		}
		v, ok := fields[k]
		delete(fields, k)
		return v, ok
	}
	or := func(k, def string) string {
		if k == "" {
			return def
		}
		return k
	}
	if raw, ok := take(d.eventKey); ok {
		nativeEvent = stringField(raw)
	}
	e := &Event{Agent: d.agent, NativeEvent: nativeEvent, Kind: kindOf(d.kinds, nativeEvent), Meta: map[string]json.RawMessage{}}
	raw, _ := take(d.session)
	e.SessionID = stringField(raw)
	raw, _ = take(or(d.cwd, "cwd"))
	e.Cwd = stringField(raw)
	switch e.Kind {
	case KindPreTool, KindPostTool:
		raw, _ = take(d.toolName)
		name, ok := toolName(raw)
		if !ok {
			return nil, ErrInvalidToolName
		}
		e.NativeTool, e.Tool = name, d.tool(name)
		input, hasInput := take(d.toolInput)
		if e.Tool == name && mcpShellTool(name, nativeEvent, input) {
			e.Tool = ToolBash
		}
		e.Input = input
		if s, ok := jsonString(input); ok && json.Valid([]byte(s)) {
			e.Input = json.RawMessage(s) // record the arguments, not their quoted form
		}
		if e.IsShell() {
			command := d.command
			if e.MCPShell() {
				command = codexCommand // a string, or an argv array (mcp-shell-server's shell_execute)
			}
			e.Command, e.CommandErr = command(input, hasInput)
			if e.CommandErr == nil {
				e.CommandErr = shellWorkdir(e, input)
			}
		}
		for _, k := range d.results {
			if r, ok := take(k); ok {
				e.Result = r
			}
		}
		d.readOutput(e)
	case KindPrompt:
		raw, _ = take(or(d.prompt, "prompt"))
		e.Prompt = stringField(raw)
	}
	for k, v := range fields {
		e.Meta[k] = v
	}
	return e, nil
}

// workdirKeys are the shell-tool arguments that name the directory the
// command runs in (Gemini's directory, later dir_path; workdir or cwd
// elsewhere), relative to the payload's cwd when not absolute.
var workdirKeys = []string{"directory", "dir_path", "workdir", "cwd"}

// shellWorkdir moves a shell event's cwd to the directory its arguments
// name, so that the guard, the effects and the grants judge the command
// where it runs. A directory that cannot be resolved is an error: the
// call is then denied rather than judged in the wrong place.
func shellWorkdir(e *Event, input json.RawMessage) error {
	if s, ok := jsonString(input); ok {
		input = json.RawMessage(s)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return nil
	}
	for _, k := range workdirKeys {
		raw, ok := m[k]
		if !ok || string(raw) == "null" {
			continue
		}
		dir, ok := jsonString(raw)
		switch {
		case !ok:
			return fmt.Errorf("tool_input.%s must be a string (the directory the command runs in)", k)
		case dir == "":
			continue
		case filepath.IsAbs(dir):
			e.Cwd = filepath.Clean(dir)
		case e.Cwd == "":
			return fmt.Errorf("tool_input.%s %q is relative, and the payload has no cwd to resolve it against", k, dir)
		default:
			e.Cwd = filepath.Join(e.Cwd, dir)
		}
	}
	return nil
}

// Errors of the hosts whose payloads name their event and carry the shell
// command in tool_input.command (Claude, Codex, Gemini, Cursor).
var (
	errNoEvent             = errors.New("missing or invalid hook_event_name")
	errShellInputMissing   = errors.New("missing tool_input for a shell tool")
	errShellInputNotObject = errors.New("tool_input must be a JSON object for a shell tool")
	errShellCommandMissing = errors.New("missing command field in tool_input")
	errShellCommandType    = errors.New("command field in tool_input must be a string")
)

// requireEventName checks that a payload names its event in
// hook_event_name, or that the caller named it: these hosts always send
// it, and a tool call whose name is lost or garbled must not pass as an
// observe-only unknown event.
func requireEventName(fields map[string]json.RawMessage, nativeEvent string) error {
	raw, ok := fields["hook_event_name"]
	if !ok {
		if nativeEvent == "" {
			return errNoEvent
		}
		return nil
	}
	if s, ok := jsonString(raw); !ok || s == "" {
		return errNoEvent
	}
	return nil
}

// parseNamed parses the payload of a host that always names its event in
// hook_event_name (Claude, Codex, Gemini): a payload without it is refused,
// unless the caller names the event.
func (d dialect) parseNamed(payload []byte, nativeEvent string) (*Event, error) {
	fields, err := objectFields(payload)
	if err != nil {
		return nil, err
	}
	if err := requireEventName(fields, nativeEvent); err != nil {
		return nil, err
	}
	return d.parse(fields, nativeEvent)
}

// commandField returns the raw command field of a shell tool's input, an
// object (or, as some hosts send it, a JSON string holding one).
func commandField(input json.RawMessage, present bool) (json.RawMessage, error) {
	if !present {
		return nil, errShellInputMissing
	}
	if s, ok := jsonString(input); ok {
		input = json.RawMessage(s)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil || m == nil {
		return nil, errShellInputNotObject
	}
	raw, ok := m["command"]
	if !ok {
		return nil, errShellCommandMissing
	}
	return raw, nil
}

// shellCommand reads tool_input.command, which must be a string.
func shellCommand(input json.RawMessage, present bool) (string, error) {
	raw, err := commandField(input, present)
	if err != nil {
		return "", err
	}
	cmd, ok := jsonString(raw)
	if !ok {
		return "", errShellCommandType
	}
	return cmd, nil
}
