package discover

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/policy/shellcmd"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Command is one command the project runs, as proposed.
type Command struct {
	Text string   // the command line, as policy.json and the examples hold it
	Argv []string // normalized (program reduced to its basename)
	// Runs is the command a package runner runs (eslint . of npx eslint .),
	// or nil: the policy judges both, so a rule that allows one allows both.
	Runs     []string
	Category Category // "" when it is not proposed
	Why      string   // why it is not proposed
	Sources  []string // where it was found: package.json, a workflow, go.mod...

	// group names the commands that are proposed or left out together
	// when the manifest would grow too long (see keepShort): the forms of
	// one workspace script, or one task of a task runner; "" for those
	// always proposed. weight orders groups: the heaviest are kept.
	group  string
	weight int
}

// Proposal is the starter policy for a project.
type Proposal struct {
	// Commands holds every project command considered, in the order found:
	// those with a Category were proposed (allowed, or asked when risky).
	Commands []Command
	Manifest []byte      // agent-shell.toml, commented
	Rules    []RuleBlock // the manifest's rules, one by one
}

// accidents are the classic accidents, as policy.json patterns: a project
// command they would stop as written is not proposed.
var accidents = []string{"git push --force*", "git reset --hard*", "rm -rf *", "sudo *"}

// Propose turns a scan into a starter policy.json and agent-shell.toml.
// Workflow commands are proposed only when they are known test, build, lint
// or install commands of the project's own tools; every generated rule's
// examples are checked against the policy engine before they are written.
func Propose(p *Project) Proposal {
	c := &collector{p: p, index: map[string]int{}}
	c.collect()
	var prop Proposal
	// What the classic accidents' patterns would stop as written (a risky
	// environment variable, --output=) is not worth proposing.
	if e, err := policy.NewEngine(&policy.PolicyFile{Deny: accidents}, nil); err == nil {
		for i := range c.cmds {
			cmd := &c.cmds[i]
			if cmd.Category == "" || cmd.Category == CatRisky {
				continue
			}
			if d := e.Decide(cmd.Text, ""); d.Action != policy.ActionAllow {
				cmd.Category, cmd.Why = "", "the policy would not allow it as written: "+d.Reason
			}
		}
	}
	c.keepShort()
	prop.Commands = c.cmds
	prop.Manifest, prop.Rules = manifest(p, c.cmds)
	return prop
}

type collector struct {
	p     *Project
	cmds  []Command
	index map[string]int // Text -> position in cmds

	group  string // the group and weight of the commands being added
	weight int
}

// add considers one command line found in source. text must be a single
// simple command; it is classified on its parsed, normalized form.
func (c *collector) add(text, source string) {
	if i, ok := c.index[text]; ok {
		if !contains(c.cmds[i].Sources, source) {
			c.cmds[i].Sources = append(c.cmds[i].Sources, source)
		}
		return
	}
	cmd := Command{Text: text, Sources: []string{source}, group: c.group, weight: c.weight}
	line := shellcmd.Parse(text)
	switch {
	case line.Err != nil || line.Written() != 1 || len(line.Pipelines) > 0 || len(line.Assigns) > 0:
		cmd.Why = "not a single simple command"
	case line.Commands[0].Unknown != "" || line.Commands[0].Dynamic || !plainLayers(&line.Commands[0]) ||
		len(line.Commands[0].Redirects) > 0 || len(line.Commands[0].Assigns) > 0:
		cmd.Argv = line.Commands[0].Argv
		cmd.Why = "not a plain command"
	default:
		cmd.Argv, cmd.Runs = writtenArgv(&line.Commands[0])
		cmd.Category, cmd.Why = c.p.classify(cmd.Argv)
	}
	c.index[text] = len(c.cmds)
	c.cmds = append(c.cmds, cmd)
}

// plainLayers reports a command with no wrapper, or one package runner
// (npx eslint ., uv run pytest): the project's own way to run its tools.
func plainLayers(c *shellcmd.Command) bool {
	return len(c.Layers) == 1 || len(c.Layers) == 2 && shellcmd.RunsPackage(c.Layers[0])
}

// writtenArgv is a command as written, with the command a package runner
// in it runs (nil when there is none).
func writtenArgv(c *shellcmd.Command) (argv, runs []string) {
	if len(c.Layers) > 1 && shellcmd.RunsPackage(c.Layers[0]) {
		return c.Layers[0], c.Argv
	}
	return c.Argv, nil
}

// skip records a command that is not proposed, for the manifest's list.
func (c *collector) skip(text, source, why string) {
	if _, ok := c.index[text]; ok {
		return
	}
	c.index[text] = len(c.cmds)
	c.cmds = append(c.cmds, Command{Text: text, Why: why, Sources: []string{source}})
}

func (c *collector) collect() {
	p := c.p
	// A workspace package's script is proposed once by its name, however
	// many packages have it: for every package, for the one whose folder it
	// runs from, and for the package a selector names (pnpm --filter web
	// run build, whose allow rule takes any package: pnpm --filter * run
	// build), so the manifest grows with the scripts, not the packages.
	named := map[string]bool{}
	packages := map[string]int{} // workspace script -> how many packages have it
	// The package whose name a selector form uses: the first one that has
	// the script and a name to select it by.
	rep := map[string]Package{}
	for _, pkg := range p.Packages {
		for _, sc := range pkg.Scripts {
			if pkg.Dir == "." {
				continue
			}
			packages[sc.Name]++
			if r, ok := rep[sc.Name]; !ok || taskName(pkg.Name) && !taskName(r.Name) {
				rep[sc.Name] = pkg
			}
		}
	}
	for _, pkg := range p.Packages {
		for _, sc := range pkg.Scripts {
			var forms []string
			switch {
			case !taskName(sc.Name):
				c.skip(fmt.Sprintf("%s run %q", p.PackageManager, sc.Name), pkg.File, "a script name that needs quoting")
				continue
			case pkg.Dir == ".":
				for _, f := range scriptForms(p.PackageManager, sc.Name) {
					c.add(f, pkg.File)
				}
				// pnpm test-unit runs the script too: optional, before any
				// workspace script.
				if short, ok := p.runShorthand(sc.Name); ok {
					c.group, c.weight = "shorthand "+sc.Name, shorthandWeight*taskWeight(sc.Name)
					if nameCategory(sc.Name) == CatTask {
						c.weight = 1 // pnpm dev: after the workspace scripts
					}
					c.add(short, pkg.File)
					c.group = ""
				}
			case named[sc.Name] || rep[sc.Name].Dir != pkg.Dir && !p.lifecycle(sc.Name):
				continue
			case p.lifecycle(sc.Name):
				// The package manager runs it itself: said once, not proposed.
				named[sc.Name] = true
				forms = []string{p.PackageManager + " run " + sc.Name}
			default:
				named[sc.Name] = true
				forms = workspaceForms(p.PackageManager, pkg, sc.Name)
				c.group, c.weight = "script "+sc.Name, packages[sc.Name]*taskWeight(sc.Name)
			}
			for _, f := range forms {
				c.add(f, pkg.File)
			}
			c.group = ""
		}
	}
	for _, w := range p.Workflows {
		words := append([]string{w.Path}, w.Argv[1:]...)
		text, ok := renderCommand(words)
		switch {
		case w.Why != "":
			c.skip(strings.Join(words, " "), w.File, w.Why)
		case !ok:
			c.skip(strings.Join(words, " "), w.File, "holds a character a policy pattern cannot hold (* or a quote)")
		default:
			c.add(text, w.File)
		}
	}
	for _, t := range p.MiseTasks {
		if !t.Private && taskName(t.Name) {
			c.add("mise run "+t.Name, "mise.toml")
		}
	}
	if len(p.MiseTasks) > 0 {
		c.add("mise install", "mise.toml")
	}
	if p.MakeDefault != "" {
		if _, ok := findTask(p.MakeTargets, p.MakeDefault); ok {
			c.add("make", "Makefile")
		}
	}
	// A task runner's tasks are proposed by name, those the workflows do
	// not run optional: tests first, then checks and builds, then the rest;
	// a target that another runs under a shorter name (common-lint, which
	// make lint runs by %: common-% ;) last.
	via := map[string]bool{}
	for _, t := range p.MakeTargets {
		if t.Via != "" {
			via[t.Via] = true
		}
	}
	task := func(text, source, name string) {
		c.group, c.weight = "task "+text, taskWeight(name)
		if via[name] {
			c.weight = 0
		}
		c.add(text, source)
		c.group = ""
	}
	for _, t := range p.MakeTargets {
		task("make "+t.Name, "Makefile", t.Name)
	}
	for _, t := range p.NoxSessions {
		task("nox -s "+t.Name, "noxfile.py", t.Name)
	}
	for _, t := range p.ToxEnvs {
		task("tox -e "+t.Name, p.ToxFile, t.Name)
	}
	if len(p.JustRecipes) > 0 && p.JustRecipes[0].Required == 0 && !p.JustRecipes[0].Private {
		c.add("just", "justfile")
	}
	for _, t := range p.JustRecipes {
		if !t.Private && t.Required == 0 {
			task("just "+t.Name, "justfile", t.Name)
		}
	}
	for _, l := range p.Languages {
		for _, cmd := range l.Commands {
			c.add(cmd, l.Evidence)
		}
	}
}

// maxProjectPrefixes bounds the argv prefixes of the rules for the
// project's own commands, so that the manifest fits on a screen or two
// whatever the size of a monorepo or a Makefile: with git, exploration and
// the deny rules, about 60 patterns.
const maxProjectPrefixes = 45

// shorthandWeight puts the package manager's shorthand for a root test,
// check or build script (pnpm test-unit) before every workspace script;
// that of another task (pnpm dev) comes after them.
const shorthandWeight = 1 << 20

// taskWeight orders a task runner's tasks by what their name says.
func taskWeight(name string) int {
	switch nameCategory(name) {
	case CatTest:
		return 3
	case CatLint, CatBuild:
		return 2
	}
	return 1
}

// keepShort leaves out what would take the project's rules past
// maxProjectPrefixes: the commands found at the root package.json, in
// workflows and for the languages are always kept; then the groups (the
// run shorthand of a root script, a workspace script's forms, a task
// runner's task) are kept by weight while they fit: the shorthand of a
// root test, check or build script first, then workspace scripts by how
// many packages have them (a test counting thrice, a build or check twice),
// task runners' tasks by what they are. A group left out is named once in the manifest's list of
// what was not proposed.
func (c *collector) keepShort() {
	kept := map[Category][][]string{}
	count := 0
	// cost is how many prefixes the commands add to the rules, as
	// projectRule and riskyRule write them (a prefix that a kept one
	// covers is free).
	cost := func(cmds []*Command, commit bool) int {
		n := 0
		added := map[Category][][]string{}
		for _, cmd := range cmds {
			if !proposed(*cmd) {
				continue
			}
			pre := runnerPrefix(cmd.Argv)
			if cmd.Category == CatRisky {
				pre = riskyPrefix(cmd.Argv)
			}
			covered := false
			for _, k := range append(kept[cmd.Category], added[cmd.Category]...) {
				covered = covered || hasPrefix(pre, k)
			}
			if !covered {
				added[cmd.Category] = append(added[cmd.Category], pre)
				n++
			}
		}
		if commit {
			for cat, list := range added {
				kept[cat] = append(kept[cat], list...)
			}
			count += n
		}
		return n
	}
	var core []*Command
	byGroup := map[string][]*Command{}
	var groups []string
	for i := range c.cmds {
		cmd := &c.cmds[i]
		if cmd.group == "" {
			core = append(core, cmd)
			continue
		}
		if byGroup[cmd.group] == nil {
			groups = append(groups, cmd.group)
		}
		byGroup[cmd.group] = append(byGroup[cmd.group], cmd)
	}
	cost(core, true)
	sort.SliceStable(groups, func(i, j int) bool { return byGroup[groups[i]][0].weight > byGroup[groups[j]][0].weight })
	drop := map[*Command]bool{}
	for _, g := range groups {
		cmds := byGroup[g]
		if count+cost(cmds, false) <= maxProjectPrefixes {
			cost(cmds, true)
			continue
		}
		// Left out: one of its forms (a selector's, when there is one) is
		// kept as the line that says so.
		say := cmds[len(cmds)-1]
		for _, cmd := range cmds {
			if selectorValue(cmd.Argv) > 0 {
				say = cmd
				break
			}
		}
		for _, cmd := range cmds {
			if cmd != say {
				drop[cmd] = true
			}
		}
		if proposed(*say) {
			why := "left out to keep the policy short"
			if name, ok := strings.CutPrefix(g, "script "); ok {
				why = fmt.Sprintf("a script of %d workspace package(s), %s", c.packages(name), why)
			}
			say.Category, say.Why = "", why
		}
	}
	if len(drop) == 0 {
		return
	}
	out := c.cmds[:0]
	for i := range c.cmds {
		if !drop[&c.cmds[i]] {
			out = append(out, c.cmds[i])
		}
	}
	c.cmds = out
}

// packages is how many workspace packages have a script.
func (c *collector) packages(name string) int {
	n := 0
	for _, pkg := range c.p.Packages {
		for _, sc := range pkg.Scripts {
			if pkg.Dir != "." && sc.Name == name {
				n++
			}
		}
	}
	return n
}

// proposed: a command that a project rule's prefixes will hold.
func proposed(c Command) bool {
	return c.Category != "" && c.Category != CatInstall && (len(c.Argv) > 1 || leafTool(c.Argv[0]))
}

// scriptForms are the command lines that run a script with the project's
// package manager, in the package whose folder they run from.
func scriptForms(pm, name string) []string {
	switch pm {
	case "pnpm", "yarn":
		if name == "test" {
			return []string{pm + " test", pm + " run test"}
		}
		return []string{pm + " run " + name}
	case "bun":
		return []string{"bun run " + name}
	}
	if name == "test" || name == "start" {
		return []string{"npm " + name, "npm run " + name}
	}
	return []string{"npm run " + name}
}

// runShorthand is the package manager's shorthand for running a root
// script, pnpm NAME or yarn NAME, when no builtin of the name comes first
// and the script neither publishes nor is a lifecycle script.
func (p *Project) runShorthand(name string) (string, bool) {
	switch {
	case p.lifecycle(name) || risky(name):
	case p.PackageManager == "pnpm" && !pnpmBuiltins.Get()[name], p.PackageManager == "yarn" && !yarnBuiltins.Get()[name]:
		return p.PackageManager + " " + name, true
	}
	return "", false
}

// workspaceForms run a workspace package's script: in every package that
// has it, in the package whose folder it runs from, and in the package a
// selector names, with and without the run shorthand. The selector's value
// is the package's name or folder; the rule written for it takes any (see
// runnerPrefix).
func workspaceForms(pm string, pkg Package, name string) []string {
	forms := scriptForms(pm, name)
	sel := pkg.Name
	if !taskName(sel) {
		sel = ""
	}
	dir, dirOK := "./"+pkg.Dir, taskName(pkg.Dir)
	switch pm {
	case "pnpm":
		forms = append(forms, "pnpm -r run "+name)
		if sel == "" && dirOK {
			sel = dir
		}
		if sel == "" {
			break
		}
		forms = append(forms, fmt.Sprintf("pnpm --filter %s run %s", sel, name), fmt.Sprintf("pnpm -F %s run %s", sel, name))
		if !pnpmBuiltins.Get()[name] || name == "test" || name == "start" {
			forms = append(forms, fmt.Sprintf("pnpm --filter %s %s", sel, name), fmt.Sprintf("pnpm -F %s %s", sel, name))
		}
	case "yarn":
		forms = append(forms, "yarn workspaces run "+name)
		if sel == "" {
			break
		}
		forms = append(forms, fmt.Sprintf("yarn workspace %s run %s", sel, name))
		if !yarnBuiltins.Get()[name] || name == "test" || name == "start" {
			forms = append(forms, fmt.Sprintf("yarn workspace %s %s", sel, name))
		}
	case "bun":
		if sel != "" {
			forms = append(forms, fmt.Sprintf("bun run --filter %s %s", sel, name))
		}
	default:
		// npm run build --workspaces and --workspace=web are the root form
		// with more arguments; -w before the command is a form of its own.
		forms = append(forms, fmt.Sprintf("npm run %s --workspaces", name))
		if dirOK {
			forms = append(forms, fmt.Sprintf("npm -w %s run %s", pkg.Dir, name))
		}
	}
	return forms
}

// pnpmBuiltins and yarnBuiltins are the package managers' own commands:
// `pnpm NAME` runs the script NAME only when it is none of them (and when
// the package has no script of that name, pnpm runs a program of the name
// instead, as pnpm exec does).
var (
	pnpmBuiltins = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return wordSet("add approve-builds audit bin c cache cat-file cat-index clean completion config create dedupe deploy " +
			"dlx doctor env exec fetch find-hash help i ignored-builds import init install install-test it la licenses link list ll ln ls " +
			"m multi outdated pack patch patch-commit patch-remove pm prune publish r rb rebuild recursive remove restart rm root run " +
			"run-script self-update server setup start store t test tst un uninstall unlink up update upgrade why x")
	}}
	yarnBuiltins = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return wordSet("add audit autoclean bin cache check config constraints create dedupe dlx exec explain generate-lock-entry " +
			"global help import info init install licenses link list login logout node npm outdated owner pack patch patch-commit " +
			"plugin policies publish rebuild remove run search set stage tag team unlink unplug up upgrade upgrade-interactive " +
			"version versions why workspace workspaces")
	}}
)

func wordSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// taskName: a script, task or package name that can be written unquoted
// in a command and a policy pattern.
func taskName(name string) bool {
	if name == "" || len(name) > 128 || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:/@+", r)) {
			return false
		}
	}
	return true
}

// renderCommand writes words as a command line that the shell parser and
// the policy pattern reader both split back into the same words. ok is
// false for a word neither can hold literally: a *, which is a wildcard in
// policy.json, a quote, a backslash, a $ or a control character.
func renderCommand(words []string) (string, bool) {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, "*'\"\\$`") {
			return "", false
		}
		for _, r := range w {
			if r < 0x20 || r == 0x7f {
				return "", false
			}
		}
		if strings.ContainsAny(w, " #;&|<>(){}[]?!") || i > 0 && strings.HasPrefix(w, "~") {
			w = "'" + w + "'"
		}
		out[i] = w
	}
	return strings.Join(out, " "), true
}

func dedupeSorted(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func remove(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sourceList names where commands came from, each once, in order.
func sourceList(cmds []Command) string {
	var out []string
	for _, c := range cmds {
		for _, s := range c.Sources {
			if !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	const maxNamed = 6
	if len(out) > maxNamed {
		return fmt.Sprintf("%s and %d more", strings.Join(out[:maxNamed], ", "), len(out)-maxNamed)
	}
	return strings.Join(out, ", ")
}
