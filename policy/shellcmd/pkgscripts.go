package shellcmd

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/agent-shell/agent-shell/policy/taskfile"
)

// A package manager runs what package.json says: npm run rm -- ~ runs the
// script "rm" with ~ appended, npm install runs the lifecycle scripts. An
// agent that a rule stops from running rm -rf ~ could otherwise write it
// into a script, an ordinary edit, and run that. So where the caller gives
// the package.json on disk (Disk.FindUp), each script a package
// manager may run is walked as a command it may run, one level deeper:
// [Command.Guessed], so that only the rules that object to it count, and
// the package manager's own decision stays as it was.

// maxPackageScripts bounds the scripts one command may run that are
// walked; past it the command is unknown, so that padding cannot push one
// out of sight.
const maxPackageScripts = 16

// packageManager reports a program that runs package.json's scripts (nr
// is @antfu/ni's npm run).
func packageManager(name string) bool {
	switch name {
	case "npm", "pnpm", "yarn", "bun", "nr":
		return true
	}
	return runAll(name)
}

// runAll reports npm-run-all and its short forms, whose every word names
// scripts, or patterns of them (build:* is build:a, not build:a:b;
// build:** is both).
func runAll(name string) bool {
	return name == "npm-run-all" || name == "run-s" || name == "run-p" || name == "npm-run-all2"
}

// scriptPattern reports whether a script's name matches an npm-run-all
// pattern.
func scriptPattern(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "**"); ok && !strings.ContainsAny(prefix, "*?[") {
		return strings.HasPrefix(name, prefix)
	}
	ok, err := path.Match(strings.ReplaceAll(pattern, ":", "/"), strings.ReplaceAll(name, ":", "/"))
	return ok && err == nil
}

// lifecycleScripts are the scripts a package manager's subcommand runs on
// its own.
func lifecycleScripts(sub string) []string {
	switch sub {
	case "test", "t", "tst":
		return []string{"test"}
	case "start", "stop":
		return []string{sub}
	case "restart":
		return []string{"stop", "start", "restart"}
	case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add",
		"ci", "clean-install", "ic", "install-clean", "isntall-clean", "rebuild", "rb", "link", "ln":
		return []string{"preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"}
	case "install-test", "it", "install-ci-test", "cit":
		return []string{"preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare", "test"}
	case "pack", "publish":
		return []string{"prepack", "prepare", "postpack", "prepublishOnly", "publish", "postpublish"}
	case "version":
		return []string{"preversion", "version", "postversion"}
	}
	return nil
}

// runsPackageScripts walks the scripts of package.json that the package
// manager at idx may run: each word of its arguments that names a script
// (with the words after it appended, as npm run and yarn pass them), the
// pre and post scripts of each, and the lifecycle scripts of its
// subcommand. Reading the words this loosely (npm --loglevel run run rm
// names "rm" too) can only add commands that a rule may object to. With a
// workspace selected, its scripts are read; with all of them (npm -ws,
// pnpm -r, yarn workspaces foreach, lerna, turbo, nx), every workspace's.
func (w *walker) runsPackageScripts(idx int, name string, inner []word) {
	if w.st.disk.FindUp == nil {
		return
	}
	if w.setsPackageScripts(name, inner[1:]) || w.writesAny(packageFiles) {
		return
	}
	c := &w.st.line.Commands[idx]
	dirs, unknown := c.Dirs, c.DirUnknown
	if d, ok := packageDirOption(inner[1:]); ok {
		dirs, unknown = append(slices.Clip(dirs), d), unknown || d == ""
	}
	pkgs, why := w.packagesRun(name, inner[1:], dirs, unknown)
	if why != "" {
		c.Unknown = why
		return
	}
	for _, pkg := range pkgs {
		scripts, _ := taskfile.ReadPackageScripts(pkg.text)
		if len(w.st.pkgScripts) > 0 {
			scripts = maps.Clone(scripts)
			if scripts == nil {
				scripts = map[string]string{}
			}
			for k, v := range w.st.pkgScripts {
				if v == "" {
					delete(scripts, k)
				} else {
					scripts[k] = v
				}
			}
		}
		srcs, why := scriptsRun(name, inner, scripts)
		if why != "" {
			c.Unknown = why
			return
		}
		dir := pkg.dir
		if unknown {
			dir = "" // a guess: the scripts run where their command's directory is unknown
		}
		if w.mayRun(idx, srcs, dir); c.Unknown != "" {
			return
		}
	}
}

// packageFiles are the files a package manager finds its scripts through:
// package.json, and the lists of workspaces.
var packageFiles = []string{"package.json", "pnpm-workspace.yaml", "lerna.json"}

// packageFile is a package.json's text and the folder it is in.
type packageFile struct{ text, dir string }

// maxWorkspaces bounds the workspaces read for one command: past it, the
// scripts it may run are out of sight and the command is unknown.
const maxWorkspaces = 512

// packagesRun returns the package.json files whose scripts the package
// manager name, given args, runs with the directory changes dirs in force:
// the nearest one up; a workspace its words select by folder or name; or,
// when they select all, the project's and every workspace's. why, when
// not "", is why they cannot be known.
func (w *walker) packagesRun(name string, args []word, dirs []string, unknown bool) (pkgs []packageFile, why string) {
	d := w.st.disk
	ws, one := workspaceOption(name, args)
	if one && d.File != nil {
		// A workspace by its folder, or by its name, as npm and yarn link
		// it into node_modules.
		for _, at := range []string{ws, "node_modules/" + ws} {
			text, dir, why := d.File(append(slices.Clip(dirs), at), unknown, []string{"package.json"})
			if why != "" || text != "" {
				return []packageFile{{text, dir}}, why
			}
		}
	}
	text, dir, why := d.FindUp(dirs, unknown, "package.json")
	if why != "" || text == "" {
		return nil, why
	}
	project := packageFile{text, dir}
	if !one && !allWorkspaces(name, args) {
		return []packageFile{project}, ""
	}
	members, why := w.workspaceMembers(project)
	if why != "" {
		return nil, why
	}
	if one {
		// By its name, or (npm) every workspace in the folder it names.
		var under []packageFile
		for _, m := range members {
			if n, _ := taskfile.PackageIdentity(m.text); n == ws {
				return []packageFile{m}, ""
			}
			if base := path.Join(project.dir, ws); strings.HasPrefix(m.dir, base+"/") {
				under = append(under, m)
			}
		}
		if len(under) > 0 {
			return under, ""
		}
		return []packageFile{project}, ""
	}
	return append([]packageFile{project}, members...), ""
}

// workspaceMembers reads the package.json of each workspace of project:
// those its "workspaces" name, else pnpm-workspace.yaml's or lerna.json's.
func (w *walker) workspaceMembers(project packageFile) ([]packageFile, string) {
	d := w.st.disk
	if d.Workspaces == nil || d.File == nil {
		return nil, ""
	}
	_, patterns := taskfile.PackageIdentity(project.text)
	if len(patterns) == 0 {
		if text, _, why := d.File([]string{project.dir}, false, []string{"pnpm-workspace.yaml"}); why != "" {
			return nil, why
		} else {
			patterns = taskfile.PnpmWorkspaces(text)
		}
	}
	if len(patterns) == 0 {
		if text, _, why := d.File([]string{project.dir}, false, []string{"lerna.json"}); why != "" {
			return nil, why
		} else {
			patterns = taskfile.LernaPackages(text)
		}
	}
	if len(patterns) == 0 {
		return nil, ""
	}
	folders, why := d.Workspaces(project.dir, patterns, "package.json")
	if why != "" {
		return nil, why
	}
	if len(folders) > maxWorkspaces {
		return nil, fmt.Sprintf("it may run the scripts of %d workspaces, more than the %d read", len(folders), maxWorkspaces)
	}
	var members []packageFile
	for _, f := range folders {
		if f == project.dir {
			continue
		}
		text, dir, why := d.File([]string{f}, false, []string{"package.json"})
		if why != "" {
			return nil, why
		}
		if text != "" {
			members = append(members, packageFile{text, dir})
		}
	}
	return members, ""
}

// allWorkspaces reports words that run a script in every workspace, or
// in those a pattern or a word only known at run time selects, read as
// all: npm -ws, pnpm -r (pnpm recursive), bun --filter, yarn workspaces
// foreach (yarn 1's workspaces run), a workspace runner run through the
// package manager (pnpm turbo run x); lerna, turbo and nx always do.
func allWorkspaces(name string, args []word) bool {
	switch name {
	case "lerna", "turbo", "nx":
		return true
	}
	if _, one := workspaceOption(name, args); !one && selectsWorkspace(name, args) {
		return true
	}
	positional := 0
	for i, a := range args {
		opt, _, _ := strings.Cut(a.s, "=")
		switch {
		case name == "npm" && (opt == "-ws" || opt == "--workspaces"):
			return true
		case name == "pnpm" && (opt == "-r" || opt == "--recursive"):
			return true
		case name == "bun" && opt == "--filter":
			return true
		case name == "yarn" && a.s == "workspaces" && i+1 < len(args) && (args[i+1].s == "foreach" || args[i+1].s == "run"):
			return true
		}
		if strings.HasPrefix(a.s, "-") {
			continue
		}
		if positional++; positional <= 2 && (a.s == "turbo" || a.s == "lerna" || a.s == "nx" ||
			name == "pnpm" && positional == 1 && (a.s == "recursive" || a.s == "multi" || a.s == "m")) {
			return true
		}
	}
	return false
}

// selectsWorkspace reports a workspace option in args: npm -w, pnpm
// --filter, yarn workspace.
func selectsWorkspace(name string, args []word) bool {
	return slices.ContainsFunc(args, func(a word) bool {
		opt, _, _ := strings.Cut(a.s, "=")
		return name == "npm" && (opt == "-w" || opt == "--workspace") ||
			name == "pnpm" && (opt == "--filter" || opt == "-F") ||
			name == "yarn" && a.s == "workspace"
	})
}

// scriptsRun returns the script lines of scripts that the package manager
// name, given the words inner, may run (see runsPackageScripts); why, when
// not "", is why they cannot be known.
func scriptsRun(name string, inner []word, scripts map[string]string) (srcs []string, why string) {
	if len(scripts) == 0 {
		return nil, ""
	}
	type run struct {
		name string
		args []word
	}
	var runs []run
	seen := map[string]bool{}
	add := func(n string, args []word) {
		if _, ok := scripts[n]; ok && !seen[n] {
			seen[n] = true
			runs = append(runs, run{n, args})
		}
	}
	// A word only known at run time names a script where the script's
	// name goes: after run, or first for yarn, pnpm and bun (yarn "$X").
	anyScript, positional, afterRun := false, 0, false
	var anyArgs []word
	argsAfter := func(i int) []word {
		args := inner[i+2:]
		if len(args) > 0 && args[0].s == "--" && !args[0].dyn {
			args = args[1:]
		}
		return args
	}
	for i, x := range inner[1:] {
		if runAll(name) { // each through npm run: with its pre and post scripts
			switch {
			case strings.HasPrefix(x.s, "-"):
			case x.dyn:
				anyScript = true
			default:
				for _, n := range slices.Sorted(maps.Keys(scripts)) {
					if n == x.s || strings.ContainsAny(x.s, "*?[") && scriptPattern(x.s, n) {
						add("pre"+n, nil)
						add(n, nil)
						add("post"+n, nil)
					}
				}
			}
			continue
		}
		if x.dyn && !anyScript && !strings.HasPrefix(x.shape, "-") && (afterRun || positional == 0 && name != "npm") {
			anyScript, anyArgs = true, argsAfter(i)
		}
		if !strings.HasPrefix(x.s, "-") {
			positional++
			afterRun = x.s == "run" || x.s == "run-script" || x.s == "rum" || x.s == "urn"
		}
		if x.dyn {
			continue
		}
		if name == "bun" && x.s == "test" {
			continue // bun's own test runner
		}
		for _, n := range taskNames(name, x.s) {
			if _, ok := scripts[n]; ok {
				add("pre"+n, nil)
				add(n, argsAfter(i))
				add("post"+n, nil)
			}
		}
		if !strings.HasPrefix(x.s, "-") {
			for _, n := range lifecycleScripts(x.s) {
				add(n, nil)
			}
		}
	}
	if anyScript {
		if len(scripts) > maxPackageScripts {
			return nil, fmt.Sprintf("a word only known at run time may name any of the %d scripts of package.json", len(scripts))
		}
		for _, n := range slices.Sorted(maps.Keys(scripts)) {
			add(n, anyArgs)
		}
	}
	if len(runs) > maxPackageScripts {
		return nil, "it names more than 16 scripts of package.json"
	}
	for _, r := range runs {
		srcs = append(srcs, scripts[r.name]+appended(r.args))
	}
	return srcs, ""
}

// taskNames are the scripts a word may name: itself, or for the
// workspace runners the task in nx's project:task, turbo's package#task and
// --target=a,b (nx, turbo's --filter is not a task).
func taskNames(name, s string) []string {
	if strings.HasPrefix(s, "-") {
		opt, v, ok := strings.Cut(s, "=")
		if !ok || name != "nx" || (opt != "-t" && opt != "--target" && opt != "--targets") {
			return nil
		}
		return strings.Split(v, ",")
	}
	switch name {
	case "nx":
		if _, task, ok := strings.Cut(s, ":"); ok {
			return []string{s, task}
		}
		return strings.Split(s, ",")
	case "turbo":
		if _, task, ok := strings.Cut(s, "#"); ok {
			return []string{s, task}
		}
	}
	return []string{s}
}

// appended is the text that words a command passes on to a script add to
// it: each quoted, or its source text when only known at run time, so
// that the shell expands it as it would.
func appended(args []word) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteByte(' ')
		if a.dyn {
			b.WriteString(a.s)
		} else {
			b.WriteString(Quote(a.s))
		}
	}
	return b.String()
}

// workspaceOption returns the workspace a package manager's words select
// by its name or its folder: npm -w NAME, yarn workspace NAME, pnpm
// --filter NAME (one package, not a pattern); ok is false for none, or one
// only known at run time.
func workspaceOption(name string, args []word) (ws string, ok bool) {
	for i, a := range args {
		opt, v, eq := strings.Cut(a.s, "=")
		switch {
		case (name == "npm" && (opt == "-w" || opt == "--workspace")) || (name == "pnpm" && (opt == "--filter" || opt == "-F")):
			if !eq {
				if i+1 >= len(args) {
					return "", false
				}
				v, a = args[i+1].s, args[i+1]
			}
		case name == "yarn" && a.s == "workspace" && i+1 < len(args):
			v, a = args[i+1].s, args[i+1]
		default:
			continue
		}
		if a.dyn || v == "" || strings.ContainsAny(v, "*{}[]!^") || strings.Contains(v, "...") {
			return "", false
		}
		return v, true
	}
	return "", false
}

// packageDirOption returns the folder an option sends a package manager
// to (npm --prefix, pnpm -C, yarn and deno task --cwd, composer -d), ""
// when it is not static; ok is false when there is none.
func packageDirOption(args []word) (dir string, ok bool) {
	for i, a := range args {
		opt, v, eq := strings.Cut(a.s, "=")
		switch opt {
		case "--prefix", "-C", "--dir", "--cwd", "-d", "--working-dir":
		default:
			continue
		}
		val := word{s: v, dyn: a.dyn}
		if !eq {
			if i+1 >= len(args) {
				return "", false
			}
			val = args[i+1]
		}
		if val.dyn {
			return "", true
		}
		return val.s, true
	}
	return "", false
}

// setsPackageScripts records the scripts npm pkg set (or delete, or the
// old npm set-script) gives package.json, for the package managers run
// later in the line; it reports whether the command is one of those. A
// whole "scripts" object set at once leaves package.json not known.
func (w *walker) setsPackageScripts(name string, args []word) bool {
	var ops []word
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") || a.dyn {
			ops = append(ops, a)
		}
	}
	set := func(k, v string) {
		if w.st.pkgScripts == nil {
			w.st.pkgScripts = map[string]string{}
		}
		w.st.pkgScripts[k] = v
	}
	switch {
	case len(ops) >= 3 && ops[0].s == "set-script" && !ops[1].dyn && !ops[2].dyn:
		set(ops[1].s, ops[2].s)
	case len(ops) >= 2 && ops[0].s == "pkg" && (ops[1].s == "set" || ops[1].s == "delete"):
		for _, a := range ops[2:] {
			k, v, _ := strings.Cut(a.s, "=")
			switch {
			case !strings.HasPrefix(k, "scripts"):
			case a.dyn || !strings.HasPrefix(k, "scripts."):
				w.wrote("package.json", writtenFile{by: name + " pkg " + ops[1].s})
			case ops[1].s == "delete":
				set(strings.TrimPrefix(k, "scripts."), "")
			default:
				set(strings.TrimPrefix(k, "scripts."), v)
			}
		}
	default:
		return false
	}
	return true
}
