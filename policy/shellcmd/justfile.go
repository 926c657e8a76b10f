package shellcmd

import (
	"fmt"
	"path"
	"strings"
)

// just runs the recipes of the justfile on disk, as make runs a
// makefile's (makefile.go): where the caller gives it (Disk.FindUp), the
// recipes the just command may run, and those they depend on, are walked
// as commands it may run ([Command.Guessed]). just is read, not
// evaluated: {{name}} is a recipe parameter, from the command line or
// its default, or a variable set to a string; a recipe line that needs
// more (a function, a backtick, an expression) is passed over, and a
// recipe whose shebang names another language than the shell is not
// read.

// justListing reports an option of just that lists, shows, checks or
// edits recipes instead of running them.
func justListing(opt string) bool {
	switch opt {
	case "-l", "--list", "--summary", "-s", "--show", "--dump", "--evaluate", "--variables", "--choose", "-n", "--dry-run",
		"-h", "--help", "-V", "--version", "--init", "-e", "--edit", "--fmt", "--completions", "--groups", "--changelog", "--check":
		return true
	}
	return false
}

// justfileNames are the files just looks for, in each folder up.
var justfileNames = []string{"justfile", "Justfile", ".justfile"}

// justRecipe is one recipe: its parameters, what it depends on, its
// lines.
type justRecipe struct {
	params []justParam
	deps   []string
	lines  []string
}

type justParam struct {
	name, def string
	hasDef    bool
	defVar    string // a default that names a variable
	variadic  bool
}

// justfile is what a justfile says, as far as reading it tells.
type justfile struct {
	vars    map[string]string
	recipes map[string]*justRecipe
	aliases map[string]string
	first   string
}

// parseJustfile reads justfile text.
func parseJustfile(text string) *justfile {
	j := &justfile{vars: map[string]string{}, recipes: map[string]*justRecipe{}, aliases: map[string]string{}}
	var current *justRecipe
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if line != "" && (line[0] == ' ' || line[0] == '\t') {
			if current != nil {
				current.lines = append(current.lines, strings.TrimSpace(line))
			}
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue // a blank line within a recipe keeps it going
		}
		current = nil
		if trimmed[0] == '#' || trimmed[0] == '[' {
			continue // a comment, an attribute
		}
		first, rest, _ := strings.Cut(trimmed, " ")
		switch first {
		case "set", "import", "mod":
			continue
		case "alias":
			if name, target, ok := strings.Cut(rest, ":="); ok {
				j.aliases[strings.TrimSpace(name)] = strings.TrimSpace(target)
			}
			continue
		case "export":
			trimmed = strings.TrimSpace(rest)
		}
		if name, value, ok := strings.Cut(trimmed, ":="); ok && justName(strings.TrimSpace(name)) {
			name = strings.TrimSpace(name)
			if v, ok := justString(strings.TrimSpace(value)); ok {
				j.vars[name] = v
			} else {
				delete(j.vars, name) // computed: not known by reading
			}
			continue
		}
		header, deps, ok := strings.Cut(trimmed, ":")
		if !ok {
			continue
		}
		words := strings.Fields(header)
		if len(words) == 0 {
			continue
		}
		name := strings.TrimPrefix(words[0], "@")
		if !justName(name) {
			continue
		}
		r := &justRecipe{}
		for _, p := range words[1:] {
			p = strings.TrimPrefix(p, "$")
			param := justParam{variadic: strings.HasPrefix(p, "+") || strings.HasPrefix(p, "*")}
			p = strings.TrimLeft(p, "+*")
			pname, def, hasDef := strings.Cut(p, "=")
			param.name = pname
			if hasDef {
				param.def, param.hasDef = justString(def)
				if !param.hasDef && justName(def) {
					param.defVar = def
				}
			}
			r.params = append(r.params, param)
		}
		for _, d := range strings.Fields(strings.ReplaceAll(deps, "&&", " ")) {
			if d = strings.TrimLeft(d, "("); justName(d) {
				r.deps = append(r.deps, d)
			}
		}
		if j.first == "" {
			j.first = name
		}
		j.recipes[name] = r
		current = r
	}
	return j
}

// justName reports a name just accepts for a recipe or a variable.
func justName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// justString reads a string literal ('...', "..." without escapes, or a
// bare word of a default); ok is false for an expression.
func justString(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] && !strings.ContainsRune(s[1:len(s)-1], rune(s[0])) {
		inner := s[1 : len(s)-1]
		return inner, s[0] == '\'' || !strings.Contains(inner, `\`)
	}
	return "", false
}

// expand fills a recipe line's {{...}} with what reading tells; ok is
// false when one needs more.
func (j *justfile) expand(line string, args map[string]string) (string, bool) {
	var b strings.Builder
	for {
		i := strings.Index(line, "{{")
		if i < 0 {
			b.WriteString(line)
			return b.String(), true
		}
		end := strings.Index(line[i:], "}}")
		if end < 0 {
			return "", false
		}
		expr := strings.TrimSpace(line[i+2 : i+end])
		v, ok := args[expr]
		if !ok {
			v, ok = j.vars[expr]
		}
		if !ok {
			v, ok = justString(expr)
		}
		if !ok {
			return "", false
		}
		b.WriteString(line[:i])
		b.WriteString(v)
		line = line[i+end+2:]
	}
}

// scripts lists the scripts just runs for recipe with args, what it
// depends on first; ok is false past maxMakeRecipes lines.
func (j *justfile) scripts(name string, args []string, seen map[string]bool, out *[]string) bool {
	if target, ok := j.aliases[name]; ok {
		name = target
	}
	r := j.recipes[name]
	if r == nil || seen[name] {
		return true
	}
	seen[name] = true
	for _, d := range r.deps {
		if !j.scripts(d, nil, seen, out) {
			return false
		}
	}
	bound := map[string]string{}
	for i, p := range r.params {
		switch {
		case p.variadic && i < len(args):
			bound[p.name] = strings.Join(args[i:], " ")
		case i < len(args):
			bound[p.name] = args[i]
		case p.hasDef:
			bound[p.name] = p.def
		case p.defVar != "":
			if v, ok := j.vars[p.defVar]; ok {
				bound[p.name] = v
			}
		}
	}
	lines := r.lines
	if len(lines) > 0 && strings.HasPrefix(lines[0], "#!") {
		if _, ok := hookScript(strings.Join(lines, "\n")); !ok {
			return true // another language's program: not read
		}
		lines = []string{strings.Join(lines[1:], "\n")}
	}
	for _, l := range lines {
		l = strings.TrimLeft(l, "@-")
		if x, ok := j.expand(l, bound); ok && strings.TrimSpace(x) != "" && !strings.HasPrefix(strings.TrimSpace(x), "#") {
			*out = append(*out, x)
		}
		if len(*out) > maxMakeRecipes {
			return false
		}
	}
	return true
}

// runsJustfile walks the recipes the just command at idx may run from the
// justfile on disk: each recipe its words name (the first one when none),
// with the words after it as its arguments.
func (w *walker) runsJustfile(idx int, name string, inner []word) {
	find := w.st.disk.FindUp
	if find == nil || name != "just" || w.writesAny(justfileNames) {
		return
	}
	c := &w.st.line.Commands[idx]
	var words []string
	var file, workDir string
	args := inner[1:]
	for i := 0; i < len(args); i++ {
		x := args[i]
		opt, v, eq := strings.Cut(x.s, "=")
		switch {
		case x.dyn:
			return // a recipe, an argument or a file only known at run time
		case opt == "-f" || opt == "--justfile" || opt == "-d" || opt == "--working-directory":
			if !eq {
				if i+1 >= len(args) || args[i+1].dyn {
					return
				}
				i++
				v = args[i].s
			}
			if opt == "-f" || opt == "--justfile" {
				file = v
			} else {
				workDir = v
			}
		case x.s == "--":
		case strings.HasPrefix(x.s, "-"):
			if justListing(opt) {
				return // lists, shows or checks recipes instead of running them
			}
		case eq:
			// VAR=VALUE, an override: not followed
		default:
			words = append(words, x.s)
		}
	}
	var text, dir, why string
	if file != "" {
		if w.st.disk.File == nil {
			return
		}
		text, dir, why = w.st.disk.File(c.Dirs, c.DirUnknown, []string{file})
		if dir != "" && !strings.HasPrefix(file, "/") {
			dir += "/" + path.Dir(file) // just runs recipes in the justfile's folder
		}
	} else {
		for _, n := range justfileNames {
			if text, dir, why = find(c.Dirs, c.DirUnknown, n); text != "" || why != "" {
				break
			}
		}
	}
	if workDir != "" && dir != "" {
		dir = path.Join(dir, workDir)
		if path.IsAbs(workDir) {
			dir = workDir
		}
	}
	if why != "" {
		c.Unknown = why
		return
	}
	if text == "" {
		return
	}
	j := parseJustfile(text)
	if len(words) == 0 && j.first != "" {
		words = []string{j.first}
	}
	var scripts []string
	seen := map[string]bool{}
	for i := 0; i < len(words); i++ {
		r := j.recipes[words[i]]
		if t, ok := j.aliases[words[i]]; ok {
			r = j.recipes[t]
		}
		if r == nil {
			continue // an argument, or no recipe
		}
		args := words[i+1:]
		n := len(r.params)
		if n > 0 && r.params[n-1].variadic || n > len(args) {
			n = len(args)
		}
		if !j.scripts(words[i], args[:n], seen, &scripts) {
			c.Unknown = fmt.Sprintf("it runs more than %d recipe lines of its justfile", maxMakeRecipes)
			return
		}
		i += n
	}
	if c.DirUnknown {
		dir = ""
	}
	g := w.scoped()
	g.guessed = true
	for _, s := range scripts {
		g.body(idx, script{src: s, dir: dir})
		if w.st.line.Commands[idx].Unknown != "" {
			return
		}
	}
}
