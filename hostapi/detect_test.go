package hostapi

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct{ payload, want string }{
		{`{"toolName":"bash","toolArgs":"{}"}`, "copilot"},
		{`{"sessionId":"s","prompt":"x"}`, "copilot"},
		{`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_01"}`, "claude"},
		{`{"hook_event_name":"PreToolUse","tool_name":"Bash","prompt_id":"p"}`, "claude"},
		{`{"hook_event_name":"PreToolUse","tool_name":"Bash","turn_id":"t","model":"gpt"}`, "codex"},
		{`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command"}`, "gemini"},
		{`{"hook_event_name":"preToolUse","cursor_version":"2026.07"}`, "cursor"},
		{`{"hook_event_name":"PreToolUse","tool_name":"bash"}`, ""}, // Copilot's PascalCase and VS Code look alike
		{`not json`, ""},
		{`[]`, ""},
	}
	for _, tt := range tests {
		if got := Detect([]byte(tt.payload)); got != tt.want {
			t.Errorf("Detect(%s) = %q, want %q", tt.payload, got, tt.want)
		}
	}
}
