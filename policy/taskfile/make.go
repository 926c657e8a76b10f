// Package taskfile reads the files task runners run commands from: a
// makefile, a justfile, mise's configuration, deno.json's tasks,
// composer.json's and pyproject.toml's scripts. It reads, it does not
// evaluate: onboarding lists their targets (policy/discover), and the
// parser follows what a command runs from them (policy/shellcmd). Each
// reader never fails: what it does not understand is not a target, a
// recipe or a task.
package taskfile

import (
	"strings"
)

// Makefile is what a makefile says, as far as reading it tells.
type Makefile struct {
	// Targets are the explicit targets, in file order, each once.
	Targets []string
	// FirstGoal is the first target that is not special (.PHONY) or a
	// pattern; DefaultGoal is .DEFAULT_GOAL's first word when set.
	FirstGoal, DefaultGoal string
	// Anything are the match-anything rules that make a target from one
	// prerequisite (%: common-% ;): its prefix and suffix.
	Anything [][2]string
	// OneShell: .ONESHELL, a target's recipe lines are one script.
	OneShell bool
	// Dir is $(CURDIR), "" when not known.
	Dir string

	rules  map[string]*makeRule
	vars   map[string]string // variables set once to a value
	unsure map[string]bool   // set more than once, by the shell, by define, or by the command line's unknown value
	seen   map[string]bool
	// include returns the text of a makefile an include directive names,
	// depth includes deep ("" when it is not read).
	include  func(name string, depth int) string
	tooLarge bool // an expansion passed maxExpanded
	included int  // includes read so far
}

// makeRule is one target's rules, each a block that all the targets of
// its line share (a line of many targets costs no copy per target).
type makeRule struct {
	blocks []*makeBlock
}

type makeBlock struct {
	prereqs []string
	recipes []string
}

// maxIncludeDepth and maxIncludes bound the includes read, whatever the
// include function allows: a makefile that includes itself twice ends
// here, not after 2^depth reads.
const (
	maxIncludeDepth = 16
	maxIncludes     = 64
)

// maxExpanded bounds the text one expansion makes: variables that refer
// to each other twice over double it at every step.
const maxExpanded = 64 << 10

// ReadMakefile reads makefile text. include reads a makefile an include
// directive names (a static name), depth includes deep; nil reads none.
func ReadMakefile(text string, include func(name string, depth int) string) *Makefile {
	m := &Makefile{rules: map[string]*makeRule{}, vars: map[string]string{}, unsure: map[string]bool{}, seen: map[string]bool{}, include: include}
	m.parse(text, 0)
	return m
}

func (m *Makefile) parse(text string, depth int) {
	inDefine := 0
	var current *makeBlock // the rule whose recipe follows
	for _, line := range logicalLines(text) {
		if strings.HasPrefix(line, "\t") {
			if current != nil && inDefine == 0 {
				current.recipes = append(current.recipes, line[1:])
			}
			continue
		}
		t := strings.TrimSpace(stripMakeComment(line))
		if t == "" {
			continue // a blank line keeps a recipe going
		}
		first, rest, _ := strings.Cut(t, " ")
		switch first {
		case "define":
			if f := strings.Fields(rest); len(f) > 0 {
				m.unsure[f[0]] = true
			}
			inDefine++
			current = nil
			continue
		case "endef":
			inDefine = max(0, inDefine-1)
			continue
		}
		if inDefine > 0 {
			continue
		}
		switch first {
		case "include", "-include", "sinclude":
			for _, f := range strings.Fields(rest) {
				if m.include != nil && depth < maxIncludeDepth && m.included < maxIncludes && !strings.ContainsAny(f, "$*?[") {
					m.included++
					if sub := m.include(f, depth+1); sub != "" {
						m.parse(sub, depth+1)
					}
				}
			}
			current = nil
			continue
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif":
			continue // every branch is read
		case "export", "unexport", "override", "private":
			if indexOutsideRefs(rest, '=') < 0 {
				continue
			}
			t = strings.TrimSpace(rest)
		case "vpath", "undefine", "load", "-load":
			continue
		}
		colon := indexOutsideRefs(t, ':')
		eq := indexOutsideRefs(t, '=')
		if eq >= 0 && (colon < 0 || eq < colon || strings.HasPrefix(t[colon:], ":=") || strings.HasPrefix(t[colon:], "::=")) {
			// An assignment: NAME = v, NAME := v, NAME ?= v, ...
			name := strings.TrimRight(t[:eq], ":?+! \t")
			op := strings.TrimSpace(t[len(name) : eq+1])
			m.assign(name, op, strings.TrimSpace(t[eq+1:]))
			current = nil
			continue
		}
		if colon < 0 {
			current = nil
			continue
		}
		names := strings.Fields(t[:colon])
		after := strings.TrimPrefix(t[colon+1:], ":") // a double-colon rule
		if len(names) == 1 && names[0] == "%" {
			prereq, _, _ := strings.Cut(after, ";")
			if p := strings.Fields(prereq); len(p) == 1 && strings.Count(p[0], "%") == 1 && !strings.Contains(p[0], "$") {
				pre, suf, _ := strings.Cut(p[0], "%")
				m.Anything = append(m.Anything, [2]string{pre, suf})
			}
		}
		prereqs, recipe, inline := strings.Cut(after, ";")
		if i := indexOutsideRefs(prereqs, ':'); i >= 0 {
			prereqs = prereqs[i+1:] // a static pattern rule: targets: pattern: prereqs
		}
		current = &makeBlock{}
		if eq >= 0 {
			current = nil // a target's own variable: TARGET: NAME = v
		} else {
			for _, p := range strings.Fields(prereqs) {
				current.prereqs = append(current.prereqs, p)
			}
			if inline {
				current.recipes = append(current.recipes, recipe)
			}
		}
		for _, tg := range names {
			if tg == ".ONESHELL" {
				m.OneShell = true
			}
			if m.FirstGoal == "" && !strings.HasPrefix(tg, ".") && !strings.ContainsAny(tg, "%$") {
				m.FirstGoal = tg
			}
			if !m.seen[tg] {
				m.seen[tg] = true
				m.Targets = append(m.Targets, tg)
			}
			if current == nil {
				continue
			}
			r := m.rules[tg]
			if r == nil {
				r = &makeRule{}
				m.rules[tg] = r
			}
			if len(r.blocks) == 0 || r.blocks[len(r.blocks)-1] != current {
				r.blocks = append(r.blocks, current)
			}
		}
	}
}

// assign records one variable assignment.
func (m *Makefile) assign(name, op, value string) {
	if name == ".DEFAULT_GOAL" {
		m.DefaultGoal = firstField(value)
	}
	_, set := m.vars[name]
	switch {
	case m.unsure[name]:
	case op == "!=":
		m.unsure[name] = true
	case op == "?=" && set:
	case op == "+=" && set:
		m.vars[name] += " " + value
	case set && m.vars[name] != value:
		delete(m.vars, name)
		m.unsure[name] = true
	default:
		m.vars[name] = value
	}
}

// Set sets a variable as the command line does, over the makefile's.
func (m *Makefile) Set(name, value string) {
	if !m.unsure[name] {
		m.vars[name] = value
	}
}

// Unset makes a variable one whose value is not known (the command line
// gives it one only known at run time).
func (m *Makefile) Unset(name string) {
	delete(m.vars, name)
	m.unsure[name] = true
}

// Expand expands the make references in s for target ("" outside a
// recipe); ok is false when one cannot be known by reading: a function
// ($(shell CMD) is the shell's $(CMD)), a variable set in several places,
// an automatic variable other than $@.
func (m *Makefile) Expand(s, target string) (string, bool) {
	return m.expand(s, target, 0)
}

func (m *Makefile) expand(s, target string, depth int) (string, bool) {
	if depth > 10 || m.tooLarge {
		return "", false
	}
	if !strings.Contains(s, "$") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		i++
		var name string
		switch c := s[i]; c {
		case '$':
			b.WriteByte('$')
			continue
		case '(', '{':
			end := closing(s, i)
			if end < 0 {
				return "", false
			}
			name, i = s[i+1:end], end
		default:
			name = string(c)
		}
		v, ok := m.value(name, target, depth)
		if !ok {
			return "", false
		}
		if b.Len()+len(v) > maxExpanded {
			m.tooLarge = true
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// closing returns the index of the parenthesis or brace that closes the
// one at open, -1 when there is none.
func closing(s string, open int) int {
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case '(', '{':
			depth++
		case ')', '}':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// value is what one reference stands for.
func (m *Makefile) value(name, target string, depth int) (string, bool) {
	switch name {
	case "@":
		return target, target != ""
	case "MAKE":
		return "make", true
	case "CURDIR":
		return m.Dir, m.Dir != ""
	case "RM":
		if _, set := m.vars[name]; !set && !m.unsure[name] {
			return "rm -f", true
		}
	}
	if cmd, ok := strings.CutPrefix(name, "shell "); ok {
		// $(shell CMD) is CMD's output, as the shell's $(CMD) is: the
		// command is walked, its output is a word only known at run time.
		v, ok := m.expand(cmd, target, depth+1)
		return "$(" + v + ")", ok
	}
	if strings.ContainsAny(name, " ,:$") || m.unsure[name] {
		return "", false // a function, a substitution reference or a computed name
	}
	v, ok := m.vars[name]
	if !ok {
		return "", false // from the environment, a built-in, or nowhere
	}
	return m.expand(v, target, depth+1)
}

// Recipes lists the recipe lines make runs for targets, what they depend
// on first, each expanded (a line that cannot be known is left out, and
// so is a target no rule makes); ok is false past max lines, or when an
// expansion passes its bound.
func (m *Makefile) Recipes(targets []string, max int) (lines []string, ok bool) {
	seen := map[string]bool{}
	var visit func(t string) bool
	visit = func(t string) bool {
		r := m.rules[t]
		if r == nil || seen[t] {
			return true
		}
		seen[t] = true
		for _, b := range r.blocks {
			for _, p := range b.prereqs {
				if p, ok := m.Expand(p, ""); ok && !visit(p) {
					return false
				}
			}
		}
		var script []string
		for _, b := range r.blocks {
			for _, line := range b.recipes {
				line = strings.TrimLeft(line, " \t@-+")
				if x, ok := m.Expand(line, t); ok && strings.TrimSpace(x) != "" {
					script = append(script, x)
				}
				if m.tooLarge || len(lines)+len(script) > max {
					return false
				}
			}
		}
		if m.OneShell && len(script) > 0 {
			script = []string{strings.Join(script, "\n")}
		}
		lines = append(lines, script...)
		return true
	}
	for _, t := range targets {
		if !visit(t) {
			return nil, false
		}
	}
	return lines, true
}

// Goal is the target make runs with none named: .DEFAULT_GOAL, or the
// first.
func (m *Makefile) Goal() string {
	if m.DefaultGoal != "" {
		return m.DefaultGoal
	}
	return m.FirstGoal
}

// indexOutsideRefs is the index of the first c in t that is not inside a
// variable reference or function call ($(…), ${…}), -1 when there is none:
// in $(warning "not found: run curl …") neither the colon nor the words are
// a rule.
func indexOutsideRefs(t string, c byte) int {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '$' && i+1 < len(t) && (t[i+1] == '(' || t[i+1] == '{'):
			depth++
			i++
		case depth > 0 && (t[i] == '(' || t[i] == '{'):
			depth++
		case depth > 0 && (t[i] == ')' || t[i] == '}'):
			depth--
		case depth == 0 && t[i] == c:
			return i
		}
	}
	return -1
}

// logicalLines joins backslash-continued lines.
func logicalLines(src string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		if strings.HasSuffix(l, "\\") && !strings.HasSuffix(l, "\\\\") {
			cur.WriteString(strings.TrimSuffix(l, "\\"))
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(l)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func stripMakeComment(l string) string {
	for i := 0; i < len(l); i++ {
		if l[i] == '#' && (i == 0 || l[i-1] != '\\') {
			return l[:i]
		}
	}
	return l
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
