package discover

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agent-shell/agent-shell/policy"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// ruleSpec is one [[rule]] to write.
type ruleSpec struct {
	comment            []string
	id, action, reason string
	inline             string     // a one-line match table, or
	programs           []string   // any of these programs (basename),
	prefixes           [][]string // or any of these argv prefixes,
	guards             []guard    // unless one of these holds
	match, notMatch    []string   // examples
}

// guard is one entry of a rule's `not.any`: for commands of basename (any
// when ""), an argument equal to one of argument or containing one of
// contains.
type guard struct {
	basename           string
	prefix             []string // for commands with this argv prefix (python -m tox)
	argument, contains []string
	effect             []string // effects that keep a command out (a write, for reading rules)
	sample             string   // an argument it stops, for a counter-example
}

// programGuards keep a prefix rule from admitting options that make the
// program run something other than the project's own code: another shell,
// an exec wrapper, another Makefile or config, a variable override.
var programGuards = lazy.Value[map[string][]guard]{New: func() map[string][]guard {
	return map[string][]guard{
		"go":      {{contains: []string{"-exec", "-toolexec", "-vettool"}, sample: "-exec=sh"}},
		"npm":     {npmGuard, npmDirGuard},
		"pnpm":    {npmGuard, npmDirGuard},
		"yarn":    {npmGuard},
		"bun":     {npmGuard},
		"npx":     {npmGuard},
		"cargo":   {{contains: []string{"--config"}, sample: "--config=build.rustc-wrapper=sh"}},
		"gradle":  {gradleGuard},
		"gradlew": {gradleGuard},
		"make": {
			{contains: []string{"="}, sample: "SHELL=sh"},
			{argument: []string{"-f", "-C", "-E", "-I", "--eval", "--file", "--makefile", "--directory", "--include-dir"}},
		},
		"just": {{contains: []string{"--justfile", "--working-directory", "--set", "--shell", "--dotenv", "--command"}, sample: "--shell=sh"},
			{argument: []string{"-f", "-d", "-c"}}},
		// Another noxfile or configuration, an override of what an environment
		// runs. (nox -k and -t only narrow the sessions -s names.)
		"nox": {{contains: []string{"--noxfile"}, sample: "--noxfile=evil.py"}, {argument: []string{"-f"}}},
		"tox": {{contains: []string{"--conf", "--override", "--root", "--workdir"}, sample: "--override=testenv.commands=sh"},
			{argument: []string{"-c", "-x"}}},
	}
}}

// moduleGuards are programGuards for a tool run as python -m TOOL.
var moduleGuards = lazy.Value[map[string]bool]{New: func() map[string]bool { return map[string]bool{"nox": true, "tox": true} }}

var (
	// The directory options (--dir, --cwd, -C) would run another project's
	// scripts; --config sets any of the others (--config.script-shell=sh).
	npmGuard = guard{contains: []string{"--script-shell", "--node-options", "--userconfig", "--globalconfig", "--prefix", "--registry",
		"--dir", "--cwd", "--config"}, sample: "--script-shell=sh"}
	npmDirGuard = guard{argument: []string{"-C"}}
	gradleGuard = guard{contains: []string{"--init-script", "--scan"}, sample: "--init-script=x.gradle"}
)

// leafTools are programs whose every invocation is the same kind of
// command, so the program alone is a safe prefix (pytest, eslint...).
func leafTool(prog string) bool {
	return pythonTools.Get()[prog] != "" || goTools.Get()[prog] || jsTools.Get()[prog].cat != "" && jsTools.Get()[prog].cat != CatTask ||
		prog == "rspec" || prog == "rubocop" || prog == "standardrb"
}

// runnerPrefix is the prefix a project command is allowed by: the command
// itself, or for a toolchain's test, vet or build the toolchain and its
// subcommand, so that the filters a run adds come before the packages
// (go test -run TestX ./..., cargo test name), and what follows a "--" is
// left to the command's own arguments; the program's guards keep out what
// would run other code.
//
// A workspace selector's value becomes "*", any one word: pnpm --filter
// web run build is allowed as pnpm --filter * run build, for every package
// of the project, and the manifest grows with the scripts, not the
// packages. The script after the selector stays the project's own.
func runnerPrefix(argv []string) []string {
	if i := slices.Index(argv, "--"); i > 1 {
		argv = argv[:i] // what follows -- is passed on: more arguments
	}
	if len(argv) > 2 && (argv[0] == "go" || argv[0] == "cargo") {
		switch argv[1] {
		case "test", "vet", "build", "clippy", "check":
			return argv[:2]
		}
	}
	return anySelector(argv)
}

// riskyPrefix is the prefix an ask rule takes a risky command by: up to
// its first "--", with any workspace selector.
func riskyPrefix(argv []string) []string {
	if i := slices.Index(argv, "--"); i > 1 {
		argv = argv[:i]
	}
	return anySelector(argv)
}

// anySelector is argv with its workspace selector's value, if any, made
// "*": pnpm --filter * run build.
func anySelector(argv []string) []string {
	if i := selectorValue(argv); i > 0 {
		out := append([]string{}, argv...)
		out[i] = "*"
		return out
	}
	return argv
}

// selectorValue is the index of the workspace package a package manager's
// command selects before the script it runs (pnpm --filter X, pnpm -F X,
// yarn workspace X, npm -w X, npm --workspace X, bun run --filter X), 0
// when there is none.
func selectorValue(argv []string) int {
	if len(argv) < 4 {
		return 0
	}
	switch {
	case argv[0] == "pnpm" && (argv[1] == "--filter" || argv[1] == "-F"),
		argv[0] == "yarn" && argv[1] == "workspace",
		argv[0] == "npm" && (argv[1] == "-w" || argv[1] == "--workspace"):
		return 2
	case argv[0] == "bun" && argv[1] == "run" && (argv[2] == "--filter" || argv[2] == "-F") && len(argv) > 4:
		return 3
	}
	return 0
}

// maxExamples bounds the examples of one rule: enough to show what it is
// for, and each is checked whenever the manifest loads.
const maxExamples = 40

var groups = []struct {
	cat                 Category
	id, reason, comment string
}{
	{CatTest, "project-test", "the project's own test commands", "The project's test commands"},
	{CatBuild, "project-build", "the project's own build commands", "The project's build commands"},
	{CatLint, "project-lint", "the project's own lint, format and type checks", "The project's lint, format and type checks"},
	{CatTask, "project-tasks", "the project's own scripts and tasks", "The project's other scripts and tasks"},
}

// RuleBlock is one proposed rule as the manifest writes it, comments
// included: what Merge adds to a manifest that lacks the rule.
type RuleBlock struct {
	ID   string
	Text string
}

func manifest(p *Project, cmds []Command) ([]byte, []RuleBlock) {
	var b strings.Builder
	var blocks []RuleBlock
	b.WriteString(`# agent-shell.toml: the project's policy rules, proposed by ` + "`agent-shell policy --init`" + `.
# ` + p.Summary() + `
#
# Every shell command an agent runs is parsed into simple commands
# (` + "`cd web && npm test`" + ` is two), and each is checked against the rules below:
# every rule that matches counts, and deny beats ask beats allow. A rule's
# examples are checked whenever this file loads, so a rule that stops matching
# its own examples is an error, not a silent change. After editing, run
#
#   agent-shell policy check
#
# Three layers decide together: the built-in safety pack (what is dangerous
# anywhere: agent-shell pack show safety), the rules below (the project's own
# commands with the arguments they are run with, and read-only exploration),
# and [policy] default for everything else, which asks rather than denies.
# (A policy.json beside this file is applied too; an "allow" list there would
# be exact and deny every command it does not list.)
version = 1

[[pack]]
name = "safety"
options = { level = "standard" }

[policy]
# For a command that no rule matches: "allow", "ask" (a human decides; hosts
# that cannot ask deny instead) or "deny".
default = "ask"
# For a command whose program cannot be known before it runs ($CMD, bash -c "$X").
unknown = "ask"
`)
	riskyNames := projectRiskyNames(p)
	rules := []ruleSpec{gitRule(), exploreRule(p)}
	for _, g := range groups {
		if r, ok := projectRule(g.cat, g.id, g.reason, g.comment, cmds, riskyNames, riskyToxEnvs(p)); ok {
			rules = append(rules, r)
		}
	}
	if r, ok := riskyRule(cmds); ok {
		rules = append(rules, r)
	}
	rules = append(rules, denyRules()...)
	for _, r := range rules {
		if r = checked(r); len(r.match) > 0 {
			text := renderRule(r)
			blocks = append(blocks, RuleBlock{ID: r.id, Text: text})
			b.WriteString("\n")
			b.WriteString(text)
		}
	}
	b.WriteString(notes(cmds))
	return []byte(b.String()), blocks
}

// exploreRule allows reading the project: listing, reading and searching
// files, find without an action, and the toolchains' versions.
func exploreRule(p *Project) ruleSpec {
	// cd changes nothing itself; what runs after it is judged where it runs.
	var prefixes [][]string
	for _, tool := range versionedTools(p) {
		if tool == "go" {
			prefixes = append(prefixes, []string{"go", "version"}) // go has no --version
			continue
		}
		prefixes = append(prefixes, []string{tool, "--version"})
	}
	return ruleSpec{
		comment: []string{
			"Moving around and reading the project: cd, listing, reading and searching",
			"files, find without an action, and the toolchains' --version. The safety pack",
			"still stops secrets (cat .env), and anything outside these forms asks.",
		},
		id: "read-only-exploration", action: "allow", reason: "reads the project only",
		programs: []string{"cd", "ls", "cat", "head", "tail", "wc", "grep", "rg", "pwd", "tree", "which", "file", "stat", "du", "find"},
		prefixes: prefixes,
		guards: []guard{{basename: "find", argument: []string{"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}, sample: "-delete"},
			{basename: "tail", argument: []string{"-f", "-F", "--follow"}, sample: "-f"}, readOnlyGuard},
		match:    []string{"cd src", "ls -la lib", "cat package.json", "grep -rn TODO .", "find . -name '*.js'", "head -n 20 README.md", "ls 2>/dev/null"},
		notMatch: []string{"find . -name '*.tmp' -delete", "tail -f log.txt", "rm -rf lib", "cat README.md > ~/.bashrc"},
	}
}

// versionedTools are the toolchain programs of the project's languages.
func versionedTools(p *Project) []string {
	byLang := map[string][]string{
		"node": {"node", "npm", "npx"}, "go": {"go"},
		"python": {"python", "python3", "pip"}, "rust": {"cargo", "rustc"}, "java": {"java", "mvn", "gradle"},
		"ruby": {"ruby", "bundle"},
	}
	var out []string
	for _, l := range p.Languages {
		for _, t := range byLang[l.Name] {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	if p.PackageManager != "" && !contains(out, p.PackageManager) {
		out = append(out, p.PackageManager)
	}
	return out
}

// readOnlyGuard keeps a reading rule from allowing a write a redirection
// adds to it (ls > ~/.bashrc): that asks.
var readOnlyGuard = guard{effect: []string{"write"}}

func gitRule() ruleSpec {
	return ruleSpec{
		comment: []string{
			"Read-only git. --output writes a file, diff --no-index reads any file, and",
			"--ext-diff and --textconv run configured programs: those are kept out.",
		},
		id: "git-read-only", action: "allow", reason: "reads the repository only",
		prefixes: [][]string{{"git", "status"}, {"git", "diff"}, {"git", "log"}, {"git", "show"}, {"git", "rev-parse"},
			{"git", "branch", "--show-current"}, {"git", "branch", "--list"}},
		guards:   []guard{{contains: []string{"--output", "--no-index", "--ext-diff", "--textconv"}}, readOnlyGuard},
		match:    []string{"git status --short", "git diff --stat", "git log --oneline -n 20", "git show HEAD", "git rev-parse --show-toplevel"},
		notMatch: []string{"git diff --no-index /etc/passwd /dev/null", "git log --output=/tmp/log", "git branch -D main", "git diff > /etc/motd"},
	}
}

func denyRules() []ruleSpec {
	return []ruleSpec{
		{
			comment: []string{"The safety pack stops these too; here they stay whatever its level."},
			id:      "no-force-push", action: "deny", reason: "force pushes rewrite shared history",
			inline:   `{ argv_prefix = ["git", "push"], argument = "--force" }`,
			match:    []string{"git push --force origin main", "git push -f"},
			notMatch: []string{"git push origin main", "git push --force-with-lease"},
		},
		{
			id: "no-hard-reset", action: "deny", reason: "a hard reset throws away uncommitted work",
			inline:   `{ argv_prefix = ["git", "reset"], argument = "--hard" }`,
			match:    []string{"git reset --hard", "git reset --hard HEAD~1"},
			notMatch: []string{"git reset --soft HEAD~1"},
		},
		{
			id: "no-privilege", action: "deny", reason: "an agent does not run commands as another user; a human does",
			inline:   `{ basename = ["sudo", "doas", "su", "pkexec"] }`,
			match:    []string{"sudo ls", "doas make install"},
			notMatch: []string{"ls"},
		},
	}
}

// projectRule allows one category of the project's commands by argv
// prefix, with guards against options that would run something else.
func projectRule(cat Category, id, reason, comment string, cmds []Command, riskyNames, riskyTox []string) (ruleSpec, bool) {
	var in []Command
	for _, c := range cmds {
		if c.Category != cat {
			continue
		}
		if len(c.Argv) == 1 && !leafTool(c.Argv[0]) {
			continue // `make` or `yarn` as a prefix would admit every target or subcommand
		}
		in = append(in, c)
	}
	if len(in) == 0 {
		return ruleSpec{}, false
	}
	r := ruleSpec{
		comment: []string{
			comment + ", from " + sourceList(in) + ".",
			"A prefix also admits more arguments after it; `not` keeps out those that",
			"would run something other than the project's own code.",
		},
		id: id, action: "allow", reason: reason,
	}
	// Shortest first, so a longer prefix that a kept one covers is dropped.
	sorted := append([]Command{}, in...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(runnerPrefix(sorted[i].Argv)) < len(runnerPrefix(sorted[j].Argv)) })
	for _, c := range sorted {
		for _, argv := range [][]string{c.Argv, c.Runs} {
			if argv == nil {
				continue
			}
			pre := runnerPrefix(argv)
			covered := false
			for _, kept := range r.prefixes {
				covered = covered || hasPrefix(pre, kept)
			}
			if !covered {
				r.prefixes = append(r.prefixes, pre)
			}
		}
	}
	sort.SliceStable(r.prefixes, func(i, j int) bool { return strings.Join(r.prefixes[i], " ") < strings.Join(r.prefixes[j], " ") })
	for _, c := range in {
		if len(r.match) < maxExamples {
			r.match = append(r.match, c.Text)
		}
	}
	// Guards per program, less any word the project's own commands use.
	progs := map[string][][]string{}
	for _, c := range in {
		progs[c.Argv[0]] = append(progs[c.Argv[0]], c.Argv[1:])
	}
	names := make([]string, 0, len(progs))
	for prog := range progs {
		names = append(names, prog)
	}
	sort.Strings(names)
	var samples []string
	addGuards := func(prog string, prefix []string, list []guard, args [][]string) {
		for _, g := range list {
			g.basename, g.prefix = prog, prefix
			if prefix != nil {
				g.basename = ""
			}
			g.argument = unusedWords(g.argument, args, false)
			g.contains = unusedWords(g.contains, args, true)
			if len(g.argument)+len(g.contains) == 0 {
				continue
			}
			r.guards = append(r.guards, g)
			if g.sample != "" {
				for _, c := range in {
					if c.Argv[0] == prog && (prefix == nil || hasPrefix(c.Argv, prefix)) {
						samples = append(samples, c.Text+" "+g.sample)
						break
					}
				}
			}
		}
	}
	for _, prog := range names {
		list := programGuards.Get()[prog]
		if prog == "tox" && len(riskyTox) > 0 {
			// tox -e lint,release: an environment list is one word.
			list = append(list, guard{contains: riskyTox})
		}
		addGuards(prog, nil, list, progs[prog])
	}
	// A tool run as a module: python -m tox keeps tox's guards.
	modules := map[string][][]string{}
	var prefixes []string
	for _, c := range in {
		if len(c.Argv) > 2 && strings.HasPrefix(c.Argv[0], "python") && c.Argv[1] == "-m" && moduleGuards.Get()[c.Argv[2]] {
			key := strings.Join(c.Argv[:3], " ")
			if _, ok := modules[key]; !ok {
				prefixes = append(prefixes, key)
			}
			modules[key] = append(modules[key], c.Argv[3:])
		}
	}
	sort.Strings(prefixes)
	for _, key := range prefixes {
		prefix := strings.Fields(key)
		list := programGuards.Get()[prefix[2]]
		if prefix[2] == "tox" && len(riskyTox) > 0 {
			list = append(list, guard{contains: riskyTox})
		}
		addGuards(prefix[0], prefix, list, modules[key])
	}
	var all [][]string
	for _, c := range in {
		all = append(all, c.Argv[1:])
	}
	if words := unusedWords(riskyNames, all, false); len(words) > 0 {
		r.guards = append(r.guards, guard{argument: words})
		samples = append(samples, in[0].Text+" "+words[0])
	}
	if len(samples) > 2 {
		samples = samples[:2]
	}
	r.notMatch = samples
	return r, true
}

// riskyRule asks before the project's publish, deploy and release tasks.
func riskyRule(cmds []Command) (ruleSpec, bool) {
	var in []Command
	for _, c := range cmds {
		if c.Category == CatRisky {
			in = append(in, c)
		}
	}
	if len(in) == 0 {
		return ruleSpec{}, false
	}
	r := ruleSpec{
		comment: []string{
			"The project's publish, deploy and release tasks, from " + sourceList(in) + ".",
			"They ask whatever the default: a human decides.",
		},
		id: "project-release", action: "ask", reason: "publishes, deploys or changes shared state: a human decides",
	}
	for _, c := range in {
		if pre := riskyPrefix(c.Argv); !slices.ContainsFunc(r.prefixes, func(p []string) bool { return slices.Equal(p, pre) }) {
			r.prefixes = append(r.prefixes, pre)
		}
		if len(r.match) < maxExamples {
			r.match = append(r.match, c.Text)
		}
	}
	return r, true
}

// projectRiskyNames are the names of the project's risky scripts, targets,
// recipes and tasks, plus the usual ones: arguments a prefix rule must not
// admit (make test deploy).
func projectRiskyNames(p *Project) []string {
	set := map[string]bool{"deploy": true, "publish": true, "release": true}
	add := func(name string) {
		if risky(name) && taskName(name) && len(set) < 32 {
			set[name] = true
		}
	}
	for _, pkg := range p.Packages {
		for _, s := range pkg.Scripts {
			add(s.Name)
		}
	}
	for _, list := range [][]Task{p.MakeTargets, p.JustRecipes, p.MiseTasks, p.NoxSessions, p.ToxEnvs} {
		for _, t := range list {
			add(t.Name)
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// riskyToxEnvs are the names of the project's tox environments that
// publish or release.
func riskyToxEnvs(p *Project) []string {
	var out []string
	for _, t := range p.ToxEnvs {
		if risky(t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}

// unusedWords drops the words that some argument list uses (equal, or
// contained when contains is set): a guard must never stop the project's
// own commands.
func unusedWords(words []string, argLists [][]string, contains bool) []string {
	var out []string
	for _, w := range words {
		used := false
		for _, args := range argLists {
			for _, a := range args {
				used = used || a == w || contains && strings.Contains(a, w)
			}
		}
		if !used {
			out = append(out, w)
		}
	}
	return out
}

func hasPrefix(argv, prefix []string) bool {
	if len(prefix) > len(argv) {
		return false
	}
	for i := range prefix {
		if argv[i] != prefix[i] {
			return false
		}
	}
	return true
}

// checked keeps the examples that the policy engine confirms: a rule that
// reached here should pass them all, and a manifest that fails to load would
// deny everything, so anything doubtful is dropped rather than written.
func checked(r ruleSpec) ruleSpec {
	ok := func(match, notMatch []string) bool {
		one := r
		one.comment, one.match, one.notMatch = nil, match, notMatch
		m, err := policy.ParseManifest("agent-shell.toml", []byte("version = 1\n"+renderRule(one)))
		if err != nil {
			return false
		}
		_, err = policy.NewEngine(nil, m)
		return err == nil
	}
	if ok(r.match, r.notMatch) {
		return r
	}
	var match, notMatch []string
	for _, ex := range r.match {
		if ok([]string{ex}, nil) {
			match = append(match, ex)
		}
	}
	for _, ex := range r.notMatch {
		if ok(nil, []string{ex}) {
			notMatch = append(notMatch, ex)
		}
	}
	r.match, r.notMatch = match, notMatch
	return r
}

func renderRule(r ruleSpec) string {
	var b strings.Builder
	for _, c := range r.comment {
		b.WriteString("# " + c + "\n")
	}
	b.WriteString("[[rule]]\n")
	fmt.Fprintf(&b, "id = %s\naction = %s\n", tomlString(r.id), tomlString(r.action))
	if r.reason != "" {
		fmt.Fprintf(&b, "reason = %s\n", tomlString(r.reason))
	}
	if r.inline != "" {
		fmt.Fprintf(&b, "match = %s\n", r.inline)
		fmt.Fprintf(&b, "examples = { match = %s, not_match = %s }\n", tomlList(r.match), tomlList(r.notMatch))
		return b.String()
	}
	b.WriteString("[rule.match]\nany = [\n")
	if len(r.programs) > 0 {
		fmt.Fprintf(&b, "  { basename = %s },\n", tomlList(r.programs))
	}
	for _, p := range r.prefixes {
		fmt.Fprintf(&b, "  { argv_prefix = %s },\n", tomlList(p))
	}
	b.WriteString("]\n")
	if len(r.guards) > 0 {
		b.WriteString("[rule.match.not]\nany = [\n")
		for _, g := range r.guards {
			var parts []string
			if g.basename != "" {
				parts = append(parts, "basename = "+tomlString(g.basename))
			}
			if len(g.prefix) > 0 {
				parts = append(parts, "argv_prefix = "+tomlList(g.prefix))
			}
			if len(g.argument) > 0 {
				parts = append(parts, "argument = "+tomlList(g.argument))
			}
			if len(g.contains) > 0 {
				parts = append(parts, "argument_contains = "+tomlList(g.contains))
			}
			if len(g.effect) > 0 {
				parts = append(parts, "effect = "+tomlList(g.effect))
			}
			fmt.Fprintf(&b, "  { %s },\n", strings.Join(parts, ", "))
		}
		b.WriteString("]\n")
	}
	b.WriteString("[rule.examples]\n")
	writeList := func(key string, list []string) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s = [\n", key)
		for _, s := range list {
			fmt.Fprintf(&b, "  %s,\n", tomlString(s))
		}
		b.WriteString("]\n")
	}
	writeList("match", r.match)
	writeList("not_match", r.notMatch)
	return b.String()
}

// notes lists, as comments, the dependency installs (asked) and the
// commands that were not proposed, with why.
func notes(cmds []Command) string {
	var b strings.Builder
	var installs []string
	for _, c := range cmds {
		if c.Category == CatInstall {
			installs = append(installs, c.Text)
		}
	}
	if len(installs) > 0 {
		b.WriteString("\n# Dependency installs ask: they run the dependencies' own install scripts, and a\n" +
			"# prefix rule would also admit installing any package: " + strings.Join(installs, ", ") + ".\n")
	}
	var skipped []Command
	for _, c := range cmds {
		if c.Category == "" {
			skipped = append(skipped, c)
		}
	}
	if len(skipped) == 0 {
		return b.String()
	}
	b.WriteString("\n# Found in the project but not proposed (allow them yourself if you trust them):\n")
	const maxListed = 40
	for i, c := range skipped {
		if i == maxListed {
			fmt.Fprintf(&b, "#   ... and %d more\n", len(skipped)-maxListed)
			break
		}
		text := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, c.Text)
		if len(text) > 100 {
			text = text[:97] + "..."
		}
		fmt.Fprintf(&b, "#   %s  (%s: %s)\n", text, strings.Join(c.Sources, ", "), c.Why)
	}
	return b.String()
}

// tomlString writes a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlList(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
