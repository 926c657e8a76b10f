package shellcmd

import (
	"fmt"
	"strings"
)

// Package runners run another program: one a package provides (npx
// rimraf ~, uvx ruff, pnpm dlx, bunx), or one the project's environment
// holds (uv run, poetry run, bundle exec). Each is a wrapper, so that
// every rule and the guard judge the command it runs: npx rimraf ~ is
// rimraf ~, which is rm -r -f ~.

// Their option tables: they stop at the first operand, the program.
var (
	// npx, npm exec and npm x; npm also takes any setting as --name=value.
	npxOpts = Options{flags: "yq", args: "pcw", openLong: true,
		long: "package= call= workspace= yes no quiet workspaces include-workspace-root ignore-existing " +
			"prefer-offline prefer-online offline silent help version"}
	pnpmOpts = Options{flags: "crs", openLong: true,
		long: "package= shell-mode recursive silent parallel filter= allow-build= workspace-root reporter= " +
			"no-reporter-hide-prefix report-summary resume-from= help"}
	yarnDlxOpts = Options{flags: "q", args: "p", long: "package= quiet help"}
	bunxOpts    = Options{args: "p", long: "bun package= silent verbose no-install help"}
	// uvx, uv tool run and uv run share most options; uv takes any setting
	// as --name=value too.
	uvOpts = Options{flags: "qvnms", args: "pw", openLong: true,
		long: "from= with= with-editable= with-requirements= python= project= directory= package= extra= " +
			"all-extras no-extra= no-dev dev group= no-group= only-group= all-groups only-dev frozen locked " +
			"isolated no-sync no-project active exact inexact env-file= no-env-file module script gui-script " +
			"all-packages no-editable quiet verbose offline no-cache cache-dir= index= default-index= index-url= " +
			"extra-index-url= find-links= refresh no-progress native-tls color= config-file= no-config " +
			"managed-python no-managed-python no-python-downloads python-preference= help version"}
	poetryRunOpts = Options{flags: "qvn", args: "CP", long: "directory= project= quiet verbose no-interaction no-plugins no-cache ansi no-ansi help version"}
	pdmRunOpts    = Options{flags: "lgsvq", args: "p", long: "list json site-packages global project= recreate verbose quiet help"}
	pipxRunOpts   = Options{flags: "qv", long: "spec= python= no-cache pypackages path index-url= pip-args= editable verbose quiet help"}
	bundleOpts    = Options{long: "keep-file-descriptors gemfile= help"}
	noRunnerOpts  = Options{long: "help"}
	// shx runs ShellJS's version of a Unix command (shx rm -rf dist).
	shxOpts = Options{openLong: true, long: "silent verbose noglob help version"}
)

// crossEnvStep unwraps cross-env, which sets NAME=value words and runs
// the program after them (cross-env NODE_ENV=test rm -rf ~).
// cross-env-shell runs them as one shell command instead (see
// runnerBody).
func crossEnvStep(l []word) step {
	i := 1
	var assigns []string
	for ; i < len(l) && !l[i].multi && isAssign(l[i].s); i++ {
		assigns = append(assigns, l[i].s)
	}
	if i < len(l) && l[i].dyn {
		return unknownStep(fmt.Sprintf("cross-env: assignment or program %q is not static", l[i].s))
	}
	st := wrapAt(i, l)
	st.assigns = assigns
	return st
}

// packageRunner is how one runner is written: the words before its
// options (npm exec is two), its options, and whether its program is a
// package spec (rimraf@5, @scope/cli) rather than a command name.
type packageRunner struct {
	at   int // the index of the word the options follow
	opts *Options
	pkg  bool
	// shell: -c runs a shell command instead of a program, its value (npx
	// -c SCRIPT) or, with shellJoins, the operands joined (pnpm exec -c).
	shell, shellJoins bool
}

// runnerOf says whether l (l[0] named name) runs a package's or the
// project's program, and how it is written.
func runnerOf(name string, l []word) (packageRunner, bool) {
	sub := func(i int) string {
		if i < len(l) && !l[i].dyn {
			return l[i].s
		}
		return ""
	}
	switch name {
	case "npx":
		return packageRunner{at: 0, opts: &npxOpts, pkg: true, shell: true}, true
	case "bunx":
		return packageRunner{at: 0, opts: &bunxOpts, pkg: true}, true
	case "uvx":
		return packageRunner{at: 0, opts: &uvOpts, pkg: true}, true
	}
	switch name {
	case "npm", "pnpm", "yarn", "bun", "uv", "poetry", "pdm", "pipenv", "pipx", "bundle":
	default:
		return packageRunner{}, false // most commands: no subcommand to look at
	}
	switch name + " " + sub(1) {
	case "npm exec", "npm x":
		return packageRunner{at: 1, opts: &npxOpts, pkg: true, shell: true}, true
	case "pnpm dlx":
		return packageRunner{at: 1, opts: &pnpmOpts, pkg: true, shell: true, shellJoins: true}, true
	case "pnpm exec":
		return packageRunner{at: 1, opts: &pnpmOpts, shell: true, shellJoins: true}, true
	case "yarn dlx":
		return packageRunner{at: 1, opts: &yarnDlxOpts, pkg: true}, true
	case "bun x":
		return packageRunner{at: 1, opts: &bunxOpts, pkg: true}, true
	case "uv run":
		return packageRunner{at: 1, opts: &uvOpts}, true
	case "poetry run":
		return packageRunner{at: 1, opts: &poetryRunOpts}, true
	case "pdm run":
		return packageRunner{at: 1, opts: &pdmRunOpts}, true
	case "pipenv run":
		return packageRunner{at: 1, opts: &noRunnerOpts}, true
	case "pipx run":
		return packageRunner{at: 1, opts: &pipxRunOpts, pkg: true}, true
	case "bundle exec":
		return packageRunner{at: 1, opts: &bundleOpts}, true
	case "uv tool":
		if sub(2) == "run" {
			return packageRunner{at: 2, opts: &uvOpts, pkg: true}, true
		}
	}
	return packageRunner{}, false
}

// runnerStep unwraps a package runner. What it runs as a shell command
// (npx -c) is a body (see runnerBody), not a wrapped program.
func runnerStep(r packageRunner, l []word) step {
	hits, op, why := r.opts.scan(l[r.at:])
	if why != "" {
		return unknownStep(strings.Join(strs(l[:r.at+1]), " ") + ": " + strings.TrimPrefix(why, l[r.at].s+": "))
	}
	op += r.at
	switch {
	case has(hits, "help", "version", "list"):
		return step{}
	case r.shell && has(hits, "c", "call", "shell-mode"):
		return step{}
	case has(hits, "m", "module") && progName(l[0]) == "uv":
		return step{} // uv run -m MODULE runs python -m MODULE: no program
	}
	st := wrapAt(op, l)
	st.chdir = has(hits, "directory", "C")
	if st.kind != stepWrap || !r.pkg || l[op].dyn {
		return st
	}
	bin, ok := packageBin(l[op].s)
	if !ok {
		return unknownStep(fmt.Sprintf("%s runs a package whose command cannot be named: %s", strings.Join(strs(l[:r.at+1]), " "), l[op].s))
	}
	if bin != l[op].s {
		st.bin = bin
	}
	return st
}

// packageBin is the command a package spec runs: its name without the
// scope and the version (@scope/cli@2 runs cli, ruff==0.5 runs ruff). A
// spec that is a URL, a path or a git repository names no command here.
func packageBin(spec string) (string, bool) {
	s := spec
	if strings.HasPrefix(s, "@") {
		_, s, _ = strings.Cut(s, "/")
	}
	if i := strings.IndexAny(s, "@=<>~"); i > 0 {
		s = s[:i]
	}
	if s == "" || strings.ContainsAny(s, "/:\\") || strings.HasPrefix(s, ".") {
		return "", false
	}
	return s, true
}

// runnerBody is the shell command a package runner runs as one (npx -c
// SCRIPT, pnpm exec -c WORDS..., yarn exec WORDS...), if it runs one.
func runnerBody(name string, l []word) (bodyResult, bool) {
	if name == "yarn" && len(l) > 1 && !l[1].dyn && l[1].s == "exec" {
		return joinedBody("yarn exec", l[2:]), true
	}
	if name == "cross-env-shell" {
		i := 1
		for ; i < len(l) && !l[i].multi && isAssign(l[i].s); i++ {
		}
		return joinedBody("cross-env-shell", l[i:]), true
	}
	r, ok := runnerOf(name, l)
	if !ok || !r.shell {
		return bodyResult{}, false
	}
	hits, op, why := r.opts.scan(l[r.at:])
	if why != "" {
		return bodyResult{}, false // runnerStep made the command unknown
	}
	what := strings.Join(strs(l[:r.at+1]), " ") + " -c"
	for _, h := range hits {
		switch {
		case (h.name == "c" || h.name == "call") && !r.shellJoins:
			return oneBody(what, h.val), true
		case h.name == "c" || h.name == "shell-mode":
			return joinedBody(what, l[r.at+op:]), true
		}
	}
	return bodyResult{}, false
}

// joinedBody is the shell command a program makes of its operands, joined
// with spaces (watch, yarn exec, pnpm exec -c).
func joinedBody(what string, ws []word) bodyResult {
	if len(ws) == 0 {
		return bodyResult{missing: what + " command"}
	}
	if r := allStatic(what, ws); r != "" {
		return bodyResult{why: r}
	}
	return bodyResult{scripts: []script{{src: join(ws)}}}
}

// deletesLikeRimraf reports the programs that delete each operand
// recursively without asking, as rm -r -f does: rimraf, and del-cli's.
func deletesLikeRimraf(name string) bool {
	return name == "rimraf" || name == "del-cli"
}

// rimrafOperands are the paths rimraf deletes.
func rimrafOperands(l []word) []word {
	var out []word
	operands := false
	for _, w := range l[1:] {
		switch {
		case operands || w.dyn || !strings.HasPrefix(w.s, "-") || w.s == "-":
			out = append(out, w)
		case w.s == "--":
			operands = true
		}
	}
	return out
}

// RunsPackage reports whether a layer of a command (as [Command.Layers]
// holds it) is a package runner that Parse unwrapped: npx eslint . is
// the layers [npx eslint .] and [eslint .].
func RunsPackage(layer []string) bool {
	if len(layer) == 0 {
		return false
	}
	ws := make([]word, len(layer))
	for i, s := range layer {
		ws[i] = word{s: s}
	}
	r, ok := runnerOf(layer[0], ws)
	return ok && runnerStep(r, ws).kind == stepWrap
}
