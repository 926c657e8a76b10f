package shellcmd

import (
	"fmt"
	"slices"
	"testing"
)

const testMiseToml = `[tools]
node = "22"

[tasks]
fmt = "cargo fmt"
both = ["echo a", "echo b"]

[tasks.wipe]
run = "rm -rf"
depends = ["leak", "  "]

[tasks.leak]
run = ["cat .env"]

[tasks.tpl]
run = "rm -rf {{arg(name='dir')}}"
`

// mise runs the tasks its words name, with the words after one appended,
// what they depend on first.
func TestParseMiseTasks(t *testing.T) {
	files := map[string]string{"/p/mise.toml": testMiseToml, "/p/.config/mise.toml": "[tasks.cfg]\nrun = 'git reset --hard'\n"}
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"mise run fmt", []string{"mise run fmt", "cargo fmt @1 ?guess"}},
		{"mise run wipe ~", []string{"mise run wipe ~", "cat .env @1 ?guess", "rm -rf ~ @1 ?guess"}},
		{"mise wipe -- ~", []string{"mise wipe -- ~", "cat .env @1 ?guess", "rm -rf ~ @1 ?guess"}},
		{"mise run both", []string{"mise run both", "echo a @1 ?guess", "echo b @1 ?guess"}},
		{"mise run fmt ::: cfg", []string{"mise run fmt ::: cfg", "cargo fmt @1 ?guess", "git reset --hard @1 ?guess", "fmt ::: cfg =implied ?guess"}},
		{"mise run tpl --dir ~", []string{"mise run tpl --dir ~"}},
		{"mise exec -- wipe", []string{"mise exec -- wipe", "wipe =implied ?guess"}}, // runs a program, not a task
		{"mise install", []string{"mise install"}},
	} {
		l := ParseWith(tt.in, testJustfiles(files))
		if got := renderAll(l); !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	// A configuration that is not TOML runs nothing.
	if l := ParseWith("mise run x", testJustfiles(map[string]string{"/p/mise.toml": "[tasks\nx = 'rm -rf ~'"})); len(l.Commands) != 1 {
		t.Errorf("not TOML: %q", renderAll(l))
	}
}

// FuzzMiseTasks: whatever mise.toml says and whatever mise line runs it,
// the parse holds its invariants, and the commands the line spells out
// are the ones it spells out without it.
func FuzzMiseTasks(f *testing.F) {
	f.Add("mise run wipe ~", testMiseToml)
	f.Add("mise a b", "[tasks.a]\ndepends = ['a', 'b']\n[tasks.b]\ndepends = ['a']\nrun = 'x'\n")
	f.Fuzz(func(t *testing.T, src, text string) {
		l := ParseWith(src, testJustfiles(map[string]string{"/p/mise.toml": text}))
		checkWithDisk(t, src, l, fmt.Sprintf("mise.toml %q", text))
	})
}
