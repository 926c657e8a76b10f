package hostapi

import (
	"encoding/json"
	"strings"
)

// MCP servers that run shell commands (desktop-commander's start_process,
// mcp-server-commands' run_command, iterm-mcp's write_to_terminal, …) are
// a shell beside the host's own: a command sent through one must meet
// the same guard and rules, or any rule is one server away from never
// seeing its command. A tool counts when the host names it as an MCP tool
// (mcp__SERVER__TOOL, mcp_SERVER_TOOL, Cursor's MCP:TOOL, or any name in
// an event for MCP tools alone: Cursor's beforeMCPExecution), its name
// says it runs commands, and its input holds a "command": a command line,
// or an argv array (read as Codex's is).
// Its server runs the command with its own shell, so it is never wrapped
// in the sandbox (see Event.MCPShell).

// mcpShellWords are what an MCP tool's name holds when it runs commands.
var mcpShellWords = []string{"command", "exec", "shell", "terminal", "bash", "process"}

// mcpEvents are the native events that carry MCP tool calls alone, whose
// tool names have no prefix to say so.
var mcpEvents = map[string]bool{"beforeMCPExecution": true}

// mcpTool returns the rest of an MCP tool's name after the prefix that
// marks it as one (all of it in an MCP event); ok is false for a tool
// that is not an MCP server's.
func mcpTool(native, event string) (rest string, ok bool) {
	lower := strings.ToLower(native)
	if rest, ok := strings.CutPrefix(lower, "mcp_"); ok {
		return rest, true
	}
	if rest, ok := strings.CutPrefix(lower, "mcp:"); ok {
		return rest, true
	}
	return lower, mcpEvents[event]
}

// mcpShellTool reports whether the native tool name and input, in the
// native event, are an MCP server's shell command.
func mcpShellTool(native, event string, input json.RawMessage) bool {
	rest, ok := mcpTool(native, event)
	if !ok {
		return false
	}
	tool := rest[strings.LastIndex(rest, "_")+1:]
	if i := strings.LastIndex(rest, "__"); i >= 0 {
		tool = rest[i+2:]
	}
	shellish := tool == "run"
	for _, w := range mcpShellWords {
		shellish = shellish || strings.Contains(tool, w)
	}
	if !shellish {
		return false
	}
	if s, ok := jsonString(input); ok {
		input = json.RawMessage(s)
	}
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return false
	}
	var argv []string
	_, text := jsonString(in.Command)
	return text || json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0
}

// MCPShell reports a shell command that an MCP server runs, not the
// host's shell tool.
func (e *Event) MCPShell() bool {
	_, mcp := mcpTool(e.NativeTool, e.NativeEvent)
	return e.Tool == ToolBash && mcp
}
