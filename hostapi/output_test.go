package hostapi

import (
	"encoding/json"
	"testing"
)

// TestToolOutputShapes holds each host's reading of shell results the
// fixtures do not show: failures, and text that looks like JSON.
func TestToolOutputShapes(t *testing.T) {
	for _, tc := range []struct {
		name, host, payload string
		want                ToolOutput
	}{
		{"claude failure without an exit line", "claude",
			`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"sleep 900"},"error":"Command timed out"}`,
			ToolOutput{Failed: true, Error: "Command timed out"}},
		{"claude exit code inside the output is not the status", "claude",
			`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"x"},"error":"oops\nExit code 3"}`,
			ToolOutput{Failed: true, Error: "oops\nExit code 3"}},
		{"codex output that is JSON stays text", "codex",
			`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cat a.json"},"tool_response":"{\"stdout\":\"x\",\"exitCode\":4}"}`,
			ToolOutput{Output: `{"stdout":"x","exitCode":4}`}},
		{"copilot failure", "copilot",
			`{"toolName":"bash","toolArgs":"{\"command\":\"npm test\"}","toolResult":{"resultType":"failure","textResultForLlm":"1 test failed"}}`,
			ToolOutput{Output: "1 test failed", Failed: true}},
		{"copilot PascalCase payload", "copilot",
			`{"hook_event_name":"PostToolUse","tool_name":"bash","tool_input":{"command":"ls"},"tool_result":{"result_type":"denied","text_result_for_llm":"denied by user"}}`,
			ToolOutput{Output: "denied by user", Failed: true}},
		{"gemini failure", "gemini",
			`{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"false"},"tool_response":{"llmContent":"Command: false\nOutput: (empty)\nExit Code: 1","returnDisplay":"","error":{"message":"exit 1"}}}`,
			ToolOutput{Output: "Command: false\nOutput: (empty)\nExit Code: 1", Exit: 1, ExitKnown: true, Failed: true, Error: "exit 1"}},
		{"gemini output line that looks like an exit code", "gemini",
			`{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"x"},"tool_response":{"llmContent":"Command: x\nOutput: Exit Code: 9\nExit Code: 0\nSignal: (none)"}}`,
			ToolOutput{Output: "Command: x\nOutput: Exit Code: 9\nExit Code: 0\nSignal: (none)", Exit: 0, ExitKnown: true}},
		{"cursor stderr and a failing exit", "cursor",
			`{"hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"make"},"tool_output":"{\"exitCode\":2,\"stdout\":\"\",\"stderr\":\"no rule\"}","conversation_id":"c"}`,
			ToolOutput{Stderr: "no rule", Exit: 2, ExitKnown: true}},
		{"cursor output of another shape: the combined reading", "cursor",
			`{"hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"make"},"tool_output":"plain text","conversation_id":"c"}`,
			ToolOutput{Output: "plain text"}},
		{"opencode output cut by the plugin", "opencode",
			`{"v":1,"event":"tool.execute.after","tool":"bash","sessionID":"s","args":{"command":"yes"},"result":{"title":"yes","output":"y\ny","truncated":true,"length":99999},"cwd":"/w"}`,
			ToolOutput{Output: "y\ny"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ad, _ := ByName(tc.host, noGetenv)
			e, err := ad.Parse([]byte(tc.payload), "")
			if err != nil {
				t.Fatal(err)
			}
			if e.Output == nil || *e.Output != tc.want {
				got, _ := json.Marshal(e.Output)
				t.Errorf("output %s, want %+v", got, tc.want)
			}
		})
	}
}

// A post-tool event of a tool that is not a shell has no Output: its
// result is the tool's own shape.
func TestToolOutputOnlyForShell(t *testing.T) {
	ad, _ := ByName("claude", noGetenv)
	e, err := ad.Parse(readFixture(t, "claude/PostToolUse-1.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Output != nil || len(e.Result) == 0 {
		t.Errorf("Write's post-tool event: output %+v, result %s", e.Output, e.Result)
	}
}
