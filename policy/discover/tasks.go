package discover

import (
	"path"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// miseTaskDirs hold file tasks: each executable file is a task of its name.
var miseTaskDirs = []string{"mise-tasks", ".mise-tasks", ".mise/tasks", "mise/tasks", ".config/mise/tasks"}

func (s *scanner) scanMise() {
	byName := map[string]Task{}
	for _, f := range taskfile.MiseFiles {
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

// MiseTasks reads the tasks of a mise.toml (taskfile.ReadMiseTasks). It
// is an error if the text is not TOML.
func MiseTasks(data []byte) ([]Task, error) {
	tasks, err := taskfile.ReadMiseTasks(data)
	var out []Task
	for _, t := range tasks {
		out = append(out, Task{Name: t.Name, Run: t.Run, Private: t.Private})
	}
	return out, err
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
		mf := taskfile.ReadMakefile(string(data), func(inc string, depth int) string {
			inc = path.Clean(inc)
			if read[inc] || !cleanRelative(inc) {
				return ""
			}
			if len(read) > maxMakeIncludes || depth > maxMakeIncludeDepth {
				s.notef("%s: includes more than %d Makefiles or %d deep; %s was not read", f, maxMakeIncludes, maxMakeIncludeDepth, inc)
				return ""
			}
			read[inc] = true
			data, _ := s.read(inc)
			return string(data)
		})
		s.p.MakeTargets, s.p.MakeDefault = makeTargets(mf)
		return
	}
}

// MakeTargets reads a Makefile's explicit targets whose names are plain
// words (letters, digits, _ and -: file targets such as bin/app or x.o and
// pattern rules are left out), in file order, and its default goal: the
// first target, or .DEFAULT_GOAL. A match-anything rule that makes each
// NAME from PREFIX-NAME (%: common-% ;) adds those names. It never fails:
// a line it does not understand is not a target.
func MakeTargets(data []byte) (targets []Task, defaultGoal string) {
	return makeTargets(taskfile.ReadMakefile(string(data), nil))
}

// makeTargets is the plain targets of a makefile read, and its goal.
func makeTargets(mf *taskfile.Makefile) ([]Task, string) {
	var out []Task
	seen := map[string]bool{}
	add := func(name, via string) {
		if plainName(name) && !seen[name] {
			seen[name] = true
			out = append(out, Task{Name: name, Via: via})
		}
	}
	for _, t := range mf.Targets {
		add(t, "")
	}
	for _, a := range mf.Anything {
		for _, t := range out {
			if len(t.Name) > len(a[0])+len(a[1]) && strings.HasPrefix(t.Name, a[0]) && strings.HasSuffix(t.Name, a[1]) && (a[0] != "" || a[1] != "") {
				add(t.Name[len(a[0]):len(t.Name)-len(a[1])], t.Name)
			}
		}
	}
	return out, mf.Goal()
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

// JustRecipes reads a justfile's recipes in file order
// (taskfile.ReadJustfile), with the number of parameters that have no
// default. Recipes named _x or marked [private] are private. It never
// fails.
func JustRecipes(data []byte) []Task {
	var out []Task
	for _, r := range taskfile.ReadJustfile(string(data)).Recipes {
		t := Task{Name: r.Name, Params: len(r.Params), Private: r.Private}
		for _, p := range r.Params {
			if p.Required() {
				t.Required++
			}
		}
		out = append(out, t)
	}
	return out
}
