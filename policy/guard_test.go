package policy

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// guardFiles is the repository every guard test runs in: each protected
// file exists, beside files that are not protected.
var guardFiles = map[string]string{
	".github/hooks/agent-shell/agent-shell.toml":   "version = 1\n",
	".github/hooks/agent-shell/policy.json":        "{}\n",
	".github/hooks/agent-shell/hooks.json":         "{}\n",
	".github/hooks/agent-shell/scripts/check.star": "",
	".github/hooks/copilot.json":                   "{}\n",
	".github/workflows/ci.yml":                     "on: push\n",
	".agent-shell/events/s1.jsonl":                 "",
	".agent-shell/state/grants.json":               "{}\n",
	".agent-shell/bin/agent-shell-amp":             "#!/bin/sh\n",
	".claude/settings.json":                        "{}\n",
	".claude/settings.local.json":                  "{}\n",
	".claude/commands/review.md":                   "review\n",
	".codex/hooks.json":                            "{}\n",
	".codex/config.toml":                           "",
	".gemini/settings.json":                        "{}\n",
	".cursor/hooks.json":                           "{}\n",
	".opencode/plugins/agent-shell.js":             "",
	".amp/settings.json":                           "{}\n",
	".npmrc":                                       "registry=https://registry.npmjs.org/\nscript-shell=agent-shell\n",
	"src/main.go":                                  "package main\n",
	"sub/readme.md":                                "",
	"evil/.claude/settings.json":                   "{}\n",
	"plain/a.txt":                                  "",
	".git/HEAD":                                    "ref: refs/heads/main\n",
}

// guardRoot builds the test repository and a home folder beside it, and
// points the guard's home there for the test.
func guardRoot(t testing.TB) (root, home string) {
	t.Helper()
	dir := t.TempDir()
	root, home = filepath.Join(dir, "repo"), filepath.Join(dir, "home")
	for rel, text := range guardFiles {
		writeGuardFile(t, root, rel, text)
	}
	writeGuardFile(t, home, ".claude/settings.json", "{}\n")
	writeGuardFile(t, home, ".bashrc", "")
	saved := userHome
	userHome = func() string { return home }
	t.Cleanup(func() { userHome = saved })
	return root, home
}

func writeGuardFile(t testing.TB, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// protectedCase is one protected path and the guard that owns it.
type protectedCase struct {
	rel   string
	guard string
}

var protectedPaths = []protectedCase{
	{".github/hooks/agent-shell/agent-shell.toml", GuardAgentShellFiles},
	{".github/hooks/agent-shell/policy.json", GuardAgentShellFiles},
	{".github/hooks/agent-shell/hooks.json", GuardAgentShellFiles},
	{".github/hooks/agent-shell/scripts/check.star", GuardAgentShellFiles},
	{".github/hooks/agent-shell/scripts/new.star", GuardAgentShellFiles},
	{".agent-shell/events/s1.jsonl", GuardAgentShellFiles},
	{".agent-shell/state/grants.json", GuardAgentShellFiles},
	{".agent-shell/bin/agent-shell-amp", GuardAgentShellFiles},
	{".claude/settings.json", GuardHookRegistration},
	{".claude/settings.local.json", GuardHookRegistration},
	{".codex/hooks.json", GuardHookRegistration},
	{".codex/config.toml", GuardHookRegistration},
	{".gemini/settings.json", GuardHookRegistration},
	{".cursor/hooks.json", GuardHookRegistration},
	{".github/hooks/copilot.json", GuardHookRegistration},
	{".github/hooks/new-hooks.json", GuardHookRegistration},
	{".opencode/plugins/agent-shell.js", GuardHookRegistration},
	{".amp/settings.json", GuardHookRegistration},
	{".npmrc", GuardNpmScriptShell},
}

// --- edit tools ------------------------------------------------------------

// editPayload is one host's edit tool call on a path, as the host sends
// it.
type editPayload struct {
	host  string
	tool  string // for names
	env   map[string]string
	event string
	make  func(cwd, path string) string
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
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

// parseHost parses a payload with the host's real adapter.
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

// pathForms are the ways a tool names a protected file: from the root,
// absolute, with detours, and from a subfolder. Cursor always runs from
// its workspace root.
func pathForms(root, rel string) []struct{ cwd, path string } {
	return []struct{ cwd, path string }{
		{root, filepath.Join(root, rel)},
		{root, rel},
		{root, "./" + rel},
		{root, "sub/../" + rel},
		{filepath.Join(root, "sub"), "../" + rel},
		{filepath.Join(root, "sub"), filepath.Join(root, "sub", "..", rel)},
	}
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
				d := Guard(root, ev, nil)
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
			if d := Guard(root, ev, nil); d != nil {
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
			if d := Guard(root, ev, nil); d != nil {
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
	if d := Guard(root, ev, nil); d != nil {
		t.Errorf("post-tool event denied: %s", d.Reason)
	}
	if d := Guard(root, nil, nil); d != nil {
		t.Errorf("nil event denied")
	}
}

func TestGuardCodexPatchForms(t *testing.T) {
	root, _ := guardRoot(t)
	ev := func(command any) *hostapi.Event {
		return parseHost(t, "codex", nil, js(map[string]any{"session_id": "s", "turn_id": "t", "cwd": root, "hook_event_name": "PreToolUse",
			"model": "m", "tool_name": "apply_patch", "tool_input": map[string]any{"command": command}}), "")
	}
	for _, tt := range []struct {
		command any
		guard   string
	}{
		{"*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** End Patch\n", ""},
		{"*** Begin Patch\n*** Update File: .claude/settings.json\n@@\n-a\n+b\n*** End Patch\n", GuardHookRegistration},
		{"*** Begin Patch\n  *** update file:   .codex/hooks.json  \n@@\n-a\n+b\n*** End Patch\n", GuardHookRegistration},
		{"*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** Add File: .agent-shell/state/x\n+x\n*** End Patch\n", GuardAgentShellFiles},
		{"*** Begin Patch\n*** Update File: .github/hooks/agent-shell/agent-shell.toml\n*** Move to: src/old.toml\n@@\n-a\n+b\n*** End Patch\n", GuardAgentShellFiles},
		{[]any{"apply_patch", "*** Begin Patch\n*** Delete File: .gemini/settings.json\n*** End Patch\n"}, GuardHookRegistration},
		// Moving the .npmrc away drops its script-shell line.
		{"*** Begin Patch\n*** Update File: .npmrc\n*** Move to: old.npmrc\n@@\n-registry=a\n+registry=b\n*** End Patch\n", GuardNpmScriptShell},
		// An .npmrc update that does not touch script-shell is fine.
		{"*** Begin Patch\n*** Update File: .npmrc\n@@\n-registry=https://registry.npmjs.org/\n+registry=https://npm.example.com/\n*** End Patch\n", ""},
		// A patch that cannot be read but names a protected path.
		{"garbage that edits .claude/settings.json somehow", GuardHookRegistration},
		{"garbage that edits nothing in particular", ""},
		// A unified diff in apply_patch's place.
		{"--- a/.cursor/hooks.json\n+++ b/.cursor/hooks.json\n@@ -1 +1 @@\n-{}\n+{\"hooks\":{}}\n", GuardHookRegistration},
	} {
		d := Guard(root, ev(tt.command), nil)
		got := ""
		if d != nil {
			got = d.Guard
		}
		if got != tt.guard {
			t.Errorf("apply_patch %q: guard %q (%v), want %q", tt.command, got, d, tt.guard)
		}
	}
}

func TestGuardPatchesAppliedByShell(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, "fix.diff", "diff --git a/.claude/settings.json b/.claude/settings.json\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-{}\n+{\"hooks\":{}}\n")
	writeGuardFile(t, root, "ok.diff", "--- a/src/main.go\n+++ b/src/main.go\n@@ -1 +1 @@\n-package main\n+package app\n")
	writeGuardFile(t, root, "sub/rel.diff", "--- settings.json\n+++ settings.json\n@@ -1 +1 @@\n-{}\n+{}\n")
	for _, tt := range []struct {
		command, guard string
	}{
		{"git apply fix.diff", GuardHookRegistration},
		{"git -C sub apply ../fix.diff", GuardHookRegistration},
		{"git am < fix.diff", GuardHookRegistration},
		{"patch -p1 < fix.diff", GuardHookRegistration},
		{"patch -p1 -i fix.diff", GuardHookRegistration},
		{"cat fix.diff | git apply", ""}, // what a pipe feeds is not read
		{"patch -d .claude < sub/rel.diff", GuardHookRegistration},
		{"patch .codex/config.toml < ok.diff", GuardHookRegistration}, // the file patch is told to patch
		{"apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: .github/hooks/agent-shell/scripts/x.star\n+x\n*** End Patch\nPATCH", GuardAgentShellFiles},
		{"bash -c \"apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: .cursor/hooks.json\n*** End Patch\nPATCH\n\"", GuardHookRegistration},
		{"git apply <<'EOF'\n--- a/.gemini/settings.json\n+++ b/.gemini/settings.json\n@@ -1 +1 @@\n-{}\n+{}\nEOF", GuardHookRegistration},
		{"git apply ok.diff", ""},
		{"patch -p1 < ok.diff", ""},
		{"apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** End Patch\nPATCH", ""},
	} {
		d := GuardCommand(root, root, tt.command, nil)
		got := ""
		if d != nil {
			got = d.Guard
		}
		if got != tt.guard {
			t.Errorf("%q: guard %q (%+v), want %q", tt.command, got, d, tt.guard)
		}
	}
}

// --- .npmrc ----------------------------------------------------------------

func TestGuardNpmrcEdits(t *testing.T) {
	root, _ := guardRoot(t)
	bare := filepath.Join(t.TempDir(), "bare")
	writeGuardFile(t, bare, ".npmrc", "registry=https://registry.npmjs.org/\n")
	for _, tt := range []struct {
		name   string
		root   string
		tool   string
		input  map[string]any
		denied bool
	}{
		{"edit of another setting", root, "Edit", map[string]any{"file_path": ".npmrc", "old_string": "registry=https://registry.npmjs.org/", "new_string": "registry=https://npm.example.com/"}, false},
		{"edit that drops script-shell", root, "Edit", map[string]any{"file_path": ".npmrc", "old_string": "script-shell=agent-shell\n", "new_string": ""}, true},
		{"edit that changes script_shell", root, "Edit", map[string]any{"file_path": ".npmrc", "old_string": "x", "new_string": "SCRIPT_SHELL=bash"}, true},
		{"whole-file write over a script-shell line", root, "Write", map[string]any{"file_path": ".npmrc", "content": "registry=https://npm.example.com/\n"}, true},
		{"whole-file write without script-shell anywhere", bare, "Write", map[string]any{"file_path": ".npmrc", "content": "registry=https://npm.example.com/\n"}, false},
		{"whole-file write adding script-shell", bare, "Write", map[string]any{"file_path": ".npmrc", "content": "script-shell=bash\n"}, true},
		{"new .npmrc in a package setting script-shell", root, "Write", map[string]any{"file_path": "packages/a/.npmrc", "content": "script-shell=/bin/sh\n"}, true},
		{"new .npmrc in a package without it", root, "Write", map[string]any{"file_path": "packages/a/.npmrc", "content": "save-exact=true\n"}, false},
		{"another file mentioning script-shell", root, "Write", map[string]any{"file_path": "docs/npm.md", "content": "set script-shell=agent-shell\n"}, false},
	} {
		ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": tt.root, "hook_event_name": "PreToolUse", "tool_name": tt.tool, "tool_input": tt.input}), "")
		d := Guard(tt.root, ev, nil)
		if (d != nil) != tt.denied || d != nil && d.Guard != GuardNpmScriptShell {
			t.Errorf("%s: got %+v, want denied=%v", tt.name, d, tt.denied)
		}
	}
}

func TestGuardNpmCommands(t *testing.T) {
	root, _ := guardRoot(t)
	bare := filepath.Join(t.TempDir(), "bare")
	writeGuardFile(t, bare, ".npmrc", "registry=https://registry.npmjs.org/\n")
	for _, c := range []string{
		"npm config set script-shell bash",
		"npm config set script-shell=bash",
		"npm set script-shell bash",
		"npm config set script-shell bash --location=project",
		"npm config set --location project script-shell=bash",
		"npm config set registry=https://x script_shell=bash",
		"npm config delete script-shell",
		"npm config rm script-shell",
		"npm config edit --location=project",
		"pnpm config set script-shell bash",
		"yarn config set script-shell bash",
		"sudo npm config set script-shell bash",
		"bash -c 'npm config set script-shell bash'",
		"npm_config_script_shell=bash npm test",
		"NPM_CONFIG_SCRIPT_SHELL=bash npm test",
		"env npm_config_script_shell=bash npm run build",
		"export npm_config_script_shell=bash",
		"npm run build --script-shell=bash",
		"npm test --script-shell bash",
		"npx --script-shell=sh something",
		"sed -i /script-shell/d .npmrc",
		"echo registry=https://x >> .npmrc",
		"rm .npmrc",
		"mv .npmrc .npmrc.off",
		"git checkout -- .npmrc",
		"echo script-shell=bash > packages/a/.npmrc",
		"echo save-exact=true > packages/a/.npmrc",
		"cd packages/a && printf 'script-shell=sh' > .npmrc",
	} {
		d := GuardCommand(root, root, c, nil)
		if d == nil || d.Guard != GuardNpmScriptShell {
			t.Errorf("%q: got %+v, want %s", c, d, GuardNpmScriptShell)
		}
	}
	for _, c := range []string{
		"npm config get script-shell",
		"npm config list",
		"npm config set registry https://npm.example.com/",
		"npm test",
		"npm run build",
		"cat .npmrc",
		"grep script-shell .npmrc",
		"cp .npmrc /tmp/npmrc.bak",
	} {
		if d := GuardCommand(root, root, c, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
	// Without a script-shell line anywhere, an .npmrc is any other file.
	for _, c := range []string{"echo registry=https://x >> .npmrc", "rm .npmrc", "echo a=b > packages/a/.npmrc"} {
		if d := GuardCommand(bare, bare, c, nil); d != nil {
			t.Errorf("bare repo: %q: denied: %s", c, d.Reason)
		}
	}
}

// --- shell forms -----------------------------------------------------------

// writeForms write the path P (other files: /tmp/agent-shell-guard-src).
var writeForms = []string{
	"echo x > P",
	"echo x >> P",
	"echo x &> P",
	"echo x &>> P",
	"echo x >| P",
	"echo x 1> P",
	"ls 2> P",
	"cat <> P",
	"cat <<EOF > P\nx\nEOF",
	"exec > P",
	"rm P",
	"rm -f P",
	"rm -rf P",
	"rm -- P",
	"unlink P",
	"shred -u P",
	"truncate -s 0 P",
	"touch P",
	"chmod 000 P",
	"chown nobody P",
	"ln -sf /tmp/agent-shell-guard-src P",
	"tee P",
	"tee -a P",
	"sed -i s/a/b/ P",
	"sed -i.bak -e s/a/b/ P",
	"sed --in-place s/a/b/ P",
	"sed -Ei s/a/b/ P",
	"perl -pi -e s/a/b/ P",
	"perl -i.bak -pe s/a/b/ P",
	"dd if=/dev/zero of=P",
	"mv P /tmp/agent-shell-guard-dst",
	"mv /tmp/agent-shell-guard-src P",
	"cp /tmp/agent-shell-guard-src P",
	"cp -f /tmp/agent-shell-guard-src P",
	"install -m 644 /tmp/agent-shell-guard-src P",
	"rsync -a /tmp/agent-shell-guard-src P",
	"git checkout -- P",
	"git checkout HEAD P",
	"git checkout HEAD~3 -- P",
	"git restore P",
	"git restore --source=HEAD~1 -- P",
	"git restore -s HEAD~1 P",
	"git rm P",
	"git rm --cached P",
	"git mv P moved",
	"vim P",
	"sort -o P /tmp/agent-shell-guard-src",
	"curl -o P https://example.com/x",
	"wget -O P https://example.com/x",
	"gzip P",
}

// wrappers put a command inside another: wrapped, compound, in a body.
var wrappers = []string{
	"%s",
	"sudo %s",
	"sudo -u root %s",
	"env X=1 %s",
	"env -i PATH=/bin %s",
	"nice -n 5 %s",
	"timeout 5 %s",
	"command %s",
	"nohup %s",
	"bash -c '%s'",
	"sh -c '%s'",
	"bash -lc '%s'",
	"eval '%s'",
	"true && %s",
	"false || %s",
	"echo a; %s",
	"echo a | %s",
	"(%s)",
	"{ %s; }",
	"echo $(%s)",
	"x=`%s`",
	"if true; then %s; fi",
	"for i in 1 2; do %s; done",
	"f() { %s; }; f",
	"bash <<'SH'\n%s\nSH",
}

func wrap(w, cmd string) string {
	if strings.Contains(w, "'%s'") && strings.Contains(cmd, "'") || strings.Contains(w, "<<'SH'") && strings.Contains(cmd, "<<") ||
		(strings.Contains(w, "$(") || strings.Contains(w, "`")) && strings.Contains(cmd, "<<") ||
		strings.Contains(w, "'%s'") && strings.Contains(cmd, "\n") {
		return ""
	}
	if strings.Contains(cmd, "\n") {
		// A heredoc's terminator must end its line.
		w = strings.ReplaceAll(w, "%s;", "%s\n")
		if i := strings.Index(w, "%s"); i+2 < len(w) && w[i+2] != '\n' {
			w = w[:i+2] + "\n" + w[i+2:]
		}
	}
	return strings.ReplaceAll(w, "%s", cmd)
}

func TestGuardDeniesEveryShellWriteForm(t *testing.T) {
	root, _ := guardRoot(t)
	sub := filepath.Join(root, "sub")
	n := 0
	check := func(pp protectedCase, cwd, cmd string) {
		t.Helper()
		n++
		d := GuardCommand(root, cwd, cmd, nil)
		switch {
		case d == nil:
			t.Errorf("%q (cwd %s): allowed, want %s", cmd, cwd, pp.guard)
		case d.Guard != pp.guard:
			t.Errorf("%q: guard %s (%s), want %s", cmd, d.Guard, d.Reason, pp.guard)
		case !strings.HasPrefix(d.Reason, "agent-shell guard "+d.Guard+": "):
			t.Errorf("%q: reason %q does not name the guard", cmd, d.Reason)
		}
	}
	for _, pp := range protectedPaths {
		for _, form := range writeForms {
			for _, w := range wrappers {
				if cmd := wrap(w, strings.ReplaceAll(form, "P", pp.rel)); cmd != "" {
					check(pp, root, cmd)
				}
			}
			for _, p := range []struct{ cwd, path string }{
				{root, "./" + pp.rel},
				{root, filepath.Join(root, pp.rel)},
				{root, "sub/../" + pp.rel},
				{root, "src/../sub/../" + pp.rel},
				{sub, "../" + pp.rel},
				{sub, filepath.Join(sub, "..", pp.rel)},
				{"", pp.rel},
			} {
				cmd := strings.ReplaceAll(form, "P", p.path)
				check(pp, p.cwd, cmd)
				if w := wrap("bash -c '%s'", cmd); w != "" {
					check(pp, p.cwd, w)
				}
			}
			check(pp, root, "cd sub && "+strings.ReplaceAll(form, "P", "../"+pp.rel))
		}
	}
	t.Logf("%d shell commands denied", n)
}

func TestGuardAllowsReadsAndOtherWrites(t *testing.T) {
	root, _ := guardRoot(t)
	reads := []string{
		"cat P", "head -n 5 P", "tail -f P", "grep -n x P", "rg x P", "less P", "wc -l P", "diff P src/main.go",
		"cp P /tmp/agent-shell-guard-copy", "jq . P", "git diff P", "git log -- P", "git show HEAD:P", "git blame P",
		"ls -la P", "stat P", "sed -n 1p P", "sed s/a/b/ P", "perl -ne print P", "cat < P", "tar czf /tmp/agent-shell-guard.tgz P",
		"rsync -a P /tmp/agent-shell-guard-copy", "find P -name x", "md5sum P", "file P", "git add P", "git status P",
		"echo P", "bash -c 'cat P'", "sudo cat P", "cat P | grep x > /tmp/agent-shell-guard-out", "sort P", "uniq P",
		"git checkout main", "git checkout -b feature", "git restore --staged src/main.go",
	}
	for _, pp := range protectedPaths {
		for _, r := range reads {
			c := strings.ReplaceAll(r, "P", pp.rel)
			if d := GuardCommand(root, root, c, nil); d != nil {
				t.Errorf("%q: denied: %s", c, d.Reason)
			}
		}
	}
	for _, c := range []string{
		"ls", "go test ./...", "echo x > src/out.txt", "echo x > /tmp/agent-shell-guard-out", "rm -rf src", "rm -rf .github/workflows",
		"rm .github/workflows/ci.yml", "mv src/main.go src/app.go", "cp -r src/. build", "rsync -a src/ build/", "chmod -R 755 src",
		"find src -delete", "git clean -fd", "git clean -fdx src", "mkdir -p .github/hooks", "touch .claude/commands/new.md",
		"echo x > .claude/settings.json.bak", "cp .claude/settings.json .claude/settings.json.bak", "echo x > .github/hooks/README.md",
		"rm -rf *", "echo x > $X", "rm -rf \"$D\"", "echo x > \"$OUT\"/a", "cat x | xargs rm", "find . -name '*.go' -exec gofmt -w {} +",
		"sed -i s/a/b/ src/main.go", "cd .claude && cat settings.json", "ln -s src/main.go main.go", "npm test",
		"git checkout .", "git stash", "echo x > .agent-shellx", "rm -rf .agent-shell-old", "echo x > sub/.agent-shell",
	} {
		if d := GuardCommand(root, root, c, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
}

func TestGuardAncestors(t *testing.T) {
	root, home := guardRoot(t)
	sub := filepath.Join(root, "sub")
	for _, tt := range []struct {
		cwd, command, guard, target string
	}{
		{root, "rm -rf .github", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -r .github/hooks", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf .agent-shell", GuardAgentShellFiles, ".agent-shell"},
		{root, "rm -rf .", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf ./", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf " + root, GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf /", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf ~", GuardHookRegistration, "~/.claude/settings.json"}, // the test's home is beside the repository
		{sub, "rm -rf ..", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf .claude", GuardHookRegistration, ".claude/settings.json"},
		{root, "rm -rf .codex", GuardHookRegistration, ".codex/hooks.json"},
		{root, "mv .github /tmp/agent-shell-guard-gh", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "mv .agent-shell /tmp/agent-shell-guard-as", GuardAgentShellFiles, ".agent-shell"},
		{root, "mv .cursor .cursor.off", GuardHookRegistration, ".cursor/hooks.json"},
		{root, "chmod -R 777 .github", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "chmod 000 .gemini", GuardHookRegistration, ".gemini/settings.json"},
		{root, "chown -R nobody .opencode", GuardHookRegistration, ".opencode/plugins/agent-shell.js"},
		{root, "find .github -delete", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "find .amp -type f -exec rm {} +", GuardHookRegistration, ".amp/settings.json"},
		{root, "find . -type f -exec sed -i s/a/b/ {} +", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "git rm -r .github", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "git clean -fdx", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "git clean -fX .agent-shell", GuardAgentShellFiles, ".agent-shell"},
		{root, "rsync -a --delete src/ .", GuardAgentShellFiles, ".github/hooks/agent-shell"},
		{root, "cp -r evil/. .", GuardHookRegistration, ".claude/settings.json"},
		{root, "rsync -a evil/ ./", GuardHookRegistration, ".claude/settings.json"},
		{root, "cp -r evil/.claude .", GuardHookRegistration, ".claude/settings.json"},
		{root, "rm -rf " + home + "/.claude", GuardHookRegistration, "~/.claude/settings.json"},
		{root, "rm -rf .[a-z]*", GuardAgentShellFiles, ".agent-shell"},
		{root, "shopt -s dotglob; rm -rf *", GuardAgentShellFiles, ".agent-shell"},
		{root, "rm -rf .n*", GuardNpmScriptShell, ".npmrc"},
	} {
		d := GuardCommand(root, tt.cwd, tt.command, nil)
		if d == nil || d.Guard != tt.guard || d.Target != tt.target {
			t.Errorf("%q: got %+v, want %s on %s", tt.command, d, tt.guard, tt.target)
		}
	}
	// A recursive copy that creates a protected file the root lacks.
	writeGuardFile(t, root, "evil2/.github/hooks/evil.json", "{}")
	writeGuardFile(t, root, "evil2/.windsurf/hooks.json", "{}")
	for _, c := range []string{"cp -r evil2/. .", "rsync -a evil2/ .", "cp -R evil2/.github .", "mv evil2/.github/hooks/evil.json .github/hooks/"} {
		if d := GuardCommand(root, root, c, nil); d == nil || d.Target != ".github/hooks/evil.json" {
			t.Errorf("%q: got %+v, want .github/hooks/evil.json", c, d)
		}
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	writeGuardFile(t, fresh, "src/main.go", "package main\n")
	writeGuardFile(t, fresh, "kit/.claude/settings.json", "{}")
	if d := GuardCommand(fresh, fresh, "cp -r kit/. .", nil); d == nil || d.Target != ".claude/settings.json" {
		t.Errorf("cp -r kit/. . into a root without .claude: got %+v", d)
	}
	if d := GuardCommand(fresh, fresh, "cp -r src/. .", nil); d != nil {
		t.Errorf("cp -r src/. .: denied: %s", d.Reason)
	}
	// A glob over the whole file system that reaches the root (the test's
	// root is some folders deep: /*/*/... with one * fewer names a folder
	// that holds it).
	depth := strings.Count(filepath.ToSlash(root), "/")
	for _, c := range []string{"rm -rf " + strings.Repeat("/*", depth), "rm -rf " + strings.Repeat("/*", depth-1),
		"chmod -R 777 " + strings.Repeat("/*", depth-1)} {
		if d := GuardCommand(root, root, c, nil); d == nil {
			t.Errorf("%q: allowed", c)
		}
	}
	// A recursive copy into a folder that does not hold a protected path,
	// or from a source without one, is fine.
	for _, c := range []string{"cp -r src/. .", "rsync -a plain/ ./", "cp -r plain .claude", "rm -rf sub", "chmod 755 src"} {
		if d := GuardCommand(root, root, c, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
}

func TestGuardPathsThroughLinksGlobsAndDirectories(t *testing.T) {
	root, home := guardRoot(t)
	mustLink := func(target, link string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	mustLink(".agent-shell", "state-link")
	mustLink(".claude/settings.json", "settings-link")
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustLink("a/b", "up")
	outside := t.TempDir()
	if err := os.Symlink(root, filepath.Join(outside, "repo-link")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cwd, command, guard string
	}{
		{root, "echo x > state-link/events/s1.jsonl", GuardAgentShellFiles},
		{root, "echo x > state-link/new", GuardAgentShellFiles},
		{root, "echo x > settings-link", GuardHookRegistration},
		{root, "sed -i s/a/b/ settings-link", GuardHookRegistration},
		{root, "cp /tmp/agent-shell-guard-src settings-link", GuardHookRegistration},
		{root, "echo x > up/../../.agent-shell/x", GuardAgentShellFiles}, // .. after a link climbs from its target
		{outside, "echo x > repo-link/.claude/settings.json", GuardHookRegistration},
		{root, "ln -s .agent-shell/events ev", GuardAgentShellFiles},
		{root, "ln .claude/settings.json hard", GuardHookRegistration},
		{root, "cd sub && ln -s ../.claude/settings.json s", GuardHookRegistration},
		{root, "ln -s ../.claude/settings.json sub/s", GuardHookRegistration},
		{root, "cp -s .codex/hooks.json x", GuardHookRegistration},
		{root, "rm .agent-*/events/*", GuardAgentShellFiles},
		{root, "echo x > .claude/sett*.json", GuardHookRegistration},
		{root, "rm .github/hooks/*.json", GuardHookRegistration},
		{root, "git checkout -- '*.json'", GuardAgentShellFiles}, // .github/hooks/agent-shell/hooks.json comes first
		{root, "git checkout -- ':/.claude/settings.json'", GuardHookRegistration},
		{root, "git restore ':(top).codex/config.toml'", GuardHookRegistration},
		{root, "git -C sub checkout -- ../.gemini/settings.json", GuardHookRegistration},
		{root, "cd .claude && rm settings.json", GuardHookRegistration},
		{root, "cd .github; rm -rf hooks", GuardAgentShellFiles},
		{root, "pushd .cursor && truncate -s 0 hooks.json", GuardHookRegistration},
		{root, "cd sub; cd ..; rm .codex/hooks.json", GuardHookRegistration},
		{root, "cd " + root + "/.github/hooks && echo x > new.json", GuardHookRegistration},
		{root, "mv src/main.go .claude/settings.json", GuardHookRegistration},
		{root, "cp -t .github/hooks/agent-shell src/main.go", GuardAgentShellFiles},        // into a protected folder
		{root, "mv -t .agent-shell/state src/main.go", GuardAgentShellFiles},               // likewise
		{root, "install -D src/main.go .github/hooks/agent-shell/x", GuardAgentShellFiles}, // creates it
		{root, "echo x > .agent-shell/$X", GuardAgentShellFiles},                           // only the name is unknown
		{root, "rm -rf .agent-shell/$(date +%s)", GuardAgentShellFiles},                    // likewise
		{root, "echo x > .github/hooks/agent-shell/${NAME}.star", GuardAgentShellFiles},    // likewise
		{root, "echo x > $HOME/.claude/settings.json", GuardHookRegistration},              // the home's registration
		{root, "echo x > ~/.claude/settings.json", GuardHookRegistration},
		{root, "echo x > \"$(pwd)/.codex/hooks.json\"", GuardHookRegistration},
		{root, "echo x > $(git rev-parse --show-toplevel)/.codex/hooks.json", GuardHookRegistration},
		{root, "cat src/main.go > " + home + "/.copilot/hooks/mine.json", GuardHookRegistration},
		{root, "echo x > .Claude/Settings.json", GuardHookRegistration}, // case-insensitive file systems
	} {
		d := GuardCommand(root, tt.cwd, tt.command, nil)
		want := tt.guard
		got := ""
		if d != nil {
			got = d.Guard
		}
		if got != want {
			t.Errorf("%q (cwd %s): guard %q (%+v), want %q", tt.command, tt.cwd, got, d, want)
		}
	}
	// Removing a link removes the link, not what it points to.
	// A file copied into a folder keeps its name: these land on names that
	// are not protected.
	for _, c := range []string{"rm settings-link", "rm -rf state-link", "unlink settings-link", "mv settings-link x",
		"echo x > up/../x", "cp src/main.go .github/hooks/main.go.bak", "cp src/main.go .github/hooks/",
		"cp .github/hooks/copilot.json .claude/"} {
		if d := GuardCommand(root, root, c, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
	// cp a.json DIR/ lands on DIR/a.json.
	writeGuardFile(t, root, "staging/settings.json", "{}")
	if d := GuardCommand(root, root, "cp staging/settings.json .claude/", nil); d == nil || d.Target != ".claude/settings.json" {
		t.Errorf("cp into .claude/: got %+v, want .claude/settings.json", d)
	}
	if d := GuardCommand(root, root, "mv staging/settings.json .claude", nil); d == nil || d.Target != ".claude/settings.json" {
		t.Errorf("mv into .claude: got %+v, want .claude/settings.json", d)
	}
}

func TestGuardXargsAndFindForms(t *testing.T) {
	root, _ := guardRoot(t)
	for _, tt := range []struct {
		command, guard string
	}{
		{"echo src/main.go | xargs -I{} cp {} .claude/settings.json", GuardHookRegistration},
		{"ls | xargs -I % mv % .agent-shell/state/", GuardAgentShellFiles},
		{"printf x | xargs tee .codex/hooks.json", GuardHookRegistration},
		{"find .agent-shell -name '*.jsonl' -delete", GuardAgentShellFiles},
		{"find .github/hooks -type f -exec chmod 000 {} \\;", GuardAgentShellFiles},
		{"find . -fprint .amp/settings.json", GuardHookRegistration},
		{"sudo find .claude -exec truncate -s 0 {} +", GuardHookRegistration},
		{"find src -exec rm {} +", ""},
		{"cat list | xargs rm", ""}, // what xargs reads is not known here: the policy's unknown handling decides
	} {
		d := GuardCommand(root, root, tt.command, nil)
		got := ""
		if d != nil {
			got = d.Guard
		}
		if got != tt.guard {
			t.Errorf("%q: guard %q (%+v), want %q", tt.command, got, d, tt.guard)
		}
	}
}

func TestGuardHomeRegistrations(t *testing.T) {
	root, home := guardRoot(t)
	ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(home, ".claude", "settings.json"), "old_string": "{}", "new_string": `{"disableAllHooks":true}`}}), "")
	if d := Guard(root, ev, nil); d == nil || d.Guard != GuardHookRegistration || d.Target != "~/.claude/settings.json" {
		t.Errorf("Edit of ~/.claude/settings.json: %+v", d)
	}
	if d := Guard(root, ev, []string{"~/.claude/settings.json"}); d != nil {
		t.Errorf("allow_agent_edits ~/.claude/settings.json: denied: %s", d.Reason)
	}
	for _, c := range []string{"echo x > ~/.codex/config.toml", "rm ~/.gemini/settings.json", "cd ~ && rm -rf .cursor",
		"echo '{}' > $HOME/.copilot/hooks/x.json", "cp x ~/.config/amp/settings.json"} {
		if d := GuardCommand(root, root, c, nil); d == nil || d.Guard != GuardHookRegistration {
			t.Errorf("%q: %+v", c, d)
		}
	}
	for _, c := range []string{"cat ~/.claude/settings.json", "echo x > ~/notes.txt", "rm -rf ~/.cache"} {
		if d := GuardCommand(root, root, c, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
}

func TestGuardEnvironment(t *testing.T) {
	root, _ := guardRoot(t)
	forms := []string{
		"NAME=1 npm test",
		"NAME=1",
		"NAME=1; npm test",
		"NAME+=1 npm test",
		"env NAME=/tmp/x npm test",
		"env -i NAME=/tmp/x npm test",
		"sudo NAME=x npm test",
		"sudo -E env NAME=x npm test",
		"export NAME=1",
		"export PATH=/usr/bin NAME=1",
		"export NAME",
		"export -- NAME=1",
		"declare -x NAME=1",
		"typeset -gx NAME=1",
		"local NAME=1",
		"readonly NAME=1",
		"declare -n ref=NAME",
		"read NAME <<< x",
		"read -r NAME < /tmp/x",
		"printf -v NAME %s x",
		"bash -c 'export NAME=1; npm test'",
		"sh -c 'NAME=1 npm test'",
		"true && NAME=1 npm test",
		"(export NAME=1; npm test)",
		"echo $(NAME=1 npm test)",
		"echo 'export NAME=1' >> ~/.bashrc",
		"echo NAME=1 >> .envrc",
		"printf 'NAME=1\\n' | tee -a ~/.zshrc",
	}
	for name := range guardedEnv {
		for _, f := range forms {
			c := strings.ReplaceAll(f, "NAME", name)
			d := GuardCommand(root, root, c, nil)
			if d == nil || d.Guard != GuardAgentShellEnv || d.Target != name {
				t.Errorf("%q: got %+v, want %s on %s", c, d, GuardAgentShellEnv, name)
				continue
			}
			if !strings.Contains(d.Reason, "a human sets it in their own shell") {
				t.Errorf("%q: reason %q", c, d.Reason)
			}
		}
		for _, f := range []string{"unset NAME", "echo $NAME", "env -u NAME ls", "printenv NAME", "grep -r NAME= .",
			"echo NAME=1 >> notes.md", "NAME_EXTRA=1 ls", "X_NAME=1 ls"} {
			c := strings.ReplaceAll(f, "NAME", name)
			if d := GuardCommand(root, root, c, nil); d != nil {
				t.Errorf("%q: denied: %s", c, d.Reason)
			}
		}
	}
	if d := GuardCommand(root, root, "AGENTSHELL_SESSION_ID=x ls", nil); d != nil {
		t.Errorf("AGENTSHELL_SESSION_ID: denied: %s", d.Reason)
	}
	// The same through the hook: a Claude Bash call.
	ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "AGENTSHELL_PASSTHROUGH=1 npm test"}}), "")
	if d := Guard(root, ev, nil); d == nil || d.Guard != GuardAgentShellEnv {
		t.Errorf("Claude Bash: got %+v", d)
	}
	// An edit tool writing the variable into a startup file.
	ev = parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": "~/.bashrc", "old_string": "", "new_string": "export AGENTSHELL_PASSTHROUGH=1"}}), "")
	if d := Guard(root, ev, nil); d == nil || d.Guard != GuardAgentShellEnv {
		t.Errorf("Edit of ~/.bashrc: got %+v", d)
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
		if d := Guard(root, ev, nil); d == nil || d.Guard != GuardHookRegistration {
			t.Errorf("%s: got %+v", tt.host, d)
		}
	}
}

func TestGuardAllowAgentEdits(t *testing.T) {
	root, _ := guardRoot(t)
	edit := func(rel string) *hostapi.Event {
		return parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
			"tool_name": "Write", "tool_input": map[string]any{"file_path": rel, "content": "{}"}}), "")
	}
	allow := []string{".claude/settings.json", ".agent-shell/events/**"}
	for _, tt := range []struct {
		rel    string
		opened bool
	}{
		{".claude/settings.json", true},
		{".claude/settings.local.json", false},
		{".agent-shell/events/s1.jsonl", true},
		{".agent-shell/events/new/deep.jsonl", true},
		{".agent-shell/state/grants.json", false},
		{".github/hooks/agent-shell/agent-shell.toml", false},
	} {
		d := Guard(root, edit(tt.rel), allow)
		if (d == nil) != tt.opened {
			t.Errorf("%s with %v: got %+v, want opened=%v", tt.rel, allow, d, tt.opened)
		}
		if d := Guard(root, edit(tt.rel), nil); d == nil {
			t.Errorf("%s without allow_agent_edits: allowed", tt.rel)
		}
	}
	for _, tt := range []struct {
		command string
		opened  bool
	}{
		{"echo x > .claude/settings.json", true},
		{"echo x >> .agent-shell/events/s1.jsonl", true},
		{"echo x > .claude/settings.json; echo y > .claude/settings.local.json", false},
		{"rm -rf .claude", false}, // settings.local.json is in it too
		{"rm -rf .agent-shell", false},
	} {
		if d := GuardCommand(root, root, tt.command, allow); (d == nil) != tt.opened {
			t.Errorf("%q with %v: got %+v, want opened=%v", tt.command, allow, d, tt.opened)
		}
	}
	if d := GuardCommand(root, root, "rm -rf .agent-shell", []string{".agent-shell/**"}); d != nil {
		t.Errorf("rm -rf .agent-shell with .agent-shell/**: denied: %s", d.Reason)
	}
	if d := GuardCommand(root, root, "echo x >> .npmrc", []string{".npmrc"}); d != nil {
		t.Errorf(".npmrc opened: denied: %s", d.Reason)
	}
	// A variable names no path: allow_agent_edits cannot open it.
	if d := GuardCommand(root, root, "AGENTSHELL_PASSTHROUGH=1 npm test", []string{"**", "AGENTSHELL_PASSTHROUGH"}); d == nil {
		t.Errorf("allow_agent_edits opened a variable")
	}
}

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

// --- the engine --------------------------------------------------------------

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
	root, _ := guardRoot(t)
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
	if d := e.DecideEvent(edit); d.Action != ActionDeny || d.Guard != GuardHookRegistration {
		t.Errorf("Gemini write_file of .gemini/settings.json: %+v", d)
	}
	// allow_agent_edits counts only in an authorized configuration.
	codex := bash("echo '{}' > .codex/hooks.json")
	if d := e.DecideEvent(codex); d.Action != ActionDeny || d.Guard != GuardHookRegistration {
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
	root, _ := guardRoot(t)
	e := &Engine{LoadErr: errors.New("broken manifest"), Root: root}
	ev := parseHost(t, "copilot", nil, js(map[string]any{"timestamp": 1, "cwd": root, "toolName": "edit",
		"toolArgs": js(map[string]any{"path": ".github/hooks/agent-shell/agent-shell.toml", "old_str": "a", "new_str": "b"})}), "")
	d := e.DecideEvent(ev)
	if d.Action != ActionDeny || d.Guard != GuardAgentShellFiles || !strings.Contains(d.Reason, "agent-shell authorize") {
		t.Errorf("load error: %+v, want the guard's reason", d)
	}
	ev = parseHost(t, "copilot", nil, js(map[string]any{"timestamp": 1, "cwd": root, "toolName": "bash", "toolArgs": js(map[string]any{"command": "ls"})}), "")
	if d := e.DecideEvent(ev); d.Action != ActionDeny || d.Guard != "" || d.Reason != ErrLoad.Error() {
		t.Errorf("load error, unguarded call: %+v", d)
	}
}

func TestEngineLoadSetsRoot(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, ManifestSubpath, allowEverything)
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
	if d := e.DecideEvent(ev); d.Action != ActionDeny || d.Guard != GuardAgentShellFiles {
		t.Errorf("%+v", d)
	}
	// Without a Root the engine finds it from the event's cwd.
	e2 := mustEngine(t, "", allowEverything)
	if d := e2.DecideEvent(ev); d.Action != ActionDeny || d.Guard != GuardAgentShellFiles {
		t.Errorf("no Root: %+v", d)
	}
}

// The guard reads the patch files and .npmrc files a command names; a
// FIFO (or a terminal) must not block the hook.
func TestGuardNeverBlocksOnSpecialFiles(t *testing.T) {
	root, _ := guardRoot(t)
	if err := exec.Command("mkfifo", filepath.Join(root, "fifo"), filepath.Join(root, "sub", ".npmrc")).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []string{"patch -i fifo", "git apply fifo", "patch -p1 src/main.go fifo", "echo x >> sub/.npmrc",
		"patch -i /dev/stdin", "git apply /dev/tty"} {
		done := make(chan *GuardDenial, 1)
		go func() { done <- GuardCommand(root, root, c, nil) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: the guard blocked", c)
		}
	}
}

// --- fuzzing -------------------------------------------------------------------

// FuzzGuardCommand: the guard never panics, and a write to the flight
// recorder appended to any command is denied whenever the parser reports
// it (a prefix can swallow it into a quote, a comment or a heredoc, and
// then bash would not run it either).
func FuzzGuardCommand(f *testing.F) {
	for _, s := range []string{
		"", "ls", "echo hi", "cd /", "cd sub", "cd $X", "cd ..; cd ..", "rm -rf *", "cp -r src/. .", "git checkout -- .",
		"bash -c 'echo x'", "sudo -u root env A=1 nice ls", "find . -exec rm {} +", "a && b || c | d", "(x; y)", "{ a; }",
		"for i in 1; do echo; done", "echo $(date)", "x=`pwd`", "cat <<EOF\nhi\nEOF", "f() { :; }", "export A=1", "exec > /dev/null",
		"ln -s .agent-shell x", "echo x > .agent-shell/$X", "git -C sub apply p.diff", "patch -p1 < x.diff", "apply_patch",
		"npm config set script-shell bash", "echo '", "echo \"", "# comment", "echo \\", "shopt -s dotglob; rm -rf .*",
		"rm -rf ~/*", "rm -rf /*/*", "cd ~; cd -", "pushd /tmp; popd", "eval \"$X\"", "sh -c \"$Y\"", "xargs -I{} cp {} .",
	} {
		f.Add(s)
	}
	root, _ := guardRoot(f)
	const suffix = "echo x > .agent-shell/events/a.jsonl"
	f.Fuzz(func(t *testing.T, prefix string) {
		if len(prefix) > 4096 {
			return
		}
		_ = GuardCommand(root, root, prefix, nil)
		for _, sep := range []string{"; ", "\n", " && ", " || "} {
			full := prefix + sep + suffix
			d := GuardCommand(root, root, full, nil)
			if d == nil && reportsSuffixWrite(full) {
				t.Fatalf("%q: allowed, but the parser sees the write to the flight recorder", full)
			}
		}
	})
}

func reportsSuffixWrite(line string) bool {
	l := shellcmd.Parse(trimSpace(line))
	for _, c := range l.Commands {
		for _, r := range c.Redirects {
			if r.Write && r.File && r.Target == ".agent-shell/events/a.jsonl" {
				return true
			}
		}
	}
	return false
}

// An agent cannot authorize the configuration it may have changed, however
// the command is wrapped, nor run agent-shell with a subcommand the guard
// cannot read; other agent-shell commands stay allowed.
func TestGuardAuthorize(t *testing.T) {
	root := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "as")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"agent-shell authorize --yes",
		"/usr/local/bin/agent-shell authorize",
		"cd sub && agent-shell authorize --yes",
		"bash -c 'agent-shell authorize --yes'",
		"env FOO=1 agent-shell --verbose authorize",
		"env -u CLAUDECODE agent-shell authorize",
		"nohup agent-shell authorize </dev/tty",
		"setsid -f script -qc 'agent-shell authorize' /dev/null",
		`python3 -c "import subprocess; subprocess.run(['agent-shell','authorize','--yes'])"`,
		"agent-shell -c 'agent-shell authorize --yes'",
		// The subcommand known only when it runs.
		"A=authorize; agent-shell $A --yes",
		`agent-shell "$(echo authorize)"`,
		"agent-shell ${CMD:-authorize} --yes",
		"agent-shell `printf authorize`",
		"echo authorize --yes | xargs agent-shell",
		"echo authorize | xargs -n1 agent-shell --yes",
		`sh -c 'agent-shell $0 --yes' authorize`,
		`find . -maxdepth 0 -exec agent-shell {} \;`,
		// The running binary under another name.
		link + " authorize",
		"./as $A",
	} {
		g := GuardCommand(root, root, cmd, nil)
		if g == nil || g.Guard != GuardAuthorize {
			t.Errorf("%q: %+v, want the authorize guard", cmd, g)
		}
	}
	for _, cmd := range []string{
		"agent-shell status", "agent-shell log --last 1h", "agent-shell policy explain 'authorize'",
		`agent-shell policy explain "$CMD"`, "agent-shell log --session $S", "echo s1 | xargs agent-shell log --session",
		"agent-shell -c 'npm test'", "agent-shell", "./other authorize", link + " status", "gh auth login",
	} {
		if g := GuardCommand(root, root, cmd, nil); g != nil {
			t.Errorf("%q denied: %s", cmd, g.Reason)
		}
	}
}

// Padding cannot carry a command past the guard or the rules: a line cut
// short (too many commands) or too long to parse is denied, even where the
// project lets unknown commands through.
func TestPaddingIsDenied(t *testing.T) {
	root := t.TempDir()
	padded := []string{
		strings.Repeat(":;", 10001) + "rm -rf .agent-shell",
		": " + strings.Repeat("x", 300<<10) + "; rm -rf .agent-shell",
	}
	for _, cmd := range padded {
		if g := GuardCommand(root, root, cmd, nil); g == nil {
			t.Errorf("guard let a %d-byte padded command through", len(cmd))
		}
	}
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

// A command given a directory argument is guarded where it runs.
func TestGuardShellDirectory(t *testing.T) {
	root := t.TempDir()
	p := `{"session_id":"s","hook_event_name":"BeforeTool","cwd":"` + root + `","timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf agent-shell","directory":".github/hooks"}}`
	ad, _ := hostapi.ByName("gemini", func(string) string { return "" })
	ev, err := ad.Parse([]byte(p), "")
	if err != nil {
		t.Fatal(err)
	}
	if g := Guard(root, ev, nil); g == nil || g.Guard != GuardAgentShellFiles {
		t.Errorf("guard %+v, want agent-shell-files", g)
	}
}

// The record of authorizations is guarded where XDG_CONFIG_HOME puts it.
func TestGuardXDGConfig(t *testing.T) {
	root, cfg := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if err := os.MkdirAll(filepath.Join(cfg, "agent-shell"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"rm -rf " + cfg + "/agent-shell", "rm -rf " + cfg, "echo {} > " + cfg + "/agent-shell/authorized.json"} {
		if g := GuardCommand(root, root, cmd, nil); g == nil {
			t.Errorf("%q: not guarded", cmd)
		}
	}
	if g := GuardCommand(root, root, "cat "+cfg+"/agent-shell/authorized.json", nil); g != nil {
		t.Errorf("reading the record was denied: %s", g.Reason)
	}
}

// A find -delete from the root whose name tests match no protected file
// removes none; one whose tests match one, or that has no name test, or an
// -o, still does.
func TestGuardFindDeleteByName(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{".github/hooks/agent-shell/agent-shell.toml", ".github/hooks/agent-shell/scripts/x.star", ".claude/settings.json", "src/a.pyc", "src/b.orig"} {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{`find . -name "*.pyc" -delete`, false},
		{`find . -name '*.orig' -type f -delete`, false},
		{`find src -iname '*.PYC' -delete`, false},
		{`find . -path './src/*.pyc' -delete`, true}, // * in a -path test: taken to match
		{`find . -name "*.star" -delete`, true},
		{`find . -name "*.json" -delete`, true},
		{`find . -iname "AGENT-SHELL.TOML" -delete`, true},
		{`find . -delete`, true},
		{`find . -type f -delete`, true},
		{`find . -name "*.pyc" -o -name "*.toml" -delete`, true},
		{`find . ! -name "*.pyc" -delete`, true},
		{`find .. -name "*.pyc" -delete`, true},
		{`find . -type d -empty -delete`, false},
		{`find . -type f -empty -delete`, false}, // the protected files hold a byte each
		{`find . -name __pycache__ -type d -exec rm -rf {} +`, false},
		{`find . -name hooks -exec rm -rf {} +`, true}, // .github/hooks holds the configuration
		{`find . -name agent-shell -type d -exec rm -rf {} +`, true},
		{`find . -exec rm -rf {} +`, true},
		{`git rm -r .`, true},
		{`find . -size +1M -delete`, false}, // the protected files are small
		{`find . -empty -delete`, false},    // and not empty
		{`find . -mmin +60 -delete`, false}, // and new
		{`find . -mmin -60 -delete`, true},
		{`find . -type f -size -2k -delete`, true},
		{`find . -type f -size -1k -delete`, false}, // -1k rounds up: only empty files
		{`find . -regex '.*\.o' -delete`, true},     // not tried: taken to hold
		{`find . -type d -exec rm -rf {} +`, true},  // the root is a folder
	} {
		d := GuardCommand(root, root, c.cmd, nil)
		if (d != nil) != c.deny {
			t.Errorf("%s: denied %v, want %v", c.cmd, d != nil, c.deny)
		}
	}
}

// The guard's pre-checks agree with the regexps they spare.
func TestGuardPrechecksAgreeWithRegexps(t *testing.T) {
	for _, s := range []string{
		"", "npm test", "npm config set script-shell x", "SCRIPT_SHELL=1", "ſcript-sHELL", "script shell",
		"AGENTSHELL_PASSTHROUGH=1 npm test", "export AGENTSHELL_LOG_DIR+=x", "AGENTSHELL_OTHER=1", "agentshell_passthrough=1",
	} {
		if got, want := mentionsScriptShell(s), scriptShellRE().MatchString(s); got != want {
			t.Errorf("mentionsScriptShell(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := guardedEnvWrite(s), envWriteRE().FindString(s); got != want {
			t.Errorf("guardedEnvWrite(%q) = %q, the regexp says %q", s, got, want)
		}
	}
}
