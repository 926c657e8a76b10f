package guard

import (
	"path"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Links the line makes. A symbolic link it makes (ln -s .claude c; echo x
// > c/settings.json) is another name for its target: a write through it is
// checked at the target too. Every link anywhere in the line counts,
// whatever its scope or order (a loop runs later text first; a subshell's
// is over-counted, which can only deny more). Variables the line sets
// (d=.claude; echo x > $d/settings.json) are read by the parser
// (shellcmd), which walks a command once with each value they may hold.

// maxLinkPaths bounds the paths a link stands for, and maxLinkRounds the
// links within one another.
const (
	maxLinkPaths  = 16
	maxLinkRounds = 3
)

// lineLinks adds the symbolic links the line's ln -s commands make to
// g.links: the link's path as written (and, where the destination may be
// a folder, the link inside it) to the target, relative to the link's
// folder as the kernel reads it.
func (g *guarder) lineLinks(l *shellcmd.Line) {
	for i := range l.Commands {
		for _, layer := range l.Commands[i].Layers {
			if len(layer) == 0 || layer[0] != "ln" {
				continue
			}
			c := shellcmd.CopyRoles("ln", layer[1:])
			if !c.Args.Has("s", "symbolic") || c.Dest == "" {
				continue
			}
			for _, target := range c.Sources {
				names := []string{path.Join(c.Dest, path.Base(target))}
				if !c.ToDir {
					names = append(names, path.Clean(c.Dest))
				}
				for _, name := range names {
					to := target
					if !strings.HasPrefix(to, "/") && !strings.HasPrefix(to, "~") && !strings.HasPrefix(to, "$") {
						to = path.Join(path.Dir(name), to)
					}
					if g.links == nil {
						g.links = map[string][]string{}
					}
					if len(g.links[name]) < maxLinkPaths {
						g.links[name] = append(g.links[name], to)
					}
				}
			}
		}
	}
}

// throughLinks is word with a leading link the line makes replaced by what
// it points to, links within links too (up to maxLinkRounds); nil when word
// starts with none.
func (g *guarder) throughLinks(word string) []string {
	if len(g.links) == 0 {
		return nil
	}
	var out []string
	words := []string{path.Clean(word)}
	for range maxLinkRounds {
		var next []string
		for _, w := range words {
			for name, targets := range g.links {
				rest, ok := strings.CutPrefix(w, name)
				if !ok || rest != "" && rest[0] != '/' {
					continue
				}
				for _, t := range targets {
					if len(out) < maxLinkPaths {
						next = append(next, t+rest)
						out = append(out, t+rest)
					}
				}
			}
		}
		if len(next) == 0 {
			break
		}
		words = next
	}
	return out
}
