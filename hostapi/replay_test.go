package hostapi

import (
	"encoding/json"
	"testing"
)

// A recorded call comes back as the event its adapter built: the tool
// normalized, the command from the record or, failing that, from the
// input, and the cwd as the decision used it.
func TestReplayEvent(t *testing.T) {
	tests := []struct {
		name    string
		call    RecordedCall
		tool    string
		command string
		cwd     string
		fails   bool
	}{
		{name: "claude bash", call: RecordedCall{Agent: "claude", NativeEvent: "PreToolUse", NativeTool: "Bash",
			Command: "rm -rf build", Input: json.RawMessage(`{"command":"rm -rf build"}`), Cwd: "/p", CwdResolved: true},
			tool: ToolBash, command: "rm -rf build", cwd: "/p"},
		{name: "input cut short by redaction", call: RecordedCall{Agent: "claude", NativeTool: "Bash",
			Command: "make all", Input: json.RawMessage(`{"truncated":true,"bytes":20000}`), Cwd: "/p", CwdResolved: true},
			tool: ToolBash, command: "make all", cwd: "/p"},
		{name: "command that could not be read", call: RecordedCall{Agent: "claude", NativeTool: "Bash",
			Input: json.RawMessage(`{"command":7}`), Cwd: "/p", CwdResolved: true},
			tool: ToolBash, cwd: "/p", fails: true},
		{name: "codex workdir already applied", call: RecordedCall{Agent: "codex", NativeTool: "Bash",
			Command: "ls", Input: json.RawMessage(`{"command":["ls"],"workdir":"sub"}`), Cwd: "/p/sub", CwdResolved: true},
			tool: ToolBash, command: "ls", cwd: "/p/sub"},
		{name: "old line: workdir resolved against the stand-in", call: RecordedCall{Agent: "codex", NativeTool: "Bash",
			Command: "ls", Input: json.RawMessage(`{"command":["ls"],"workdir":"sub"}`), Cwd: "/root"},
			tool: ToolBash, command: "ls", cwd: "/root/sub"},
		{name: "workdir that is not a string", call: RecordedCall{Agent: "codex", NativeTool: "Bash",
			Command: "ls", Input: json.RawMessage(`{"command":["ls"],"workdir":1}`), Cwd: "/p", CwdResolved: true},
			tool: ToolBash, command: "ls", cwd: "/p", fails: true},
		{name: "copilot", call: RecordedCall{Agent: "copilot", NativeTool: "bash",
			Command: "git status", Input: json.RawMessage(`{"command":"git status"}`)},
			tool: ToolBash, command: "git status"},
		{name: "cursor shell gate", call: RecordedCall{Agent: "cursor", NativeEvent: "beforeShellExecution", NativeTool: "Shell",
			Input: json.RawMessage(`{"command":"npm test"}`), Cwd: "/w", CwdResolved: true},
			tool: ToolBash, command: "npm test", cwd: "/w"},
		{name: "not a shell tool", call: RecordedCall{Agent: "claude", NativeTool: "Edit",
			Input: json.RawMessage(`{"file_path":"/p/a.go"}`), Cwd: "/p", CwdResolved: true},
			tool: ToolEdit, cwd: "/p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := ReplayEvent(tt.call)
			if !ok {
				t.Fatal("agent not known")
			}
			if e.Kind != KindPreTool || e.Tool != tt.tool || e.Command != tt.command || e.Cwd != tt.cwd || (e.CommandErr != nil) != tt.fails {
				t.Errorf("got kind %s tool %q command %q cwd %q err %v", e.Kind, e.Tool, e.Command, e.Cwd, e.CommandErr)
			}
		})
	}
	if _, ok := ReplayEvent(RecordedCall{Agent: "nobody"}); ok {
		t.Error("an unknown agent was rebuilt")
	}
}

// Every adapter's calls can be replayed.
func TestReplayEveryAgent(t *testing.T) {
	for _, name := range Names() {
		if _, ok := recordDialects.Get()[name]; !ok {
			t.Errorf("no record dialect for %s", name)
		}
	}
}
