package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func claudeFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// claudeSubsetOf fails unless every field of the answer got appears, with
// the same value, in the documented answer in file: agent-shell may write
// fewer fields than a vendor example, never other ones.
func claudeSubsetOf(t *testing.T, got []byte, file string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("answer %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal(claudeFixture(t, file), &w); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, g, w any)
	walk = func(path string, g, w any) {
		gm, ok := g.(map[string]any)
		if !ok {
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s: %s = %v, documented %v", file, path, g, w)
			}
			return
		}
		wm, ok := w.(map[string]any)
		if !ok {
			t.Errorf("%s: %s is an object, documented %v", file, path, w)
			return
		}
		for k, v := range gm {
			wv, ok := wm[k]
			if !ok {
				t.Errorf("%s: %s.%s is not a documented field", file, path, k)
				continue
			}
			walk(path+"."+k, v, wv)
		}
	}
	walk("$", g, w)
}

func claudeParse(t *testing.T, payload string, native string) *Event {
	t.Helper()
	e, err := Claude{}.Parse([]byte(payload), native)
	if err != nil {
		t.Fatalf("Parse(%s): %v", payload, err)
	}
	return e
}

// TestClaudeDrift: fields and events Claude adds later parse, and whatever
// the contract does not model is kept for the record.
func TestClaudeDrift(t *testing.T) {
	t.Run("unknown event", func(t *testing.T) {
		e := claudeParse(t, `{"session_id":"s-9","cwd":"/w","hook_event_name":"TeammateIdle","teammate":{"id":"t1"},"brand_new":true}`, "")
		if e.Kind != KindUnknown || e.NativeEvent != "TeammateIdle" || e.SessionID != "s-9" || e.Cwd != "/w" {
			t.Fatalf("parsed %+v", e)
		}
		for _, k := range []string{"teammate", "brand_new"} {
			if _, ok := e.Meta[k]; !ok {
				t.Errorf("Meta lacks %q: %v", k, e.Meta)
			}
		}
		if r := (Claude{}).Render(e, Verdict{Decision: Deny, Reason: "x"}); len(r.Stdout) != 0 || r.Exit != 0 {
			t.Errorf("an unknown event is observe-only, rendered %+v", r)
		}
	})
	t.Run("unknown fields on a known event", func(t *testing.T) {
		p := `{"session_id":"s-9","hook_event_name":"PreToolUse","tool_name":"Bash","future_top":{"a":[1,2]},
			"tool_input":{"command":"ls","sandbox":{"profile":"strict"},"future_flag":true},"tool_use_id":"toolu_01X"}`
		e := claudeParse(t, p, "")
		if e.Kind != KindPreTool || e.Tool != ToolBash || e.Command != "ls" || e.CommandErr != nil {
			t.Fatalf("parsed %+v", e)
		}
		if got := string(e.Meta["future_top"]); got != `{"a":[1,2]}` {
			t.Errorf("Meta[future_top] = %s", got)
		}
		var in map[string]json.RawMessage
		if err := json.Unmarshal(e.Input, &in); err != nil {
			t.Fatal(err)
		}
		if string(in["sandbox"]) != `{"profile":"strict"}` || string(in["future_flag"]) != "true" {
			t.Errorf("Input lost nested fields: %s", e.Input)
		}
	})
	t.Run("a subagent's call", func(t *testing.T) {
		e := claudeParse(t, `{"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/a"},"tool_response":{"file":{}},"agent_id":"a1","agent_type":"Explore"}`, "")
		if e.Tool != ToolRead || e.Result == nil || e.Meta["agent_id"] == nil || e.Meta["agent_type"] == nil {
			t.Errorf("parsed %+v", e)
		}
	})
}

func TestClaudeTools(t *testing.T) {
	tests := []struct {
		name, payload, tool, command, err string
	}{
		{"Bash", `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`, ToolBash, "rm -rf /", ""},
		{"PowerShell", `{"tool_name":"PowerShell","tool_input":{"command":"Remove-Item -Recurse C:\\"}}`, ToolBash, `Remove-Item -Recurse C:\`, ""},
		{"Edit", `{"tool_name":"Edit","tool_input":{"file_path":"/a"}}`, ToolEdit, "", ""},
		{"MultiEdit", `{"tool_name":"MultiEdit","tool_input":{"file_path":"/a","edits":[]}}`, ToolEdit, "", ""},
		{"NotebookEdit", `{"tool_name":"NotebookEdit","tool_input":{}}`, ToolEdit, "", ""},
		{"Write", `{"tool_name":"Write","tool_input":{"file_path":"/a","content":""}}`, ToolWrite, "", ""},
		{"Read", `{"tool_name":"Read","tool_input":{"file_path":"/a"}}`, ToolRead, "", ""},
		{"WebFetch", `{"tool_name":"WebFetch","tool_input":{"url":"https://x"}}`, ToolWebFetch, "", ""},
		{"Glob stays native", `{"tool_name":"Glob","tool_input":{"pattern":"*"}}`, "Glob", "", ""},
		{"MCP stays native", `{"tool_name":"mcp__github__create_issue","tool_input":{}}`, "mcp__github__create_issue", "", ""},
		// A native name equal to a normalized one is taken as that tool:
		// for a shell, the safe reading.
		{"lower-case bash", `{"tool_name":"bash","tool_input":{"command":"x"}}`, ToolBash, "x", ""},
		{"no tool_input", `{"tool_name":"Bash"}`, ToolBash, "", "missing tool_input"},
		{"tool_input null", `{"tool_name":"Bash","tool_input":null}`, ToolBash, "", "JSON object"},
		{"tool_input a string", `{"tool_name":"Bash","tool_input":"ls"}`, ToolBash, "", "JSON object"},
		{"no command", `{"tool_name":"Bash","tool_input":{"description":"x"}}`, ToolBash, "", "missing command"},
		{"command null", `{"tool_name":"PowerShell","tool_input":{"command":null}}`, ToolBash, "", "must be a string"},
		{"command argv", `{"tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}`, ToolBash, "", "must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := claudeParse(t, tt.payload, "PreToolUse")
			if e.Kind != KindPreTool || e.Tool != tt.tool || e.Command != tt.command {
				t.Errorf("kind %q tool %q command %q", e.Kind, e.Tool, e.Command)
			}
			switch {
			case tt.err == "" && e.CommandErr != nil:
				t.Errorf("unexpected CommandErr %v", e.CommandErr)
			case tt.err != "" && (e.CommandErr == nil || !strings.Contains(e.CommandErr.Error(), tt.err)):
				t.Errorf("CommandErr %v, want one mentioning %q", e.CommandErr, tt.err)
			}
		})
	}
}

func TestClaudeRejectsBadPayloads(t *testing.T) {
	tests := []struct {
		name, payload, native string
		want                  error
	}{
		{"not json", `{"hook_event_name":`, "", ErrInvalidJSON},
		{"array", `[{"hook_event_name":"PreToolUse"}]`, "", ErrInvalidJSON},
		{"null", `null`, "", ErrInvalidJSON},
		{"empty", ``, "PreToolUse", ErrInvalidJSON},
		{"event not named", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "", errNoEvent},
		{"event name not a string", `{"hook_event_name":7,"tool_name":"Bash","tool_input":{"command":"ls"}}`, "", errNoEvent},
		{"event name empty", `{"hook_event_name":"","tool_name":"Bash"}`, "PreToolUse", errNoEvent},
		{"tool event without tool_name", `{"hook_event_name":"PreToolUse","tool_input":{}}`, "", ErrInvalidToolName},
		{"permission request without tool_name", `{"hook_event_name":"PermissionRequest"}`, "", ErrInvalidToolName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Claude{}.Parse([]byte(tt.payload), tt.native)
			if !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
	// The registration may name the event when the payload does not.
	e := claudeParse(t, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "PreToolUse")
	if e.Kind != KindPreTool || e.NativeEvent != "PreToolUse" {
		t.Errorf("parsed %+v", e)
	}
}

// TestClaudeAnswersAsDocumented holds rendered answers to the vendor's
// documented examples.
func TestClaudeAnswersAsDocumented(t *testing.T) {
	c := Claude{}
	parse := func(file string) *Event {
		e, err := c.Parse(claudeFixture(t, file), "")
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	pre, perm := parse("claude/PreToolUse-1.json"), parse("claude/PermissionRequest-1.json")
	tests := []struct {
		name string
		e    *Event
		v    Verdict
		doc  string
	}{
		{"deny", pre, Verdict{Decision: Deny, Reason: "Destructive command blocked by hook"}, "claude/output/PreToolUse-deny-1.json"},
		{"sole gate allow", pre, Verdict{Decision: Allow, Reason: "My reason here", SoleGate: true}, "claude/output/PreToolUse-allow-all-fields-1.json"},
		{"permission allow", perm, Verdict{Decision: Allow, SoleGate: true}, "claude/output/PermissionRequest-allow-1.json"},
		{"post-tool context", parse("claude/PostToolUse-1.json"),
			Verdict{Decision: Allow, Context: "This file is generated. Edit src/schema.ts and run `bun generate` instead."},
			"claude/output/PostToolUse-additionalContext-1.json"},
		{"session start context", parse("claude/SessionStart-1.json"),
			Verdict{Decision: Allow, Context: "Current branch: feat/auth-refactor\nUncommitted changes: src/auth.ts, src/login.tsx\nActive issue: #4211 Migrate to OAuth2"},
			"claude/output/SessionStart-1.json"},
		{"stop context", parse("claude/Stop-1.json"), Verdict{Decision: Allow, Context: "Please run the test suite before finishing"},
			"claude/output/Stop-additionalContext-1.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Render(tt.e, tt.v)
			if r.Exit != 0 || len(r.Stderr) != 0 {
				t.Errorf("exit %d stderr %q: Claude reads JSON only on exit 0", r.Exit, r.Stderr)
			}
			claudeSubsetOf(t, r.Stdout, tt.doc)
			if !bytes.HasSuffix(r.Stdout, []byte("\n")) || bytes.Count(r.Stdout, []byte("\n")) != 1 {
				t.Errorf("answer is not one line: %q", r.Stdout)
			}
		})
	}
}

// A deny body far over Claude's 10,000-character cap is written whole:
// Claude shortens it itself, while a cut JSON answer would fail open.
func TestClaudeLargeDenyIsNotTruncated(t *testing.T) {
	e := claudeParse(t, string(claudeFixture(t, "claude/PreToolUse-1.json")), "")
	reason := strings.Repeat("denied <because> & \"quoted\" ", 20000)
	for _, r := range []Response{Claude{}.Render(e, Verdict{Decision: Deny, Reason: reason}), Claude{}.Failure(e, errors.New(reason))} {
		var out struct {
			HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
		}
		if err := json.Unmarshal(r.Stdout, &out); err != nil {
			t.Fatalf("answer of %d bytes is not JSON: %v", len(r.Stdout), err)
		}
		if out.HookSpecificOutput.PermissionDecision != "deny" || out.HookSpecificOutput.PermissionDecisionReason != reason {
			t.Errorf("deny reason of %d bytes came back as %d bytes", len(reason), len(out.HookSpecificOutput.PermissionDecisionReason))
		}
	}
}

func TestClaudeFailure(t *testing.T) {
	c := Claude{}
	// A payload that could not be parsed is answered as a PreToolUse deny.
	r := c.Failure(nil, ErrInvalidJSON)
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Invalid JSON input"}}` + "\n"
	if string(r.Stdout) != want || r.Exit != 0 {
		t.Errorf("Failure(nil) = %q exit %d, want %q", r.Stdout, r.Exit, want)
	}
	perm := claudeParse(t, string(claudeFixture(t, "claude/PermissionRequest-1.json")), "")
	if r := c.Failure(perm, errors.New("boom")); !strings.Contains(string(r.Stdout), `"behavior":"deny"`) {
		t.Errorf("Failure(PermissionRequest) = %q", r.Stdout)
	}
	for _, f := range []string{"claude/PostToolUse-1.json", "claude/UserPromptSubmit-1.json", "claude/SessionEnd-1.json", "claude/Notification-1.json"} {
		e := claudeParse(t, string(claudeFixture(t, f)), "")
		if r := c.Failure(e, errors.New("boom")); len(r.Stdout) != 0 || r.Exit != 0 || len(r.Stderr) != 0 {
			t.Errorf("%s: Failure = %+v, want no answer", f, r)
		}
	}
}

// claudeSettings is a project settings file that already holds settings and
// hooks of its own, including the vendor's exec-form example.
const claudeSettings = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
  "env": {"FOO": "bar"},
  "model": "claude-sonnet-5",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "if": "Bash(rm *)", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "args": []}]}
    ],
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write", "timeout": 30}]}
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "notify-send Claude"}]}
    ]
  }
}
`

func claudeReadJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// claudeCountOurs counts the matcher groups of event that run agent-shell.
func claudeCountOurs(t *testing.T, doc map[string]any, event, command string) (n int, group map[string]any) {
	t.Helper()
	hooks, _ := doc["hooks"].(map[string]any)
	list, _ := hooks[event].([]any)
	for _, g := range list {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			if hm, _ := h.(map[string]any); hm["command"] == command {
				n++
				group = gm
			}
		}
	}
	return n, group
}

func TestClaudeInstall(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(claudeSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := Claude{}.Install(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 1 || changed[0] != path {
		t.Fatalf("changed %v, want [%s]", changed, path)
	}
	doc := claudeReadJSON(t, path)
	var before map[string]any
	_ = json.Unmarshal([]byte(claudeSettings), &before)
	for _, k := range []string{"$schema", "permissions", "env", "model"} {
		if !reflect.DeepEqual(doc[k], before[k]) {
			t.Errorf("%s changed: %v, was %v", k, doc[k], before[k])
		}
	}
	hooks := doc["hooks"].(map[string]any)
	oldHooks := before["hooks"].(map[string]any)
	if !reflect.DeepEqual(hooks["Notification"], oldHooks["Notification"]) {
		t.Errorf("Notification hooks changed: %v", hooks["Notification"])
	}
	for _, ev := range []string{"PreToolUse", "PostToolUse"} {
		list := hooks[ev].([]any)
		if len(list) != 2 || !reflect.DeepEqual(list[0], oldHooks[ev].([]any)[0]) {
			t.Errorf("%s: the existing group was not kept first: %v", ev, list)
		}
	}
	cmd := HookCommand + "claude"
	for _, ev := range []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop"} {
		n, group := claudeCountOurs(t, doc, ev, cmd)
		if n != 1 {
			t.Errorf("%s: %d agent-shell groups, want 1", ev, n)
			continue
		}
		tool := ev == "PreToolUse" || ev == "PostToolUse" || ev == "PostToolUseFailure"
		if m, ok := group["matcher"]; tool != ok || (tool && m != "*") {
			t.Errorf("%s: matcher %v (present %v)", ev, m, ok)
		}
		h := group["hooks"].([]any)[0].(map[string]any)
		if h["type"] != "command" || h["timeout"] != float64(10) {
			t.Errorf("%s: handler %v", ev, h)
		}
	}
	if n, _ := claudeCountOurs(t, doc, "PermissionRequest", cmd); n != 0 {
		t.Error("PermissionRequest registered: PreToolUse already gates every call")
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v: the file's mode must be kept", fi.Mode(), err)
	}

	// A second run finds everything in place.
	data, _ := os.ReadFile(path)
	changed, err = Claude{}.Install(root)
	if err != nil || len(changed) != 0 {
		t.Fatalf("second run: changed %v, %v", changed, err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
		t.Error("second run rewrote the file")
	}
}

func TestClaudeInstallCreatesSettings(t *testing.T) {
	root := t.TempDir()
	changed, err := Claude{}.Install(root)
	if err != nil || len(changed) != 1 {
		t.Fatalf("changed %v, %v", changed, err)
	}
	doc := claudeReadJSON(t, filepath.Join(root, ClaudeSettingsFile))
	if n, _ := claudeCountOurs(t, doc, "PreToolUse", HookCommand+"claude"); n != 1 {
		t.Errorf("settings %v", doc)
	}
}

// An existing agent-shell handler counts, in either form Claude runs.
func TestClaudeInstallKeepsExistingAgentShell(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ClaudeSettingsFile)
	existing := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"agent-shell","args":["hook","--agent=claude"]}]}],
		"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/agent-shell hook --agent=claude"}]}]}}`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(existing), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Claude{}).Install(root); err != nil {
		t.Fatal(err)
	}
	doc := claudeReadJSON(t, path)
	hooks := doc["hooks"].(map[string]any)
	for _, ev := range []string{"PreToolUse", "Stop"} {
		if n := len(hooks[ev].([]any)); n != 1 {
			t.Errorf("%s: %d groups, want the existing one only", ev, n)
		}
	}
	if n, _ := claudeCountOurs(t, doc, "PostToolUse", HookCommand+"claude"); n != 1 {
		t.Error("PostToolUse not registered")
	}
}

func TestClaudeInstallLeavesBadFilesAlone(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":             "{\n  // comments are not JSON\n  \"hooks\": {}\n}\n",
		"not an object":        `["hooks"]`,
		"hooks not an object":  `{"hooks":"none"}`,
		"event hooks not list": `{"hooks":{"Stop":{"command":"x"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, ClaudeSettingsFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			changed, err := Claude{}.Install(root)
			if err == nil || len(changed) != 0 {
				t.Fatalf("changed %v, err %v: want an error", changed, err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if got, _ := os.ReadFile(path); string(got) != content {
				t.Errorf("file changed to %q", got)
			}
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
				t.Errorf("left files behind: %v", ents)
			}
		})
	}
}
