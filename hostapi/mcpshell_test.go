package hostapi

import "testing"

// An MCP server's tool that runs a command line is the shell it is; any
// other MCP tool, or one whose command is not a string, is not.
func TestMCPShellTools(t *testing.T) {
	for _, tt := range []struct {
		tool, input string
		shell       bool
	}{
		{"mcp__desktop-commander__start_process", `{"command":"rm -rf ~","timeout_ms":1000}`, true},
		{"mcp__desktop-commander__execute_command", `{"command":"ls"}`, true},
		{"mcp__commands__run_command", `{"command":"npm test","workdir":"/w"}`, true},
		{"mcp__iterm__write_to_terminal", `{"command":"git status"}`, true},
		{"mcp__plugin_x_shell__run", `{"command":"ls"}`, true},
		{"mcp_server_run_command", `"{\"command\":\"ls\"}"`, true},
		{"mcp__memory__create_entities", `{"command":"rm -rf ~"}`, false},
		{"mcp__shell__shell_execute", `{"command":["rm","-rf","~"],"directory":"/w"}`, true},
		{"mcp__shell__shell_execute", `{"command":[]}`, false},
		{"mcp__shell__shell_execute", `{"command":{"x":1}}`, false},
		{"mcp__commands__run_command", `{"script":"ls"}`, false},
		{"run_command", `{"command":"ls"}`, false},
	} {
		payload := `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"` + tt.tool + `","tool_input":` + tt.input + `}`
		e, err := Claude{}.Parse([]byte(payload), "")
		if err != nil {
			t.Fatalf("%s: %v", tt.tool, err)
		}
		if e.IsShell() != tt.shell || e.MCPShell() != tt.shell || e.NativeTool != tt.tool || tt.shell && e.Command == "" {
			t.Errorf("%s %s: shell %v, MCP shell %v, native %q, command %q", tt.tool, tt.input, e.IsShell(), e.MCPShell(), e.NativeTool, e.Command)
		}
	}
}

// Cursor names an MCP tool MCP:TOOL in preToolUse, and gives the bare
// tool name in beforeMCPExecution, whose "command" is the server's own
// (the tool's arguments are tool_input, a JSON string).
func TestCursorMCPShellTools(t *testing.T) {
	for _, tt := range []struct {
		payload, command string
	}{
		{`{"conversation_id":"c","hook_event_name":"preToolUse","tool_name":"MCP:start_process","tool_input":{"command":"rm -rf ~"},"cwd":"/w"}`, "rm -rf ~"},
		{`{"conversation_id":"c","hook_event_name":"beforeMCPExecution","tool_name":"start_process","tool_input":"{\"command\":\"cat .env\"}","command":"npx -y @wonderwhy-er/desktop-commander","cwd":"/w"}`, "cat .env"},
		{`{"conversation_id":"c","hook_event_name":"beforeMCPExecution","tool_name":"read_file","tool_input":"{\"path\":\"x\"}","command":"npx -y server-files","cwd":"/w"}`, ""},
		{`{"conversation_id":"c","hook_event_name":"preToolUse","tool_name":"run_command","tool_input":{"command":"ls"},"cwd":"/w"}`, ""},
	} {
		e, err := Cursor{}.Parse([]byte(tt.payload), "")
		if err != nil {
			t.Fatalf("%s: %v", tt.payload, err)
		}
		shell := tt.command != ""
		if e.IsShell() != shell || e.MCPShell() != shell || e.Command != tt.command || e.Kind != KindPreTool {
			t.Errorf("%s: shell %v, MCP shell %v, command %q, kind %v", tt.payload, e.IsShell(), e.MCPShell(), e.Command, e.Kind)
		}
	}
}
