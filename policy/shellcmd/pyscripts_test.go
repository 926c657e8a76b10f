package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

const testPyproject = `[project]
name = "x"

[tool.pdm.scripts]
wipe = "rm -rf"
pre_lint = "cat .env"
lint = {cmd = "ruff check"}
all = {composite = ["lint", "git reset --hard"]}

[tool.poe.tasks]
clean = {shell = "rm -rf dist"}
ci = ["clean", "nuke"]
nuke = "rm -rf"

[tool.rye.scripts]
serve = {chain = ["wipe"]}
wipe = "rm -rf ~/x"

[tool.hatch.envs.default.scripts]
test = "pytest {args}"
cov = ["test", "coverage report"]

[tool.hatch.envs.docs.scripts]
build = "mkdocs build && git push --force"
`

// pdm run, poe (poetry poe), rye run and hatch run run pyproject.toml's
// scripts, pipenv run the Pipfile's: the one named, with the words after
// it, what it runs first.
func TestParsePyScripts(t *testing.T) {
	files := map[string]string{"/p/pyproject.toml": testPyproject, "/p/Pipfile": "[packages]\nrequests = \"*\"\n\n[scripts]\nwipe = \"rm -rf ~\"\n"}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"pdm run wipe ~", []string{"wipe ~", "rm -rf ~ @1 ?guess"}}, // pdm run unwrapped: its layer and the script's name
		{"pdm run lint", []string{"lint", "cat .env @1 ?guess", "ruff check @1 ?guess"}},
		{"pdm run all", []string{"all", "cat .env @1 ?guess", "ruff check @1 ?guess", "git reset --hard @1 ?guess"}},
		{"poe ci", []string{"poe ci", "rm -rf dist @1 ?guess", "rm -rf @1 ?guess"}},
		{"rye run serve", []string{"rye run serve", "rm -rf ~/x @1 ?guess"}},
		{"hatch run cov", []string{"hatch run cov", "pytest {args} @1 ?guess", "coverage report @1 ?guess"}},
		{"hatch run docs:build", []string{"hatch run docs:build", "mkdocs build @1 ?guess", "git push --force @1 ?guess"}},
		{"pdm install", []string{"pdm install"}},
		{"pipenv run wipe", []string{"wipe", "rm -rf ~ @1 ?guess"}}, // the Pipfile's [scripts]
		{"poetry poe nuke ~", []string{"poetry poe nuke ~", "rm -rf ~ @1 ?guess"}},
	} {
		l := ParseWith(tt.in, testJustfiles(files))
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// FuzzPyScripts: whatever pyproject.toml says and whatever line runs it,
// the parse holds its invariants, and the commands the line spells out
// are the ones it spells out without it.
func FuzzPyScripts(f *testing.F) {
	f.Add("pdm run a x", testPyproject)
	f.Add("hatch run a", "[tool.hatch.envs.default.scripts]\na = ['a', 'b']\nb = 'a'\n")
	f.Fuzz(func(t *testing.T, src, text string) {
		l := ParseWith(src, testJustfiles(map[string]string{"/p/pyproject.toml": text}))
		checkWithDisk(t, src, l, fmt.Sprintf("pyproject %q", text))
	})
}
