package shellcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// mise runs the tasks of its configuration files on disk, as npm runs
// package.json's scripts (pkgscripts.go): where the caller gives them
// (Disk.FindUp), each task the mise command's words name, with the words
// after it appended, and the tasks it depends on, are walked as commands
// it may run ([Command.Guessed]). A run line with a template ({{…}}) is
// passed over, and so are file tasks (mise-tasks/NAME), which are
// programs, as a script file a command names is not read.

// runsMiseTasks walks the tasks the mise command at idx may run: each of
// its words that names a task (mise run build, mise build), with the
// words after it appended, what each depends on first.
func (w *walker) runsMiseTasks(idx int, inner []word) {
	find := w.st.disk.FindUp
	if find == nil || len(inner) < 2 || inner[1].s == "exec" || inner[1].s == "x" || w.writesAny(runFilesOf("mise")) {
		return
	}
	c := &w.st.line.Commands[idx]
	tasks := map[string]taskfile.MiseTask{}
	dir := ""
	for _, f := range taskfile.MiseFiles {
		text, d, why := find(c.Dirs, c.DirUnknown, f)
		if why != "" {
			c.Unknown = why
			return
		}
		read, _ := taskfile.ReadMiseTasks([]byte(text)) // one that is not TOML runs nothing
		for _, t := range read {
			tasks[t.Name] = t
		}
		if text != "" {
			dir = d
		}
	}
	if len(tasks) == 0 {
		return
	}
	var scripts []string
	seen := map[string]bool{}
	var visit func(n string, args []word)
	visit = func(n string, args []word) {
		t, ok := tasks[n]
		if !ok || seen[n] {
			return
		}
		seen[n] = true
		for _, d := range t.Depends {
			if f := strings.Fields(d); len(f) > 0 {
				visit(f[0], nil) // "task args": its arguments are not followed
			}
		}
		for i, r := range t.Run {
			if strings.Contains(r, "{{") {
				continue
			}
			if i == len(t.Run)-1 {
				r += appended(args)
			}
			scripts = append(scripts, r)
		}
	}
	for i, x := range inner[1:] {
		if x.dyn || strings.HasPrefix(x.s, "-") {
			continue
		}
		args := inner[i+2:]
		if k := slices.IndexFunc(args, func(a word) bool { return a.s == ":::" }); k >= 0 {
			args = args[:k] // mise run a ::: b runs both
		}
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:]
		}
		visit(x.s, args)
	}
	if len(scripts) > maxMakeRecipes {
		c.Unknown = fmt.Sprintf("it runs more than %d lines of its mise tasks", maxMakeRecipes)
		return
	}
	if c.DirUnknown {
		dir = ""
	}
	w.mayRun(idx, scripts, dir)
}
