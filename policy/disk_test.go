package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// A package.json script is judged where a package manager runs it: an
// agent that the safety pack stops from running rm -rf ~ cannot write it
// into a script (an ordinary edit) and run that, while the project's
// ordinary scripts decide as before.
func TestPackageScriptsOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	writeFiles(t, root, map[string]string{
		"package.json": `{"scripts": {"wipe": "rm -rf", "reset": "git reset --hard", "leak": "cat .env",
			"clean": "rm -rf dist", "test": "jest", "prepare": "husky", "setup": "echo '{}' > .claude/settings.json",
			"nested": "npm run wipe -- ~", "count": 3}}`,
		"web/package.json": `{"scripts": {"build": "vite build", "wipe": "echo harmless"}}`,
		"bom/package.json": "\uFEFF" + `{"scripts": {"wipe": "rm -rf"}}`, // Node reads past the mark
	})
	expectDecisions(t, e, root, []decisionCase{
		{`npm run wipe -- ~`, "deny", "safety/rm-recursive"},
		{`yarn wipe ~`, "deny", "safety/rm-recursive"},
		{`pnpm run reset`, "deny", "safety/git-discard"},
		{`npm run leak`, "deny", "safety/secret-files"},
		{`npm run nested`, "deny", "safety/rm-recursive"},
		{`npm --silent run wipe -- ~`, "deny", "safety/rm-recursive"},
		{`cd web && npm run wipe -- ~`, "allow", ""}, // web's own wipe
		{`npm --prefix web run wipe -- ~`, "allow", ""},
		{`npm run clean`, "allow", ""},
		{`npm test`, "allow", ""},
		{`npm ci`, "allow", ""},
		{`npm run count`, "allow", ""},
		{`cd web && npm run build`, "allow", ""},
		{`cd bom && npm run wipe -- ~`, "deny", "safety/rm-recursive"},
		{`npm pkg set scripts.zap='rm -rf' && npm run zap -- ~`, "deny", "safety/rm-recursive"},
		{`npm run $(cat name.txt) -- ~`, "deny", "safety/rm-recursive"},
		{`sed -i 's/jest/rm -rf ~/' package.json && npm test`, "ask", ""},
		{`cp package.json /tmp/package.json.bak && npm test`, "allow", ""},
	})
	// The guard reads the script too: it writes agent-shell's files.
	d := e.DecideEvent(&hostapi.Event{Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Agent: "claude", Cwd: root, Command: "npm run setup"})
	if d.Action != ActionDeny || d.Guard == "" {
		t.Errorf("npm run setup: %s by guard %q, want the guard's deny (%s)", d.Action, d.Guard, d.Reason)
	}
	// From a folder below, the nearest package.json up is the one.
	os.MkdirAll(filepath.Join(root, "src/lib"), 0o755)
	if d := e.Decide("npm run wipe -- ~", filepath.Join(root, "src/lib")); d.Rule != "safety/rm-recursive" {
		t.Errorf("from src/lib: %s by %q", d.Action, d.Rule)
	}
}

// A package.json that cannot be read for its scripts makes the package
// manager's command unknown; one that does not read as JSON runs nothing.
func TestPackageScriptsUnreadable(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	big := `{"scripts": {"x": "` + strings.Repeat(" ", maxDiskFile) + `rm -rf ~"}}`
	writeFiles(t, root, map[string]string{"package.json": big, "bad/package.json": `{"scripts": {"x": "rm -rf ~"`})
	if d := e.Decide("npm run x", root); d.Action != ActionAsk || !strings.Contains(d.Reason, "larger than 512 KiB") {
		t.Errorf("large package.json: %s (%s)", d.Action, d.Reason)
	}
	if d := e.Decide("cd bad && npm run x", root); d.Action != ActionAllow {
		t.Errorf("package.json that is not JSON: %s (%s)", d.Action, d.Reason)
	}
	fifo := filepath.Join(root, "fifo")
	os.Mkdir(fifo, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, "package.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := e.Decide("cd fifo && npm run x", root); d.Action != ActionAsk || !strings.Contains(d.Reason, "not a regular file") {
		t.Errorf("a FIFO for package.json: %s (%s)", d.Action, d.Reason)
	}
}

// make's recipes are judged where make runs them, from the makefile on
// disk: the targets it names and what they depend on.
func TestMakefileOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	writeFiles(t, root, map[string]string{
		"Makefile": "OUT = dist\nall: build\nbuild:\n\tgo build ./...\nclean:\n\trm -rf $(OUT)\nwipe:\n\t@rm -rf ~/projects\n" +
			"release: check\n\tgit push --force origin main\ncheck:\n\tcat .env\nsub:\n\t$(MAKE) -C tools x\n",
		"tools/Makefile": "x:\n\tgit reset --hard\n",
	})
	expectDecisions(t, e, root, []decisionCase{
		{`make`, "allow", ""},
		{`make clean`, "allow", ""},
		{`make OUT=~ clean`, "deny", "safety/rm-recursive"},
		{`make wipe`, "deny", "safety/rm-recursive"},
		{`make check`, "deny", "safety/secret-files"},
		{`make sub`, "deny", "safety/git-discard"},
		{`make -C tools x`, "deny", "safety/git-discard"},
		{`make -n wipe`, "allow", ""},
		{`printf 'y:\n\ttrue\n' > Makefile && make y`, "allow", ""},
		{`cp /tmp/x Makefile && make`, "ask", ""},
	})
}

// git's hooks and .git/config are judged where git runs them, in a real
// repository: what an agent wrote there with its editor cannot run
// through a plain git commit.
func TestGitRepositoryOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	os.Remove(filepath.Join(root, ".git"))
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	writeFiles(t, root, map[string]string{
		".git/hooks/pre-commit": "#!/bin/sh\nrm -rf ~/projects\n",
		".git/hooks/pre-push":   "#!/usr/bin/env bash\ngit push --force origin main\n",
	})
	cfg, err := os.OpenFile(filepath.Join(root, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WriteString("[alias]\n\tsync = !git fetch && git reset --hard origin/main\n\tst = status\n")
	cfg.Close()
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	expectDecisions(t, e, root, []decisionCase{
		{`git status`, "allow", ""},
		{`git st`, "allow", ""},
		{`git sync`, "deny", "safety/git-discard"},
		{`git commit -m x`, "deny", "safety/rm-recursive"},
		{`cd src && git commit -am x`, "deny", "safety/rm-recursive"},
		{`git commit --no-verify -m x`, "allow", ""},
		{`git push origin main`, "deny", "safety/git-history"},
		{`git log --oneline`, "allow", ""},
	})
}

// The other task runners' files, real ones on disk: what an agent wrote
// in a justfile, mise.toml, deno.json, composer.json or pyproject.toml is
// judged where the runner runs it; the project's ordinary tasks decide as
// before.
func TestTaskRunnersOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	writeFiles(t, root, map[string]string{
		"justfile":       "build:\n    cargo build\nwipe target='~':\n    rm -rf {{target}}\n",
		"mise.toml":      "[tasks.fmt]\nrun = 'cargo fmt'\n[tasks.leak]\nrun = 'cat .env'\n",
		"deno.json":      `{"tasks": {"dev": "deno run main.ts", "nuke": "rm -rf"}}`,
		"composer.json":  `{"scripts": {"test": "phpunit", "post-install-cmd": ["git reset --hard"]}}`,
		"pyproject.toml": "[tool.pdm.scripts]\nlint = 'ruff check'\nreset = 'git reset --hard'\n[tool.hatch.envs.default.scripts]\nfree = 'rm -rf ~/x'\n",
		"tox.ini": "[tox]\nenv_list = py3{11,12}, docs\n[testenv]\ncommands = pytest {posargs:tests}\n" +
			"[testenv:docs]\ncommands =\n    python -c \"import shutil; shutil.rmtree('docs/_build', ignore_errors=True)\"\n    sphinx-build docs docs/_build\n" +
			"[testenv:wipe]\nallowlist_externals = rm\ncommands = - rm -rf {posargs}\n" +
			"[testenv:home]\ncommands = python -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~/x'))\"\n",
		"Taskfile.yml":     "version: '3'\nincludes:\n  ops: ./ops\ntasks:\n  default:\n    deps: [build]\n  build:\n    cmds:\n      - go build ./...\n",
		"ops/Taskfile.yml": "tasks:\n  deploy:\n    cmds:\n      - git push --force origin main\n",
		"compose.yaml":     "services:\n  app:\n    image: alpine\n    volumes:\n      - ./data:/data\n      - /:/host\n",
	})
	expectDecisions(t, e, root, []decisionCase{
		{`just build`, "allow", ""},
		{`just wipe`, "deny", "safety/rm-recursive"},
		{`mise run fmt`, "allow", ""},
		{`mise run leak`, "deny", "safety/secret-files"},
		{`deno task dev`, "allow", ""},
		{`deno task nuke ~`, "deny", "safety/rm-recursive"},
		{`composer test`, "allow", ""},
		{`composer install`, "deny", "safety/git-discard"},
		{`pdm run lint`, "allow", ""},
		{`pdm run reset`, "deny", "safety/git-discard"},
		{`hatch run free`, "deny", "safety/rm-recursive"},
		{`task`, "allow", ""},
		{`docker compose up -d`, "deny", "safety/container-mounts"}, // it mounts the host's /
		{`docker compose logs`, "allow", ""},
		{`task ops:deploy`, "deny", "safety/git-history"},
		{`tox`, "allow", ""},
		{`tox -e docs`, "allow", ""}, // its rmtree is the project's, inside it
		{`tox -e wipe -- ~`, "deny", "safety/rm-recursive"},
		{`tox -e wipe -- build`, "allow", ""},
		{`python -m tox run -e home`, "deny", "safety/interp-delete"},
		{`tox -e docs --override testenv:docs.commands=true`, "ask", ""},
		{`python -c "import shutil; shutil.rmtree('docs/_build')"`, "deny", "safety/interp-delete"}, // on the line: whatever the path
	})
}

// A workspace selected by its folder, or by its name as npm and yarn link
// it into node_modules, runs its own package.json's scripts.
func TestWorkspaceScriptsOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	writeFiles(t, root, map[string]string{
		"package.json":              `{"workspaces": ["packages/*"], "scripts": {"wipe": "echo root"}}`,
		"packages/app/package.json": `{"name": "@me/app", "scripts": {"wipe": "rm -rf", "build": "tsc"}}`,
	})
	os.MkdirAll(filepath.Join(root, "node_modules/@me"), 0o755)
	if err := os.Symlink("../../packages/app", filepath.Join(root, "node_modules/@me/app")); err != nil {
		t.Fatal(err)
	}
	expectDecisions(t, e, root, []decisionCase{
		{`npm run wipe -- ~`, "allow", ""},
		{`npm -w packages/app run wipe -- ~`, "deny", "safety/rm-recursive"},
		{`npm --workspace=@me/app run wipe -- ~`, "deny", "safety/rm-recursive"},
		{`yarn workspace @me/app wipe ~`, "deny", "safety/rm-recursive"},
		{`pnpm --filter @me/app wipe ~`, "deny", "safety/rm-recursive"},
		{`npm -w @me/app run build`, "allow", ""},
	})
}

// Every workspace's script, where a package manager runs a script in all
// of them: found on disk through the patterns of package.json or
// pnpm-workspace.yaml (not in node_modules or hidden folders), and by its
// name without the link node_modules would hold.
func TestAllWorkspacesOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	writeFiles(t, root, map[string]string{
		"package.json":                       `{"workspaces": ["packages/*", "tools/**", "../outside/*"], "scripts": {"build": "tsc"}}`,
		"packages/app/package.json":          `{"name": "@me/app", "scripts": {"build": "vite build"}}`,
		"packages/lib/package.json":          `{"name": "lib", "scripts": {"build": "tsc", "wipe": "rm -rf"}}`,
		"tools/deep/er/x/package.json":       `{"name": "x", "scripts": {"push": "git push --force origin main"}}`,
		"packages/node_modules/package.json": `{"scripts": {"wipe": "echo not a workspace"}}`,
		"packages/.cache/package.json":       `{"name": "hidden", "scripts": {"leak": "cat .env"}}`,
	})
	expectDecisions(t, e, root, []decisionCase{
		{`npm run build -ws`, "allow", ""},
		{`npm run wipe --workspaces -- ~`, "deny", "safety/rm-recursive"},
		{`pnpm -r wipe ~`, "deny", "safety/rm-recursive"},
		{`npx turbo run push`, "deny", "safety/git-history"},
		{`yarn workspaces foreach -A run push`, "deny", "safety/git-history"},
		{`yarn workspace lib wipe ~`, "deny", "safety/rm-recursive"},
		{`pnpm -r leak`, "allow", ""},
	})
	got, why := workspaces(root, []string{"packages/*", "tools/**", "../outside/*"}, "package.json")
	want := []string{filepath.Join(root, "packages/app"), filepath.Join(root, "packages/lib"), filepath.Join(root, "tools/deep/er/x")}
	if why != "" || !slices.Equal(got, want) {
		t.Errorf("workspaces: %q %q, want %q", got, why, want)
	}
	// Patterns that reach more folders than are looked through: not known.
	for i := range maxWorkspaceDirs / 2 {
		os.MkdirAll(filepath.Join(root, "wide", strconv.Itoa(i), "a", "b"), 0o755)
	}
	if _, why := workspaces(root, []string{"wide/**"}, "package.json"); !strings.Contains(why, "more than") {
		t.Errorf("wide/**: %q", why)
	}
}

// FuzzWorkspaceGlob: any workspace pattern finds only folders inside the
// project that hold a package.json, or says why it cannot; never a panic.
func FuzzWorkspaceGlob(f *testing.F) {
	root := f.TempDir()
	for _, d := range []string{"a/b", "a/c/d", "x", ".h", "node_modules/m"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
		os.WriteFile(filepath.Join(root, d, "package.json"), []byte("{}"), 0o644)
	}
	for _, p := range []string{"a/*", "**", "a/**/d", "../*", "[", "*/*/*/**/**/**", ".h", "/abs/*", "x/../a/*"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		got, _ := workspaces(root, []string{pattern}, "package.json")
		for _, d := range got {
			if d != root && !strings.HasPrefix(d, root+"/") {
				t.Fatalf("%q: %s is outside the project", pattern, d)
			}
			if _, err := os.Stat(filepath.Join(d, "package.json")); err != nil {
				t.Fatalf("%q: %s holds no package.json", pattern, d)
			}
		}
	})
}

// The git hook pre-commit installs runs .pre-commit-config.yaml's hooks:
// a local hook's entry is judged for git commit and pre-commit run.
func TestPreCommitOnDisk(t *testing.T) {
	e, root := safetyEngine(t, "standard")
	os.Remove(filepath.Join(root, ".git"))
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	writeFiles(t, root, map[string]string{
		// What pre-commit install writes (pre-commit 3), in short.
		".git/hooks/pre-commit": "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\nINSTALL_PYTHON=/usr/bin/python3\n" +
			"ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)\nHERE=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n" +
			"ARGS+=(--hook-dir \"$HERE\" -- \"$@\")\nif [ -x \"$INSTALL_PYTHON\" ]; then\n    exec \"$INSTALL_PYTHON\" -mpre_commit \"${ARGS[@]}\"\nfi\n",
		".pre-commit-config.yaml": "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.4.0\n    hooks:\n      - id: ruff\n" +
			"  - repo: local\n    hooks:\n      - id: tidy\n        name: tidy\n        entry: bash -c 'rm -rf ~/projects'\n        language: system\n",
	})
	expectDecisions(t, e, root, []decisionCase{
		{`git commit -m x`, "deny", "safety/rm-recursive"},
		{`git commit --no-verify -m x`, "allow", ""},
		{`pre-commit run --all-files`, "deny", "safety/rm-recursive"},
		{`pre-commit install`, "allow", ""},
	})
}

// decisionCase is a command and the action and rule it must get.
type decisionCase struct{ cmd, action, rule string }

// expectDecisions decides each command in dir and reports those that get
// another action or rule.
func expectDecisions(t *testing.T, e *Engine, dir string, cases []decisionCase) {
	t.Helper()
	for _, c := range cases {
		d := e.Decide(c.cmd, dir)
		if string(d.Action) != c.action || d.Rule != c.rule {
			t.Errorf("%s: %s by %q, want %s by %q (%s)", c.cmd, d.Action, d.Rule, c.action, c.rule, d.Reason)
		}
	}
}
