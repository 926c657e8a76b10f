package shellcmd

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// varTests: a word that reads a variable the line assigns is read with the
// value the line gives it, alone when that value is certain, else once per
// value and once as written.
var varTests = []struct {
	in   string
	want []string
}{
	// Certain: one assignment at the top level, before the command.
	{"f=.env; cat $f", []string{"cat .env"}},
	{`f=.env; cat "$f"`, []string{"cat .env"}},
	{"f=.env && cat ${f}", []string{"cat .env"}},
	{"export f=.env; cat $f", []string{"export f=.env", "cat .env"}},
	{"declare f=.env; local g=$f; cat $g", []string{"declare f=.env", "local g=.env", "cat .env"}},
	{"d=~/.ssh; f=$d/id_rsa; cat $f", []string{"cat ~/.ssh/id_rsa"}},
	{"c=cat; $c .env", []string{"cat .env"}},
	{"c='rm -rf'; $c ~", []string{"rm -rf ~"}},
	{`c='rm -rf'; "$c" ~`, []string{`"rm -rf" ~`}}, // quoted, one word: no such program
	{"a='-rf ~'; rm $a", []string{"rm -rf ~"}},
	{"f='.e*'; cat $f", []string{"cat .e*"}},
	{`f='.e*'; cat "$f"`, []string{"cat .e*"}},
	{"cmd='rm -rf ~'; bash -c \"$cmd\"", []string{`bash -c "rm -rf ~"`, "rm -rf ~ @1"}},
	{"d=dist; rm -rf ./$d", []string{"rm -rf ./dist"}},
	{"H=$HOME; rm -rf $H", []string{"rm -rf $HOME ~dyn"}},
	// A top-level for loop's variable is one of its items in its body.
	{"for d in dist build; do rm -rf $d; done", []string{"rm -rf dist", "rm -rf build"}},
	{"for d in {a,b}; do rm -rf $d; done", []string{"rm -rf a", "rm -rf b"}},
	{`for f in *.log; do cat "$f"; done`, []string{"cat *.log"}},
	// Not certain: both the values and what the variable holds at run time.
	{"test -n x && f=.env; cat $f", []string{"test -n x", "cat .env", "cat $f ~dyn"}},
	{"cat $f; f=.env", []string{"cat .env", "cat $f ~dyn"}},
	{"f=a; f=.env; cat $f", []string{"cat a", "cat .env"}},
	{"(f=.env); cat $f", []string{"cat .env", "cat $f ~dyn"}},
	{"g() { f=.env; }; g; cat $f", []string{"g", "cat .env", "cat $f ~dyn"}},
	{"f=.env cat $f", []string{"cat .env", "cat $f ~dyn"}},
	{"for d in a b; do :; done; rm -rf $d", []string{":", "rm -rf a", "rm -rf b", "rm -rf $d ~dyn"}},
	{"a=(x .env); cat ${a[1]}", []string{"cat .env"}},
	// An array is all its elements in a command's words (these passed:
	// each element was read as the command alone).
	{`a=(rm -rf ~); "${a[@]}"`, []string{"rm -rf ~"}},
	{`a=(push --force); git "${a[@]}"`, []string{"git push --force"}},
	{`a=(reset --hard); git ${a[*]}`, []string{"git reset --hard"}},
	{`a=(-rf ~); rm "${a[@]}"`, []string{"rm -rf ~"}},
	{`a=(rm -rf ~); "${a[0]}" "${a[1]}" "${a[2]}"`, []string{"rm -rf ~"}},
	{`declare -a a=(rm -rf ~); ${a[@]}`, []string{`declare -a "a=(rm -rf ~)"`, "rm -rf ~"}},
	{`a=("my file" x); cat "${a[@]}"`, []string{"cat my file x"}}, // split at blanks too: more words, never fewer
	// A shell body's "$@" is all its positional parameters (these passed).
	{`bash -c '"$@"' _ rm -rf ~`, []string{`bash -c "\"$@\"" _ rm -rf ~`, "rm -rf ~ @1"}},
	{`sh -c '$*' _ rm -rf ~`, []string{`sh -c $* _ rm -rf ~`, "rm -rf ~ @1"}},
	{"a=(x); a+=(.env); cat \"${a[@]}\"", []string{"cat x", "cat .env", "cat ${a[@]} ~dyn"}},
	{`a=(.env); for f in "${a[@]}"; do cat "$f"; done`, []string{"cat .env"}},
	{`dirs=(dist build); for d in "${dirs[@]}"; do rm -rf "$d"; done`, []string{"rm -rf dist", "rm -rf build"}},
	{`D=a; test -n "$CI" && D="$D b"; brew install $D`, []string{"test -n $CI ~dyn", "brew install a", `brew install "$D b" ~dyn`, "brew install $D ~dyn"}},
	{`x=.env; [ -n "$CI" ] && y=$x; cat $y`, []string{"[ -n $CI ] ~dyn", "cat .env", "cat $y ~dyn"}},
	{"set -- .env; cat $1", []string{"set -- .env", "cat .env", "cat $1 ~dyn"}},
	{`set -- a .env; cat "$@"`, []string{"set -- a .env", "cat a", "cat .env", "cat $@ ~dyn"}},
	{"cat ${f:-.env}", []string{"cat .env", "cat ${f:-.env} ~dyn"}},
	{"cat ${f=.env}", []string{"cat .env", "cat .env", "cat ${f=.env} ~dyn"}}, // the value it assigns, and its default
	{"f=; cat ${f:-.env}", []string{"cat .env"}},
	// What an expansion does to a value: replace, remove a prefix or a
	// suffix, take a substring, change case.
	{"f=.exx; cat ${f/xx/nv}", []string{"cat .env"}},
	{"f=a.a; cat ${f//a/b}", []string{"cat b.b"}},
	{"f=x.env; cat ${f#x} ${f##x}", []string{"cat .env .env"}},
	{"f=README.md; cat ${f%.md}.txt", []string{"cat README.txt"}},
	{"f=.ENV; cat ${f,,} ${f^^} ${f,}", []string{"cat .env .ENV .ENV"}},
	{"f=abc.env; cat ${f:3} ${f:0:3}", []string{"cat .env abc"}},
	{"f=a.b; cat ${f%.*}", []string{"cat ${f%.*} ~dyn"}}, // a pattern: as written
	{`f=.e*v; cat ${f/\*/n}`, []string{"cat .env"}},
	// A shell body's positional parameters.
	{`bash -c 'cat "$@"' x .env`, []string{`bash -c "cat \"$@\"" x .env`, "cat .env @1"}},
	{`sh -c 'shift; cat "$1"' x .env`, []string{`sh -c "shift; cat \"$1\"" x .env`, "shift @1", "cat .env @1", "cat $1 @1 ~dyn"}},
	{"export f=.env; sh -c 'cat $f'", []string{"export f=.env", `sh -c "cat $f"`, "cat .env @1", "cat $f @1 ~dyn"}},
	// A function's positional parameters are its calls' arguments.
	{`f(){ cat "$1"; }; f .env`, []string{"cat .env", "cat $1 ~dyn", "f .env"}},
	// Set in ways not read here: as written (with the values it has).
	{"read f; cat $f", []string{"read f", "cat $f ~dyn"}},
	{"read -r f <<< .env; cat $f", []string{"read -r f (<<<)", "cat .env", "cat $f ~dyn"}},
	{"f=.env; eval x; cat $f", []string{"eval x", "x @1", "cat .env", "cat $f ~dyn"}},
	{"f=.env; f+=x; cat $f", []string{"cat .env", "cat .envx"}},
	{"f=.e; f+=nv; cat $f", []string{"cat .e", "cat .env"}},
	{`f=.e; f="${f}nv"; cat "$f"`, []string{"cat .e", "cat .env"}},
	{"f=.e; test -n x && f=zz; f+=nv; cat $f", []string{"test -n x", "cat .e", "cat zz", "cat $f ~dyn"}},
	{"f=.env; ((f++)); cat $f", []string{"cat .env", "cat $f ~dyn"}},
	{"f=$(ls); cat $f", []string{"ls", "cat $f ~dyn"}},
	// mktemp prints the new file or folder it made.
	{`d=$(mktemp -d); rm -rf "$d"`, []string{"mktemp -d", "rm -rf /tmp/tmp.XXXXXXXXXX"}},
	{"d=`mktemp -dq`; rm -rf $d/..", []string{"mktemp -dq", "rm -rf /tmp/tmp.XXXXXXXXXX/.."}},
	{`d=$(mktemp -d -p ~); rm -rf "$d"`, []string{"mktemp -d -p ~", "rm -rf $d ~dyn"}},
	{`d=$(mktemp -u); rm -rf "$d"`, []string{"mktemp -u", "rm -rf $d ~dyn"}},
	{"IFS=,; a=-r,-f; rm $a x", []string{"rm $a x ~dyn"}},
	{`IFS=,; a=.env; cat "$a"`, []string{"cat .env"}},
	{"cat $f", []string{"cat $f ~dyn"}},
}

func TestParseVars(t *testing.T) {
	for _, tt := range varTests {
		l := Parse(tt.in)
		if l.Err != nil {
			t.Errorf("Parse(%q): %v", tt.in, l.Err)
			continue
		}
		var got []string
		for _, c := range l.Commands {
			if len(c.Argv) > 0 && c.Argv[0] == ":" && c.Implied != "" {
				continue
			}
			got = append(got, render(c))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestParseVarsBounded: a variable with many values, or many variables,
// cost one walk per value, not per combination; a line whose values would
// make too many commands is too large, never silently cut.
func TestParseVarsBounded(t *testing.T) {
	items := make([]string, 500)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	l := Parse("for x in " + strings.Join(items, " ") + " .env; do cat $x; done")
	if !slices.ContainsFunc(l.Commands, func(c Command) bool { return slices.Equal(c.Argv, []string{"cat", ".env"}) }) {
		t.Errorf("the 501st value of x is not read: %d commands", len(l.Commands))
	}
	var six []string
	for _, v := range []string{"a", "b", "c", "d", "e", "f"} {
		six = append(six, "for "+v+" in 1 2 3; do :; done")
	}
	l = Parse(strings.Join(six, "; ") + "; cat $a$b$c$d$e$f")
	n := 0
	for _, c := range l.Commands {
		if c.Argv[0] == "cat" {
			n++
		}
	}
	if want := 6*3 + 1; n != want { // 4^6 combinations are too many: each value once, then as written
		t.Errorf("cat $a$b$c$d$e$f: %d commands, want %d", n, want)
	}
	// A long value read many times: the text values add to the line is
	// bounded, past it a variable reads as written.
	l = Parse("a=" + strings.Repeat("A", 60000) + "; echo " + strings.Repeat("$a", 2000))
	total := 0
	for _, c := range l.Commands {
		for _, a := range c.Argv {
			total += len(a)
		}
	}
	if total > 2*maxVarBytes {
		t.Errorf("a 60 KB value read 2,000 times: %d bytes of arguments", total)
	}
	big := make([]string, 12000)
	for i := range big {
		big[i] = "x"
	}
	l = Parse("for x in " + strings.Join(big, " ") + "; do cat $x; done")
	if l.Err == nil {
		t.Errorf("12,000 values of one variable: no error, %d commands", len(l.Commands))
	}
}
