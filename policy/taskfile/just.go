package taskfile

import (
	"strings"
)

// Justfile is what a justfile says, as far as reading it tells.
type Justfile struct {
	// Recipes in file order, each once.
	Recipes []*Recipe
	byName  map[string]*Recipe
	aliases map[string]string
	vars    map[string]string // variables set to a string
}

// Recipe is one recipe of a justfile.
type Recipe struct {
	Name    string
	Params  []Param
	Private bool // named _x, or marked [private]
	deps    []string
	lines   []string
}

// Param is one parameter of a recipe.
type Param struct {
	Name       string
	HasDefault bool   // NAME=DEFAULT, whatever the default is
	Default    string // a default that is a string, when HasString
	HasString  bool
	DefVar     string // a default that names a variable
	Variadic   bool   // +NAME (one or more) or *NAME (zero or more)
	Star       bool   // *NAME: it may be empty
}

// Required reports a parameter a recipe cannot run without.
func (p Param) Required() bool {
	return !p.HasDefault && !p.Star
}

// ReadJustfile reads justfile text: recipes (NAME PARAMS: DEPS at the
// start of a line, an @ prefix allowed, their lines indented), aliases,
// and variables set to a string. Settings, imports and modules are
// skipped.
func ReadJustfile(text string) *Justfile {
	j := &Justfile{byName: map[string]*Recipe{}, aliases: map[string]string{}, vars: map[string]string{}}
	var current *Recipe
	private := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if line != "" && (line[0] == ' ' || line[0] == '\t') {
			if current != nil {
				current.lines = append(current.lines, strings.TrimSpace(line))
			}
			continue
		}
		t := strings.TrimSpace(line)
		if t == "" {
			continue // a blank line within a recipe keeps it going
		}
		current = nil
		if strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "[") {
			if strings.Contains(t, "private") {
				private = true
			}
			continue
		}
		first, rest, _ := strings.Cut(t, " ")
		if first == "alias" {
			if name, target, ok := strings.Cut(rest, ":="); ok {
				j.aliases[strings.TrimSpace(name)] = strings.TrimSpace(target)
			}
			private = false
			continue
		}
		if first == "export" {
			first, rest, _ = strings.Cut(strings.TrimSpace(rest), " ")
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(rest), ":="); ok && justName(first) {
			if s, ok := justString(strings.TrimSpace(v)); ok {
				j.vars[first] = s
			} else {
				delete(j.vars, first) // computed: not known by reading
			}
			private = false
			continue
		}
		name, params, deps, ok := justRecipeHeader(t)
		if !ok {
			private = false
			continue
		}
		r := &Recipe{Name: name, Private: private || strings.HasPrefix(name, "_")}
		private = false
		for _, p := range splitParams(params) {
			p = strings.TrimPrefix(p, "$")
			param := Param{Variadic: strings.HasPrefix(p, "+") || strings.HasPrefix(p, "*"), Star: strings.HasPrefix(p, "*")}
			p = strings.TrimLeft(p, "+*$")
			pname, def, hasDef := strings.Cut(p, "=")
			param.Name, param.HasDefault = pname, hasDef
			if hasDef {
				param.Default, param.HasString = justString(def)
				if !param.HasString && justName(def) {
					param.DefVar = def
				}
			}
			r.Params = append(r.Params, param)
		}
		for _, d := range strings.Fields(strings.ReplaceAll(deps, "&&", " ")) {
			if d = strings.TrimLeft(d, "("); justName(d) {
				r.deps = append(r.deps, d)
			}
		}
		if _, dup := j.byName[name]; !dup {
			j.Recipes = append(j.Recipes, r)
		}
		j.byName[name] = r
		current = r
	}
	return j
}

// justRecipeHeader splits "@name p1 p2='x': deps" into its name,
// parameter text and dependencies; ok is false for anything else
// (assignments, settings).
func justRecipeHeader(t string) (name, params, deps string, ok bool) {
	t = strings.TrimPrefix(t, "@")
	end := 0
	for end < len(t) && (t[end] >= 'a' && t[end] <= 'z' || t[end] >= 'A' && t[end] <= 'Z' ||
		t[end] >= '0' && t[end] <= '9' && end > 0 || t[end] == '_' || t[end] == '-' && end > 0) {
		end++
	}
	if end == 0 {
		return "", "", "", false
	}
	name, rest := t[:end], t[end:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != ':' {
		return "", "", "", false
	}
	colon := unquotedColon(rest)
	if colon < 0 || strings.HasPrefix(rest[colon:], ":=") {
		return "", "", "", false
	}
	switch name {
	case "set", "alias", "export", "import", "mod", "unexport":
		if strings.TrimSpace(rest[:colon]) != "" {
			return "", "", "", false
		}
	}
	return name, rest[:colon], rest[colon+1:], true
}

// topLevel reports, for each byte of s, whether it stands outside quotes,
// backticks and parentheses (a quote or a parenthesis itself does not).
func topLevel(s string) []bool {
	out := make([]bool, len(s))
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth = max(0, depth-1)
		default:
			out[i] = depth == 0
		}
	}
	return out
}

// unquotedColon finds the first ':' outside quotes, backticks and
// parentheses.
func unquotedColon(s string) int {
	top := topLevel(s)
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && top[i] {
			return i
		}
	}
	return -1
}

// splitParams splits on spaces outside quotes, backticks and parentheses.
func splitParams(s string) []string {
	top := topLevel(s)
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || (s[i] == ' ' || s[i] == '\t') && top[i] {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
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

// justString reads a string literal ('...', or "..." without escapes);
// ok is false for an expression.
func justString(s string) (string, bool) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] && !strings.ContainsRune(s[1:len(s)-1], rune(s[0])) {
		inner := s[1 : len(s)-1]
		return inner, s[0] == '\'' || !strings.Contains(inner, `\`)
	}
	return "", false
}

// Recipe returns the recipe a name (or an alias) names, nil for none.
func (j *Justfile) Recipe(name string) *Recipe {
	if target, ok := j.aliases[name]; ok {
		name = target
	}
	return j.byName[name]
}

// expand fills a recipe line's {{...}} with what reading tells; ok is
// false when one needs more (a function, an expression).
func (j *Justfile) expand(line string, args map[string]string) (string, bool) {
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

// Scripts appends to out the scripts just runs for the recipe name with
// args, what it depends on first (each recipe once, by seen): its lines
// expanded (a line that needs more left out), or, for a recipe with a
// shebang, its body as one script when shell reports that the shebang
// names a shell (other languages are left out). ok is false past max.
func (j *Justfile) Scripts(name string, args []string, shell func(shebang string) bool, seen map[string]bool, out *[]string, max int) bool {
	r := j.Recipe(name)
	if r == nil || seen[r.Name] {
		return true
	}
	seen[r.Name] = true
	for _, d := range r.deps {
		if !j.Scripts(d, nil, shell, seen, out, max) {
			return false
		}
	}
	bound := map[string]string{}
	for i, p := range r.Params {
		switch {
		case p.Variadic && i < len(args):
			bound[p.Name] = strings.Join(args[i:], " ")
		case i < len(args):
			bound[p.Name] = args[i]
		case p.HasString:
			bound[p.Name] = p.Default
		case p.DefVar != "":
			if v, ok := j.vars[p.DefVar]; ok {
				bound[p.Name] = v
			}
		}
	}
	lines := r.lines
	if len(lines) > 0 && strings.HasPrefix(lines[0], "#!") {
		if !shell(lines[0]) {
			return true
		}
		lines = []string{strings.Join(lines[1:], "\n")}
	}
	for _, l := range lines {
		l = strings.TrimLeft(l, "@-")
		if x, ok := j.expand(l, bound); ok && strings.TrimSpace(x) != "" && !strings.HasPrefix(strings.TrimSpace(x), "#") {
			*out = append(*out, x)
		}
		if len(*out) > max {
			return false
		}
	}
	return true
}

// Bind is how many of args, after a recipe's name on the command line,
// are its arguments: as many as it has parameters, or all of them for a
// variadic last one.
func (r *Recipe) Bind(args []string) int {
	n := len(r.Params)
	if n > 0 && r.Params[n-1].Variadic || n > len(args) {
		n = len(args)
	}
	return n
}
