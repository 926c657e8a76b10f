package shellcmd

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
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

// Limits on the makefiles one makefile includes that are read.
const (
	maxMakeIncludes     = 8
	maxMakeIncludeDepth = 4
)

// makefileNames are the files GNU make reads by default, in its order.
var makefileNames = []string{"GNUmakefile", "makefile", "Makefile"}

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
	if read == nil || w.writesAny(makefileNames) {
		return
	}
	c := &w.st.line.Commands[idx]
	dirs, unknown := c.Dirs, c.DirUnknown
	files := makefileNames
	var targets []string
	overrides := map[string]string{} // the variables the command line sets, over the makefile's
	var unsure []string              // those it sets to a value only known at run time
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
				unsure = append(unsure, opt)
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
	includes := 0
	m := taskfile.ReadMakefile(text, func(inc string, depth int) string {
		if includes++; includes > maxMakeIncludes || depth > maxMakeIncludeDepth {
			return ""
		}
		t, _, _ := read(append(dirs[:len(dirs):len(dirs)], path.Dir(inc)), unknown, []string{path.Base(inc)})
		return t
	})
	if !unknown {
		m.Dir = dir
	}
	for k, v := range overrides {
		m.Set(k, v)
	}
	for _, k := range unsure {
		m.Unset(k)
	}
	w.makeRecipes(idx, m, targets, dir, unknown)
}

// makeRecipes walks the recipes of targets (the goal when none) as
// commands the make at idx may run, in dir.
func (w *walker) makeRecipes(idx int, m *taskfile.Makefile, targets []string, dir string, unknown bool) {
	if len(targets) == 0 {
		if m.Goal() == "" {
			return
		}
		targets = []string{m.Goal()}
	}
	lines, ok := m.Recipes(targets, maxMakeRecipes)
	if !ok {
		w.st.line.Commands[idx].Unknown = fmt.Sprintf("it runs more than %d recipe lines of its makefile, or one longer than 64 KiB", maxMakeRecipes)
		return
	}
	if unknown {
		dir = "" // a guess: the recipes run where make's directory is unknown
	}
	w.mayRun(idx, lines, dir)
}

// mayRun walks scripts, each run in dir ("" where the command at idx
// runs), as commands the command at idx may run ([Command.Guessed]).
func (w *walker) mayRun(idx int, scripts []string, dir string) {
	g := w.scoped()
	g.guessed = true
	for _, s := range scripts {
		g.body(idx, script{src: s, dir: dir})
		if w.st.line.Commands[idx].Unknown != "" {
			return
		}
	}
}

// mayRunLines is mayRun for the lines a task runner runs from its
// configuration (what, for the reason): more than maxMakeRecipes make the
// command unknown, and where its directory is not known, so is theirs.
func (w *walker) mayRunLines(idx int, srcs []string, dir, what string) {
	c := &w.st.line.Commands[idx]
	if len(srcs) > maxMakeRecipes {
		c.Unknown = fmt.Sprintf("it runs more than %d lines of %s", maxMakeRecipes, what)
		return
	}
	if c.DirUnknown {
		dir = ""
	}
	w.mayRun(idx, srcs, dir)
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
