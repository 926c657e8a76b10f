package shellcmd

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// nx also runs the targets of its projects' project.json, and nx.json's
// target defaults: a target's command, or its run-commands options. Where
// the caller gives the files, the targets the command's words may name
// (nx run app:deploy, nx deploy app, nx run-many -t deploy: deploy in
// every project) are walked as commands it may run ([Command.Guessed]).

// nxFiles are the files nx finds targets' commands in.
var nxFiles = []string{"nx.json", "project.json"}

// runsNxTargets walks the commands of the targets nx may run.
func (w *walker) runsNxTargets(idx int, inner []word) {
	d := w.st.disk
	if d.FindUp == nil || d.File == nil || d.Workspaces == nil {
		return
	}
	c := &w.st.line.Commands[idx]
	if w.writesAny(nxFiles) {
		c.Unknown = "nx runs the targets of nx.json and project.json, which the line writes earlier"
		return
	}
	text, root, why := d.FindUp(c.Dirs, c.DirUnknown, "nx.json")
	if why != "" {
		c.Unknown = why
		return
	}
	if text == "" {
		return
	}
	targets := map[string]bool{}
	for _, x := range inner[1:] {
		if x.dyn {
			c.Unknown = "nx: a target named only at run time may be any of them"
			return
		}
		for _, n := range taskNames("nx", x.s) {
			targets[n] = true // a target, or a project (the words are read loosely)
		}
		if p, _, ok := strings.Cut(x.s, ":"); ok && !strings.HasPrefix(x.s, "-") {
			targets[p] = true // the project of project:target
		}
	}
	projects, why := d.Workspaces(root, []string{"**"}, "project.json")
	if why != "" {
		c.Unknown = why
		return
	}
	if len(projects) > maxWorkspaces {
		c.Unknown = "its nx projects are more than the 512 read"
		return
	}
	var srcs []string
	add := func(found map[string][]string) {
		for _, name := range slices.Sorted(maps.Keys(found)) {
			if targets[name] {
				srcs = append(srcs, found[name]...)
			}
		}
	}
	defaults, _ := taskfile.NxTargets(text, true)
	add(defaults)
	// The projects the words name (nx run app:deploy, nx deploy app, -p
	// app), or every one.
	type project struct {
		name    string
		targets map[string][]string
	}
	var all []project
	named := false
	for _, p := range projects {
		text, _, why := d.File([]string{p}, false, []string{"project.json"})
		if why != "" {
			c.Unknown = why
			return
		}
		t, name := taskfile.NxTargets(text, false)
		if name == "" {
			name = path.Base(p)
		}
		all = append(all, project{name, t})
		named = named || targets[name]
	}
	for _, p := range all {
		if !named || targets[p.name] {
			add(p.targets)
		}
	}
	if c.DirUnknown {
		root = ""
	}
	w.mayRunLines(idx, srcs, root, "its nx targets")
}
