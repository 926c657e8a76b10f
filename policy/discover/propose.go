package discover

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Command is one command the project runs, as proposed.
type Command struct {
	Text     string   // the command line, as policy.json and the examples hold it
	Argv     []string // normalized (program reduced to its basename)
	Category Category // "" when it is not proposed
	Why      string   // why it is not proposed
	Sources  []string // where it was found: package.json, a workflow, go.mod...
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
	prop.Commands = c.cmds
	prop.Manifest, prop.Rules = manifest(p, c.cmds)
	return prop
}

type collector struct {
	p     *Project
	cmds  []Command
	index map[string]int // Text -> position in cmds
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
	cmd := Command{Text: text, Sources: []string{source}}
	line := shellcmd.Parse(text)
	switch {
	case line.Err != nil || len(line.Commands) != 1 || len(line.Pipelines) > 0 || len(line.Assigns) > 0:
		cmd.Why = "not a single simple command"
	case line.Commands[0].Unknown != "" || line.Commands[0].Dynamic || len(line.Commands[0].Layers) != 1 ||
		len(line.Commands[0].Redirects) > 0 || len(line.Commands[0].Assigns) > 0:
		cmd.Argv = line.Commands[0].Argv
		cmd.Why = "not a plain command"
	default:
		cmd.Argv = line.Commands[0].Argv
		cmd.Category, cmd.Why = c.p.classify(cmd.Argv)
	}
	c.index[text] = len(c.cmds)
	c.cmds = append(c.cmds, cmd)
}

// skip records a command that is not proposed, for the manifest's list.
func (c *collector) skip(text, source, why string) {
	if _, ok := c.index[text]; ok {
		return
	}
	c.index[text] = len(c.cmds)
	c.cmds = append(c.cmds, Command{Text: text, Why: why, Sources: []string{source}})
}

// maxNamedWorkspaces is how many workspace packages the proposal names one
// by one (pnpm --filter @acme/web run build). Past it, a monorepo's scripts
// are proposed as the package manager runs them in every package or in the
// package's own folder (pnpm -r run build; cd packages/web && pnpm run build),
// so that the manifest stays readable whatever the number of packages.
const maxNamedWorkspaces = 5

func (c *collector) collect() {
	p := c.p
	workspaces := 0
	for _, pkg := range p.Packages {
		if pkg.Dir != "." {
			workspaces++
		}
	}
	for _, pkg := range p.Packages {
		for _, sc := range pkg.Scripts {
			forms := scriptForms(p.PackageManager, pkg, sc.Name)
			if pkg.Dir != "." && workspaces > maxNamedWorkspaces && taskName(sc.Name) {
				forms = allWorkspaceForms(p.PackageManager, sc.Name)
			}
			switch {
			case len(forms) > 0:
			case !taskName(sc.Name):
				c.skip(fmt.Sprintf("%s run %q", p.PackageManager, sc.Name), pkg.File, "a script name that needs quoting")
			default:
				c.skip(fmt.Sprintf("%s run %s", p.PackageManager, sc.Name), pkg.File, "its package has no usable name to select it by")
			}
			for _, f := range forms {
				c.add(f, pkg.File)
			}
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
	for _, t := range p.MakeTargets {
		c.add("make "+t.Name, "Makefile")
	}
	if len(p.JustRecipes) > 0 && p.JustRecipes[0].Required == 0 && !p.JustRecipes[0].Private {
		c.add("just", "justfile")
	}
	for _, t := range p.JustRecipes {
		if !t.Private && t.Required == 0 {
			c.add("just "+t.Name, "justfile")
		}
	}
	for _, l := range p.Languages {
		for _, cmd := range l.Commands {
			c.add(cmd, l.Evidence)
		}
	}
}

// scriptForms are the command lines that run a script with the project's
// package manager: from the root, or for one workspace package by name.
func scriptForms(pm string, pkg Package, name string) []string {
	if !taskName(name) {
		return nil
	}
	if pkg.Dir != "." {
		ws := pkg.Name
		if !taskName(ws) {
			return nil
		}
		switch pm {
		case "pnpm":
			return []string{fmt.Sprintf("pnpm --filter %s run %s", ws, name)}
		case "yarn":
			return []string{fmt.Sprintf("yarn workspace %s run %s", ws, name)}
		case "bun":
			return []string{fmt.Sprintf("bun run --filter %s %s", ws, name)}
		}
		return []string{fmt.Sprintf("npm run %s --workspace=%s", name, ws)}
	}
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

// allWorkspaceForms run a workspace script in every package that has it,
// and in the package whose folder it is run from.
func allWorkspaceForms(pm, name string) []string {
	local := Package{Dir: "."}
	switch pm {
	case "pnpm":
		return append([]string{"pnpm -r run " + name}, scriptForms(pm, local, name)...)
	case "yarn":
		return append([]string{"yarn workspaces run " + name}, scriptForms(pm, local, name)...)
	case "bun":
		return scriptForms(pm, local, name)
	}
	return append([]string{"npm run " + name + " --workspaces"}, scriptForms(pm, local, name)...)
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
