package shellcmd

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// Programs run what files say as well as what their words say: make a
// Makefile's recipes, npm a package.json's scripts, git the hooks in
// .git/hooks. A line that writes such a file and then runs its program
// (echo 'rm -rf ~' > .git/hooks/pre-commit && git commit) runs what it
// wrote: walked when the line wrote it whole (echo, printf, a heredoc
// into cat), unknown otherwise.

// runFileTable lists, for the programs of each row, the base names of the
// files they run commands from, or the folders whose every file they may
// run (git's hooks). A row without programs is one whose program runs
// them only with some subcommand.
var runFileTable = []struct {
	programs, names, dirs []string
}{
	{programs: []string{"make", "gmake"}, names: makefileNames},
	{programs: []string{"npm", "pnpm", "yarn", "bun", "nr", "npm-run-all", "npm-run-all2", "run-s", "run-p", "lerna", "turbo", "nx"}, names: packageFiles},
	// Any git command may run a hook: reference-transaction runs on every
	// ref a command updates.
	{programs: []string{"git"}, dirs: []string{".git/hooks", ".husky", ".githooks"}},
	{programs: []string{"just"}, names: justfileNames},
	{programs: []string{"mise"}, names: []string{"mise.toml", ".mise.toml"}},
	{names: denoFiles}, // for deno task alone: runsConfigTasks judges it
	{programs: []string{"composer"}, names: []string{"composer.json"}},
	{programs: []string{"pdm", "poe", "rye", "hatch", "pipenv"}, names: pyprojectFiles},
	{programs: []string{"task"}, names: taskfile.TaskfileNames},
	{programs: []string{"rake"}, names: []string{"Rakefile"}},
	{programs: []string{"tox"}, names: toxFiles},
	{programs: []string{"nox"}, names: []string{"noxfile.py"}},
	{programs: []string{"pre-commit"}, names: []string{".pre-commit-config.yaml"}},
	{programs: []string{"cargo"}, names: []string{"build.rs"}},
	{programs: []string{"gradle", "gradlew"}, names: []string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}},
	{programs: []string{"direnv"}, names: []string{".envrc"}},
}

// runFiles returns how the program name finds the files it runs: their
// base names, or the folders whose every file it may run.
func runFiles(name string) (names, dirs []string) {
	for _, r := range runFileTable {
		if slices.Contains(r.programs, name) {
			return r.names, r.dirs
		}
	}
	return nil, nil
}

// runFilesOf is the names of the files the program name runs commands
// from.
func runFilesOf(name string) []string {
	names, _ := runFiles(name)
	return names
}

// isRunFile reports a path a program runs on its own (runFileTable).
func isRunFile(p string) bool {
	base := path.Base(p)
	for _, r := range runFileTable {
		if slices.Contains(r.names, base) ||
			slices.ContainsFunc(r.dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/") }) {
			return true
		}
	}
	return false
}

// rewritesRunFiles notes, as written with a text not known, the files the
// command may rewrite in place or replace: sed -i package.json, cp x
// Makefile, cp /dev/stdin x.sh, a one-liner or dd that names one, a program
// agent-shell does not know given one. What a program such as npm or make
// then runs from a run file, or a shell from a script, later in the line
// is not known. Readers (cat, grep, jq, git diff) and the package
// managers' own updates (npm install) leave their files as they were.
func (w *walker) rewritesRunFiles(name string, args []word) {
	writer := !KnownProgram(name)
	switch name {
	case "sed", "perl", "ruby", "gsed":
		writer = slices.ContainsFunc(args, func(a word) bool {
			return strings.HasPrefix(a.s, "-i") || strings.HasPrefix(a.s, "--in-place") || strings.HasPrefix(a.s, "-pi")
		})
	case "cp", "mv", "install", "ln", "rsync":
		// The destination: the last operand, or a file of a source's name
		// in it (cp package.json backup.json only reads). A run file is
		// read from disk, so any copy over one is a text not known. A
		// script copied from a file on disk runs as that file would (a
		// script on disk is not read); one copied from what the line
		// wrote is that text, and one from a stream (/dev/stdin) or a
		// name known at run time is a text not known.
		var ops []word
		for _, a := range args {
			if !strings.HasPrefix(a.s, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) < 2 || ops[len(ops)-1].dyn {
			return
		}
		dest, srcs := ops[len(ops)-1].s, ops[:len(ops)-1]
		f := writtenFile{by: name}
		copied := false // of a source that is not a file on disk
		for _, src := range srcs {
			if prev, ok := w.st.written[path.Clean(src.s)]; ok && len(srcs) == 1 {
				f, copied = prev, true
			} else if ok || src.dyn || src.s == "-" || strings.HasPrefix(src.s, "/dev/") || strings.HasPrefix(src.s, "/proc/") {
				copied = true
			}
		}
		if isRunFile(dest) || copied {
			w.wrote(dest, f)
		}
		folder := strings.HasSuffix(dest, "/") || dest == "." || dest == ".." || path.Ext(dest) == ""
		for _, src := range srcs {
			if folder && !isRunFile(dest) && (isRunFile(src.s) || copied) && !src.dyn {
				w.wrote(path.Join(dest, path.Base(src.s)), f)
			}
		}
		return
	case "node", "python", "python3", "deno", "bun":
		// A one-liner's code may; a script operand is what it runs.
		for i, a := range args {
			if (a.s == "-e" || a.s == "-c" || a.s == "--eval" || a.s == "-p" || a.s == "--print") && i+1 < len(args) {
				args = args[i+1 : i+2]
				writer = true
				break
			}
		}
	case "dd", "truncate", "sponge", "yq", "patch", "awk", "gawk", "ed", "ex":
		writer = true
	}
	if !writer {
		return
	}
	for _, a := range args {
		if a.dyn {
			continue
		}
		for _, s := range strings.FieldsFunc(a.s, func(r rune) bool { return r == '=' || r == ' ' || r == '\'' || r == '"' || r == '(' || r == ',' }) {
			if !strings.HasPrefix(s, "-") {
				w.wrote(s, writtenFile{by: name})
			}
		}
	}
}

// runsFromDisk walks what the command at idx runs from the files on disk
// that its program reads, where the caller gives them (Disk): a package
// manager's scripts, make's recipes, just's, mise's, deno's and
// composer's tasks, a Python task runner's scripts (by any layer: pdm run
// is unwrapped).
func (w *walker) runsFromDisk(idx int, name string, inner []word) {
	switch {
	case packageManager(name) || name == "lerna" || name == "turbo" || name == "nx":
		w.runsPackageScripts(idx, name, inner)
	case name == "make" || name == "gmake":
		w.runsMakefile(idx, name, inner)
	case name == "just":
		w.runsJustfile(idx, inner)
	case name == "mise":
		w.runsMiseTasks(idx, inner)
	case name == "deno" || name == "composer":
		w.runsConfigTasks(idx, name, inner)
	case name == "pre-commit":
		w.runsPreCommit(idx, inner)
	case name == "task":
		w.runsTaskfile(idx, inner)
	}
	switch name {
	case "nx":
		w.runsNxTargets(idx, inner)
	case "docker", "podman", "nerdctl", "docker-compose", "podman-compose":
		w.runsCompose(idx, name, inner[1:])
	}
	w.runsPyScripts(idx)
	w.runsToxEnvs(idx)
}

// runsWrittenFile judges the command at idx when it runs a file the line
// wrote earlier by the way its program finds it (see runFiles).
func (w *walker) runsWrittenFile(idx int, name string) {
	if len(w.st.written) == 0 {
		return
	}
	names, dirs := runFiles(name)
	if names == nil && dirs == nil {
		return
	}
	written := make([]string, 0, len(w.st.written))
	for p := range w.st.written {
		written = append(written, p)
	}
	sort.Strings(written) // the same reason each time
	for _, p := range written {
		hook := slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p, d+"/") || strings.Contains(p, "/"+d+"/") })
		if !hook && !slices.Contains(names, path.Base(p)) {
			continue
		}
		f := w.st.written[p]
		switch {
		case !f.known:
			w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s runs %s, which %s writes earlier in the line", name, p, f.by)
			return
		case hook:
			w.body(idx, script{src: f.data})
		case path.Base(p) == "package.json":
			scripts, ok := taskfile.ReadPackageScripts(f.data)
			if !ok {
				w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s runs the scripts of %s, which the line writes and which does not read as JSON", name, p)
				return
			}
			for _, k := range slices.Sorted(maps.Keys(scripts)) {
				w.body(idx, script{src: scripts[k]})
			}
		case name == "make" || name == "gmake":
			r := makefileBodies(f.data)
			if r.why != "" {
				w.st.line.Commands[idx].Unknown = r.why
				return
			}
			for _, s := range r.scripts {
				w.body(idx, s)
			}
		default:
			w.st.line.Commands[idx].Unknown = fmt.Sprintf("%s runs %s, which %s writes earlier in the line", name, p, f.by)
			return
		}
	}
}
