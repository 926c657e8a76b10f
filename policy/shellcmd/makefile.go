package shellcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// make runs what the makefile on disk says: make x runs the recipes of x
// and of what x depends on. As with package.json's scripts (pkgscripts.go),
// an agent that a rule stops could write its command into a recipe, an
// ordinary edit, and run make. So where the caller gives the makefile
// (Disk.File), the recipes make may run are walked as commands it may run
// ([Command.Guessed]). make is not evaluated, only read: a variable set
// once to a static value is expanded, $@ is the target, $(MAKE) is make
// and $(CURDIR) the folder; a recipe line that needs more (a function, a
// variable set in several places or by the shell, $<) is passed over.
// Conditionals are read through: every branch's recipe counts.

// maxMakeRecipes bounds the recipe lines one make command may run that are
// walked; past it the command is unknown, so that padding cannot push one
// out of sight.
const maxMakeRecipes = 256

// maxMakeIncludes bounds the makefiles one makefile includes that are read.
const maxMakeIncludes = 8

// maxMakeText bounds the text one expansion makes: variables that refer to
// each other twice over double it at every step.
const maxMakeText = 64 << 10

// makefileNames are the files GNU make reads by default, in its order.
var makefileNames = []string{"GNUmakefile", "makefile", "Makefile"}

// makefile is what a makefile says, as far as reading it tells.
type makefile struct {
	vars     map[string]string // variables set once to a value
	unsure   map[string]bool   // variables set more than once, or by the shell, or by define
	rules    map[string]*makeRule
	first    string // the default goal
	oneshell bool   // .ONESHELL: a target's recipe lines are one script
	tooLarge bool   // an expansion passed maxMakeText
	includes int
	dir      string
}

// makeRule is one target's rules, each a block that all the targets of
// its line share (so a line of many targets costs no copy per target).
type makeRule struct {
	blocks []*makeBlock
}

type makeBlock struct {
	prereqs []string
	recipes []string
}

// makeAssignment reads a variable assignment, NAME OP VALUE.
func makeAssignment(line string) (name, op, value string, ok bool) {
	n := 0
	for n < len(line) && (line[n] >= 'a' && line[n] <= 'z' || line[n] >= 'A' && line[n] <= 'Z' || line[n] >= '0' && line[n] <= '9' ||
		line[n] == '_' || line[n] == '.' || line[n] == '-') {
		n++
	}
	if n == 0 {
		return "", "", "", false
	}
	rest := strings.TrimLeft(line[n:], " \t")
	for _, op := range []string{":::=", "::=", ":=", "?=", "+=", "!=", "="} {
		if v, found := strings.CutPrefix(rest, op); found {
			return line[:n], op, strings.TrimSpace(v), true
		}
	}
	return "", "", "", false
}

// parse reads makefile text into m; include reads an included makefile's
// text ("" when it cannot be read).
func (m *makefile) parse(text string, include func(name string) string) {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var current *makeBlock // the rule whose recipe follows
	inDefine := false
	for _, line := range strings.Split(text, "\n") {
		if inDefine {
			inDefine = strings.TrimSpace(line) != "endef"
			continue
		}
		if strings.HasPrefix(line, "\t") {
			if current != nil {
				current.recipes = append(current.recipes, line[1:])
			}
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		first, rest, _ := strings.Cut(line, " ")
		switch first {
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif":
			continue // every branch is read
		case "define":
			name, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
			m.unsure[name], inDefine = true, true
			current = nil
			continue
		case "include", "-include", "sinclude":
			for _, name := range strings.Fields(rest) {
				if n, ok := m.expand(name, ""); ok && m.includes < maxMakeIncludes {
					m.includes++
					if sub := include(n); sub != "" {
						m.parse(sub, include)
					}
				}
			}
			current = nil
			continue
		case "export", "unexport", "override", "private", "vpath":
			if first == "vpath" || !strings.ContainsAny(rest, "=") {
				continue
			}
			line = strings.TrimSpace(rest)
		}
		if name, op, value, ok := makeAssignment(line); ok {
			m.assign(name, op, value)
			current = nil
			continue
		}
		targets, prereqs, ok := strings.Cut(line, ":")
		if !ok {
			current = nil
			continue
		}
		prereqs = strings.TrimPrefix(prereqs, ":") // a double-colon rule
		var recipe string
		prereqs, recipe, inline := strings.Cut(prereqs, ";")
		if i := strings.LastIndexByte(prereqs, ':'); i >= 0 {
			prereqs = prereqs[i+1:] // a static pattern rule: targets: pattern: prereqs
		}
		if strings.Contains(prereqs, "=") {
			current = nil // a target's own variable
			continue
		}
		current = &makeBlock{}
		for _, p := range strings.Fields(prereqs) {
			if p, ok := m.expand(p, ""); ok {
				current.prereqs = append(current.prereqs, p)
			}
		}
		if inline {
			current.recipes = append(current.recipes, recipe)
		}
		for _, t := range strings.Fields(targets) {
			t, _ = m.expand(t, "")
			if t == ".ONESHELL" {
				m.oneshell = true
			}
			if m.first == "" && !strings.HasPrefix(t, ".") && !strings.Contains(t, "%") {
				m.first = t
			}
			r := m.rules[t]
			if r == nil {
				r = &makeRule{}
				m.rules[t] = r
			}
			if len(r.blocks) == 0 || r.blocks[len(r.blocks)-1] != current {
				r.blocks = append(r.blocks, current)
			}
		}
	}
}

// assign records one variable assignment.
func (m *makefile) assign(name, op, value string) {
	_, set := m.vars[name]
	switch {
	case m.unsure[name]:
	case op == "!=":
		m.unsure[name] = true
	case op == "?=" && (set || m.unsure[name]):
	case op == "+=" && set:
		m.vars[name] += " " + value
	case set && m.vars[name] != value:
		delete(m.vars, name)
		m.unsure[name] = true
	default:
		m.vars[name] = value
	}
}

// expand expands the make references in s for target ("" outside a
// recipe); ok is false when one cannot be known by reading.
func (m *makefile) expand(s, target string) (string, bool) {
	return m.expandDepth(s, target, 0)
}

func (m *makefile) expandDepth(s, target string, depth int) (string, bool) {
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
		if b.Len()+len(v) > maxMakeText {
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
func (m *makefile) value(name, target string, depth int) (string, bool) {
	switch name {
	case "@":
		return target, target != ""
	case "MAKE":
		return "make", true
	case "CURDIR":
		return m.dir, m.dir != ""
	case "RM":
		if _, set := m.vars[name]; !set && !m.unsure[name] {
			return "rm -f", true
		}
	}
	if strings.ContainsAny(name, " ,:$") || m.unsure[name] {
		return "", false // a function, a substitution reference or a computed name
	}
	v, ok := m.vars[name]
	if !ok {
		return "", false // from the environment, a built-in, or nowhere
	}
	return m.expandDepth(v, target, depth+1)
}

// recipes lists the recipe lines make runs for targets, what they depend
// on first, each line expanded (a line that cannot be known is left out);
// ok is false past maxMakeRecipes.
func (m *makefile) recipes(targets []string) (lines []string, ok bool) {
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
				if !visit(p) {
					return false
				}
			}
		}
		var script []string
		for _, b := range r.blocks {
			for _, line := range b.recipes {
				line = strings.TrimLeft(line, " \t@-+")
				if x, ok := m.expand(line, t); ok && strings.TrimSpace(x) != "" {
					script = append(script, x)
				}
				if m.tooLarge || len(lines)+len(script) > maxMakeRecipes {
					return false
				}
			}
		}
		if m.oneshell && len(script) > 0 {
			script = []string{strings.Join(script, "\n")}
		}
		lines = append(lines, script...)
		return len(lines) <= maxMakeRecipes && !m.tooLarge
	}
	for _, t := range targets {
		if !visit(t) {
			return nil, false
		}
	}
	return lines, true
}

// makeValueOptions are make's short options that take a value, and
// makeLongValues its long ones.
const makeValueOptions = "CfIoWE"

var makeLongValues = []string{"--directory", "--file", "--makefile", "--include-dir", "--old-file", "--assume-old",
	"--what-if", "--new-file", "--assume-new", "--eval"}

// runsMakefile walks the recipes the make command at idx may run from the
// makefile on disk: those of the targets its words name (the default goal
// when none), with the variables it sets.
func (w *walker) runsMakefile(idx int, name string, inner []word) {
	read := w.st.disk.File
	if read == nil || name != "make" && name != "gmake" || w.writesAny(makefileNames) {
		return
	}
	c := &w.st.line.Commands[idx]
	dirs, unknown := c.Dirs, c.DirUnknown
	files := makefileNames
	m := &makefile{vars: map[string]string{}, unsure: map[string]bool{}, rules: map[string]*makeRule{}}
	var targets []string
	overrides := map[string]string{} // the variables the command line sets, over the makefile's
	args := inner[1:]
	for i := 0; i < len(args); i++ {
		x := args[i]
		opt, v, eq := strings.Cut(x.s, "=")
		var val word
		switch {
		case x.s == "--":
			continue
		case x.s == "--dry-run" || x.s == "--just-print" || x.s == "--recon" || x.s == "--question":
			return // prints or checks the recipes instead of running them
		case strings.HasPrefix(x.s, "--"):
			if !eq && slices.Contains(makeLongValues, opt) && i+1 < len(args) {
				i++
				val = args[i]
			} else {
				val = word{s: v, dyn: x.dyn}
			}
		case strings.HasPrefix(x.s, "-") && len(x.s) > 1:
			k := strings.IndexAny(x.s[1:], makeValueOptions)
			flags := x.s[1:]
			if k >= 0 {
				flags = x.s[1 : k+1]
			}
			if strings.ContainsAny(flags, "nq") {
				return // prints or checks the recipes instead of running them
			}
			if k < 0 {
				continue
			}
			opt = "-" + x.s[k+1:k+2]
			val = word{s: x.s[k+2:], dyn: x.dyn}
			if val.s == "" && i+1 < len(args) {
				i++
				val = args[i]
			}
		case eq:
			if x.dyn {
				m.unsure[opt] = true
			} else {
				overrides[opt] = v
			}
			continue
		case x.dyn:
			return // a target only known at run time
		default:
			targets = append(targets, x.s)
			continue
		}
		switch opt {
		case "-C", "--directory":
			if val.dyn {
				unknown = true
			} else {
				dirs = append(dirs[:len(dirs):len(dirs)], val.s)
			}
		case "-f", "--file", "--makefile":
			if val.dyn || val.s == "-" {
				return // another makefile: makeBodies reads what it can
			}
			files = []string{val.s}
		}
	}
	text, dir, why := read(dirs, unknown, files)
	if why != "" {
		c.Unknown = why
		return
	}
	if text == "" {
		return
	}
	if !unknown {
		m.dir = dir
	}
	m.parse(text, func(inc string) string {
		t, _, _ := read(append(dirs[:len(dirs):len(dirs)], path.Dir(inc)), unknown, []string{path.Base(inc)})
		return t
	})
	for k, v := range overrides {
		if !m.unsure[k] {
			m.vars[k] = v
		}
	}
	w.makeRecipes(idx, m, targets, dir, unknown)
}

// makeRecipes walks the recipes of targets (the default goal when none) as
// commands the make at idx may run, in dir.
func (w *walker) makeRecipes(idx int, m *makefile, targets []string, dir string, unknown bool) {
	if len(targets) == 0 {
		if g, ok := m.vars[".DEFAULT_GOAL"]; ok {
			m.first = g
		}
		if m.first == "" {
			return
		}
		targets = []string{m.first}
	}
	lines, ok := m.recipes(targets)
	if !ok {
		w.st.line.Commands[idx].Unknown = fmt.Sprintf("it runs more than %d recipe lines of its makefile, or one longer than %d KiB", maxMakeRecipes, maxMakeText>>10)
		return
	}
	if unknown {
		dir = "" // a guess: the recipes run where make's directory is unknown
	}
	g := w.scoped()
	g.guessed = true
	for _, line := range lines {
		g.body(idx, script{src: line, dir: dir})
		if w.st.line.Commands[idx].Unknown != "" {
			return
		}
	}
}

// writesAny reports a line that writes a file of one of names earlier:
// runsWrittenFile judges what it wrote instead of what is on disk.
func (w *walker) writesAny(names []string) bool {
	for p := range w.st.written {
		if slices.Contains(names, path.Base(p)) {
			return true
		}
	}
	return false
}
