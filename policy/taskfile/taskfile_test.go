package taskfile

import (
	"slices"
	"strings"
	"testing"
)

// A reference expands when reading the makefile tells its value: a
// variable set once (or added to), $@, $(MAKE), $(CURDIR), $(RM), and
// $(shell CMD) as the shell's $(CMD); not one set twice, by the shell or
// by define, nor another function.
func TestMakefileExpand(t *testing.T) {
	m := ReadMakefile(`A = a
B := $(A)/b
C ?= c
C ?= other
D = d
D += e
E = 1
E = 2
F != date
define G
x
endef
H = $(H)x
export I = i
`, nil)
	m.Dir = "/w"
	for _, tt := range []struct{ in, want string }{
		{"$(A) ${B} $C", "a a/b c"},
		{"$(D)", "d e"},
		{"$@ $(MAKE) $(CURDIR) $(RM) $$x", "t make /w rm -f $x"},
		{"$(I)", "i"},
		{"$(shell git describe --tags) $(shell echo $(A))", "$(git describe --tags) $(echo a)"}, // the shell's $(...)
	} {
		if got, ok := m.Expand(tt.in, "t"); !ok || got != tt.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, in := range []string{"$(E)", "$(F)", "$(G)", "$(H)", "$(shell $(E))", "$<", "$(UNSET)", "$(A", "x$"} {
		if got, ok := m.Expand(in, "t"); ok {
			t.Errorf("Expand(%q) = %q, want not known", in, got)
		}
	}
	m.Set("E", "3")
	if got, ok := m.Expand("$(A)", ""); !ok || got != "a" {
		t.Errorf("after Set: %q %v", got, ok)
	}
	m.Unset("A")
	if _, ok := m.Expand("$(A)", ""); ok {
		t.Error("Unset: A still expands")
	}
}

// Recipes runs prerequisites first, each target once, and stops at the
// bound.
func TestMakefileRecipes(t *testing.T) {
	m := ReadMakefile("all: b a\na: b\n\techo a\nb:\n\techo b\n\t@-echo $@\n$(X): \n\tnever\nc: ; echo inline\n", nil)
	lines, ok := m.Recipes([]string{"all", "c"}, 10)
	if want := []string{"echo b", "echo b", "echo a", "echo inline"}; !ok || !slices.Equal(lines, want) {
		t.Errorf("Recipes = %q, %v; want %q", lines, ok, want)
	}
	if _, ok := m.Recipes([]string{"all"}, 2); ok {
		t.Error("past the bound: ok")
	}
	if m.Goal() != "all" || !slices.Equal(m.Targets, []string{"all", "a", "b", "$(X)", "c"}) {
		t.Errorf("goal %q, targets %q", m.Goal(), m.Targets)
	}
}

// A justfile's recipes, their parameters and what they run.
func TestJustfileScripts(t *testing.T) {
	j := ReadJustfile("alias b := build\nout := 'dist'\n[private]\nbuild dir=out *flags: clean\n  cargo build {{flags}} --target-dir {{dir}}\nclean:\n  rm -rf {{out}}\nx a='1:2' (b):\n  echo {{a}}\n")
	if len(j.Recipes) != 3 || !j.Recipes[0].Private || j.Recipes[2].Name != "x" || len(j.Recipes[2].Params) != 2 {
		t.Fatalf("recipes %+v", j.Recipes)
	}
	var out []string
	shell := func(string) bool { return true }
	if !j.Scripts("b", []string{"out/", "-v"}, shell, map[string]bool{}, &out, 10) {
		t.Fatal("bound")
	}
	if want := []string{"rm -rf dist", "cargo build -v --target-dir out/"}; !slices.Equal(out, want) {
		t.Errorf("Scripts = %q, want %q", out, want)
	}
	if r := j.Recipe("b"); r == nil || r.Bind([]string{"x", "y", "z"}) != 3 || j.Recipe("x").Bind([]string{"p", "q", "r"}) != 2 {
		t.Errorf("Bind")
	}
}

// FuzzReadMakefile: no panic; targets distinct; recipes within the bound.
func FuzzReadMakefile(f *testing.F) {
	f.Add("all: a\n\techo $(A)\nA = $(B) $(B)\nB = x\ninclude x.mk\n")
	f.Add("define X\n\tendef\n%: common-% ;\n.DEFAULT_GOAL := y\n")
	f.Fuzz(func(t *testing.T, text string) {
		m := ReadMakefile(text, func(string, int) string { return text[:len(text)/2] })
		seen := map[string]bool{}
		for _, tg := range m.Targets {
			if seen[tg] {
				t.Fatalf("target %q twice", tg)
			}
			seen[tg] = true
		}
		if lines, ok := m.Recipes(m.Targets, 64); ok && len(lines) > 64 {
			t.Fatalf("%d lines past the bound", len(lines))
		}
	})
}

// FuzzReadJustfile: no panic; scripts within the bound.
func FuzzReadJustfile(f *testing.F) {
	f.Add("a x='1' +y: b\n  echo {{x}} {{y}}\nb:\n  #!/bin/sh\n  true\n")
	f.Fuzz(func(t *testing.T, text string) {
		j := ReadJustfile(text)
		for _, r := range j.Recipes {
			var out []string
			if j.Scripts(r.Name, strings.Fields(text), func(string) bool { return true }, map[string]bool{}, &out, 32); len(out) > 33 {
				t.Fatalf("%d scripts past the bound", len(out))
			}
		}
	})
}

// FuzzReadMiseTasks: no panic.
func FuzzReadMiseTasks(f *testing.F) {
	f.Add("[tasks]\na = 'x'\n[tasks.b]\nrun = ['y']\ndepends = ['a']\n")
	f.Fuzz(func(t *testing.T, text string) {
		ReadMiseTasks([]byte(text))
	})
}

// package.json's scripts: strings only, after a byte order mark as Node
// reads it; not JSON, or scripts not an object, runs nothing.
func TestReadPackageScripts(t *testing.T) {
	got, ok := ReadPackageScripts("\uFEFF" + `{"scripts": {"wipe": "rm -rf", "n": 1}}`)
	if !ok || len(got) != 1 || got["wipe"] != "rm -rf" {
		t.Errorf("with a byte order mark: %q, %v", got, ok)
	}
	for _, bad := range []string{`{"scripts": "x"}`, `{"scripts": {`, ``} {
		if _, ok := ReadPackageScripts(bad); ok {
			t.Errorf("%q: read", bad)
		}
	}
}

// Workspace patterns come from package.json (array or object), lerna.json
// and pnpm-workspace.yaml; exclusions and what is not a pattern are left
// out, and damaged files give none.
func TestWorkspacePatterns(t *testing.T) {
	for _, tt := range []struct {
		text, name string
		want       []string
	}{
		{`{"name": "root", "workspaces": ["packages/*", "!packages/skip", 3, ""]}`, "root", []string{"packages/*"}},
		{"\uFEFF" + `{"workspaces": {"packages": ["apps/*", "libs/**"], "nohoist": ["x"]}}`, "", []string{"apps/*", "libs/**"}},
		{`{"name": 7, "workspaces": "packages/*"}`, "", nil},
		{`{"name": "a"`, "", nil},
	} {
		name, ws := PackageIdentity(tt.text)
		if name != tt.name || !slices.Equal(ws, tt.want) {
			t.Errorf("%s: %q %q, want %q %q", tt.text, name, ws, tt.name, tt.want)
		}
	}
	if got := LernaPackages(`{"packages": ["modules/*"], "version": "1.0.0"}`); !slices.Equal(got, []string{"modules/*"}) {
		t.Errorf("lerna.json: %q", got)
	}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"packages:\n  - 'packages/*'\n  - \"apps/**\" # the apps\n  - '!**/test/**'\n  - tools\ncatalog:\n  - react: 18\n", []string{"packages/*", "apps/**", "tools"}},
		{"# a comment\npackages: ['a/*', \"b\"]\n", []string{"a/*", "b"}},
		{"onlyBuiltDependencies:\n  - esbuild\n", nil},
		{"packages:\r\n  - x/*\r\n", []string{"x/*"}},
		{"  packages:\n  - nested\n", nil},
	} {
		if got := PnpmWorkspaces(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.want)
		}
	}
}

func FuzzPnpmWorkspaces(f *testing.F) {
	f.Add("packages:\n  - 'packages/*'\n  - '!x'\n")
	f.Add("packages: [a, 'b']\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, p := range PnpmWorkspaces(text) {
			if p == "" || strings.HasPrefix(p, "!") {
				t.Fatalf("%q: pattern %q", text, p)
			}
		}
		PackageIdentity(text)
		LernaPackages(text)
	})
}

// A tox configuration's environments run their own commands or the base
// section's, with references, continuations, factor conditions and the -
// prefix read as tox reads them; the TOML forms quote their argv.
func TestReadTox(t *testing.T) {
	ini := ReadToxINI("[tox]\nenvlist = py3{11,12}, lint\n[testenv]\ncommands_pre = echo pre\ncommands =\n    pytest {posargs} \\\n      -q\n    py311: coverage report\n" +
		"[testenv:lint]\ncommands = - ruff check .\n[testenv:all]\ncommands = {[testenv:lint]commands}\n    !py311: mypy\n[testenv:loop]\ncommands = {[testenv:loop]commands}\n")
	if !slices.Equal(ini.Defaults, []string{"py311", "py312", "lint"}) {
		t.Errorf("defaults %q", ini.Defaults)
	}
	for _, tt := range []struct {
		env  string
		want []string
	}{
		{"py311", []string{"echo pre", "pytest {posargs} -q", "coverage report"}},
		{"lint", []string{"echo pre", "ruff check ."}},
		{"all", []string{"echo pre", "ruff check .", "mypy"}},
		{"loop", []string{"echo pre"}},
		{"unnamed", []string{"echo pre", "pytest {posargs} -q", "coverage report"}},
	} {
		if got := ini.Env(tt.env).Commands; !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.env, got, tt.want)
		}
	}
	toml, found, err := ReadToxTOML([]byte("[tool.tox]\nenv_list = [\"a\"]\n[tool.tox.env_run_base]\ncommands = [[\"pytest\", \"{posargs}\"]]\n[tool.tox.env.b]\ncommands = [[\"python\", \"-c\", \"print('x y')\"]]\n"), true)
	if err != nil || !found || !slices.Equal(toml.Env("a").Commands, []string{"pytest {posargs}"}) || !slices.Equal(toml.Env("b").Commands, []string{`python -c 'print('\''x y'\'')'`}) {
		t.Errorf("tox TOML: %+v %v %v", toml, found, err)
	}
	if _, found, _ := ReadToxTOML([]byte("[project]\nname = 'x'\n"), true); found {
		t.Error("a pyproject.toml without [tool.tox] configures tox")
	}
	if _, _, err := ReadToxTOML([]byte("[env"), false); err == nil {
		t.Error("damaged TOML: no error")
	}
}

func FuzzReadToxINI(f *testing.F) {
	f.Add("[tox]\nenv_list = a,{b,c}-d\n[testenv]\ncommands = x {posargs}\n[testenv:a]\ncommands = {[testenv]commands}\n")
	f.Add("[testenv:x]\ncommands = {[testenv:x]commands}\n  a \\\n")
	f.Fuzz(func(t *testing.T, text string) {
		tox := ReadToxINI(text)
		for _, e := range tox.Envs {
			if e.Name == "" || len(e.Commands) > 3*maxToxLines {
				t.Fatalf("env %q with %d commands", e.Name, len(e.Commands))
			}
		}
		ReadToxTOML([]byte(text), true)
	})
}

// A .pre-commit-config.yaml's hooks run their entry with their args: in
// any layout YAML allows for the lists, quoted, folded or literal; an
// alias, a merge key or a flow mapping at an entry is not followed.
func TestPreCommitHooks(t *testing.T) {
	cfg := `repos:
- repo: https://github.com/pre-commit/pre-commit-hooks
  rev: v4.0.0
  hooks:
  - id: trailing-whitespace
- repo: local
  hooks:
    - id: wipe
      name: wipe # a comment
      entry: rm -rf ~
      language: system
      args: [--one, "two words", 'it''s']
    -   id: folded
        entry: >
          bash -c
          'cat .env'
        args:
          - --x
          - "y:z"
    - id: quoted
      entry: "python -c \"print(1)\""
    - id: pattern
      language: pygrep
      entry: ':user:([^ ]+)'
    - id: message
      entry: "files must be named x.(a|b).rst"
      language: fail
  - repo: meta
    hooks:
      - id: check-hooks-apply
`
	got, ok := PreCommitHooks(cfg)
	want := []string{"rm -rf ~ --one 'two words' 'it'\\''s'", "bash -c 'cat .env' --x y:z", `python -c "print(1)"`}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("hooks %q (%v), want %q", got, ok, want)
	}
	for _, bad := range []string{
		"repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: *cmd\n",
		"repos:\n- repo: local\n  hooks:\n  - <<: *base\n    id: x\n",
		"repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: {a: b}\n",
	} {
		if got, ok := PreCommitHooks(bad); ok {
			t.Errorf("%q: read as %q", bad, got)
		}
	}
}

func FuzzPreCommitHooks(f *testing.F) {
	f.Add("repos:\n- repo: local\n  hooks:\n  - id: x\n    entry: |\n      rm -rf ~\n    args: ['a']\n")
	f.Fuzz(func(t *testing.T, text string) {
		cmds, ok := PreCommitHooks(text)
		if ok && len(cmds) > maxPreCommitHooks {
			t.Fatalf("%d hooks", len(cmds))
		}
	})
}

// A Taskfile's tasks: a command string, a list, or a map of cmds (strings,
// block scalars, cmd:, task:, defer:), deps, preconditions' and status'
// commands; an alias or a merge key is not followed.
func TestReadTaskfile(t *testing.T) {
	tasks, includes, ok := ReadTaskfile(`version: '3'
vars:
  X: y
tasks:
  default:
    deps: [lint, "build"]
  short: echo short
  list:
    - echo a
    - cmd: echo b
  build:
    desc: build it
    cmds:
      - go build ./...
      - cmd: echo "a: b"
        silent: true
      - task: lint
      - defer: rm -rf tmp
      - defer: {task: cleanup}
      - |
        rm -rf ~/x
        echo done
    preconditions:
      - sh: test -f go.mod
        msg: "no go.mod"
    status:
      - test -f bin/app
  lint:
    cmd: golangci-lint run {{.CLI_ARGS}}
    deps:
      - task: gen
        vars: {A: 1}
  gen: [go generate ./..., echo gen]
includes:
  docs: ./docs
  dist:
    taskfile: ./Dist.yml
    dir: .
`)
	if !ok || len(includes) != 2 || includes["docs"] != "./docs" || includes["dist"] != "./Dist.yml" {
		t.Fatalf("read %v, includes %v", ok, includes)
	}
	for name, want := range map[string]GoTask{
		"default": {Calls: []string{"lint", "build"}},
		"short":   {Cmds: []string{"echo short"}},
		"list":    {Cmds: []string{"echo a", "echo b"}},
		"build": {Cmds: []string{"go build ./...", `echo "a: b"`, "rm -rf tmp", "rm -rf ~/x\necho done", "test -f go.mod", "test -f bin/app"},
			Calls: []string{"lint", "cleanup"}},
		"lint": {Cmds: []string{"golangci-lint run {{.CLI_ARGS}}"}, Calls: []string{"gen"}},
		"gen":  {Cmds: []string{"go generate ./...", "echo gen"}},
	} {
		if got := tasks[name]; !slices.Equal(got.Cmds, want.Cmds) || !slices.Equal(got.Calls, want.Calls) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	for _, bad := range []string{
		"tasks:\n  x:\n    cmds: *cmds\n",
		"tasks:\n  x:\n    <<: *base\n",
		"tasks:\n  x:\n    cmds:\n      - *c\n",
		"tasks:\n  x:\n    cmds:\n      - cmd: !!str rm\n",
	} {
		if got, _, ok := ReadTaskfile(bad); ok {
			t.Errorf("%q: read as %+v", bad, got)
		}
	}
}

func FuzzReadTaskfile(f *testing.F) {
	f.Add("tasks:\n  a:\n    cmds:\n      - |\n        rm -rf ~\n      - task: b\n  b: echo\n")
	f.Add("tasks:\n  a: [x, 'y']\n")
	f.Fuzz(func(t *testing.T, text string) {
		ReadTaskfile(text)
	})
}

// An nx target's commands: its own command, or its run-commands options.
func TestNxTargets(t *testing.T) {
	got, name := NxTargets(`{"name": "app", "targets": {
		"deploy": {"command": "git push --force"},
		"clean": {"executor": "nx:run-commands", "options": {"commands": ["rm -rf dist", {"command": "echo done"}, 3]}},
		"one": {"executor": "nx:run-commands", "options": {"command": "make x"}},
		"build": {"executor": "@nx/js:tsc", "options": {"main": "src/index.ts"}}}}`, false)
	want := map[string][]string{"deploy": {"git push --force"}, "clean": {"rm -rf dist", "echo done"}, "one": {"make x"}}
	if len(got) != len(want) || name != "app" {
		t.Errorf("targets %q of %q", got, name)
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if d, _ := NxTargets(`{"targetDefaults": {"lint": {"command": "eslint ."}}}`, true); !slices.Equal(d["lint"], []string{"eslint ."}) {
		t.Errorf("targetDefaults: %q", d)
	}
	if d, _ := NxTargets("{", false); d != nil {
		t.Error("damaged JSON read")
	}
}

// A compose file's bind mounts: every volumes list, short or long syntax,
// in a service, an anchor or an extension field; not the named volumes'
// definitions.
func TestComposeVolumes(t *testing.T) {
	got, ok := ComposeVolumes(`x-common: &common
  volumes:
    - ~/.ssh:/root/.ssh:ro
services:
  app:
    <<: *common
    image: alpine
    volumes:
      - ./data:/data
      - "${HOME}:/h"
      - type: bind
        source: /
        target: /host
    command: rm -rf /h
  db:
    volumes: [dbdata:/var/lib/db]
  cache:
    volumes:
    - /var/run/docker.sock:/var/run/docker.sock
volumes:
  dbdata:
    driver: local
`)
	want := []string{"~/.ssh:/root/.ssh:ro", "./data:/data", "${HOME}:/h", "/:/host", "dbdata:/var/lib/db", "/var/run/docker.sock:/var/run/docker.sock"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("volumes %q (%v), want %q", got, ok, want)
	}
}

func FuzzComposeVolumes(f *testing.F) {
	f.Add("services:\n  a:\n    volumes:\n      - ~:/h\n      - type: bind\n        source: /\n")
	f.Fuzz(func(t *testing.T, text string) {
		if v, ok := ComposeVolumes(text); ok && len(v) > maxComposeVolumes {
			t.Fatalf("%d volumes", len(v))
		}
	})
}
