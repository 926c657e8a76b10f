package shellcmd

import (
	"fmt"
	"slices"
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
	uvOpts = Options{flags: "Umnqsv", args: "CPfipw", openLong: true,
		// uv run's, uv tool run's and uv's global options (uv 0.9, from its
		// command-line definitions): an option it does not know makes the
		// command unknown.
		long: "active all-extras all-groups all-packages allow-insecure-host= allow-python-downloads binary " +
			"build build-constraint= build-constraints= build-isolation cache-dir= color= compile " +
			"compile-bytecode config-file= config-setting= config-settings-package= config-settings= " +
			"constraint= constraints= default-index= dev directory= editable env-file= exact " +
			"exclude-newer-package= exclude-newer= extra-index-url= extra= find-links= force-reinstall " +
			"fork-strategy= from= frozen group= gui-script help index-strategy= index-url= index= inexact " +
			"isolated keyring-provider= lfs link-mode= locked managed-python max-recursion-depth= module " +
			"native-tls no-active no-all-extras no-binary no-binary-package= no-build no-build-isolation " +
			"no-build-isolation-package= no-build-package= no-cache no-cache-dir no-color no-compile " +
			"no-compile-bytecode no-config no-default-groups no-dev no-editable no-editable-package= " +
			"no-env-file no-exact no-extra= no-group= no-index no-installer-metadata no-managed-python " +
			"no-native-tls no-offline no-preview no-progress no-project no-python-downloads no-refresh " +
			"no-reinstall no-sources no-sources-package= no-sync no-system-certs no-upgrade no-workspace " +
			"offline only-dev only-group= override= overrides= package= pre prerelease-package= prerelease= " +
			"preview preview-feature= preview-features= project= python-fetch= python-platform= " +
			"python-preference= python= quiet refresh refresh-package= reinstall reinstall-package= " +
			"resolution= script show-resolution show-settings system-certs torch-backend= trusted-host= " +
			"upgrade upgrade-group= upgrade-package= verbose version with-editable= with-requirements= with="}
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
	assigns, i := leadingAssigns(l, 1)
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
	k := managerSubcommand(l)
	r := packageRunner{at: k}
	switch name + " " + sub(k) {
	case "npm exec", "npm x":
		r.opts, r.pkg, r.shell = &npxOpts, true, true
	case "pnpm dlx":
		r.opts, r.pkg, r.shell, r.shellJoins = &pnpmOpts, true, true, true
	case "pnpm exec":
		r.opts, r.shell, r.shellJoins = &pnpmOpts, true, true
	case "yarn dlx":
		r.opts, r.pkg = &yarnDlxOpts, true
	case "bun x":
		r.opts, r.pkg = &bunxOpts, true
	case "uv run":
		r.opts = &uvOpts
	case "poetry run":
		r.opts = &poetryRunOpts
	case "pdm run":
		r.opts = &pdmRunOpts
	case "pipenv run":
		r.opts = &noRunnerOpts
	case "pipx run":
		r.opts, r.pkg = &pipxRunOpts, true
	case "bundle exec":
		r.opts = &bundleOpts
	case "uv tool":
		if sub(k+1) != "run" {
			return packageRunner{}, false
		}
		r.at, r.opts, r.pkg = k+1, &uvOpts, true
	default:
		return packageRunner{}, false
	}
	return r, true
}

// runnerSubcommands are the subcommands of the package managers that run
// a program (npm exec, uv run, ...).
func runnerSubcommand(w word) bool {
	switch w.s {
	case "exec", "x", "dlx", "run", "tool":
		return !w.dyn
	}
	return false
}

// managerSubcommand finds a package manager's subcommand after its global
// options (pnpm --filter web exec, npm --prefix ui exec, uv --directory x
// run): an option that is not --name=value takes the next word as its
// value unless that word is a subcommand that runs a program. It returns
// the index of the subcommand, or of the first operand.
func managerSubcommand(l []word) int {
	i := 1
	for i < len(l) {
		x := l[i]
		switch {
		case x.dyn || !strings.HasPrefix(x.s, "-"):
			return i
		case x.s == "--":
			return i + 1
		case strings.Contains(x.s, "=") || i+1 < len(l) && (runnerSubcommand(l[i+1]) || strings.HasPrefix(l[i+1].s, "-")):
			i++ // a flag, or a value given with =
		default:
			i += 2
		}
	}
	return i
}

// form is how the runner is written in l, for reasons: npx, npm exec.
func (r packageRunner) form(l []word) string {
	return strings.Join(strs(l[:r.at+1]), " ")
}

// runnerStep unwraps a package runner. What it runs as a shell command
// (npx -c) is a body (see runnerBody), not a wrapped program.
func runnerStep(r packageRunner, l []word) step {
	hits, op, why := r.opts.scan(l[r.at:])
	if why != "" {
		return unknownStep(r.form(l) + ": " + strings.TrimPrefix(why, l[r.at].s+": "))
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
	for _, g := range l[1:max(r.at, 1)] { // the manager's own options: pnpm -C web exec
		name, _, _ := strings.Cut(g.s, "=")
		switch name {
		case "-C", "--dir", "--prefix", "--cwd", "--directory":
			st.chdir = true
		}
	}
	if st.kind != stepWrap || !r.pkg || l[op].dyn {
		return st
	}
	if progName(l[0]) == "pipx" && strings.HasSuffix(l[op].s, ".py") && !strings.Contains(l[op].s, "://") {
		return step{} // pipx run x.py runs a script file with python, as python x.py does (pypa/pip's CI)
	}
	bin, ok := packageBin(l[op].s)
	if !ok {
		return unknownStep(fmt.Sprintf("%s runs a package whose command cannot be named: %s", r.form(l), l[op].s))
	}
	if bin != l[op].s {
		st.bin = bin
	}
	return st
}

// denoNpmStep unwraps deno run [OPTIONS] npm:PKG ARGS..., which runs the
// package's command as npx PKG does (deno run -A npm:rimraf ~). deno run
// FILE runs a program file, the effects table's business. deno's options
// are many and change often, so they are passed over rather than checked:
// one that takes the next word as its value and is not listed here hides
// the package, which leaves the command as it was before this step.
func denoNpmStep(l []word) step {
	if len(l) < 3 || l[1].dyn || l[1].s != "run" {
		return step{}
	}
	for i := 2; i < len(l); i++ {
		s := l[i].s
		switch {
		case l[i].dyn:
			return step{}
		case strings.HasPrefix(s, "-"):
			if hasWord("-c --config -L --log-level --import-map --cert --location --seed --ext --preload", s) {
				i++
			}
			continue
		}
		spec, npm := strings.CutPrefix(s, "npm:")
		if !npm {
			return step{}
		}
		bin, ok := packageBin(spec)
		if !ok {
			return unknownStep("deno run runs a package whose command cannot be named: " + s)
		}
		st := wrapAt(i, l)
		st.bin = bin
		return st
	}
	return step{}
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
	if ws := workspacesExec(name, l); len(ws) > 0 {
		return joinedBody(name+" exec", ws), true
	}
	if name == "cross-env-shell" {
		_, i := leadingAssigns(l, 1)
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
	what := r.form(l) + " -c"
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

// workspacesExec returns the command a workspace runner runs in each
// workspace, nil for none: yarn workspaces foreach [OPTIONS] exec
// COMMAND..., lerna exec [OPTIONS] [--] COMMAND [--] ARGS... (lerna drops
// the -- before the arguments). Reading a word the runner takes otherwise
// as the command only adds commands a rule may object to.
func workspacesExec(name string, l []word) []word {
	static := func(i int, s string) bool { return i < len(l) && !l[i].dyn && l[i].s == s }
	switch {
	case name == "yarn" && static(1, "workspaces") && static(2, "foreach"):
		for i := 3; i < len(l); i++ {
			if static(i, "exec") {
				return l[i+1:]
			}
		}
	case name == "lerna" && static(1, "exec"):
		i := 2
		for i < len(l) && strings.HasPrefix(l[i].s, "-") && l[i].s != "--" {
			opt, _, eq := strings.Cut(l[i].s, "=")
			switch opt {
			case "--scope", "--ignore", "--since", "--concurrency", "--profile-location", "--loglevel":
				if !eq {
					i++ // its value
				}
			}
			i++
		}
		if static(i, "--") {
			i++
		}
		if i >= len(l) {
			return nil
		}
		cmd := slices.Clone(l[i:])
		if k := slices.IndexFunc(cmd[1:], func(w word) bool { return !w.dyn && w.s == "--" }); k >= 0 {
			cmd = slices.Delete(cmd, k+1, k+2)
		}
		return cmd
	}
	return nil
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

// rimrafOperands are the paths rimraf (or del-cli's del) deletes, each
// recursively without asking, as rm -r -f does.
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
	ws := lits(layer)
	r, ok := runnerOf(layer[0], ws)
	return ok && runnerStep(r, ws).kind == stepWrap
}
