package hostapi

import (
	"encoding/json"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// RecordedCall is what the flight recorder keeps of one pre-tool call: the
// fields a decision event holds (see cmd/agent-shell's decisionEvent).
type RecordedCall struct {
	Agent       string // the adapter's name: claude, codex, ...
	NativeEvent string
	NativeTool  string
	// Command is the recorded shell command ("" when the call was not a
	// shell tool's, or its command could not be read).
	Command string
	Input   json.RawMessage // the tool input as recorded (redacted)
	Meta    json.RawMessage // the payload's other fields as recorded
	// Cwd is where the call is judged. CwdResolved says it is the
	// directory the decision used, a shell tool's directory argument
	// already applied; otherwise it is a stand-in (the repository root,
	// for a line written before decisions recorded their cwd) that such an
	// argument is resolved against, as the hook did with the payload's.
	Cwd         string
	CwdResolved bool
	SessionID   string
}

// recordDialects are the dialects whose tool names and shell commands a
// recorded call is read with, by agent. Copilot's two payload shapes name
// tools and carry commands alike; Amp's envelope and its bare parameters
// too; Cursor's beforeShellExecution is recorded with the input
// {"command": ...} that its dialect reads.
var recordDialects = lazy.Value[map[string]*dialect]{New: func() map[string]*dialect {
	return map[string]*dialect{
		"amp": &ampEnvelope, "claude": &claudeDialect, "codex": &codexDialect, "copilot": &copilotSnake,
		"cursor": &cursorDialect, "gemini": &geminiDialect, "opencode": &opencodeDialect,
	}
}}

// ReplayEvent rebuilds the pre-tool Event of a recorded call, as the
// agent's adapter built it from the payload: the tool normalized, the shell
// command taken from the record (or, when the record has none, read from
// the input, so that a command that could not be read fails as it did),
// and the working directory resolved. ok is false for an agent without an
// adapter.
func ReplayEvent(c RecordedCall) (e *Event, ok bool) {
	d, ok := recordDialects.Get()[c.Agent]
	if !ok {
		return nil, false
	}
	e = &Event{Agent: c.Agent, Kind: KindPreTool, NativeEvent: c.NativeEvent, NativeTool: c.NativeTool,
		Tool: d.tool(c.NativeTool), Input: c.Input, SessionID: c.SessionID, Cwd: c.Cwd, Meta: map[string]json.RawMessage{}}
	if len(c.Meta) > 0 {
		_ = json.Unmarshal(c.Meta, &e.Meta) // a damaged meta is no meta: it names no field the decision reads
	}
	if !e.IsShell() {
		return e, true
	}
	e.Command = c.Command
	if e.Command == "" {
		e.Command, e.CommandErr = d.command(c.Input, len(c.Input) > 0)
	}
	if e.CommandErr == nil {
		// A directory argument that could not be used failed the call
		// then, and fails it again; a resolved cwd is kept as it is.
		scratch := *e
		e.CommandErr = shellWorkdir(&scratch, c.Input)
		if !c.CwdResolved {
			e.Cwd = scratch.Cwd
		}
	}
	return e, true
}
