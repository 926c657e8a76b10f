package guard

import (
	"path"
	"path/filepath"
	"sort"
)

// guardKind says how a protected path matches.
type guardKind uint8

const (
	guardTree guardKind = iota // the folder and everything under it
	guardFile                  // exactly this file
	guardGlob                  // files matching a path.Match pattern
)

// guardedPath is one protected location.
type guardedPath struct {
	path  string // lower case, slash-separated, relative to the root (or the home)
	kind  guardKind
	guard string
	what  string // what it is, for reasons
	fix   string // how a human changes it
}

const (
	fixConfig = "A human edits it directly, then runs 'agent-shell authorize'."
	fixState  = "A human who must change it does so directly, outside the agent (agent-shell itself writes it)."
	fixHome   = "A human edits it directly."
	fixNpm    = "A human edits .npmrc, or runs 'agent-shell init --npm'."
)

func fixInstall(host string) string {
	return "A human edits it, or runs 'agent-shell hook install --agent " + host + "'."
}

// rootGuarded are the protected paths under the repository root, folders
// first so that a file in one is reported as agent-shell's.
var rootGuarded = []guardedPath{
	{".github/hooks/agent-shell", guardTree, AgentShellFiles, "agent-shell's configuration", fixConfig},
	{".agent-shell", guardTree, AgentShellFiles, "agent-shell's flight recorder and state", fixState},
	{".claude/settings.json", guardFile, HookRegistration, "Claude Code's hook registration", fixInstall("claude")},
	{".claude/settings.local.json", guardFile, HookRegistration, "Claude Code's hook registration", fixInstall("claude")},
	{".codex/hooks.json", guardFile, HookRegistration, "Codex's hook registration", fixInstall("codex")},
	{".codex/config.toml", guardFile, HookRegistration, "Codex's configuration, which can register hooks", fixInstall("codex")},
	{".gemini/settings.json", guardFile, HookRegistration, "Gemini CLI's hook registration", fixInstall("gemini")},
	{".cursor/hooks.json", guardFile, HookRegistration, "Cursor's hook registration", fixInstall("cursor")},
	{".github/hooks/*.json", guardGlob, HookRegistration, "Copilot's hook registration", fixInstall("copilot")},
	{".opencode/plugins/agent-shell.js", guardFile, HookRegistration, "agent-shell's opencode plugin", fixInstall("opencode")},
	{".amp/settings.json", guardFile, HookRegistration, "Amp's delegate registration", fixInstall("amp")},
}

// homeGuarded are the user-level hook registrations, under the home: a
// change there can switch the hooks off for every repository.
var homeGuarded = []guardedPath{
	{".claude/settings.json", guardFile, HookRegistration, "Claude Code's user settings, which register hooks", fixHome},
	{".codex/hooks.json", guardFile, HookRegistration, "Codex's user hook registration", fixHome},
	{".codex/config.toml", guardFile, HookRegistration, "Codex's user configuration, which can register hooks", fixHome},
	{".gemini/settings.json", guardFile, HookRegistration, "Gemini CLI's user settings, which register hooks", fixHome},
	{".cursor/hooks.json", guardFile, HookRegistration, "Cursor's user hook registration", fixHome},
	{".copilot/hooks/*.json", guardGlob, HookRegistration, "Copilot's user hook registration", fixHome},
	{".config/amp/settings.json", guardFile, HookRegistration, "Amp's user settings", fixHome},
	// Deleting the record of authorizations would make a changed
	// configuration look never authorized, and so decide as it is.
	{".config/agent-shell", guardTree, AgentShellFiles, "agent-shell's record of the configurations a human authorized",
		"A human changes it with 'agent-shell authorize'."},
}

// configGuarded is agent-shell's record of authorizations under a
// configuration folder that XDG_CONFIG_HOME moved out of the home.
var configGuarded = []guardedPath{
	{"agent-shell", guardTree, AgentShellFiles, "agent-shell's record of the configurations a human authorized",
		"A human changes it with 'agent-shell authorize'."},
}

// ProtectedPaths lists, as absolute paths, what the built-in guards keep an
// agent's commands from changing, for the kernel to make read-only in
// enforced mode: under the repository root, the home and the configuration
// folder, each protected folder whole, and each protected file or file
// pattern by its folder (.claude for .claude/settings.json, .github/hooks
// for .github/hooks/*.json): a folder with a read-only file in it could be
// renamed away and made again, and these folders hold a host's
// configuration only. The root's and the home's .npmrc are in it (npm reads
// script-shell there), as files.
// A path that an authorized allow_agent_edits opens whole is left out.
// Paths need not exist. allowEdits is as for Check.
func ProtectedPaths(root string, allowEdits []string) []string {
	g := newGuarder(root, "", allowEdits)
	seen := map[string]bool{}
	var out []string
	add := func(base, rel string) {
		if g.opened(rel) {
			return
		}
		p := filepath.Join(base, filepath.FromSlash(rel))
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	each := func(bases []string, list []guardedPath) {
		for _, base := range bases {
			for _, e := range list {
				rel := e.path
				if e.kind != guardTree {
					rel = path.Dir(rel)
				}
				add(base, rel)
			}
		}
	}
	each(g.roots(), rootGuarded)
	each(g.homes(), homeGuarded)
	each(g.configs(), configGuarded)
	for _, base := range append(g.roots(), g.homes()...) {
		add(base, ".npmrc")
	}
	sort.Strings(out)
	return out
}
