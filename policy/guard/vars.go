package guard

import (
	"strings"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Variables the line sets itself (d=.claude; echo x > $d/settings.json)
// are not dynamic to the guard: a write whose path uses one is checked
// with each value the line gives it, besides as a dynamic path. Every
// assignment anywhere in the line counts, whatever its scope or order (a
// loop runs later text first; a subshell's is over-counted, which can only
// deny more).

// maxVarWords bounds the paths one word expands to, and maxVarRounds the
// variables expanded within one another (b=$a/hooks).
const (
	maxVarWords  = 16
	maxVarRounds = 3
)

// declarers set variables from NAME=value arguments.
var declarers = map[string]bool{"export": true, "declare": true, "typeset": true, "local": true, "readonly": true}

// lineVars adds the line's assignments to g.vars: those that stand alone
// and those export, declare, typeset, local and readonly make.
func (g *guarder) lineVars(l *shellcmd.Line) {
	add := func(a string) {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" || strings.ContainsAny(name, "$[") {
			return
		}
		if g.vars == nil {
			g.vars = map[string][]string{}
		}
		if len(g.vars[name]) < maxVarWords {
			g.vars[name] = append(g.vars[name], value)
		}
	}
	for _, a := range l.Assigns {
		add(a)
	}
	for i := range l.Commands {
		argv := l.Commands[i].Argv
		if len(argv) == 0 || !declarers[argv[0]] {
			continue
		}
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") {
				add(a)
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

// firstVar finds the first $NAME or ${NAME} in w whose NAME is in vars.
func firstVar(w string, vars map[string][]string) (name string, start, end int) {
	for i := 0; i < len(w); i++ {
		if w[i] != '$' || i+1 >= len(w) {
			continue
		}
		if w[i+1] == '{' {
			if j := strings.IndexByte(w[i+2:], '}'); j > 0 {
				if n := w[i+2 : i+2+j]; vars[n] != nil {
					return n, i, i + 3 + j
				}
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
