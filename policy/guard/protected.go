package guard

import (
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/internal/lazy"
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
	fixOpen   = "A human edits it, or opens it to agents with [guard] allow_agent_edits in an authorized configuration."
)

func fixInstall(host string) string {
	return "A human edits it, or runs 'agent-shell hook install --agent " + host + "'."
}

// recordGuarded is agent-shell's record of the configurations a human
// authorized, relative to the configuration folder. Deleting it would make
// a changed configuration look never authorized, and so decide as it is.
var recordGuarded = guardedPath{"agent-shell", guardTree, AgentShellFiles, "agent-shell's record of the configurations a human authorized",
	"A human changes it with 'agent-shell authorize'."}

// rootGuarded are the protected paths under the repository root: agent-shell's
// folders first, so that a file in one is reported as agent-shell's, then
// every host's registrations.
var rootGuarded = lazy.Value[[]guardedPath]{New: func() []guardedPath {
	list := []guardedPath{
		{".github/hooks/agent-shell", guardTree, AgentShellFiles, "agent-shell's configuration", fixConfig},
		{".agent-shell", guardTree, AgentShellFiles, "agent-shell's flight recorder and state", fixState},
	}
	for _, d := range hostapi.Descriptors() {
		for _, r := range d.Registrations {
			fix := fixOpen // a file the host reads and agent-shell never writes
			if slices.ContainsFunc(d.Installs, func(f string) bool { ok, _ := path.Match(r.Path, f); return ok }) {
				fix = fixInstall(d.Name)
			}
			list = append(list, registration(r, fix))
		}
	}
	return list
}}

// homeGuarded are the protected paths under the home: every host's user-level
// registrations (a change there can switch the hooks off for every
// repository), and the record of authorizations.
var homeGuarded = lazy.Value[[]guardedPath]{New: func() []guardedPath {
	var list []guardedPath
	for _, d := range hostapi.Descriptors() {
		for _, r := range d.HomeRegistrations {
			list = append(list, registration(r, fixHome))
		}
	}
	record := recordGuarded
	record.path = ".config/" + record.path
	return append(list, record)
}}

// registration is a host's registration file as the guard protects it.
func registration(r hostapi.Registration, fix string) guardedPath {
	p, kind := r.Path, guardFile
	if dir, ok := strings.CutSuffix(p, "/**"); ok {
		p, kind = dir, guardTree
	} else if hasGlobMeta(p) {
		kind = guardGlob
	}
	return guardedPath{strings.ToLower(p), kind, HookRegistration, r.What, fix}
}

// mountPath is what the kernel makes read-only for a protected path: a
// folder whole; a file, or the files a pattern matches, by their folder
// (a folder holding a read-only file could be renamed away and made
// again), the part of it before any pattern; but a file at the top by
// itself, since its folder is the whole root or home (renaming those is not
// stopped: README, "Enforced mode").
func mountPath(e guardedPath) string {
	if e.kind == guardTree {
		return e.path
	}
	dir := path.Dir(e.path)
	if i := strings.IndexAny(dir, "*?["); i >= 0 {
		dir = path.Dir(dir[:i])
	}
	if dir == "." {
		return e.path
	}
	return dir
}

// configGuarded is agent-shell's record of authorizations under a
// configuration folder that XDG_CONFIG_HOME moved out of the home.
var configGuarded = []guardedPath{recordGuarded}

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
				add(base, mountPath(e))
			}
		}
	}
	each(g.roots(), rootGuarded.Get())
	each(g.homes(), homeGuarded.Get())
	each(g.configs(), configGuarded)
	for _, base := range append(g.roots(), g.homes()...) {
		add(base, ".npmrc")
	}
	sort.Strings(out)
	return out
}
