package shellcmd

import (
	"fmt"
	"path"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
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

// justfileNames are the files just looks for, in each folder up.
var justfileNames = []string{"justfile", "Justfile", ".justfile"}

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

// runsJustfile walks the recipes the just command at idx may run from the
// justfile on disk: each recipe its words name (the first one when none),
// with the words after it as its arguments.
func (w *walker) runsJustfile(idx int, inner []word) {
	find := w.st.disk.FindUp
	if find == nil || w.writesAny(justfileNames) {
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
	j := taskfile.ReadJustfile(text)
	if len(words) == 0 && len(j.Recipes) > 0 {
		words = []string{j.Recipes[0].Name}
	}
	shell := func(shebang string) bool { _, ok := hookScript(shebang + "\n"); return ok }
	var scripts []string
	seen := map[string]bool{}
	for i := 0; i < len(words); i++ {
		r := j.Recipe(words[i])
		if r == nil {
			continue // an argument, or no recipe
		}
		n := r.Bind(words[i+1:])
		if !j.Scripts(words[i], words[i+1:i+1+n], shell, seen, &scripts, maxMakeRecipes) {
			c.Unknown = fmt.Sprintf("it runs more than %d recipe lines of its justfile", maxMakeRecipes)
			return
		}
		i += n
	}
	if c.DirUnknown {
		dir = ""
	}
	w.mayRun(idx, scripts, dir)
}
