package shellcmd

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// What a program agent-shell does not know may run is read from its
// arguments: from each word that names a known program, and each that
// reads as a command line; a known program's arguments never are.
func TestParseGuesses(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"faketime now rm -rf ~", []string{"faketime now rm -rf ~", "rm -rf ~ =implied ?guess"}},
		{"direnv exec cat rm -rf ~", []string{"direnv exec cat rm -rf ~", "cat rm -rf ~ =implied ?guess", "cat rm -rf ~ =implied ?guess", "rm -rf ~ =implied ?guess"}},
		{"nodemon --exec='cat .env'", []string{"nodemon \"--exec=cat .env\"", "cat .env @1 ?guess"}},
		{"concurrently 'npm run a' 'sh -c \"rm -rf ~\"'", []string{"concurrently \"npm run a\" \"sh -c \\\"rm -rf ~\\\"\"",
			"npm run a @1 ?guess", "sh -c \"rm -rf ~\" @1 ?guess", "rm -rf ~ @2 ?guess"}},
		{"psql -c '\\! cat .env'", []string{"psql -c \"\\\\! cat .env\"", "cat .env @1 ?guess"}},
		{"tool 'rm\t-rf ~'", []string{"tool \"rm\\t-rf ~\"", "rm -rf ~ @1 ?guess"}},
		{"tool 'cd /x && RM -rf ~'", []string{"tool \"cd /x && RM -rf ~\"", "cd /x @1 ?guess", "RM -rf ~ @1 ?guess"}},
		{"tool Rm.exe -rf ~", []string{"tool Rm.exe -rf ~", "Rm.exe -rf ~ =implied ?guess"}},
		{"dc -e '!cat .env'", []string{"dc -e \"!cat .env\"", "cat .env @1 ?guess"}},
		// A directory option, or cd among the words, may move it.
		{"tool --cwd /x rm -rf build", []string{"tool --cwd /x rm -rf build @?", "rm -rf build =implied ?guess @?"}},
		{"cmake -E chdir /x rm -rf .", []string{"cmake -E chdir /x rm -rf . @?", "rm -rf . =implied ?guess @?"}},
		// A shell as the last word reads the stage's input, or a heredoc.
		{"echo 'cat .env' | tool sh", []string{"echo \"cat .env\"", "tool sh", "sh =implied ?guess", "cat .env @1 ?guess"}},
		{"tool sh <<< 'cat .env'", []string{"tool sh (<<<)", "sh =implied ?guess (<<<)", "cat .env @1 ?guess"}},
		// Not read: prose, a harmless or lone program, data of a known one.
		{"bd create --description='This blocks rm -rf'", []string{"bd create \"--description=This blocks rm -rf\""}},
		{"mise run test", []string{"mise run test"}},
		{"mise install", []string{"mise install"}},
		{"eslint .", []string{"eslint ."}},
		{"grep -r 'rm -rf ~' .", []string{"grep -r \"rm -rf ~\" ."}},
		{"git commit -m 'rm -rf ~'", []string{"git commit -m \"rm -rf ~\""}},
		{"echo rm -rf ~", []string{"echo rm -rf ~"}},
		{"docker run alpine rm -rf /", []string{"docker run alpine rm -rf /"}},
		{"jest -t 'git reset --hard'", []string{"jest -t \"git reset --hard\""}},
		// A script file may run its arguments too.
		{"bash wrap.sh rm -rf ~", []string{"bash wrap.sh rm -rf ~", "rm -rf ~ =implied ?guess"}},
		{"python3 -m tool cat .env", []string{"python3 -m tool cat .env", "cat .env =implied ?guess"}},
		{"python3 -m pytest -k 'git reset --hard'", []string{"python3 -m pytest -k \"git reset --hard\""}},
		{"python3 -c 'print(1)' rm -rf ~", []string{"python3 -c print(1) rm -rf ~"}},
		{"node build.js --out dist", []string{"node build.js --out dist"}},
		// agent-shell runs commands too, as npm's script-shell and with exec.
		{"agent-shell exec --request r1 -- rm -rf ~", []string{"rm -rf ~"}},
		{"agent-shell exec -c 'cat .env'", []string{"agent-shell exec -c \"cat .env\"", "cat .env @1"}},
		{"agent-shell -c 'cat .env' sh", []string{"agent-shell -c \"cat .env\" sh", "cat .env @1"}},
		{"agent-shell log --command 'rm -rf ~'", []string{"agent-shell log --command \"rm -rf ~\""}},
		// Deletes as a side of another job.
		{"zip -rm a.zip src", []string{"zip -rm a.zip src", "rm -r -f src =implied"}},
		{"7z a -sdel a.7z src docs", []string{"7z a -sdel a.7z src docs", "rm -r -f src docs =implied"}},
		{"rsync -a --remove-source-files src/ host:/x", []string{"rsync -a --remove-source-files src/ host:/x", "rm -r -f src/ =implied"}},
		{"cmake -E remove_directory out", []string{"cmake -E remove_directory out", "rm -r -f out =implied"}},
		{"podman unshare rm -rf ~", []string{"rm -rf ~"}},
	} {
		l := Parse(tt.in)
		if l.Err != nil {
			t.Errorf("Parse(%q): %v", tt.in, l.Err)
			continue
		}
		var got []string
		for _, c := range l.Commands {
			if c.DirUnknown {
				got = append(got, render(c)+" @?") // where it runs is unknown
			} else {
				got = append(got, render(c))
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Padding an unknown program's arguments with known programs cannot push
// the one that matters out of sight: past maxGuesses the command is
// unknown.
func TestParseGuessesBounded(t *testing.T) {
	l := Parse("tool " + strings.Repeat("cat ", maxGuesses+1) + "rm -rf ~")
	if r := l.UnknownReason(); !strings.Contains(r, "may start a command tool runs") {
		t.Errorf("UnknownReason() = %q", r)
	}
	if l := Parse("tool " + strings.Repeat("cat ", maxGuesses-1) + "rm -rf ~"); l.Unknown() || l.Written() != 1 {
		t.Errorf("%d guesses: unknown %q, %d written commands", maxGuesses, l.UnknownReason(), l.Written())
	}
}

// Every program wrapperStep unwraps is a known program, so none of them is
// guessed at as well (the switch is read from the source, so a new case
// cannot be forgotten here).
func TestKnownProgramsCoverWrappers(t *testing.T) {
	f, err := parser.ParseFile(gotoken.NewFileSet(), "unwrap.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(x ast.Node) bool {
		fn, ok := x.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "wrapperStep" {
			return true
		}
		sw := fn.Body.List[0].(*ast.SwitchStmt)
		for _, s := range sw.Body.List {
			for _, e := range s.(*ast.CaseClause).List {
				name, _ := strconv.Unquote(e.(*ast.BasicLit).Value)
				n++
				if !KnownProgram(name) {
					t.Errorf("wrapperStep unwraps %s, which KnownProgram does not know", name)
				}
			}
		}
		return false
	})
	if n < 40 {
		t.Fatalf("read %d cases of wrapperStep's switch", n)
	}
}
