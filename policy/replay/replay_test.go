package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry"
)

const oldManifest = `version = 1

[policy]
default = "allow"

[[rule]]
id = "no-force-push"
action = "deny"
reason = "force pushes rewrite shared history"
match = { argv_prefix = ["git", "push"], argument = "--force" }

[[rule]]
id = "no-rm-rf"
action = "deny"
match = { argv_prefix = ["rm"], argument = "-r" }
`

// The proposal loosens one rule (force pushes are let through), tightens
// another (curl is denied) and renames a third.
const newManifest = `version = 1

[policy]
default = "allow"

[[rule]]
id = "no-curl"
action = "deny"
match = { basename = "curl" }

[[rule]]
id = "no-recursive-rm"
action = "deny"
match = { argv_prefix = ["rm"], argument = "-r" }
`

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repo makes a repository whose configuration is manifest.
func repo(t *testing.T, manifest string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, filepath.FromSlash(policy.ManifestSubpath)), manifest)
	return root
}

func noenv(string) string { return "" }

// record decides each command as Claude's hook would under the
// repository's configuration and writes the decision events, as the hook
// does, to session s1; then a damaged line, a call whose payload could not
// be read, and an npm script.
func record(t *testing.T, root string, commands []string) []string {
	t.Helper()
	e := policy.Load(root, noenv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	dir := filepath.Join(root, ".agent-shell", "events")
	w, err := telemetry.OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, cmd := range commands {
		in := `{"command":` + quote(cmd) + `}`
		ev := &hostapi.Event{Agent: "claude", Kind: hostapi.KindPreTool, NativeEvent: "PreToolUse", Tool: hostapi.ToolBash,
			NativeTool: "Bash", Command: cmd, Input: []byte(in), Cwd: root, SessionID: "s1"}
		d := e.DecideEvent(ev)
		if err := w.Append(&telemetry.Event{SessionID: "s1", Event: telemetry.EventPolicyDecision, Command: cmd,
			Decision: string(d.Action), MatchedRule: d.Rule, Rule: d.Rule, Reason: d.Reason, Agent: "claude",
			NativeEvent: "PreToolUse", ToolName: "Bash", Input: []byte(in), Cwd: root,
			Timestamp: at.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range []*telemetry.Event{
		{SessionID: "s1", Event: telemetry.EventPolicyDecision, Decision: "deny", Agent: "claude", Reason: "invalid JSON"},
		{SessionID: "s1", Event: telemetry.EventScriptEnd, Command: "vitest run", Script: "test", Cwd: root},
	} {
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, err := os.OpenFile(w.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"v\":1,\"event\":\"policy_decision\",\"command\":\"cut off\n")
	f.Close()
	return []string{w.Path()}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

var commands = []string{
	"git push --force origin main",   // deny -> allow: loosens
	"curl -fsSL https://example.com", // allow -> deny: tightens
	"rm -rf build",                   // deny -> deny, other rule
	"ls -la",                         // unchanged
}

func TestReplaySameConfigurationChangesNothing(t *testing.T) {
	root := repo(t, oldManifest)
	files := record(t, root, commands)
	res, err := Run(Options{Engine: policy.LoadReplay(root, root, t.TempDir(), noenv, false), Root: root, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 5 || res.Unchanged != 5 || len(res.Changed) != 0 {
		t.Fatalf("calls %d, unchanged %d, changes %+v", res.Calls, res.Unchanged, res.Changed)
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "could not be read") {
		t.Errorf("skipped %+v", res.Skipped)
	}
	if res.DamagedLines() != 1 || res.Damaged[0].FirstLine != 7 {
		t.Errorf("damaged %+v", res.Damaged)
	}
}

func TestReplayAnotherConfiguration(t *testing.T) {
	root := repo(t, oldManifest)
	files := record(t, root, commands)
	proposal := repo(t, newManifest)
	res, err := Run(Options{Engine: policy.LoadReplay(proposal, root, t.TempDir(), noenv, false), Root: root, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 5 || res.Loosened != 1 || res.Tightened != 1 || res.RuleChanged != 1 || res.Unchanged != 2 {
		t.Fatalf("got %+v", res)
	}
	groups := res.Groups()
	want := []struct {
		change         Change
		from, to       string
		ruleFrom, rule string
		command        string
	}{
		{Loosens, "deny", "allow", "no-force-push", "", commands[0]},
		{Tightens, "allow", "deny", "", "no-curl", commands[1]},
		{RuleChanged, "deny", "deny", "no-rm-rf", "no-recursive-rm", commands[2]},
	}
	if len(groups) != len(want) {
		t.Fatalf("groups %+v", groups)
	}
	for i, w := range want {
		g := groups[i]
		if g.Change != w.change || g.From != w.from || g.To != w.to || g.RuleFrom != w.ruleFrom || g.RuleTo != w.rule ||
			g.Count != 1 || g.Calls[0].Command != w.command {
			t.Errorf("group %d: got %+v", i, g)
		}
		if c := g.Calls[0]; c.Session != "s1" || c.Line != i+1 || !c.CwdRecorded || c.Cwd != root || c.Agent != "claude" || c.Tool != "Bash" {
			t.Errorf("group %d: call %+v", i, c)
		}
	}
}

// A line written before decisions recorded their cwd is judged at the
// root, and says so.
func TestReplayOldLineWithoutCwd(t *testing.T) {
	root := repo(t, oldManifest)
	dir := filepath.Join(root, ".agent-shell", "events")
	writeFile(t, filepath.Join(dir, "old.jsonl"),
		`{"v":1,"session_id":"old","event":"policy_decision","command":"rm -rf /tmp/x","decision":"deny","matched_rule":"no-rm-rf","actor":"copilot","timestamp":"2025-01-01T00:00:00.000Z","env":{},"tags":{}}`+"\n")
	res, err := Run(Options{Engine: policy.LoadReplay(root, root, "", noenv, false), Root: root, Files: []string{filepath.Join(dir, "old.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || res.Unchanged != 1 || res.NoCwd != 1 {
		t.Fatalf("got %+v", res)
	}
}

func TestReplayRefusesAConfigurationThatDoesNotLoad(t *testing.T) {
	root := repo(t, oldManifest)
	bad := repo(t, "version = 1\n[[rule]]\nid = 3\n")
	_, err := Run(Options{Engine: policy.LoadReplay(bad, root, "", noenv, false), Root: root})
	if !errors.Is(err, ErrNotLoaded) {
		t.Fatalf("err %v", err)
	}
}

func TestConfigRoot(t *testing.T) {
	root := repo(t, oldManifest)
	for _, dir := range []string{root, filepath.Join(root, filepath.FromSlash(policy.ConfigFolder))} {
		got, err := ConfigRoot(dir)
		if err != nil || got != root {
			t.Errorf("ConfigRoot(%s) = %q, %v", dir, got, err)
		}
	}
	if _, err := ConfigRoot(t.TempDir()); !errors.Is(err, ErrNoConfig) {
		t.Errorf("a folder without a configuration: %v", err)
	}
}

// The shim enforces interceptors, not rules: an npm script a new rule
// denies still runs (unchanged), one a new interceptor rejects does not.
func TestReplayNpmScripts(t *testing.T) {
	root := repo(t, oldManifest)
	files := record(t, root, nil)
	proposal := repo(t, oldManifest+`
[[rule]]
id = "no-vitest"
action = "deny"
match = { basename = "vitest" }
`)
	res, err := Run(Options{Engine: policy.LoadReplay(proposal, root, "", noenv, false), Root: root, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || res.Unchanged != 1 {
		t.Fatalf("a rule changed an npm script: %+v", res)
	}
	proposal = repo(t, oldManifest+`
[[script]]
id = "stop-vitest"
kind = "shell_before_interceptor"
source = '''
def on_event(ctx, state):
    return Intercept.reject("run the tests through npm test")
'''

[[interceptor]]
script = "stop-vitest"
phase = "before"
match = { basename = "vitest" }
`)
	res, err = Run(Options{Engine: policy.LoadReplay(proposal, root, "", noenv, false), Root: root, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || res.Tightened != 1 {
		t.Fatalf("got %+v", res)
	}
	c := res.Changed[0]
	if c.Agent != "npm" || c.Tool != "test" || c.Now.Decision != "deny" || c.Now.Rule != "interceptor:stop-vitest" || !strings.Contains(c.Now.Reason, "run the tests through npm test") {
		t.Errorf("got %+v", c)
	}
}
