package discover

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// miseFiles are mise's project config files, lowest precedence first.
var miseFiles = []string{".config/mise.toml", "mise/config.toml", ".mise.toml", "mise.toml"}

// miseTaskDirs hold file tasks: each executable file is a task of its name.
var miseTaskDirs = []string{"mise-tasks", ".mise-tasks", ".mise/tasks", "mise/tasks", ".config/mise/tasks"}

func (s *scanner) scanMise() {
	byName := map[string]Task{}
	for _, f := range miseFiles {
		data, ok := s.read(f)
		if !ok {
			continue
		}
		tasks, err := MiseTasks(data)
		if err != nil {
			s.notef("%s: %v; skipped", f, err)
			continue
		}
		for _, t := range tasks {
			byName[t.Name] = t
		}
	}
	for _, dir := range miseTaskDirs {
		for _, e := range s.readDir(dir) {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				name := strings.TrimSuffix(e.Name(), path.Ext(e.Name()))
				if _, ok := byName[name]; !ok {
					byName[name] = Task{Name: name, Private: strings.HasPrefix(name, "_")}
				}
			}
		}
	}
	for _, t := range byName {
		s.p.MiseTasks = append(s.p.MiseTasks, t)
	}
	sort.Slice(s.p.MiseTasks, func(i, j int) bool { return s.p.MiseTasks[i].Name < s.p.MiseTasks[j].Name })
}

// MiseTasks reads the tasks of a mise.toml: [tasks.NAME] tables with run
// (a string or a list), depends or file, and the short form NAME = "cmd"
// or NAME = ["cmd", ...] under [tasks]. A task with nothing to run is left
// out; a hidden one is private. It is an error if the text is not TOML.
func MiseTasks(data []byte) ([]Task, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not valid TOML (%s)", firstLine(strings.TrimPrefix(err.Error(), "toml: ")))
	}
	raw, ok := doc["tasks"]
	if !ok {
		return nil, nil
	}
	tasks, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tasks is not a table")
	}
	var out []Task
	for name, v := range tasks {
		t := Task{Name: name}
		switch v := v.(type) {
		case string:
			t.Run = []string{v}
		case []any:
			t.Run = stringsOf(v)
		case map[string]any:
			switch run := v["run"].(type) {
			case string:
				t.Run = []string{run}
			case []any:
				t.Run = stringsOf(run)
			}
			_, depends := v["depends"]
			_, file := v["file"]
			if len(t.Run) == 0 && !depends && !file {
				continue
			}
			t.Private, _ = v["hide"].(bool)
		default:
			continue
		}
		if strings.HasPrefix(name, "_") {
			t.Private = true
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func stringsOf(list []any) []string {
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// makefiles are the names GNU make looks for, in its order.
var makefiles = []string{"GNUmakefile", "makefile", "Makefile"}

// Limits on the files a Makefile includes that the scan reads.
const (
	maxMakeIncludes     = 16
	maxMakeIncludeDepth = 4
)

func (s *scanner) scanMake() {
	for _, f := range makefiles {
		if !s.present(f) {
			continue
		}
		data, ok := s.read(f)
		if !ok {
			return
		}
		// make reads an included Makefile where the include is: its targets
		// are the Makefile's (the Prometheus projects define build, test and
		// lint in Makefile.common). Only static paths inside the project are
		// followed, each once.
		read := map[string]bool{f: true}
		mf := makefile{include: func(inc string, depth int) []byte {
			inc = path.Clean(inc)
			if read[inc] || !cleanRelative(inc) {
				return nil
			}
			if len(read) > maxMakeIncludes || depth > maxMakeIncludeDepth {
				s.notef("%s: includes more than %d Makefiles or %d deep; %s was not read", f, maxMakeIncludes, maxMakeIncludeDepth, inc)
				return nil
			}
			read[inc] = true
			data, _ := s.read(inc)
			return data
		}}
		mf.parse(data, 0)
		s.p.MakeTargets, s.p.MakeDefault = mf.result()
		return
	}
}

// MakeTargets reads a Makefile's explicit targets whose names are plain
// words (letters, digits, _ and -: file targets such as bin/app or x.o and
// pattern rules are left out), in file order, and its default goal: the
// first target, or .DEFAULT_GOAL. Recipes, define blocks, conditionals and
// assignments are skipped; a match-anything rule that makes each NAME from
// PREFIX-NAME (%: common-% ;) adds those names. It never fails: a line it
// does not understand is not a target.
func MakeTargets(data []byte) (targets []Task, defaultGoal string) {
	var mf makefile
	mf.parse(data, 0)
	return mf.result()
}

// makefile gathers what one or more Makefiles (an included one read where
// the include is) define.
type makefile struct {
	targets   []Task
	seen      map[string]bool
	firstGoal string
	explicit  string      // .DEFAULT_GOAL
	anything  [][2]string // match-anything rules: prefix, suffix of the one prerequisite
	// include returns the text of a file an include directive names (nil
	// when it is not read), depth includes deep.
	include func(file string, depth int) []byte
}

func (mf *makefile) parse(data []byte, depth int) {
	if mf.seen == nil {
		mf.seen = map[string]bool{}
	}
	inDefine := 0
	for _, line := range logicalLines(string(data)) {
		if strings.HasPrefix(line, "\t") {
			continue // a recipe line
		}
		t := strings.TrimSpace(stripMakeComment(line))
		if t == "" {
			continue
		}
		first, rest, _ := strings.Cut(t, " ")
		switch first {
		case "define":
			inDefine++
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
				if mf.include != nil && !strings.ContainsAny(f, "$*?[") {
					if text := mf.include(f, depth+1); text != nil {
						mf.parse(text, depth+1)
					}
				}
			}
			continue
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif",
			"export", "unexport", "override", "vpath", "undefine", "private", "load", "-load":
			continue
		}
		colon := indexOutsideRefs(t, ':')
		eq := indexOutsideRefs(t, '=')
		if eq >= 0 && (colon < 0 || eq < colon || strings.HasPrefix(t[colon:], ":=") || strings.HasPrefix(t[colon:], "::=")) {
			// An assignment: NAME = v, NAME := v, NAME ?= v, ...
			if name := strings.TrimRight(t[:eq], ":?+! \t"); name == ".DEFAULT_GOAL" {
				mf.explicit = firstField(t[eq+1:])
			}
			continue
		}
		if colon < 0 {
			continue
		}
		names := strings.Fields(t[:colon])
		if len(names) == 1 && names[0] == "%" {
			prereq, _, _ := strings.Cut(strings.TrimLeft(t[colon:], ":"), ";")
			if p := strings.Fields(prereq); len(p) == 1 && strings.Count(p[0], "%") == 1 && !strings.Contains(p[0], "$") {
				pre, suf, _ := strings.Cut(p[0], "%")
				mf.anything = append(mf.anything, [2]string{pre, suf})
			}
			continue
		}
		for _, tg := range names {
			if mf.firstGoal == "" && !strings.HasPrefix(tg, ".") && !strings.ContainsAny(tg, "%$") {
				mf.firstGoal = tg
			}
			mf.add(tg)
		}
	}
}

// add adds a target, and reports whether it is new.
func (mf *makefile) add(name string) bool {
	if !plainName(name) || mf.seen[name] {
		return false
	}
	mf.seen[name] = true
	mf.targets = append(mf.targets, Task{Name: name})
	return true
}

// result is the targets, those a match-anything rule makes included, and
// the default goal.
func (mf *makefile) result() ([]Task, string) {
	for _, a := range mf.anything {
		for _, t := range mf.targets {
			if len(t.Name) > len(a[0])+len(a[1]) && strings.HasPrefix(t.Name, a[0]) && strings.HasSuffix(t.Name, a[1]) && (a[0] != "" || a[1] != "") {
				if stem := t.Name[len(a[0]) : len(t.Name)-len(a[1])]; mf.add(stem) {
					mf.targets[len(mf.targets)-1].Via = t.Name
				}
			}
		}
	}
	if mf.explicit != "" {
		return mf.targets, mf.explicit
	}
	return mf.targets, mf.firstGoal
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

// plainName: a task name that is one plain word, safe to write unquoted in
// a command and a policy pattern.
func plainName(name string) bool {
	if name == "" || len(name) > 100 || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// justfiles are the names just looks for.
var justfiles = []string{"justfile", "Justfile", ".justfile", "JUSTFILE"}

func (s *scanner) scanJust() {
	for _, f := range justfiles {
		if !s.present(f) {
			continue
		}
		if data, ok := s.read(f); ok {
			s.p.JustRecipes = JustRecipes(data)
		}
		return
	}
}

// JustRecipes reads a justfile's recipes in file order: NAME PARAMS: DEPS
// lines at the start of a line (an @ prefix allowed), with the number of
// parameters that have no default. Recipes named _x or marked [private]
// are private. Settings, aliases, assignments, imports and modules are
// skipped. It never fails.
func JustRecipes(data []byte) []Task {
	var out []Task
	seen := map[string]bool{}
	private := false
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasPrefix(t, "[") {
			if strings.Contains(t, "private") {
				private = true
			}
			continue
		}
		name, params, ok := justRecipeHeader(t)
		if !ok {
			private = false
			continue
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, Task{Name: name, Params: len(splitParams(params)), Required: requiredParams(params), Private: private || strings.HasPrefix(name, "_")})
		}
		private = false
	}
	return out
}

// justRecipeHeader splits "@name p1 p2='x': deps" into its name and
// parameter text; ok is false for anything else (assignments, settings).
func justRecipeHeader(t string) (name, params string, ok bool) {
	t = strings.TrimPrefix(t, "@")
	end := 0
	for end < len(t) && (t[end] >= 'a' && t[end] <= 'z' || t[end] >= 'A' && t[end] <= 'Z' ||
		t[end] >= '0' && t[end] <= '9' && end > 0 || t[end] == '_' || t[end] == '-' && end > 0) {
		end++
	}
	if end == 0 {
		return "", "", false
	}
	name, rest := t[:end], t[end:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != ':' {
		return "", "", false
	}
	colon := unquotedColon(rest)
	if colon < 0 || strings.HasPrefix(rest[colon:], ":=") {
		return "", "", false
	}
	switch name {
	case "set", "alias", "export", "import", "mod", "unexport":
		if strings.TrimSpace(rest[:colon]) != "" {
			return "", "", false
		}
	}
	return name, rest[:colon], true
}

// unquotedColon finds the first ':' outside quotes, backticks and
// parentheses.
func unquotedColon(s string) int {
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
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
		case c == ':' && depth == 0:
			return i
		}
	}
	return -1
}

// requiredParams counts parameters without a default; a *variadic one may
// be empty, a +variadic one may not.
func requiredParams(params string) int {
	n := 0
	for _, p := range splitParams(params) {
		if !strings.Contains(p, "=") && !strings.HasPrefix(p, "*") {
			n++
		}
	}
	return n
}

// splitParams splits on spaces outside quotes, backticks and parentheses.
func splitParams(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	depth := 0
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
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
		case (c == ' ' || c == '\t') && depth == 0:
			flush()
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return out
}
