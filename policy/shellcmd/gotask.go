package shellcmd

import (
	"fmt"
	"path"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// task (go-task) runs the tasks of its Taskfile, as make runs its
// makefile's recipes (makefile.go): where the caller gives the file
// (Disk.FindUp), the commands of the tasks the command names (or of
// default), of the tasks they call and depend on, with {{.CLI_ARGS}} the
// words after --, are walked as commands it may run ([Command.Guessed]).

// runsTaskfile walks the commands task runs.
func (w *walker) runsTaskfile(idx int, inner []word) {
	find := w.st.disk.FindUp
	if find == nil || w.st.disk.File == nil {
		return
	}
	c := &w.st.line.Commands[idx]
	if w.writesAny(taskfile.TaskfileNames) {
		c.Unknown = "task runs the tasks of its Taskfile, which the line writes earlier"
		return
	}
	dirs, unknown := c.Dirs, c.DirUnknown
	var file string
	var names, cliArgs []string
	for i := 1; i < len(inner); i++ {
		a := inner[i]
		if a.s == "--" && !a.dyn {
			for _, x := range inner[i+1:] {
				cliArgs = append(cliArgs, x.s)
			}
			break
		}
		opt, v, eq := strings.Cut(a.s, "=")
		value := func() (string, bool) {
			if !eq && i+1 < len(inner) {
				i++
				return inner[i].s, !inner[i].dyn
			}
			return v, !a.dyn && eq
		}
		switch {
		case opt == "-t" || opt == "--taskfile" || opt == "-d" || opt == "--dir":
			v, static := value()
			if !static || v == "" {
				c.Unknown = "task: its Taskfile is only known at run time"
				return
			}
			if opt == "-t" || opt == "--taskfile" {
				file = v
			} else {
				dirs = append(dirs[:len(dirs):len(dirs)], v)
			}
		case opt == "-g" || opt == "--global":
			c.Unknown = "task -g runs the Taskfile of the home folder"
			return
		case opt == "-o" || opt == "--output" || opt == "-C" || opt == "--concurrency" || opt == "--sort" || opt == "-I" || opt == "--interval":
			if !eq {
				i++ // its value
			}
		case strings.HasPrefix(a.s, "-") || strings.Contains(a.s, "="):
		case a.dyn:
			c.Unknown = "task: a task named only at run time may be any of them"
			return
		default:
			names = append(names, a.s)
		}
	}
	var text, dir, why string
	if file != "" {
		text, dir, why = w.st.disk.File(dirs, unknown, []string{file})
	} else {
		for _, n := range taskfile.TaskfileNames {
			if text, dir, why = find(dirs, unknown, n); text != "" || why != "" {
				break
			}
		}
	}
	if why != "" {
		c.Unknown = why
		return
	}
	if text == "" {
		return
	}
	if unknown {
		dir = "" // a guess: the tasks run where their command's directory is unknown
	}
	root, why := readGoTaskfile(text, dir)
	if why != "" {
		c.Unknown = why
		return
	}
	if len(names) == 0 {
		names = []string{"default"}
	}
	g := goTasks{w: w, args: quoteAll(cliArgs), seen: map[string]bool{}, files: map[string]*goTaskfile{}}
	for _, n := range names {
		if why := g.visit(root, n, 0); why != "" {
			c.Unknown = why
			return
		}
	}
	if g.lines > maxMakeRecipes {
		c.Unknown = fmt.Sprintf("it runs more than %d lines of its Taskfile's tasks", maxMakeRecipes)
		return
	}
	for _, run := range g.runs {
		if w.mayRun(idx, run.srcs, run.dir); c.Unknown != "" {
			return
		}
	}
}

// goTaskfile is a Taskfile read: its tasks, what it includes, its folder.
type goTaskfile struct {
	tasks    map[string]taskfile.GoTask
	includes map[string]string
	dir      string
}

// readGoTaskfile reads the Taskfile text in dir; why says why it cannot
// be read.
func readGoTaskfile(text, dir string) (*goTaskfile, string) {
	tasks, includes, ok := taskfile.ReadTaskfile(text)
	if !ok {
		return nil, "its Taskfile uses YAML that is not read where its tasks' commands are (an alias, a merge key, a tag)"
	}
	return &goTaskfile{tasks: tasks, includes: includes, dir: dir}, ""
}

// goTasks collects the commands of the tasks a task command runs, by the
// folder of their Taskfile.
type goTasks struct {
	w     *walker
	args  string // {{.CLI_ARGS}}
	seen  map[string]bool
	files map[string]*goTaskfile // included Taskfiles, by path
	runs  []struct {
		dir  string
		srcs []string
	}
	lines int
}

// maxTaskfileIncludes bounds how deep includes are followed.
const maxTaskfileIncludes = 4

// visit adds the commands of task name of tf, after those of the tasks it
// calls; it returns why they cannot be known.
func (g *goTasks) visit(tf *goTaskfile, name string, depth int) string {
	t, ok := taskfile.Task(tf.tasks, name)
	if !ok {
		ns, rest, namespaced := strings.Cut(name, ":")
		p, included := tf.includes[ns]
		if !namespaced || !included {
			return "" // go-task says there is no such task
		}
		sub, why := g.include(tf, p, depth)
		if why != "" {
			return fmt.Sprintf("task %s: %s", name, why)
		}
		return g.visit(sub, rest, depth+1)
	}
	key := tf.dir + "\x00" + name
	if g.seen[key] || g.lines > maxMakeRecipes {
		return ""
	}
	g.seen[key] = true
	for _, call := range t.Calls {
		if why := g.visit(tf, call, depth); why != "" {
			return why
		}
	}
	var srcs []string
	for _, cmd := range t.Cmds {
		srcs = append(srcs, strings.ReplaceAll(cmd, "{{.CLI_ARGS}}", g.args))
	}
	g.lines += len(srcs)
	g.runs = append(g.runs, struct {
		dir  string
		srcs []string
	}{tf.dir, srcs})
	return ""
}

// include reads the Taskfile tf includes at p: a file, or a folder's
// Taskfile.
func (g *goTasks) include(tf *goTaskfile, p string, depth int) (*goTaskfile, string) {
	if p == "" || tf.dir == "" || depth >= maxTaskfileIncludes || strings.Contains(p, "{{") {
		return nil, "it is in an included Taskfile that is not read"
	}
	full := path.Join(tf.dir, p)
	if sub, ok := g.files[full]; ok {
		return sub, ""
	}
	disk := g.w.st.disk
	var text, dir, why string
	if strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml") {
		text, _, why = disk.File([]string{tf.dir}, false, []string{p})
		dir = path.Dir(full)
	} else { // a folder: its Taskfile
		text, dir, why = disk.File([]string{full}, false, taskfile.TaskfileNames)
	}
	if why != "" {
		return nil, why
	}
	if text == "" {
		return nil, "its included Taskfile " + p + " is not there"
	}
	sub, why := readGoTaskfile(text, dir)
	if why == "" {
		g.files[full] = sub
	}
	return sub, why
}
