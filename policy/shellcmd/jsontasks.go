package shellcmd

import (
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// deno and composer run the tasks and scripts of their configuration on
// disk, as npm runs package.json's (pkgscripts.go): deno task NAME runs
// deno.json's tasks, composer NAME (or run-script NAME) and its install
// and update events run composer.json's scripts. Where the caller gives
// the file (Disk.FindUp), each one the command's words name, with the
// words after it appended, and those it refers to, are walked as commands
// it may run ([Command.Guessed]). A composer script that is a PHP callback
// (Class::method) is passed over.

// denoFiles are deno's configuration files, in the order it reads them.
var denoFiles = []string{"deno.json", "deno.jsonc"}

// composerEvents are the scripts composer's own commands run.
func composerEvents(sub string) []string {
	switch sub {
	case "install", "i":
		return []string{"pre-install-cmd", "post-install-cmd", "pre-autoload-dump", "post-autoload-dump", "post-root-package-install"}
	case "update", "u", "upgrade":
		return []string{"pre-update-cmd", "post-update-cmd", "pre-autoload-dump", "post-autoload-dump"}
	case "dump-autoload", "dumpautoload":
		return []string{"pre-autoload-dump", "post-autoload-dump"}
	case "create-project":
		return []string{"post-root-package-install", "post-create-project-cmd"}
	case "archive":
		return []string{"pre-archive-cmd", "post-archive-cmd"}
	case "status":
		return []string{"pre-status-cmd", "post-status-cmd"}
	}
	return nil
}

// runsConfigTasks walks the tasks deno task or composer may run from
// their configuration on disk.
func (w *walker) runsConfigTasks(idx int, name string, inner []word) {
	find := w.st.disk.FindUp
	if find == nil || len(inner) < 2 || name == "deno" && inner[1].s != "task" {
		return
	}
	if name == "deno" && w.writesAny(denoFiles) {
		w.st.line.Commands[idx].Unknown = "deno task runs the tasks of deno.json, which the line writes earlier"
		return
	}
	if w.writesAny(runFilesOf(name)) {
		return // composer.json, written first: runsWrittenFile's
	}
	c := &w.st.line.Commands[idx]
	files, field := denoFiles, "tasks"
	if name == "composer" {
		files, field = []string{"composer.json"}, "scripts"
	}
	dirs, unknown := c.Dirs, c.DirUnknown
	if d, ok := packageDirOption(inner[1:]); ok { // deno task --cwd DIR, composer -d DIR / --working-dir
		dirs, unknown = append(slices.Clip(dirs), d), unknown || d == ""
	}
	var text, dir, why string
	for _, f := range files {
		if text, dir, why = find(dirs, unknown, f); text != "" || why != "" {
			break
		}
	}
	if why != "" {
		c.Unknown = why
		return
	}
	tasks := taskfile.ReadConfigScripts(text, field)
	if len(tasks) == 0 {
		return
	}
	var srcs []string
	seen := map[string]bool{}
	var visit func(n string, args []word)
	visit = func(n string, args []word) {
		t, ok := tasks[n]
		if !ok || seen[n] || len(srcs) > maxMakeRecipes {
			return
		}
		seen[n] = true
		for _, r := range t.Refs {
			visit(r, nil)
		}
		for i, r := range t.Run {
			if i == len(t.Run)-1 {
				r += appended(args)
			}
			srcs = append(srcs, r)
		}
	}
	words := inner[1:]
	if name == "deno" {
		words = inner[2:]
	}
	for i, x := range words {
		if x.dyn || strings.HasPrefix(x.s, "-") {
			continue
		}
		args := words[i+1:]
		if len(args) > 0 && args[0].s == "--" {
			args = args[1:]
		}
		visit(x.s, args)
		if name == "composer" {
			for _, e := range composerEvents(x.s) {
				visit(e, nil)
			}
		}
	}
	if len(srcs) > maxMakeRecipes {
		c.Unknown = "it runs more than 256 lines of its configuration's tasks"
		return
	}
	if unknown {
		dir = ""
	}
	w.mayRun(idx, srcs, dir)
}
