package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// The guard tests' repository, its protected paths, and how a host's
// payload becomes an event.

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
	{".github/hooks/agent-shell/agent-shell.toml", AgentShellFiles},
	{".github/hooks/agent-shell/policy.json", AgentShellFiles},
	{".github/hooks/agent-shell/hooks.json", AgentShellFiles},
	{".github/hooks/agent-shell/scripts/check.star", AgentShellFiles},
	{".github/hooks/agent-shell/scripts/new.star", AgentShellFiles},
	{".agent-shell/events/s1.jsonl", AgentShellFiles},
	{".agent-shell/state/grants.json", AgentShellFiles},
	{".agent-shell/bin/agent-shell-amp", AgentShellFiles},
	{".claude/settings.json", HookRegistration},
	{".claude/settings.local.json", HookRegistration},
	{".codex/hooks.json", HookRegistration},
	{".codex/config.toml", HookRegistration},
	{".gemini/settings.json", HookRegistration},
	{".cursor/hooks.json", HookRegistration},
	{".github/hooks/copilot.json", HookRegistration},
	{".github/hooks/new-hooks.json", HookRegistration},
	{".opencode/plugins/agent-shell.js", HookRegistration},
	{".amp/settings.json", HookRegistration},
	{".npmrc", NpmScriptShell},
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
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

// guardCase is a command and the guard that denies it ("" for none).
type guardCase struct{ command, guard string }

// checkGuards runs Command on each case from root and reports each whose
// guard is not the one wanted.
func checkGuards(t *testing.T, root string, cases []guardCase) {
	t.Helper()
	for _, tt := range cases {
		d := Command(root, root, tt.command, nil, nil)
		got := ""
		if d != nil {
			got = d.Guard
		}
		if got != tt.guard {
			t.Errorf("%q: guard %q (%+v), want %q", tt.command, got, d, tt.guard)
		}
	}
}
