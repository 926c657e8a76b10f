package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
)

func TestGuardAncestors(t *testing.T) {
	root, home := guardRoot(t)
	sub := filepath.Join(root, "sub")
	for _, tt := range []struct {
		cwd, command, guard, target string
	}{
		{root, "rm -rf .github", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -r .github/hooks", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf .agent-shell", AgentShellFiles, ".agent-shell"},
		{root, "rm -rf .", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf ./", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf " + root, AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf /", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf ~", HookRegistration, "~/.claude/settings.json"}, // the test's home is beside the repository
		{sub, "rm -rf ..", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "rm -rf .claude", HookRegistration, ".claude/settings.json"},
		{root, "rm -rf .codex", HookRegistration, ".codex/hooks.json"},
		{root, "mv .github /tmp/agent-shell-guard-gh", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "mv .agent-shell /tmp/agent-shell-guard-as", AgentShellFiles, ".agent-shell"},
		{root, "mv .cursor .cursor.off", HookRegistration, ".cursor/hooks.json"},
		{root, "chmod -R 777 .github", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "chmod 000 .gemini", HookRegistration, ".gemini/settings.json"},
		{root, "chown -R nobody .opencode", HookRegistration, ".opencode/plugins/agent-shell.js"},
		{root, "find .github -delete", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "find .amp -type f -exec rm {} +", HookRegistration, ".amp/settings.json"},
		{root, "find . -type f -exec sed -i s/a/b/ {} +", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "git rm -r .github", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "git clean -fdx", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "git clean -fX .agent-shell", AgentShellFiles, ".agent-shell"},
		{root, "rsync -a --delete src/ .", AgentShellFiles, ".github/hooks/agent-shell"},
		{root, "cp -r evil/. .", HookRegistration, ".claude/settings.json"},
		{root, "rsync -a evil/ ./", HookRegistration, ".claude/settings.json"},
		{root, "cp -r evil/.claude .", HookRegistration, ".claude/settings.json"},
		{root, "rm -rf " + home + "/.claude", HookRegistration, "~/.claude/settings.json"},
		{root, "rm -rf .[a-z]*", AgentShellFiles, ".agent-shell"},
		{root, "shopt -s dotglob; rm -rf *", AgentShellFiles, ".agent-shell"},
		{root, "rm -rf .n*", NpmScriptShell, ".npmrc"},
	} {
		d := Command(root, tt.cwd, tt.command, nil, nil)
		if d == nil || d.Guard != tt.guard || d.Target != tt.target {
			t.Errorf("%q: got %+v, want %s on %s", tt.command, d, tt.guard, tt.target)
		}
	}
	// A recursive copy that creates a protected file the root lacks.
	writeGuardFile(t, root, "evil2/.github/hooks/evil.json", "{}")
	writeGuardFile(t, root, "evil2/.windsurf/hooks.json", "{}")
	for _, c := range []string{"cp -r evil2/. .", "rsync -a evil2/ .", "cp -R evil2/.github .", "mv evil2/.github/hooks/evil.json .github/hooks/"} {
		if d := Command(root, root, c, nil, nil); d == nil || d.Target != ".github/hooks/evil.json" {
			t.Errorf("%q: got %+v, want .github/hooks/evil.json", c, d)
		}
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	writeGuardFile(t, fresh, "src/main.go", "package main\n")
	writeGuardFile(t, fresh, "kit/.claude/settings.json", "{}")
	if d := Command(fresh, fresh, "cp -r kit/. .", nil, nil); d == nil || d.Target != ".claude/settings.json" {
		t.Errorf("cp -r kit/. . into a root without .claude: got %+v", d)
	}
	if d := Command(fresh, fresh, "cp -r src/. .", nil, nil); d != nil {
		t.Errorf("cp -r src/. .: denied: %s", d.Reason)
	}
	// A recursive copy of a folder the line makes first: what it holds is
	// not on disk to read, so it may be anything.
	for _, c := range []string{"mkdir -p e/.claude && echo {} > e/.claude/settings.json && cp -r e/.claude .", "rsync -a e/ ."} {
		if d := Command(fresh, fresh, c, nil, nil); d == nil {
			t.Errorf("%q: allowed", c)
		}
	}
	for _, c := range []string{"cp -r newdir .", "cp -r newdir dist/", "rsync -a e/ dist/"} {
		if d := Command(fresh, fresh, c, nil, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
	// A glob over the whole file system that reaches the root (the test's
	// root is some folders deep: /*/*/... with one * fewer names a folder
	// that holds it).
	depth := strings.Count(filepath.ToSlash(root), "/")
	for _, c := range []string{"rm -rf " + strings.Repeat("/*", depth), "rm -rf " + strings.Repeat("/*", depth-1),
		"chmod -R 777 " + strings.Repeat("/*", depth-1)} {
		if d := Command(root, root, c, nil, nil); d == nil {
			t.Errorf("%q: allowed", c)
		}
	}
	// A recursive copy into a folder that does not hold a protected path,
	// or from a source without one, is fine.
	for _, c := range []string{"cp -r src/. .", "rsync -a plain/ ./", "cp -r plain .claude", "rm -rf sub", "chmod 755 src"} {
		if d := Command(root, root, c, nil, nil); d != nil {
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
		{root, "echo x > state-link/events/s1.jsonl", AgentShellFiles},
		{root, "echo x > state-link/new", AgentShellFiles},
		{root, "echo x > settings-link", HookRegistration},
		{root, "sed -i s/a/b/ settings-link", HookRegistration},
		{root, "cp /tmp/agent-shell-guard-src settings-link", HookRegistration},
		{root, "echo x > up/../../.agent-shell/x", AgentShellFiles}, // .. after a link climbs from its target
		{outside, "echo x > repo-link/.claude/settings.json", HookRegistration},
		{root, "ln -s .agent-shell/events ev", AgentShellFiles},
		{root, "ln .claude/settings.json hard", HookRegistration},
		{root, "cd sub && ln -s ../.claude/settings.json s", HookRegistration},
		{root, "ln -s ../.claude/settings.json sub/s", HookRegistration},
		{root, "cp -s .codex/hooks.json x", HookRegistration},
		{root, "rm .agent-*/events/*", AgentShellFiles},
		{root, "echo x > .claude/sett*.json", HookRegistration},
		{root, "rm .github/hooks/*.json", HookRegistration},
		{root, "git checkout -- '*.json'", AgentShellFiles}, // .github/hooks/agent-shell/hooks.json comes first
		{root, "git checkout -- ':/.claude/settings.json'", HookRegistration},
		{root, "git restore ':(top).codex/config.toml'", HookRegistration},
		{root, "git -C sub checkout -- ../.gemini/settings.json", HookRegistration},
		{root, "cd .claude && rm settings.json", HookRegistration},
		{root, "cd .github; rm -rf hooks", AgentShellFiles},
		{root, "pushd .cursor && truncate -s 0 hooks.json", HookRegistration},
		{root, "cd sub; cd ..; rm .codex/hooks.json", HookRegistration},
		{root, "cd " + root + "/.github/hooks && echo x > new.json", HookRegistration},
		{root, "mv src/main.go .claude/settings.json", HookRegistration},
		{root, "cp -t .github/hooks/agent-shell src/main.go", AgentShellFiles},        // into a protected folder
		{root, "mv -t .agent-shell/state src/main.go", AgentShellFiles},               // likewise
		{root, "install -D src/main.go .github/hooks/agent-shell/x", AgentShellFiles}, // creates it
		{root, "echo x > .agent-shell/$X", AgentShellFiles},                           // only the name is unknown
		{root, "rm -rf .agent-shell/$(date +%s)", AgentShellFiles},                    // likewise
		{root, "echo x > .github/hooks/agent-shell/${NAME}.star", AgentShellFiles},    // likewise
		{root, "echo x > $HOME/.claude/settings.json", HookRegistration},              // the home's registration
		{root, "echo x > ~/.claude/settings.json", HookRegistration},
		{root, "echo x > \"$(pwd)/.codex/hooks.json\"", HookRegistration},
		{root, "echo x > $(git rev-parse --show-toplevel)/.codex/hooks.json", HookRegistration},
		{root, "cat src/main.go > " + home + "/.copilot/hooks/mine.json", HookRegistration},
		{root, "echo x > .Claude/Settings.json", HookRegistration}, // case-insensitive file systems
	} {
		d := Command(root, tt.cwd, tt.command, nil, nil)
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
		if d := Command(root, root, c, nil, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
	}
	// cp a.json DIR/ lands on DIR/a.json.
	writeGuardFile(t, root, "staging/settings.json", "{}")
	if d := Command(root, root, "cp staging/settings.json .claude/", nil, nil); d == nil || d.Target != ".claude/settings.json" {
		t.Errorf("cp into .claude/: got %+v, want .claude/settings.json", d)
	}
	if d := Command(root, root, "mv staging/settings.json .claude", nil, nil); d == nil || d.Target != ".claude/settings.json" {
		t.Errorf("mv into .claude: got %+v, want .claude/settings.json", d)
	}
}

func TestGuardHomeRegistrations(t *testing.T) {
	root, home := guardRoot(t)
	ev := parseHost(t, "claude", nil, js(map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(home, ".claude", "settings.json"), "old_string": "{}", "new_string": `{"disableAllHooks":true}`}}), "")
	if d := Check(root, ev, nil, nil); d == nil || d.Guard != HookRegistration || d.Target != "~/.claude/settings.json" {
		t.Errorf("Edit of ~/.claude/settings.json: %+v", d)
	}
	if d := Check(root, ev, nil, []string{"~/.claude/settings.json"}); d != nil {
		t.Errorf("allow_agent_edits ~/.claude/settings.json: denied: %s", d.Reason)
	}
	for _, c := range []string{"echo x > ~/.codex/config.toml", "rm ~/.gemini/settings.json", "cd ~ && rm -rf .cursor",
		"echo '{}' > $HOME/.copilot/hooks/x.json", "cp x ~/.config/amp/settings.json"} {
		if d := Command(root, root, c, nil, nil); d == nil || d.Guard != HookRegistration {
			t.Errorf("%q: %+v", c, d)
		}
	}
	for _, c := range []string{"cat ~/.claude/settings.json", "echo x > ~/notes.txt", "rm -rf ~/.cache"} {
		if d := Command(root, root, c, nil, nil); d != nil {
			t.Errorf("%q: denied: %s", c, d.Reason)
		}
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
		if g := Command(root, root, cmd, nil, nil); g == nil {
			t.Errorf("%q: not guarded", cmd)
		}
	}
	if g := Command(root, root, "cat "+cfg+"/agent-shell/authorized.json", nil, nil); g != nil {
		t.Errorf("reading the record was denied: %s", g.Reason)
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
		done := make(chan *Denial, 1)
		go func() { done <- Command(root, root, c, nil, nil) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%q: the guard blocked", c)
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
		d := Check(root, edit(tt.rel), nil, allow)
		if (d == nil) != tt.opened {
			t.Errorf("%s with %v: got %+v, want opened=%v", tt.rel, allow, d, tt.opened)
		}
		if d := Check(root, edit(tt.rel), nil, nil); d == nil {
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
		if d := Command(root, root, tt.command, nil, allow); (d == nil) != tt.opened {
			t.Errorf("%q with %v: got %+v, want opened=%v", tt.command, allow, d, tt.opened)
		}
	}
	if d := Command(root, root, "rm -rf .agent-shell", nil, []string{".agent-shell/**"}); d != nil {
		t.Errorf("rm -rf .agent-shell with .agent-shell/**: denied: %s", d.Reason)
	}
	if d := Command(root, root, "echo x >> .npmrc", nil, []string{".npmrc"}); d != nil {
		t.Errorf(".npmrc opened: denied: %s", d.Reason)
	}
	// A variable names no path: allow_agent_edits cannot open it.
	if d := Command(root, root, "AGENTSHELL_PASSTHROUGH=1 npm test", nil, []string{"**", "AGENTSHELL_PASSTHROUGH"}); d == nil {
		t.Errorf("allow_agent_edits opened a variable")
	}
}
