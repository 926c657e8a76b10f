package shellcmd

import (
	"fmt"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// pdm, poe, rye and hatch run the scripts of pyproject.toml (hatch also
// hatch.toml's), as npm runs package.json's (pkgscripts.go): where the
// caller gives the file (Disk.FindUp), the script the command names, with
// the words after it appended, and those it runs first, are walked as
// commands it may run ([Command.Guessed]).

// pyprojectFiles are the files the Python task runners read scripts from.
var pyprojectFiles = []string{"pyproject.toml", "hatch.toml", "Pipfile"}

// pyScriptRun reads a layer that runs a Python task runner's script: the
// runner and the words from the script's name on; ok is false for any
// other layer.
func pyScriptRun(layer []string) (runner string, words []string, ok bool) {
	if len(layer) < 2 {
		return "", nil, false
	}
	runner = layer[0]
	rest := layer[1:]
	if runner == "poetry" && rest[0] == "poe" { // poethepoet's poetry plugin
		runner, rest = "poe", rest[1:]
	}
	switch runner {
	case "pdm", "rye", "hatch", "pipenv":
		k := 0
		for k < len(rest) && rest[k] != "run" {
			k++
		}
		if k == len(rest) {
			return "", nil, false
		}
		rest = rest[k+1:]
	case "poe":
	default:
		return "", nil, false
	}
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		rest = rest[1:]
	}
	return runner, rest, len(rest) > 0
}

// runsPyScripts walks the script a layer of the command at idx runs with
// pdm run, poe, rye run or hatch run.
func (w *walker) runsPyScripts(idx int) {
	find := w.st.disk.FindUp
	if find == nil {
		return
	}
	c := &w.st.line.Commands[idx]
	for _, layer := range c.Layers {
		runner, words, ok := pyScriptRun(layer)
		if !ok {
			continue
		}
		if w.writesAny(pyprojectFiles) {
			c.Unknown = fmt.Sprintf("%s runs the scripts of its project's configuration, which the line writes earlier", runner)
			return
		}
		file := "pyproject.toml"
		if runner == "pipenv" {
			file = "Pipfile"
		}
		text, dir, why := find(c.Dirs, c.DirUnknown, file)
		if why != "" {
			c.Unknown = why
			return
		}
		tasks := taskfile.ReadPyScripts(text, runner, false)
		if runner == "hatch" {
			if ht, d, _ := find(c.Dirs, c.DirUnknown, "hatch.toml"); ht != "" {
				for k, v := range taskfile.ReadPyScripts(ht, runner, true) {
					tasks[k], dir = v, d
				}
			}
		}
		if len(tasks) == 0 {
			continue
		}
		var srcs []string
		seen := map[string]bool{}
		var visit func(words []string)
		visit = func(words []string) {
			name := words[0]
			t, ok := tasks[name]
			if !ok {
				if _, env, found := strings.Cut(name, ":"); found {
					t, ok = tasks[env]
				}
			}
			if !ok || seen[name] || len(srcs) > maxMakeRecipes {
				return
			}
			seen[name] = true
			if runner == "pdm" || runner == "poe" || runner == "rye" {
				visit([]string{"pre_" + name})
			}
			for _, r := range t.Refs {
				if f := strings.Fields(r); len(f) > 0 {
					if _, isTask := tasks[f[0]]; isTask {
						visit(f)
					} else {
						srcs = append(srcs, r) // pdm's composite: a command line
					}
				}
			}
			args := ""
			for _, a := range words[1:] {
				args += " " + Quote(a)
			}
			for i, r := range t.Run {
				if f := strings.Fields(r); runner == "hatch" && len(f) > 0 && f[0] != name {
					if _, isTask := tasks[f[0]]; isTask {
						visit(f) // a hatch script that names another
						continue
					}
				}
				if i == len(t.Run)-1 {
					r += args
				}
				srcs = append(srcs, r)
			}
			if runner == "pdm" {
				visit([]string{"post_" + name})
			}
		}
		visit(words)
		w.mayRunLines(idx, srcs, dir, "its project's scripts")
		return
	}
}
