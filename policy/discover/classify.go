package discover

import (
	"path"
	"strings"
	"unicode"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Category is what a project command is for. Commands of the first five
// are proposed as allowed; risky ones (publishing, deploying) are proposed
// as needing a human.
type Category string

const (
	CatTest    Category = "test"
	CatBuild   Category = "build"
	CatLint    Category = "lint"
	CatInstall Category = "install"
	CatTask    Category = "task"
	CatRisky   Category = "risky"
)

// notKnown is why most commands are left out: the footgun to avoid is
// copying an arbitrary workflow command (docker build ..., curl ...) into
// an allow list.
const notKnown = "not a known test, build or lint command of the project's tools"

// classify says what a normalized command (argv[0] a basename) is for, or
// why it is not proposed (cat == "").
func (p *Project) classify(argv []string) (cat Category, why string) {
	if len(argv) == 0 {
		return "", "empty command"
	}
	prog, args := argv[0], argv[1:]
	switch {
	case prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "bun":
		return p.classifyPM(prog, args)
	case prog == "npx" || prog == "pnpx" || prog == "bunx":
		return p.classifyJSTool(args, true)
	case jsTools.Get()[prog].cat != "":
		return p.classifyJSTool(argv, false)
	case prog == "go":
		return classifyGo(args)
	case goTools.Get()[prog]:
		return CatLint, ""
	case strings.HasPrefix(prog, "python") && pythonVersion(prog[len("python"):]):
		for i, a := range args {
			if a == "-m" && i+1 < len(args) {
				return p.classifyPython(args[i+1:])
			}
			if !strings.HasPrefix(a, "-") {
				break
			}
		}
		return "", "runs a Python script, not a known tool"
	case pythonTools.Get()[prog] != "" || prog == "pip" || prog == "pip3" || prog == "uv" || prog == "poetry" ||
		prog == "pipenv" || prog == "hatch" || prog == "pdm" || prog == "nox" || prog == "tox":
		return p.classifyPython(argv)
	case prog == "cargo":
		return classifyCargo(args)
	case prog == "bundle" || prog == "rake" || prog == "rspec" || prog == "rubocop" || prog == "standardrb" || prog == "rails":
		return p.classifyRuby(argv)
	case prog == "mvn" || prog == "mvnw":
		return classifyMaven(args)
	case prog == "gradle" || prog == "gradlew":
		return classifyGradle(args)
	case prog == "make":
		return p.classifyMake(args)
	case prog == "just":
		return p.classifyJust(args)
	case prog == "mise":
		return p.classifyMise(args)
	}
	return "", notKnown
}

// splitArgs separates positional words from options. valueFlags take the
// next word as their value (unless written --flag=value). Words after "--"
// are passed through and returned apart. idx holds each positional's index
// in args.
func splitArgs(args []string, valueFlags map[string]bool) (pos []string, idx []int, passed []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return pos, idx, args[i+1:]
		case strings.HasPrefix(a, "-") && a != "-":
			if valueFlags[a] && i+1 < len(args) {
				i++
			}
		default:
			pos, idx = append(pos, a), append(idx, i)
		}
	}
	return pos, idx, nil
}

// hasOption reports an option (before "--") that starts with one of the
// prefixes, given without their leading dashes, so "exec" finds -exec,
// --exec and -exec=x.
func hasOption(args []string, prefixes ...string) string {
	for _, a := range args {
		if a == "--" {
			return ""
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		bare := strings.TrimLeft(a, "-")
		for _, p := range prefixes {
			if bare == p || strings.HasPrefix(bare, p+"=") || len(p) > 2 && strings.HasPrefix(bare, p) ||
				len(p) == 1 && !strings.HasPrefix(a, "--") && strings.HasPrefix(bare, p) {
				return a
			}
		}
	}
	return ""
}

// pmRejected are package-manager options that change what runs (another
// shell, Node options, another config, registry or prefix, global installs).
var pmRejected = []string{"script-shell", "node-options", "userconfig", "globalconfig", "prefix", "registry", "global", "g", "location"}

// This package's tables are built on first use (lazy.Value), not at
// package initialisation, which every hook call of the binary pays.
var pmValueFlags = lazy.Value[map[string]map[string]bool]{New: func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"npm":  {"-w": true, "--workspace": true},
		"pnpm": {"--filter": true, "-F": true, "-C": true, "--dir": true},
		"yarn": {"--cwd": true},
		"bun":  {"--filter": true, "-F": true, "--cwd": true},
	}
}}

func (p *Project) classifyPM(prog string, args []string) (Category, string) {
	if opt := hasOption(args, pmRejected...); opt != "" {
		return "", opt + " changes what the package manager runs"
	}
	if dir := optionValue(args, "-C", "--dir", "--cwd"); dir != "" && !cleanRelative(dir) {
		return "", "runs in a directory outside the project"
	}
	pos, idx, _ := splitArgs(args, pmValueFlags.Get()[prog])
	if len(pos) == 0 {
		if prog == "yarn" {
			return CatInstall, "" // bare yarn installs
		}
		return "", "no subcommand"
	}
	if prog == "yarn" && pos[0] == "workspace" && len(pos) >= 3 {
		pos, idx = pos[2:], idx[2:]
	}
	if prog == "yarn" && pos[0] == "workspaces" {
		pos, idx = pos[1:], idx[1:]
		if len(pos) > 0 && pos[0] == "foreach" {
			pos, idx = pos[1:], idx[1:]
		}
		if len(pos) == 0 {
			return "", "no subcommand"
		}
	}
	sub := pos[0]
	switch sub {
	case "run", "run-script", "rum", "urn":
		if len(pos) < 2 {
			return "", "lists the scripts"
		}
		return p.scriptVerdict(pos[1])
	case "test", "t", "tst":
		if prog == "bun" {
			return CatTest, "" // bun's own test runner
		}
		return p.scriptVerdict("test")
	case "start":
		return p.scriptVerdict("start")
	case "ci", "clean-install", "install-clean", "ic", "install", "i":
		if len(pos) > 1 {
			return "", "installs named packages"
		}
		return CatInstall, ""
	case "exec", "x":
		if prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "bun" && sub == "x" {
			return p.classifyJSTool(args[idx[0]+1:], true)
		}
	case "dlx", "create", "publish", "add", "remove", "update", "upgrade", "link", "pack", "version", "config", "set":
		return "", notKnown
	}
	if prog != "npm" && p.scriptByName(sub) && !(prog == "bun" && bunBuiltins.Get()[sub]) {
		return p.scriptVerdict(sub)
	}
	return "", notKnown
}

var bunBuiltins = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"build": true, "test": true, "install": true, "add": true, "remove": true, "update": true, "link": true, "pm": true, "init": true, "create": true, "upgrade": true, "x": true, "run": true, "publish": true, "outdated": true, "patch": true}
}}

// optionValue returns the value of the first of names, as --name=v or
// --name v.
func optionValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}

// cleanRelative: a relative path that stays inside the project.
func cleanRelative(p string) bool {
	if p == "" || path.IsAbs(p) || strings.Contains(p, "://") {
		return false
	}
	c := path.Clean(p)
	return c != ".." && !strings.HasPrefix(c, "../")
}

// scriptVerdict classifies running a package.json script by its name.
func (p *Project) scriptVerdict(name string) (Category, string) {
	if !p.scriptByName(name) {
		return "", "no package.json script " + name
	}
	if p.lifecycle(name) {
		return "", "an npm lifecycle script, run by npm itself"
	}
	return nameCategory(name), ""
}

// npmLifecycle are scripts npm runs on its own around install, pack,
// publish and version.
var npmLifecycle = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"preinstall": true, "install": true, "postinstall": true, "prepublish": true, "preprepare": true,
		"prepare": true, "postprepare": true, "prepublishOnly": true, "prepack": true, "postpack": true,
		"publish": true, "postpublish": true, "preversion": true, "version": true, "postversion": true,
		"dependencies": true, "preshrinkwrap": true, "shrinkwrap": true, "postshrinkwrap": true,
	}
}}

// lifecycle: a lifecycle script, or a pre/post hook of another script.
func (p *Project) lifecycle(name string) bool {
	if npmLifecycle.Get()[name] {
		return true
	}
	for _, pre := range []string{"pre", "post"} {
		if rest, ok := strings.CutPrefix(name, pre); ok && rest != "" && p.scriptByName(rest) {
			return true
		}
	}
	return false
}

// riskyPrefixes and riskyWords, matched against the words of a task name
// (deploy:prod, releaseNotes, docker-push), mark tasks that publish,
// deploy, release or touch shared state: a human should run those.
var (
	riskyPrefixes = []string{"deploy", "publish", "releas", "upload", "migrat", "install", "uninstall"}
	riskyWords    = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{
			"push": true, "ship": true, "promote": true, "prod": true, "production": true, "destroy": true,
			"drop": true, "nuke": true, "rollback": true, "tag": true, "bump": true, "secret": true,
			"secrets": true, "login": true, "logout": true, "pages": true, "apply": true, "teardown": true,
		}
	}}
)

// risky reports whether a task name says it publishes or deploys.
func risky(name string) bool {
	for _, w := range nameWords(name) {
		if riskyWords.Get()[w] {
			return true
		}
		for _, p := range riskyPrefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// nameWords splits a task name into lower-case words at punctuation and
// camelCase boundaries.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

var (
	testWords = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"test": true, "tests": true, "spec": true, "specs": true, "e2e": true, "unit": true, "integration": true, "coverage": true, "cov": true, "bench": true, "benchmark": true}
	}}
	lintWords = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"lint": true, "linting": true, "eslint": true, "prettier": true, "format": true, "fmt": true, "style": true, "check": true, "vet": true, "typecheck": true, "types": true, "tsc": true, "ruff": true, "mypy": true, "clippy": true, "audit": true}
	}}
	buildWords = lazy.Value[map[string]bool]{New: func() map[string]bool {
		return map[string]bool{"build": true, "compile": true, "bundle": true, "dist": true, "assemble": true, "package": true, "generate": true, "gen": true, "docs": true}
	}}
)

// nameCategory says what a script, target, recipe or task is for from its
// name; anything that is not test, lint or build (dev, start, clean...) is
// a plain task.
func nameCategory(name string) Category {
	if risky(name) {
		return CatRisky
	}
	words := nameWords(name)
	for _, set := range []struct {
		words map[string]bool
		cat   Category
	}{{testWords.Get(), CatTest}, {lintWords.Get(), CatLint}, {buildWords.Get(), CatBuild}} {
		for _, w := range words {
			if set.words[w] {
				return set.cat
			}
		}
	}
	if strings.Contains(strings.ToLower(name), "typecheck") {
		return CatLint
	}
	return CatTask
}

type jsTool struct {
	cat  Category
	pkgs []string
}

// jsTools are Node tools a project runs from its own dependencies: the
// category and the packages that provide the binary.
var jsTools = lazy.Value[map[string]jsTool]{New: func() map[string]jsTool {
	return map[string]jsTool{
		"tsc": {CatLint, []string{"typescript"}}, "eslint": {CatLint, []string{"eslint"}},
		"prettier": {CatLint, []string{"prettier"}}, "biome": {CatLint, []string{"@biomejs/biome"}},
		"stylelint": {CatLint, []string{"stylelint"}}, "knip": {CatLint, []string{"knip"}},
		"cspell": {CatLint, []string{"cspell"}}, "markdownlint": {CatLint, []string{"markdownlint-cli"}},
		"markdownlint-cli2": {CatLint, []string{"markdownlint-cli2"}},
		"vitest":            {CatTest, []string{"vitest"}}, "jest": {CatTest, []string{"jest"}},
		"mocha": {CatTest, []string{"mocha"}}, "ava": {CatTest, []string{"ava"}}, "c8": {CatTest, []string{"c8"}},
		"nyc": {CatTest, []string{"nyc"}}, "playwright": {CatTest, []string{"@playwright/test", "playwright"}},
		"cypress": {CatTest, []string{"cypress"}}, "vite": {CatBuild, []string{"vite"}},
		"webpack": {CatBuild, []string{"webpack", "webpack-cli"}}, "rollup": {CatBuild, []string{"rollup"}},
		"esbuild": {CatBuild, []string{"esbuild"}}, "tsup": {CatBuild, []string{"tsup"}},
		"turbo": {CatTask, []string{"turbo"}}, "nx": {CatTask, []string{"nx"}},
	}
}}

// classifyJSTool classifies `npx TOOL ARGS` (viaRunner) or `TOOL ARGS`: the
// tool must be a known test, lint or build tool that the project depends
// on, since npx downloads and runs whatever it does not find installed.
func (p *Project) classifyJSTool(args []string, viaRunner bool) (Category, string) {
	pos, idx, _ := splitArgs(args, nil)
	if len(pos) == 0 {
		return "", "no tool"
	}
	if viaRunner {
		// The runner's own options come before the tool.
		if opt := hasOption(args[:idx[0]], "package", "p", "call", "c", "ignore-existing"); opt != "" {
			return "", opt + " runs another package or a command"
		}
	}
	tool := pos[0]
	info, ok := jsTools.Get()[tool]
	if !ok {
		return "", notKnown
	}
	dep := false
	for _, pkg := range info.pkgs {
		dep = dep || p.hasDep(pkg)
	}
	if !dep {
		return "", tool + " is not a dependency of the project (npx would download it)"
	}
	for _, a := range pos[1:] {
		if risky(a) {
			return "", tool + " " + a + " is not a test, build or lint command"
		}
	}
	if info.cat != CatTask {
		return info.cat, ""
	}
	// turbo and nx run the project's own tasks: take the category of the
	// first one named.
	for _, a := range pos[1:] {
		if c := nameCategory(a); c != CatTask {
			return c, ""
		}
	}
	return CatTask, ""
}

var goTools = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"gofmt": true, "goimports": true, "golangci-lint": true, "staticcheck": true, "govulncheck": true, "revive": true}
}}

func classifyGo(args []string) (Category, string) {
	if opt := hasOption(args, "exec", "toolexec", "vettool"); opt != "" {
		return "", opt + " runs another program"
	}
	pos, _, _ := splitArgs(args, nil)
	if len(pos) == 0 {
		return "", "no subcommand"
	}
	switch pos[0] {
	case "test":
		return CatTest, ""
	case "build":
		return CatBuild, ""
	case "vet", "fmt":
		return CatLint, ""
	case "mod":
		if len(pos) > 1 && (pos[1] == "download" || pos[1] == "verify" || pos[1] == "tidy") {
			return CatInstall, ""
		}
	}
	return "", notKnown
}

// pythonVersion: "", "3", "3.12".
func pythonVersion(v string) bool {
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r == '.') {
			return false
		}
	}
	return true
}

var pythonTools = lazy.Value[map[string]Category]{New: func() map[string]Category {
	return map[string]Category{
		"pytest": CatTest, "py.test": CatTest, "unittest": CatTest, "coverage": CatTest,
		"ruff": CatLint, "mypy": CatLint, "black": CatLint, "isort": CatLint, "flake8": CatLint, "pylint": CatLint,
		"pyright": CatLint, "bandit": CatLint, "build": CatBuild,
	}
}}

// classifyPython classifies a Python tool, installer or runner; argv[0] is
// the tool (a module name after python -m).
func (p *Project) classifyPython(argv []string) (Category, string) {
	prog, args := path.Base(argv[0]), argv[1:]
	if cat := pythonTools.Get()[prog]; cat != "" {
		return cat, ""
	}
	pos, idx, _ := splitArgs(args, nil)
	sub := ""
	if len(pos) > 0 {
		sub = pos[0]
	}
	runRest := func() (Category, string) {
		rest := args[idx[0]+1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return "", "nothing to run"
		}
		return p.classify(append([]string{path.Base(rest[0])}, rest[1:]...))
	}
	switch prog {
	case "nox":
		return p.classifyNox(args)
	case "tox":
		return p.classifyTox(args)
	case "pip", "pip3":
		return classifyPip(args)
	case "uv":
		switch sub {
		case "sync":
			return CatInstall, ""
		case "run":
			return runRest()
		case "pip":
			return classifyPip(args[idx[0]+1:])
		}
	case "poetry", "pipenv", "pdm", "hatch":
		switch {
		case sub == "run":
			return runRest()
		case (sub == "install" || sub == "sync") && len(pos) == 1 && prog != "hatch":
			return CatInstall, ""
		case sub == "check" && prog == "poetry":
			return CatLint, ""
		case sub == "build" && (prog == "poetry" || prog == "hatch" || prog == "pdm"):
			return CatBuild, ""
		case sub == "test" && prog == "hatch":
			return CatTest, ""
		}
	}
	return "", notKnown
}

// classifyPip allows only installs of the project itself (., -e .[dev]) or
// of its requirement files: a named package or another index is not the
// project's own.
func classifyPip(args []string) (Category, string) {
	if len(args) == 0 || args[0] != "install" {
		return "", notKnown
	}
	if opt := hasOption(args, "index-url", "i", "extra-index-url", "find-links", "f", "target", "t", "prefix", "root", "user"); opt != "" {
		return "", opt + " installs from or to somewhere else"
	}
	local := func(v string) bool { return v == "." || strings.HasPrefix(v, ".[") }
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-r" || a == "--requirement" || a == "-c" || a == "--constraint":
			if i+1 >= len(args) || !cleanRelative(args[i+1]) {
				return "", "requirements from outside the project"
			}
			i++
		case a == "-e" || a == "--editable":
			if i+1 >= len(args) || !local(args[i+1]) {
				return "", "installs a named package"
			}
			i++
		case strings.HasPrefix(a, "-"):
		case !local(a):
			return "", "installs a named package"
		}
	}
	return CatInstall, ""
}

func classifyCargo(args []string) (Category, string) {
	if len(args) > 0 && strings.HasPrefix(args[0], "+") {
		args = args[1:] // +toolchain
	}
	if opt := hasOption(args, "config"); opt != "" {
		return "", opt + " can change the compiler cargo runs"
	}
	pos, _, _ := splitArgs(args, nil)
	if len(pos) == 0 {
		return "", "no subcommand"
	}
	switch pos[0] {
	case "test", "nextest", "bench":
		return CatTest, ""
	case "build", "check", "doc":
		return CatBuild, ""
	case "clippy", "fmt":
		return CatLint, ""
	case "fetch":
		return CatInstall, ""
	}
	return "", notKnown
}

func (p *Project) classifyRuby(argv []string) (Category, string) {
	prog, args := argv[0], argv[1:]
	pos, idx, _ := splitArgs(args, nil)
	switch prog {
	case "rspec":
		return CatTest, ""
	case "rubocop", "standardrb":
		return CatLint, ""
	case "rails":
		if len(pos) > 0 && (pos[0] == "test" || pos[0] == "spec") {
			return CatTest, ""
		}
		return "", notKnown
	case "bundle":
		if len(pos) == 0 {
			return CatInstall, "" // bare bundle installs
		}
		switch pos[0] {
		case "install":
			if len(pos) == 1 {
				return CatInstall, ""
			}
		case "exec":
			rest := args[idx[0]+1:]
			if len(rest) == 0 {
				return "", "nothing to run"
			}
			return p.classify(append([]string{path.Base(rest[0])}, rest[1:]...))
		}
		return "", notKnown
	}
	// rake [TASK...]: the default task is the test suite by convention.
	cat := CatTest
	for i, t := range pos {
		name, _, _ := strings.Cut(t, "[")
		if risky(name) {
			return CatRisky, ""
		}
		if c := nameCategory(name); i == 0 || c != CatTask && cat == CatTask {
			cat = c
		}
	}
	return cat, ""
}

var mavenPhases = lazy.Value[map[string]Category]{New: func() map[string]Category {
	return map[string]Category{
		"clean": CatBuild, "validate": CatLint, "compile": CatBuild, "test-compile": CatBuild, "test": CatTest,
		"package": CatBuild, "integration-test": CatTest, "verify": CatTest, "install": CatBuild,
	}
}}

var mavenGoals = lazy.Value[map[string]Category]{New: func() map[string]Category {
	return map[string]Category{"check": CatLint, "verify": CatTest, "test": CatTest, "report": CatTest, "format": CatLint, "apply": CatLint, "analyze": CatLint, "tree": CatTask}
}}

func classifyMaven(args []string) (Category, string) {
	pos, _, _ := splitArgs(args, map[string]bool{"-P": true, "-pl": true, "--projects": true, "-T": true, "--threads": true, "-f": true, "--file": true, "-s": true, "--settings": true, "-rf": true})
	if len(pos) == 0 {
		return "", "no goal"
	}
	cat := Category("")
	for _, g := range pos {
		c, ok := mavenPhases.Get()[g]
		if !ok {
			plugin, goal, isGoal := strings.Cut(g, ":")
			if !isGoal || risky(plugin) || plugin == "exec" {
				return "", "goal " + g + " is not a test, build or lint goal"
			}
			if c, ok = mavenGoals.Get()[goal]; !ok {
				return "", "goal " + g + " is not a test, build or lint goal"
			}
		}
		if cat == "" || c == CatTest {
			cat = c
		}
	}
	return cat, ""
}

var gradlePrefixes = []struct {
	prefix string
	cat    Category
}{
	{"test", CatTest}, {"integrationtest", CatTest}, {"jacoco", CatTest}, {"check", CatLint}, {"lint", CatLint},
	{"spotless", CatLint}, {"ktlint", CatLint}, {"detekt", CatLint}, {"build", CatBuild}, {"assemble", CatBuild},
	{"clean", CatBuild}, {"compile", CatBuild}, {"javadoc", CatBuild}, {"jar", CatBuild}, {"bootjar", CatBuild},
}

func classifyGradle(args []string) (Category, string) {
	if opt := hasOption(args, "init-script", "I", "scan"); opt != "" {
		return "", opt + " runs or uploads more than the build"
	}
	pos, _, _ := splitArgs(args, map[string]bool{"-x": true, "--exclude-task": true, "-p": true, "--project-dir": true})
	if len(pos) == 0 {
		return "", "no task"
	}
	cat := Category("")
	for _, t := range pos {
		name := strings.ToLower(t[strings.LastIndexByte(t, ':')+1:])
		if risky(name) {
			return "", "task " + t + " is not a test, build or lint task"
		}
		found := Category("")
		for _, gp := range gradlePrefixes {
			if strings.HasPrefix(name, gp.prefix) {
				found = gp.cat
				break
			}
		}
		if found == "" {
			return "", "task " + t + " is not a test, build or lint task"
		}
		if cat == "" || found == CatTest {
			cat = found
		}
	}
	return cat, ""
}

// classifyMake: make [options] [targets]; the targets must be the
// Makefile's own, and no variable may be set on the command line (CC=...,
// SHELL=... change what runs).
func (p *Project) classifyMake(args []string) (Category, string) {
	if opt := hasOption(args, "f", "file", "makefile", "C", "directory", "E", "eval", "I", "include-dir"); opt != "" {
		return "", opt + " runs another Makefile or code"
	}
	var targets []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-j" || a == "-l":
			if i+1 < len(args) && isNumber(args[i+1]) {
				i++
			}
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
			return "", "sets the make variable " + a
		default:
			targets = append(targets, a)
		}
	}
	if len(targets) == 0 {
		if p.MakeDefault == "" {
			return "", "no Makefile default goal"
		}
		targets = []string{p.MakeDefault}
	}
	return p.taskList(targets, p.MakeTargets, "Makefile target")
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// taskList classifies running several of the project's tasks: all must be
// known; one risky makes the whole risky; the category is that of the first
// that is not a plain task.
func (p *Project) taskList(names []string, known []Task, what string) (Category, string) {
	cat := Category("")
	for _, n := range names {
		t, ok := findTask(known, n)
		if !ok {
			return "", "no " + what + " " + n
		}
		if t.Private {
			return "", what + " " + n + " is private"
		}
		c := nameCategory(n)
		if c == CatRisky {
			return CatRisky, ""
		}
		if cat == "" || cat == CatTask {
			cat = c
		}
	}
	return cat, ""
}

func findTask(list []Task, name string) (Task, bool) {
	for _, t := range list {
		if t.Name == name {
			return t, true
		}
	}
	return Task{}, false
}

// classifyJust: just [RECIPE [ARGS | RECIPE...]]. Options that pick
// another justfile, directory, shell or variable values are not allowed.
func (p *Project) classifyJust(args []string) (Category, string) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-q" && a != "--quiet" {
			return "", "option " + a + " is not allowed"
		}
	}
	pos, _, _ := splitArgs(args, nil)
	if len(pos) == 0 {
		if len(p.JustRecipes) == 0 {
			return "", "no just recipe"
		}
		pos = []string{p.JustRecipes[0].Name}
	}
	first, ok := findTask(p.JustRecipes, pos[0])
	if !ok {
		return "", "no just recipe " + pos[0]
	}
	if first.Required > len(pos)-1 {
		return "", "just recipe " + pos[0] + " needs arguments"
	}
	if first.Params > 0 {
		pos = pos[:1] // the rest are its arguments
	}
	return p.taskList(pos, p.JustRecipes, "just recipe")
}

// classifyMise: mise run TASK, mise TASK, mise install.
func (p *Project) classifyMise(args []string) (Category, string) {
	pos, _, _ := splitArgs(args, nil)
	if len(pos) == 0 {
		return "", "no subcommand"
	}
	switch pos[0] {
	case "install", "i":
		if len(pos) == 1 {
			return CatInstall, ""
		}
		return "", "installs named tools"
	case "run", "r":
		if len(pos) < 2 {
			return "", "no task"
		}
		return p.taskList(pos[1:2], p.MiseTasks, "mise task")
	}
	if _, ok := findTask(p.MiseTasks, pos[0]); ok {
		return p.taskList(pos[:1], p.MiseTasks, "mise task")
	}
	return "", notKnown
}
