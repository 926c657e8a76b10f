package telemetry

import (
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
)

// testAgents stand for the hosts' markers (hostapi.ActorMarkers), in their
// order; cmd/agent-shell's TestDetectActorOfEveryHost runs the hosts' own.
var testAgents = []AgentEnv{
	{Name: "AGENT", Value: "amp", Actor: "amp"},
	{Name: "CLAUDECODE", Actor: "claude-code"},
	{Name: "CLAUDE_CODE", Actor: "claude-code"},
	{Name: "COPILOT_AGENT", Actor: "copilot"},
	{Name: "CURSOR_EXTENSION_HOST_ROLE", Value: "agent-exec", Actor: "cursor"},
	{Name: "GEMINI_CLI", Actor: "gemini-cli"},
}

func TestDetectActor(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		// The reference tool's actor fixtures (docs/README.md, "Terms").
		// Deliberate difference: the reference lets the override beat
		// everything, so an agent could record itself as anyone. A detected
		// agent stays the actor; the claim is kept beside it.
		{"reference differs: an agent cannot be overridden",
			map[string]string{"AGENTSHELL_ACTOR": "x", "GITHUB_ACTIONS": "true", "CLAUDE_CODE": "1", "COPILOT_AGENT": "1"}, "claude-code"},
		{"reference: override beats ci", map[string]string{"AGENTSHELL_ACTOR": "x", "GITHUB_ACTIONS": "true"}, "x"},
		// Deliberate difference: the reference answers "ci" here, hiding the
		// agent that actually ran the command.
		{"reference differs: agent in CI is the agent",
			map[string]string{"GITHUB_ACTIONS": "true", "CLAUDE_CODE": "1", "COPILOT_AGENT": "1"}, "claude-code"},
		{"reference: claude before copilot", map[string]string{"CLAUDE_CODE": "1", "COPILOT_AGENT": "1"}, "claude-code"},
		{"reference: plain environment", map[string]string{"NODE_ENV": "production", "HOME": "/home/u", "PATH": "/usr/bin"}, "human"},

		{"nothing set", nil, "human"},
		{"override verbatim", map[string]string{"AGENTSHELL_ACTOR": "Release Bot"}, "Release Bot"},
		{"empty values are unset", map[string]string{"AGENTSHELL_ACTOR": "", "CLAUDECODE": "", "CI": ""}, "human"},

		{"claude code CLAUDECODE", map[string]string{"CLAUDECODE": "1"}, "claude-code"},
		{"copilot agent", map[string]string{"COPILOT_AGENT": "1"}, "copilot"},
		// The Copilot cloud agent runs inside GitHub Actions.
		{"copilot cloud agent in actions", map[string]string{"GITHUB_ACTIONS": "true", "CI": "true", "COPILOT_AGENT": "1"}, "copilot"},

		{"gemini cli", map[string]string{"GEMINI_CLI": "1"}, "gemini-cli"},

		{"cursor other host role", map[string]string{"CURSOR_EXTENSION_HOST_ROLE": "user"}, "human"},

		{"amp AGENT=amp", map[string]string{"AGENT": "amp"}, "amp"},

		{"generic AI_AGENT", map[string]string{"AI_AGENT": "Devin@1"}, "devin@1"},
		{"generic AGENT name", map[string]string{"AGENT": "goose"}, "goose"},
		{"AI_AGENT before AGENT", map[string]string{"AI_AGENT": "one", "AGENT": "two"}, "one"},
		{"AGENT=1 is only a flag", map[string]string{"AGENT": "1"}, "human"},
		{"AGENT not a name", map[string]string{"AGENT": "my agent; rm -rf /"}, "human"},
		{"known marker beats generic", map[string]string{"AI_AGENT": "other", "GEMINI_CLI": "1"}, "gemini-cli"},
		{"generic agent beats CI", map[string]string{"AI_AGENT": "bot", "CI": "true"}, "bot"},

		{"github actions", map[string]string{"GITHUB_ACTIONS": "true"}, "ci"},
		{"CI=true", map[string]string{"CI": "true"}, "ci"},
		{"CI=True (AppVeyor)", map[string]string{"CI": "True"}, "ci"},
		{"CI=1 is not true", map[string]string{"CI": "1"}, "human"},
		{"GITHUB_ACTIONS must be exactly true", map[string]string{"GITHUB_ACTIONS": "TRUE"}, "human"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			got, claimed := DetectActor(getenv, testAgents)
			if got != tc.want {
				t.Errorf("DetectActor(%v) = %q, want %q", tc.env, got, tc.want)
			}
			// A claim is returned only where it did not become the actor.
			if claim := tc.env["AGENTSHELL_ACTOR"]; claim != "" && claim != got && claimed != claim {
				t.Errorf("DetectActor(%v) claimed %q, want %q", tc.env, claimed, claim)
			} else if (claim == "" || claim == got) && claimed != "" {
				t.Errorf("DetectActor(%v) claimed %q, want none", tc.env, claimed)
			}
		})
	}
	t.Run("nil getenv reads the process environment", func(t *testing.T) {
		t.Setenv("AGENTSHELL_ACTOR", "from-os")
		if got, _ := DetectActor(nil, testAgents); got != "from-os" && got != detectActor(os.Getenv, testAgents) {
			t.Errorf("DetectActor(nil) = %q, want from-os or the agent running the test", got)
		}
	})
}

func TestCaptureEnv(t *testing.T) {
	ghp := "gh" + "p_" + strings.Repeat("a1B2", 9)
	long := strings.Repeat("a", 1023) + "é" + "tail" // é spans bytes 1023-1024
	tests := []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{"nothing", nil, map[string]string{}},
		{"allowlist", []string{
			"npm_package_name=pkg", "npm_package_version=1.2.3", "NODE_ENV=test", "CI=true",
			"npm_lifecycle_event=test", "npm_lifecycle_script=vitest run",
			"GITHUB_SHA=abc123", "GITHUB_REF=refs/heads/main",
			"AGENTSHELL_ACTOR=human", "AGENTSHELL_SESSION_ID=s1",
			"HOME=/home/u", "PATH=/usr/bin", "npm_config_registry=https://r", "npm_package_description=x",
		}, map[string]string{
			"npm_package_name": "pkg", "npm_package_version": "1.2.3", "NODE_ENV": "test", "CI": "true",
			"npm_lifecycle_event": "test", "npm_lifecycle_script": "vitest run",
			"GITHUB_SHA": "abc123", "GITHUB_REF": "refs/heads/main",
			"AGENTSHELL_ACTOR": "human", "AGENTSHELL_SESSION_ID": "s1",
		}},
		{"original case kept, matched case-insensitively", []string{"Node_Env=dev", "github_workspace=/w"},
			map[string]string{"Node_Env": "dev", "github_workspace": "/w"}},
		{"blocklist", []string{
			"GITHUB_TOKEN=t", "GITHUB_API_KEY=k", "npm_config_auth=a", "GITHUB_AUTH_HEADER=h",
			"AGENTSHELL_SECRET=s", "github_password=p", "NPM_LIFECYCLE_CREDENTIALS=c", "GITHUB_MONKEY=m",
			"GITHUB_SHA=keep",
		}, map[string]string{"GITHUB_SHA": "keep"}},
		{"tag variables are not env", []string{"AGENTSHELL_TAG_PR=12", "AGENTSHELL_ACTOR=a"},
			map[string]string{"AGENTSHELL_ACTOR": "a"}},
		{"malformed entries", []string{"JUSTNAME", "=C:=C:\\", "=", "CI"}, map[string]string{}},
		{"value may contain =", []string{"GITHUB_X=a=b"}, map[string]string{"GITHUB_X": "a=b"}},
		{"last duplicate wins", []string{"CI=false", "CI=true"}, map[string]string{"CI": "true"}},
		{"values are redacted", []string{
			"GITHUB_EVENT_PATH=" + ghp,
			"npm_lifecycle_script=FOO_TOKEN=abc node run.js",
		}, map[string]string{
			"GITHUB_EVENT_PATH":    "[REDACTED]",
			"npm_lifecycle_script": "FOO_TOKEN=[REDACTED] node run.js",
		}},
		{"exactly 1024 bytes is kept", []string{"GITHUB_X=" + strings.Repeat("b", 1024)},
			map[string]string{"GITHUB_X": strings.Repeat("b", 1024)}},
		{"truncated on a code-point boundary", []string{"GITHUB_X=" + long, "CI=true"},
			map[string]string{"GITHUB_X": strings.Repeat("a", 1023) + "…[truncated]", "CI": "true", "_env_truncated": "true"}},
		{"truncated before a 4-byte rune", []string{"GITHUB_X=" + strings.Repeat("a", 1022) + "😀"},
			map[string]string{"GITHUB_X": strings.Repeat("a", 1022) + "…[truncated]", "_env_truncated": "true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CaptureEnv(tc.environ)
			if got == nil {
				t.Fatal("CaptureEnv returned nil")
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("CaptureEnv(%q)\n got %q\nwant %q", tc.environ, got, tc.want)
			}
		})
	}
}

func TestCaptureTags(t *testing.T) {
	var many []string
	want50 := map[string]string{"_tags_truncated": "true"}
	for i := 50; i >= 0; i-- { // reverse order: the cap must sort first
		k := fmt.Sprintf("k%02d", i)
		many = append(many, "AGENTSHELL_TAG_"+strings.ToUpper(k)+"=v")
		if i < 50 {
			want50[k] = "v"
		}
	}
	var exactly50 []string
	want := map[string]string{}
	for i := range 50 {
		exactly50 = append(exactly50, fmt.Sprintf("AGENTSHELL_TAG_T%02d=v", i))
		want[fmt.Sprintf("t%02d", i)] = "v"
	}
	tests := []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{"none", []string{"HOME=/h", "CI=true"}, map[string]string{}},
		{"keys lower-cased", []string{"AGENTSHELL_TAG_PR=12", "AGENTSHELL_TAG_Team=Core"},
			map[string]string{"pr": "12", "team": "Core"}},
		{"prefix is case-sensitive", []string{"agentshell_tag_x=1", "AgentShell_Tag_Y=2"}, map[string]string{}},
		{"unsafe and empty keys dropped", []string{
			"AGENTSHELL_TAG___proto__=x", "AGENTSHELL_TAG_constructor=x", "AGENTSHELL_TAG_PROTOTYPE=x",
			"AGENTSHELL_TAG_=x", "AGENTSHELL_TAG__TAGS_TRUNCATED=x", "AGENTSHELL_TAG_ok=1",
		}, map[string]string{"ok": "1"}},
		{"no = sign", []string{"AGENTSHELL_TAG_X"}, map[string]string{}},
		{"value may contain =", []string{"AGENTSHELL_TAG_Q=a=b"}, map[string]string{"q": "a=b"}},
		{"last duplicate wins", []string{"AGENTSHELL_TAG_PR=1", "AGENTSHELL_TAG_pr=2"}, map[string]string{"pr": "2"}},
		{"values redacted", []string{"AGENTSHELL_TAG_NOTE=PASSWORD=hunter2 make"},
			map[string]string{"note": "PASSWORD=[REDACTED] make"}},
		{"value truncated", []string{"AGENTSHELL_TAG_BIG=" + strings.Repeat("x", 1030)},
			map[string]string{"big": strings.Repeat("x", 1024) + "…[truncated]", "_tags_truncated": "true"}},
		{"50 tags fit", exactly50, want},
		{"51 tags keep the first 50", many, want50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CaptureTags(tc.environ)
			if got == nil {
				t.Fatal("CaptureTags returned nil")
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("CaptureTags(%q)\n got %q\nwant %q", tc.environ, got, tc.want)
			}
		})
	}
}

func TestValidSessionID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"550e8400-e29b-41d4-a716-446655440000", true},
		{"abc-DEF_123", true},
		{"a", true},
		{strings.Repeat("a", 128), true},
		{"", false},
		{strings.Repeat("a", 129), false},
		{"../escape", false},
		{"..", false},
		{"some/path", false},
		{`some\path`, false},
		{"session@#$!", false},
		{"with space", false},
		{"tab\t", false},
		{"nul\x00", false},
		{"ünïcode", false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.id), func(t *testing.T) {
			if got := ValidSessionID(tc.id); got != tc.want {
				t.Errorf("ValidSessionID(%q) = %v, want %v", tc.id, got, tc.want)
			}
		})
	}
}

func TestAgentMarker(t *testing.T) {
	for _, tc := range []struct {
		env         map[string]string
		name, actor string
	}{
		{nil, "", ""},
		{map[string]string{"CI": "true", "AGENTSHELL_ACTOR": "me"}, "", ""},
		{map[string]string{"CLAUDECODE": "1"}, "CLAUDECODE", "claude-code"},
		{map[string]string{"AGENT": "amp", "CLAUDECODE": "1"}, "AGENT", "amp"},
		{map[string]string{"AI_AGENT": "devin"}, "AI_AGENT", "devin"},
		{map[string]string{"AGENT": "1"}, "", ""},
	} {
		name, actor := AgentMarker(func(k string) string { return tc.env[k] }, testAgents)
		if name != tc.name || actor != tc.actor {
			t.Errorf("%v: %q %q, want %q %q", tc.env, name, actor, tc.name, tc.actor)
		}
	}
}
