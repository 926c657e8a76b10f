package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

// tox may run the commands of the environments it selects: -e names (or
// ALL, or any when a name is known only at run time), else the env_list,
// with {posargs} the words after --; tox exec runs its own command.
func TestParseToxEnvs(t *testing.T) {
	files := map[string]string{"/p/tox.ini": "[tox]\nenv_list = lint\n[testenv]\ncommands = pytest {posargs:tests}\n" +
		"[testenv:lint]\ncommands = ruff check .\n[testenv:wipe]\ncommands = rm -rf {posargs}\n"}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"tox", []string{"tox", "ruff check . @1 ?guess"}},
		{"tox -e wipe -- ~", []string{"tox -e wipe -- ~", "rm -rf ~ @1 ?guess"}},
		{"tox r -ewipe -- ~", []string{"tox r -ewipe -- ~", "rm -rf ~ @1 ?guess"}},
		{"tox -e py312 -- -k x", []string{"tox -e py312 -- -k x", "pytest -k x @1 ?guess"}},
		{"tox -e py312", []string{"tox -e py312", "pytest tests @1 ?guess"}},
		{"tox -e ALL -- /", []string{"tox -e ALL -- /", "ruff check . @1 ?guess", "rm -rf / @1 ?guess", "pytest / @1 ?guess"}},
		{"tox exec -e lint -- rm -rf ~", []string{"tox exec -e lint -- rm -rf ~", "rm -rf ~ @1 ?guess"}},
		{"tox list", []string{"tox list"}},
		{"python3 -m tox -e wipe -- x", []string{"python3 -m tox -e wipe -- x", "rm -rf x @1 ?guess"}},
	} {
		l := ParseWith(tt.in, testWorkspaces(files, ""))
		checkWithDisk(t, tt.in, l, "tox.ini")
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	// setup.cfg's [tox:tox] where there is no tox.ini.
	cfg := map[string]string{"/p/setup.cfg": "[metadata]\nname = x\n[tox:tox]\nenvlist = wipe\n[testenv:wipe]\ncommands = rm -rf ~\n"}
	if got := renderAll(ParseWith("tox", testWorkspaces(cfg, ""))); !slices.Equal(got, []string{"tox", "rm -rf ~ @1 ?guess"}) {
		t.Errorf("setup.cfg: %q", got)
	}
	// Configuration from the command line, or written by the line first,
	// or more environments than are read: not known.
	manyEnvs := ""
	for i := range 17 { // 64 names each
		manyEnvs += fmt.Sprintf("a%d{0,1,2,3,4,5,6,7}{0,1,2,3,4,5,6,7},", i)
	}
	for _, tt := range []struct{ in, file string }{
		{"tox -e lint -x testenv.commands=sh", files["/p/tox.ini"]},
		{"tox -c other.ini", files["/p/tox.ini"]},
		{"echo '[testenv]' > tox.ini && tox", files["/p/tox.ini"]},
		{"tox -e lint", "[tox]\nenv_list = " + manyEnvs + "\n"},
	} {
		if l := ParseWith(tt.in, testWorkspaces(map[string]string{"/p/tox.ini": tt.file}, "")); !l.Unknown() {
			t.Errorf("%s: known, commands %q", tt.in, renderAll(l))
		}
	}
}

// FuzzToxEnvs: any tox line over any tox.ini parses to a line whose
// invariants hold and whose spelled-out commands are its own.
func FuzzToxEnvs(f *testing.F) {
	f.Add("tox -e a -- ~", "[testenv:a]\ncommands = rm -rf {posargs}\n")
	f.Add("tox", "[tox]\nenvlist = {x,y}\n[testenv]\ncommands = {[testenv]commands}\n")
	f.Fuzz(func(t *testing.T, src, ini string) {
		l := ParseWith(src, testWorkspaces(map[string]string{"/p/tox.ini": ini}, ""))
		checkWithDisk(t, src, l, fmt.Sprintf("tox.ini %q", ini))
	})
}
