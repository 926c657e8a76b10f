package main

import (
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Actor detection with the hosts' own markers: telemetry's mechanism
// (its TestDetectActor) over hostapi's table.
func TestDetectActorOfEveryHost(t *testing.T) {
	for _, d := range hostapi.Descriptors() {
		for _, m := range d.ActorEnv {
			env := map[string]string{m.Name: m.Value}
			if m.Value == "" {
				env[m.Name] = "1"
			}
			if got, _ := telemetry.DetectActor(func(k string) string { return env[k] }, hostapi.ActorMarkers()); got != d.Actor {
				t.Errorf("%s: %v detects %q, want %q", d.Name, env, got, d.Actor)
			}
		}
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"reference differs: an agent cannot be overridden",
			map[string]string{"AGENTSHELL_ACTOR": "x", "GITHUB_ACTIONS": "true", "CLAUDE_CODE": "1", "COPILOT_AGENT": "1"}, "claude-code"},
		{"reference: claude before copilot", map[string]string{"CLAUDE_CODE": "1", "COPILOT_AGENT": "1"}, "claude-code"},
		{"reference: copilot cli version", map[string]string{"COPILOT_CLI_BINARY_VERSION": "1.0.4"}, "copilot"},
		{"copilot cli", map[string]string{"COPILOT_CLI": "1"}, "copilot"},
		{"codex thread id", map[string]string{"CODEX_THREAD_ID": "019a-thread"}, "codex"},
		{"codex unified exec", map[string]string{"CODEX_CI": "1"}, "codex"},
		{"codex seatbelt", map[string]string{"CODEX_SANDBOX": "seatbelt"}, "codex"},
		{"codex no network", map[string]string{"CODEX_SANDBOX_NETWORK_DISABLED": "1"}, "codex"},
		{"codex home is config, not a marker", map[string]string{"CODEX_HOME": "/home/u/.codex"}, "human"},
		{"gemini api key is not a marker", map[string]string{"GEMINI_API_KEY": "x"}, "human"},
		{"cursor agent", map[string]string{"CURSOR_AGENT": "1"}, "cursor"},
		{"cursor in-editor agent", map[string]string{"CURSOR_EXTENSION_HOST_ROLE": "agent-exec", "CURSOR_TRACE_ID": "t"}, "cursor"},
		{"cursor editor terminal is a human", map[string]string{"CURSOR_TRACE_ID": "t"}, "human"},
		{"opencode", map[string]string{"OPENCODE": "1", "AGENT": "1", "OPENCODE_PID": "42"}, "opencode"},
		{"amp also sets CLAUDECODE", map[string]string{"AGENT": "amp", "CLAUDECODE": "1", "AMP_CURRENT_THREAD_ID": "T-1"}, "amp"},
		{"amp thread id", map[string]string{"AMP_CURRENT_THREAD_ID": "T-1"}, "amp"},
		{"amp delegate", map[string]string{"AMP_THREAD_ID": "T-1", "AGENT_TOOL_NAME": "Bash"}, "amp"},
	} {
		got, _ := telemetry.DetectActor(func(k string) string { return tc.env[k] }, hostapi.ActorMarkers())
		if got != tc.want {
			t.Errorf("%s: DetectActor(%v) = %q, want %q", tc.name, tc.env, got, tc.want)
		}
	}
}
