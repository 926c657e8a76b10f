package guard

import (
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

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
		{"*** Begin Patch\n*** Update File: .claude/settings.json\n@@\n-a\n+b\n*** End Patch\n", HookRegistration},
		{"*** Begin Patch\n  *** update file:   .codex/hooks.json  \n@@\n-a\n+b\n*** End Patch\n", HookRegistration},
		{"*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** Add File: .agent-shell/state/x\n+x\n*** End Patch\n", AgentShellFiles},
		{"*** Begin Patch\n*** Update File: .github/hooks/agent-shell/agent-shell.toml\n*** Move to: src/old.toml\n@@\n-a\n+b\n*** End Patch\n", AgentShellFiles},
		{[]any{"apply_patch", "*** Begin Patch\n*** Delete File: .gemini/settings.json\n*** End Patch\n"}, HookRegistration},
		// Moving the .npmrc away drops its script-shell line.
		{"*** Begin Patch\n*** Update File: .npmrc\n*** Move to: old.npmrc\n@@\n-registry=a\n+registry=b\n*** End Patch\n", NpmScriptShell},
		// An .npmrc update that does not touch script-shell is fine.
		{"*** Begin Patch\n*** Update File: .npmrc\n@@\n-registry=https://registry.npmjs.org/\n+registry=https://npm.example.com/\n*** End Patch\n", ""},
		// A patch that cannot be read but names a protected path.
		{"garbage that edits .claude/settings.json somehow", HookRegistration},
		{"garbage that edits nothing in particular", ""},
		// A unified diff in apply_patch's place.
		{"--- a/.cursor/hooks.json\n+++ b/.cursor/hooks.json\n@@ -1 +1 @@\n-{}\n+{\"hooks\":{}}\n", HookRegistration},
	} {
		d := Check(root, ev(tt.command), nil, nil)
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
	checkGuards(t, root, []guardCase{
		{"git apply fix.diff", HookRegistration},
		{"git -C sub apply ../fix.diff", HookRegistration},
		{"git am < fix.diff", HookRegistration},
		{"patch -p1 < fix.diff", HookRegistration},
		{"patch -p1 -i fix.diff", HookRegistration},
		{"cat fix.diff | git apply", ""}, // what a pipe feeds is not read
		{"patch -d .claude < sub/rel.diff", HookRegistration},
		{"patch .codex/config.toml < ok.diff", HookRegistration}, // the file patch is told to patch
		{"apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: .github/hooks/agent-shell/scripts/x.star\n+x\n*** End Patch\nPATCH", AgentShellFiles},
		{"bash -c \"apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: .cursor/hooks.json\n*** End Patch\nPATCH\n\"", HookRegistration},
		{"git apply <<'EOF'\n--- a/.gemini/settings.json\n+++ b/.gemini/settings.json\n@@ -1 +1 @@\n-{}\n+{}\nEOF", HookRegistration},
		{"git apply ok.diff", ""},
		{"patch -p1 < ok.diff", ""},
		{"apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/main.go\n@@\n-a\n+b\n*** End Patch\nPATCH", ""},
	})
}
