package guard

import (
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// editPayload is one host's edit tool call on a path, as the host sends
// it.
type editPayload struct {
	host  string
	tool  string // for names
	env   map[string]string
	event string
	make  func(cwd, path string) string
}

// The edits all mention script-shell, so that an .npmrc edit counts; a
// path decides which guard reports it.
const guardOld, guardNew = "script-shell=agent-shell", "script-shell=bash"

func claudePayload(tool string, input map[string]any) func(cwd, p string) string {
	return func(cwd, p string) string {
		in := map[string]any{}
		for k, v := range input {
			in[k] = v
		}
		key := "file_path"
		if tool == "NotebookEdit" {
			key = "notebook_path"
		}
		in[key] = p
		return js(map[string]any{"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
			"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": in,
			"tool_use_id": "toolu_01"})
	}
}

func codexPatch(header string) func(cwd, p string) string {
	return func(cwd, p string) string {
		patch := "*** Begin Patch\n" + strings.ReplaceAll(header, "PATH", p) + "\n*** End Patch\n"
		return js(map[string]any{"session_id": "s1", "turn_id": "t1", "transcript_path": nil, "cwd": cwd,
			"hook_event_name": "PreToolUse", "model": "gpt-5", "permission_mode": "default",
			"tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}, "tool_use_id": "call_1"})
	}
}

func copilotPayload(tool string, args map[string]any) func(cwd, p string) string {
	return func(cwd, p string) string {
		a := map[string]any{"path": p}
		for k, v := range args {
			a[k] = v
		}
		return js(map[string]any{"timestamp": 1704614600000, "cwd": cwd, "toolName": tool, "toolArgs": js(a)})
	}
}

func geminiPayload(tool string, input map[string]any) func(cwd, p string) string {
	return func(cwd, p string) string {
		in := map[string]any{"file_path": p}
		for k, v := range input {
			in[k] = v
		}
		return js(map[string]any{"session_id": "s1", "transcript_path": "/tmp/t.json", "cwd": cwd,
			"hook_event_name": "BeforeTool", "timestamp": "2026-07-25T15:08:02.118Z", "tool_name": tool, "tool_input": in})
	}
}

// cursorPayload sends cwd "" as real captures do: the workspace root
// stands in for it.
func cursorPayload(tool string) func(cwd, p string) string {
	return func(cwd, p string) string {
		return js(map[string]any{"conversation_id": "c1", "generation_id": "g1", "model": "default",
			"hook_event_name": "preToolUse", "cursor_version": "2026.07.23", "workspace_roots": []string{cwd},
			"tool_name": tool, "tool_input": map[string]any{"file_path": p, "content": guardNew}, "tool_use_id": "u1", "cwd": ""})
	}
}

func opencodePayload(tool string, args map[string]any) func(cwd, p string) string {
	return func(cwd, p string) string {
		a := map[string]any{"filePath": p}
		for k, v := range args {
			a[k] = v
		}
		return js(map[string]any{"v": 1, "event": "tool.execute.before", "tool": tool, "sessionID": "ses_1",
			"callID": "call_1", "args": a, "cwd": cwd})
	}
}

func ampPayload(input map[string]any) func(cwd, p string) string {
	return func(cwd, p string) string {
		in := map[string]any{"path": p}
		for k, v := range input {
			in[k] = v
		}
		return js(in)
	}
}

var editPayloads = []editPayload{
	{host: "claude", tool: "Edit", make: claudePayload("Edit", map[string]any{"old_string": guardOld, "new_string": guardNew, "replace_all": false})},
	{host: "claude", tool: "Write", make: claudePayload("Write", map[string]any{"content": guardNew})},
	{host: "claude", tool: "MultiEdit", make: claudePayload("MultiEdit", map[string]any{"edits": []any{map[string]any{"old_string": guardOld, "new_string": guardNew}}})},
	{host: "claude", tool: "NotebookEdit", make: claudePayload("NotebookEdit", map[string]any{"new_source": guardNew})},
	{host: "codex", tool: "apply_patch Update", make: codexPatch("*** Update File: PATH\n@@\n-" + guardOld + "\n+" + guardNew)},
	{host: "codex", tool: "apply_patch Add", make: codexPatch("*** Add File: PATH\n+" + guardNew)},
	{host: "codex", tool: "apply_patch Delete", make: codexPatch("*** Delete File: PATH")},
	{host: "codex", tool: "apply_patch Move to", make: codexPatch("*** Update File: src/main.go\n*** Move to: PATH\n@@\n-" + guardOld + "\n+" + guardNew)},
	{host: "copilot", tool: "edit", make: copilotPayload("edit", map[string]any{"old_str": guardOld, "new_str": guardNew})},
	{host: "copilot", tool: "create", make: copilotPayload("create", map[string]any{"file_text": guardNew})},
	{host: "gemini", tool: "write_file", make: geminiPayload("write_file", map[string]any{"content": guardNew})},
	{host: "gemini", tool: "replace", make: geminiPayload("replace", map[string]any{"old_string": guardOld, "new_string": guardNew})},
	{host: "cursor", tool: "Write", make: cursorPayload("Write")},
	{host: "cursor", tool: "Delete", make: cursorPayload("Delete")},
	{host: "opencode", tool: "edit", make: opencodePayload("edit", map[string]any{"oldString": guardOld, "newString": guardNew})},
	{host: "opencode", tool: "write", make: opencodePayload("write", map[string]any{"content": guardNew})},
	{host: "opencode", tool: "multiedit", make: opencodePayload("multiedit", map[string]any{"edits": []any{map[string]any{"oldString": guardOld, "newString": guardNew}}})},
	{host: "amp", tool: "edit_file", env: map[string]string{"AGENT_TOOL_NAME": "edit_file"}, event: hostapi.AmpEvent, make: ampPayload(map[string]any{"old_str": guardOld, "new_str": guardNew})},
	{host: "amp", tool: "create_file", env: map[string]string{"AGENT_TOOL_NAME": "create_file"}, event: hostapi.AmpEvent, make: ampPayload(map[string]any{"content": guardNew})},
}

func TestGuardDeniesEveryHostsEditOfEveryProtectedPath(t *testing.T) {
	root, _ := guardRoot(t)
	n := 0
	for _, pp := range protectedPaths {
		for _, ep := range editPayloads {
			for _, f := range pathForms(root, pp.rel) {
				if (ep.host == "cursor" || ep.host == "amp") && f.cwd != root {
					continue // Cursor runs from its workspace root; Amp's delegate call carries no cwd
				}
				ev := parseHost(t, ep.host, ep.env, ep.make(f.cwd, f.path), ep.event)
				d := Check(root, ev, nil, nil)
				n++
				switch {
				case d == nil:
					t.Errorf("%s %s on %s (cwd %s): allowed, want %s", ep.host, ep.tool, f.path, f.cwd, pp.guard)
				case d.Guard != pp.guard:
					t.Errorf("%s %s on %s: guard %s (%s), want %s", ep.host, ep.tool, f.path, d.Guard, d.Reason, pp.guard)
				case !strings.HasPrefix(d.Reason, "agent-shell guard "+pp.guard+": ") || !strings.Contains(d.Reason, "A human"):
					t.Errorf("%s %s on %s: reason %q does not name the guard and what a human does", ep.host, ep.tool, f.path, d.Reason)
				}
			}
		}
	}
	t.Logf("%d host edit payloads denied", n)
}

func TestGuardAllowsEditsOfOtherFiles(t *testing.T) {
	root, _ := guardRoot(t)
	for _, rel := range []string{"src/main.go", ".claude/commands/review.md", ".github/workflows/ci.yml", "notes/new.md",
		"evil/.claude/settings.json", ".claude/settings.json.bak", ".github/hooks/README.md", "agent-shell/x", ".agent-shellx/y"} {
		for _, ep := range editPayloads {
			ev := parseHost(t, ep.host, ep.env, ep.make(root, rel), ep.event)
			if d := Check(root, ev, nil, nil); d != nil {
				t.Errorf("%s %s on %s: denied: %s", ep.host, ep.tool, rel, d.Reason)
			}
		}
	}
}

func TestGuardAllowsReadTools(t *testing.T) {
	root, _ := guardRoot(t)
	for _, pp := range protectedPaths {
		abs := filepath.Join(root, pp.rel)
		payloads := []struct {
			host, event, payload string
			env                  map[string]string
		}{
			{host: "claude", payload: js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": abs}})},
			{host: "claude", payload: js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Grep", "tool_input": map[string]any{"pattern": "x", "path": abs}})},
			{host: "claude", payload: js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Glob", "tool_input": map[string]any{"pattern": "**/*.json", "path": filepath.Dir(abs)}})},
			{host: "gemini", payload: js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "BeforeTool", "tool_name": "read_file", "tool_input": map[string]any{"absolute_path": abs}})},
			{host: "copilot", payload: js(map[string]any{"timestamp": 1, "cwd": root, "toolName": "view", "toolArgs": js(map[string]any{"path": abs})})},
			{host: "cursor", payload: js(map[string]any{"conversation_id": "c", "hook_event_name": "beforeReadFile", "file_path": abs, "content": "{}", "workspace_roots": []string{root}})},
			{host: "opencode", payload: js(map[string]any{"v": 1, "event": "tool.execute.before", "tool": "read", "sessionID": "s", "args": map[string]any{"filePath": abs}, "cwd": root})},
			{host: "amp", event: hostapi.AmpEvent, env: map[string]string{"AGENT_TOOL_NAME": "read_file"}, payload: js(map[string]any{"path": abs})},
		}
		for _, p := range payloads {
			ev := parseHost(t, p.host, p.env, p.payload, p.event)
			if d := Check(root, ev, nil, nil); d != nil {
				t.Errorf("%s %s of %s: denied: %s", p.host, ev.NativeTool, pp.rel, d.Reason)
			}
		}
	}
}

func TestGuardIgnoresEventsThatAreNotPreTool(t *testing.T) {
	root, _ := guardRoot(t)
	payload := js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": ".claude/settings.json", "content": "{}"}, "tool_response": map[string]any{}})
	ad, _ := hostapi.ByName("claude", func(string) string { return "" })
	ev, err := ad.Parse([]byte(payload), "")
	if err != nil {
		t.Fatal(err)
	}
	if d := Check(root, ev, nil, nil); d != nil {
		t.Errorf("post-tool event denied: %s", d.Reason)
	}
	if d := Check(root, nil, nil, nil); d != nil {
		t.Errorf("nil event denied")
	}
}

func TestGuardEveryHostsShellTool(t *testing.T) {
	root, _ := guardRoot(t)
	const cmd = "sudo tee .claude/settings.json < /tmp/x"
	for _, tt := range []struct {
		host, event, payload string
		env                  map[string]string
	}{
		{host: "claude", payload: js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}})},
		{host: "codex", payload: js(map[string]any{"session_id": "s", "turn_id": "t", "cwd": root, "hook_event_name": "PreToolUse", "model": "m", "tool_name": "Bash", "tool_input": map[string]any{"command": []string{"bash", "-lc", cmd}}})},
		{host: "copilot", payload: js(map[string]any{"timestamp": 1, "cwd": root, "toolName": "bash", "toolArgs": js(map[string]any{"command": cmd})})},
		{host: "gemini", payload: js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": map[string]any{"command": cmd}})},
		{host: "cursor", payload: js(map[string]any{"conversation_id": "c", "hook_event_name": "beforeShellExecution", "command": cmd, "cwd": "", "workspace_roots": []string{root}})},
		{host: "opencode", payload: js(map[string]any{"v": 1, "event": "tool.execute.before", "tool": "bash", "sessionID": "s", "args": map[string]any{"command": cmd}, "cwd": root})},
		{host: "amp", event: hostapi.AmpEvent, env: map[string]string{"AGENT_TOOL_NAME": "Bash"}, payload: js(map[string]any{"cmd": "cd " + root + " && " + cmd})},
	} {
		ev := parseHost(t, tt.host, tt.env, tt.payload, tt.event)
		if d := Check(root, ev, nil, nil); d == nil || d.Guard != HookRegistration {
			t.Errorf("%s: got %+v", tt.host, d)
		}
	}
}

// ~+ is the folder the word is read from, and ~NAME the home of NAME: a
// path under this user's own (~root, for root) is under the home.
func TestGuardTildeForms(t *testing.T) {
	root, _ := guardRoot(t)
	if g := Command(root, root, "echo x > ~+/.claude/settings.json", nil, nil); g == nil || g.Guard != HookRegistration {
		t.Errorf("~+/: %+v", g)
	}
	u, err := user.Current()
	if err != nil || u.Username == "" || u.HomeDir == "" {
		t.Fatalf("the current user: %+v, %v", u, err)
	}
	saved := userHome
	userHome = func() string { return u.HomeDir }
	t.Cleanup(func() { userHome = saved })
	g := newGuarder(root, root, nil)
	if got := g.expand("~"+u.Username+"/.claude/settings.json", root, true); !slices.Contains(got, filepath.Join(u.HomeDir, ".claude/settings.json")) {
		t.Errorf("~%s/: %q", u.Username, got)
	}
	if got := g.expand("~no-such-user-here/x", root, true); got != nil {
		t.Errorf("another user's home: %q", got)
	}
}
