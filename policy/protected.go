package policy

import (
	"path"
	"path/filepath"
	"sort"
)

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
// Paths need not exist. e may be nil (nothing is opened).
func (e *Engine) ProtectedPaths(root string) []string {
	g := newGuarder(root, "", e.allowEdits())
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
