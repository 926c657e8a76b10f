package guard

import (
	"path"
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Names the line gives itself. Variables it sets (d=.claude; echo x >
// $d/settings.json) are not dynamic to the guard: a write whose path uses
// one is checked with each value the line gives it, besides as a dynamic
// path. A symbolic link it makes (ln -s .claude c; echo x > c/settings.json)
// is another name for its target: a write through it is checked at the
// target too. Every assignment and link anywhere in the line counts,
// whatever its scope or order (a loop runs later text first; a subshell's
// is over-counted, which can only deny more).

// maxVarWords bounds the paths one word expands to, and maxVarRounds the
// variables expanded within one another (b=$a/hooks).
const (
	maxVarWords  = 16
	maxVarRounds = 3
)

// declares reports the builtins that set variables from NAME=value
// arguments.
func declares(name string) bool {
	switch name {
	case "export", "declare", "typeset", "local", "readonly":
		return true
	}
	return false
}

// lineVars adds the line's assignments to g.vars: those that stand alone
// (an array's elements each a value), those export, declare, typeset,
// local and readonly make, and the positional parameters set -- sets.
func (g *guarder) lineVars(l *shellcmd.Line) {
	set := func(name, value string) {
		if g.vars == nil {
			g.vars = map[string][]string{}
		}
		if len(g.vars[name]) < maxVarWords {
			g.vars[name] = append(g.vars[name], value)
		}
	}
	add := func(a string) {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" || strings.ContainsAny(name, "$[") {
			return
		}
		if inner, ok := strings.CutPrefix(value, "("); ok && strings.HasSuffix(inner, ")") {
			for _, v := range strings.Fields(strings.TrimSuffix(inner, ")")) {
				set(name, v)
			}
			return
		}
		set(name, value)
	}
	for _, a := range l.Assigns {
		add(a)
	}
	for i := range l.Commands {
		argv := l.Commands[i].Argv
		switch {
		case len(argv) > 1 && argv[0] == "set" && (argv[1] == "--" || !strings.HasPrefix(argv[1], "-") && !strings.HasPrefix(argv[1], "+")):
			words := argv[1:]
			if words[0] == "--" {
				words = words[1:]
			}
			for n, w := range words {
				if n < 9 {
					set(string(rune('1'+n)), w)
				}
			}
		case len(argv) > 0 && declares(argv[0]):
			for _, a := range argv[1:] {
				if !strings.HasPrefix(a, "-") {
					add(a)
				}
			}
		}
	}
}

// withLineVars is word with the line's variables in it replaced by the
// values the line gives them ($d, ${d}), each combination, up to
// maxVarWords words; nil when it uses none.
func (g *guarder) withLineVars(word string) []string {
	if len(g.vars) == 0 {
		return nil
	}
	words := []string{word}
	for range maxVarRounds {
		var next []string
		changed := false
		for _, w := range words {
			name, start, end := firstVar(w, g.vars)
			if name == "" {
				next = append(next, w)
				continue
			}
			changed = true
			for _, v := range g.vars[name] {
				if len(next) < maxVarWords {
					next = append(next, w[:start]+v+w[end:])
				}
			}
		}
		words = next
		if !changed {
			break
		}
	}
	if len(words) == 1 && words[0] == word {
		return nil
	}
	return words
}

// firstVar finds the first $NAME, ${NAME} or ${NAME[i]} (any element of
// an array), or $1 to $9, in w whose NAME is in vars.
func firstVar(w string, vars map[string][]string) (name string, start, end int) {
	for i := 0; i < len(w); i++ {
		if w[i] != '$' || i+1 >= len(w) {
			continue
		}
		if w[i+1] == '{' {
			if j := strings.IndexByte(w[i+2:], '}'); j > 0 {
				n := w[i+2 : i+2+j]
				if k := strings.IndexByte(n, '['); k > 0 && strings.HasSuffix(n, "]") {
					n = n[:k]
				}
				if vars[n] != nil {
					return n, i, i + 3 + j
				}
			}
			continue
		}
		if c := w[i+1]; c >= '1' && c <= '9' {
			if n := w[i+1 : i+2]; vars[n] != nil {
				return n, i, i + 2
			}
			continue
		}
		j := i + 1
		for j < len(w) && (w[j] == '_' || w[j] >= 'a' && w[j] <= 'z' || w[j] >= 'A' && w[j] <= 'Z' || j > i+1 && w[j] >= '0' && w[j] <= '9') {
			j++
		}
		if n := w[i+1 : j]; vars[n] != nil {
			return n, i, j
		}
	}
	return "", 0, 0
}

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
					if len(g.links[name]) < maxVarWords {
						g.links[name] = append(g.links[name], to)
					}
				}
			}
		}
	}
}

// throughLinks is word with a leading link the line makes replaced by what
// it points to, links within links too (up to maxVarRounds); nil when word
// starts with none.
func (g *guarder) throughLinks(word string) []string {
	if len(g.links) == 0 {
		return nil
	}
	var out []string
	words := []string{path.Clean(word)}
	for range maxVarRounds {
		var next []string
		for _, w := range words {
			for name, targets := range g.links {
				rest, ok := strings.CutPrefix(w, name)
				if !ok || rest != "" && rest[0] != '/' {
					continue
				}
				for _, t := range targets {
					if len(out) < maxVarWords {
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
