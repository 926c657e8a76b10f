package policy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/guard"
)

func TestGuardConfigValidation(t *testing.T) {
	for _, tt := range []struct {
		entry string
		ok    bool
	}{
		{".claude/settings.json", true},
		{".agent-shell/events/**", true},
		{"~/.claude/settings.json", true},
		{".github/hooks/{a,b}.json", true},
		{"", false},
		{"/etc/passwd", false},
		{"../other/.claude/settings.json", false},
		{".github/hooks/[.json", false},
		{`.claude\settings.json`, false},
	} {
		src := "version = 1\n[guard]\nallow_agent_edits = [" + js(tt.entry) + "]\n"
		_, err := ParseManifest("agent-shell.toml", []byte(src))
		if (err == nil) != tt.ok {
			t.Errorf("allow_agent_edits %q: err %v, want ok=%v", tt.entry, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "guard.allow_agent_edits") {
			t.Errorf("allow_agent_edits %q: error %q does not name the key", tt.entry, err)
		}
	}
}

const allowEverything = `version = 1
[policy]
default = "allow"
unknown = "allow"

[guard]
allow_agent_edits = [".codex/hooks.json"]

[[rule]]
id = "everything"
action = "allow"
reason = "anything goes"
match = { program_regex = ".*" }
`

func TestEngineGuardComesBeforeTheProjectsRules(t *testing.T) {
	root := guardedRepo(t)
	e := mustEngine(t, "", allowEverything)
	e.Root = root
	bash := func(cmd string) *hostapi.Event {
		return parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}}), "")
	}
	// The rules allow this command...
	if d := e.DecideEvent(bash("echo x > src/out.txt")); d.Action != ActionAllow || d.Guard != "" {
		t.Fatalf("plain write: %+v", d)
	}
	// ...and this one too, but the guard does not let them.
	for _, c := range []string{"echo x > .claude/settings.json", "sudo rm -rf .agent-shell", "AGENTSHELL_PASSTHROUGH=1 npm test"} {
		d := e.DecideEvent(bash(c))
		if d.Action != ActionDeny || d.Guard == "" || d.Rule != "guard:"+d.Guard || !strings.HasPrefix(d.Reason, "agent-shell guard ") {
			t.Errorf("%q: %+v, want a guard's deny", c, d)
		}
	}
	edit := parseHost(t, "gemini", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "BeforeTool",
		"tool_name": "write_file", "tool_input": map[string]any{"file_path": filepath.Join(root, ".gemini/settings.json"), "content": "{}"}}), "")
	if d := e.DecideEvent(edit); d.Action != ActionDeny || d.Guard != guard.HookRegistration {
		t.Errorf("Gemini write_file of .gemini/settings.json: %+v", d)
	}
	// allow_agent_edits counts only in an authorized configuration.
	codex := bash("echo '{}' > .codex/hooks.json")
	if d := e.DecideEvent(codex); d.Action != ActionDeny || d.Guard != guard.HookRegistration {
		t.Errorf("unauthorized allow_agent_edits opened the guard: %+v", d)
	}
	e.Authorized = true
	if d := e.DecideEvent(codex); d.Action != ActionAllow || d.Guard != "" {
		t.Errorf("authorized allow_agent_edits: %+v, want the rules' allow", d)
	}
	if d := e.DecideEvent(bash("echo '{}' > .cursor/hooks.json")); d.Action != ActionDeny {
		t.Errorf("authorized allow_agent_edits opened more than it names: %+v", d)
	}
}

func TestEngineGuardReasonDespiteLoadError(t *testing.T) {
	root := guardedRepo(t)
	e := &Engine{LoadErr: errors.New("broken manifest"), Root: root}
	ev := parseHost(t, "copilot", nil, js(map[string]any{"timestamp": 1, "cwd": root, "toolName": "edit",
		"toolArgs": js(map[string]any{"path": ".github/hooks/agent-shell/agent-shell.toml", "old_str": "a", "new_str": "b"})}), "")
	d := e.DecideEvent(ev)
	if d.Action != ActionDeny || d.Guard != guard.AgentShellFiles || !strings.Contains(d.Reason, "agent-shell authorize") {
		t.Errorf("load error: %+v, want the guard's reason", d)
	}
	ev = parseHost(t, "copilot", nil, js(map[string]any{"timestamp": 1, "cwd": root, "toolName": "bash", "toolArgs": js(map[string]any{"command": "ls"})}), "")
	if d := e.DecideEvent(ev); d.Action != ActionDeny || d.Guard != "" || d.Reason != ErrLoad.Error() {
		t.Errorf("load error, unguarded call: %+v", d)
	}
}

func TestEngineLoadSetsRoot(t *testing.T) {
	root := guardedRepo(t)
	writeGuardedFile(t, root, ManifestSubpath, allowEverything)
	e := Load(root, func(string) string { return "" })
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	if e.Root != root {
		t.Fatalf("Root = %q, want %q", e.Root, root)
	}
	if got := e.Manifest.Guard.AllowAgentEdits; len(got) != 1 || got[0] != ".codex/hooks.json" {
		t.Errorf("allow_agent_edits = %v", got)
	}
	// The event's cwd is a subfolder; the root still decides what is
	// protected.
	ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": filepath.Join(root, "sub"), "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "rm ../.github/hooks/agent-shell/policy.json"}}), "")
	if d := e.DecideEvent(ev); d.Action != ActionDeny || d.Guard != guard.AgentShellFiles {
		t.Errorf("%+v", d)
	}
	// Without a Root the engine finds it from the event's cwd.
	e2 := mustEngine(t, "", allowEverything)
	if d := e2.DecideEvent(ev); d.Action != ActionDeny || d.Guard != guard.AgentShellFiles {
		t.Errorf("no Root: %+v", d)
	}
}

// guardedRepo is a repository with the files the engine's guard tests
// touch, and a home of its own beside it.
func guardedRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "repo")
	for rel, text := range map[string]string{
		".github/hooks/agent-shell/agent-shell.toml": "version = 1\n",
		".github/hooks/agent-shell/policy.json":      "{}\n",
		".agent-shell/events/s1.jsonl":               "",
		".claude/settings.json":                      "{}\n",
		".codex/hooks.json":                          "{}\n",
		".gemini/settings.json":                      "{}\n",
		".cursor/hooks.json":                         "{}\n",
		"src/main.go":                                "package main\n",
		"sub/readme.md":                              "",
		".git/HEAD":                                  "ref: refs/heads/main\n",
	} {
		writeGuardedFile(t, root, rel, text)
	}
	t.Setenv("HOME", filepath.Join(dir, "home"))
	return root
}

func writeGuardedFile(t testing.TB, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// parseHost parses a pre-tool payload with the host's real adapter.
func parseHost(t testing.TB, host string, env map[string]string, payload, event string) *hostapi.Event {
	t.Helper()
	ad, ok := hostapi.ByName(host, func(k string) string { return env[k] })
	if !ok {
		t.Fatalf("no adapter %q", host)
	}
	ev, err := ad.Parse([]byte(payload), event)
	if err != nil {
		t.Fatalf("%s: parse %s: %v", host, payload, err)
	}
	if ev.Kind != hostapi.KindPreTool {
		t.Fatalf("%s: %s parsed as %s", host, payload, ev.Kind)
	}
	return ev
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Padding cannot carry a command past the rules: a line cut short (too
// many commands) or too long to parse is denied, even where the project
// lets unknown commands through (guard's TestPaddingIsDenied holds the
// guard to the same).
func TestPaddingIsDeniedByTheRules(t *testing.T) {
	root := t.TempDir()
	m, err := ParseManifest("agent-shell.toml", []byte("version = 1\n[policy]\ndefault = \"allow\"\nunknown = \"allow\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(&PolicyFile{Deny: []string{"rm -rf *"}}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{strings.Repeat("true;", 10001) + "rm -rf /", "rm -rf / #" + strings.Repeat("x", 70<<10)} {
		if d := e.Decide(cmd, root); d.Action != ActionDeny {
			t.Errorf("a %d-byte padded rm: %s (%s), want deny", len(cmd), d.Action, d.Reason)
		}
	}
}
