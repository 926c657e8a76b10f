package shellcmd

import (
	"strings"
	"testing"
)

// renderDirs writes each command as its argv, " @ " and its directory
// changes joined by commas: "?" when unknown, "." when there are none.
func renderDirs(l *Line) []string {
	out := make([]string, len(l.Commands))
	for i, c := range l.Commands {
		d := "."
		switch {
		case c.DirUnknown:
			d = "?"
			if c.Dirs != nil {
				d = "?!" // never: Dirs is nil when unknown
			}
		case len(c.Dirs) > 0:
			d = strings.Join(c.Dirs, ",")
		}
		words := make([]string, len(c.Argv))
		for k, a := range c.Argv {
			words[k] = quoteWord(a)
		}
		out[i] = strings.Join(words, " ") + " @ " + d
	}
	return out
}

var dirTests = []struct {
	in   string
	want []string
}{
	// Lists carry a cd forward.
	{"rm -rf x", []string{"rm -rf x @ ."}},
	{"cd /tmp; rm -rf x", []string{"cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"cd /tmp && rm -rf x", []string{"cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"cd /tmp\nrm -rf x", []string{"cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"cd a && cd ../b && ls", []string{"cd a @ .", "cd ../b @ a", "ls @ a,../b"}},
	{"cd /a; cd /b; ls", []string{"cd /a @ .", "cd /b @ /a", "ls @ /a,/b"}},
	{"cd .. && rm -rf proj", []string{"cd .. @ .", "rm -rf proj @ .."}},
	{"cd -- x; ls", []string{"cd -- x @ .", "ls @ x"}},
	{"cd -L x; ls", []string{"cd -L x @ .", "ls @ x"}},
	{"pushd /srv; ls", []string{"pushd /srv @ .", "ls @ /srv"}},
	{"pushd -n /srv; ls", []string{"pushd -n /srv @ .", "ls @ ."}},
	{"command cd /x; builtin cd y; ls", []string{"cd /x @ .", "cd y @ /x", "ls @ /x,y"}},
	// HOME.
	{"cd; ls", []string{"cd @ .", "ls @ ~"}},
	{"cd ~ && ls", []string{"cd ~ @ .", "ls @ ~"}},
	{"cd ~/src && ls", []string{"cd ~/src @ .", "ls @ ~/src"}},
	{`cd "$HOME" && ls`, []string{"cd $HOME @ .", "ls @ ~"}},
	{`cd ${HOME}/x && ls`, []string{"cd ${HOME}/x @ .", "ls @ ~/x"}},
	{`cd "${HOME}"/x && ls`, []string{"cd ${HOME}/x @ .", "ls @ ~/x"}},
	// Not static: unknown from there on.
	{`cd "$X"; ls`, []string{"cd $X @ .", "ls @ ?"}},
	{`cd $(git rev-parse --show-toplevel) && rm -rf build`, []string{`cd "$(git rev-parse --show-toplevel)" @ .`, "git rev-parse --show-toplevel @ .", "rm -rf build @ ?"}},
	{"cd `pwd`/x; ls", []string{"cd `pwd`/x @ .", "pwd @ .", "ls @ ?"}},
	{`cd "$HOMEDIR"; ls`, []string{"cd $HOMEDIR @ .", "ls @ ?"}},
	{`cd $HOME/$X; ls`, []string{"cd $HOME/$X @ .", "ls @ ?"}},
	{`cd '$HOME'; ls`, []string{"cd $HOME @ .", "ls @ ?"}},
	{"cd -; ls", []string{"cd - @ .", "ls @ ?"}},
	{"cd -P x; ls", []string{"cd -P x @ .", "ls @ ?"}},
	{"cd a b; ls", []string{"cd a b @ .", "ls @ ?"}},
	{"cd ''; ls", []string{`cd "" @ .`, "ls @ ?"}},
	{"cd ~bob; ls", []string{"cd ~bob @ .", "ls @ ?"}},
	{"cd ~-; ls", []string{"cd ~- @ .", "ls @ ?"}},
	{"cd src/*; ls", []string{"cd src/* @ .", "ls @ ?"}},
	{"cd 'a*'; ls", []string{"cd a* @ .", "ls @ ?"}},
	{"cd v[12]; ls", []string{"cd v[12] @ .", "ls @ ?"}},
	{"pushd /a; popd; ls", []string{"pushd /a @ .", "popd @ /a", "ls @ ?"}},
	{"pushd; ls", []string{"pushd @ .", "ls @ ?"}},
	{"pushd +1; ls", []string{"pushd +1 @ .", "ls @ ?"}},
	{"CDPATH=/srv cd app; ls", []string{"cd app @ .", "ls @ ?"}},
	{"CDPATH=/srv; cd app; ls", []string{"cd app @ .", "ls @ ?"}},
	{"export CDPATH=/srv; cd ./app; ls", []string{"export CDPATH=/srv @ .", "cd ./app @ .", "ls @ ./app"}},
	// An absolute cd or one under ~ makes the directory known again.
	{`cd "$X"; cd /tmp; ls`, []string{"cd $X @ .", "cd /tmp @ ?", "ls @ /tmp"}},
	{`cd "$X"; cd x; ls`, []string{"cd $X @ .", "cd x @ ?", "ls @ ?"}},
	{`cd "$X"; cd ~; ls`, []string{"cd $X @ .", "cd ~ @ ?", "ls @ ~"}},
	// A cd that does not run in this shell changes nothing.
	{"/usr/bin/cd /x; ls", []string{"cd /x @ .", "ls @ ."}},
	{"sudo cd /x; ls", []string{"cd /x @ .", "ls @ ."}},
	{"command -v cd; ls", []string{"command -v cd @ .", "ls @ ."}},
	{"find . -exec cd {} \\; ; ls", []string{"find . -exec cd {} ; @ .", "cd {} @ .", "ls @ ."}},
	{"echo cd /; ls", []string{"echo cd / @ .", "ls @ ."}},
	// Subshells end their cd's.
	{"(cd /tmp && rm -rf x); rm -rf y", []string{"cd /tmp @ .", "rm -rf x @ /tmp", "rm -rf y @ ."}},
	{"cd a; (cd b; ls); ls", []string{"cd a @ .", "cd b @ a", "ls @ a,b", "ls @ a"}},
	// So do pipeline stages, substitutions and background jobs.
	{"cd /tmp | ls; ls", []string{"cd /tmp @ .", "ls @ .", "ls @ ."}},
	{"cd a; ls | (cd b; cat) | wc; ls", []string{"cd a @ .", "ls @ a", "cd b @ a", "cat @ a,b", "wc @ a", "ls @ a"}},
	{"echo $(cd /tmp; ls) && ls", []string{`echo "$(cd /tmp; ls)" @ .`, "cd /tmp @ .", "ls @ /tmp", "ls @ ."}},
	{"cd a; diff <(cd b; ls) <(ls); ls", []string{"cd a @ .", `diff "<(cd b; ls)" <(ls) @ a`, "cd b @ a", "ls @ a,b", "ls @ a", "ls @ a"}},
	{"cd /tmp & rm -rf x", []string{"cd /tmp @ .", "rm -rf x @ ."}},
	{"coproc { cd /tmp; }; ls", []string{"cd /tmp @ .", "ls @ ."}},
	// Groups, if, case and loop bodies leak forward.
	{"{ cd /tmp; }; rm -rf x", []string{"cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"{ cd /tmp; } > log; rm -rf x", []string{"cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"{ cd /tmp; } > $(pwd)/log", []string{"cd /tmp @ .", "pwd @ ."}},
	{"cd /tmp && ls > $(pwd)/log", []string{"cd /tmp @ .", "ls @ /tmp", "pwd @ /tmp"}},
	{"if cd /tmp; then rm -rf x; fi; ls", []string{"cd /tmp @ .", "rm -rf x @ /tmp", "ls @ /tmp"}},
	{"if true; then cd /tmp; fi; ls", []string{"true @ .", "cd /tmp @ .", "ls @ ?"}},
	{"if true; then cd /tmp; else cd /tmp; fi; ls", []string{"true @ .", "cd /tmp @ .", "cd /tmp @ .", "ls @ /tmp"}},
	{"if true; then cd /a; else ls; fi; ls", []string{"true @ .", "cd /a @ .", "ls @ .", "ls @ ?"}},
	{"if a; then cd /a; elif cd /b; then ls; else ls; fi", []string{"a @ .", "cd /a @ .", "cd /b @ .", "ls @ /b", "ls @ /b"}},
	{"case $x in a) cd /a;; *) cd /a;; esac; ls", []string{"cd /a @ .", "cd /a @ .", "ls @ /a"}},
	{"case $x in a) cd /a;; esac; ls", []string{"cd /a @ .", "ls @ ?"}},
	{"case $x in a) cd /a;& b) ls;; esac", []string{"cd /a @ .", "ls @ ?"}},
	{"for f in a b; do ls; done; ls", []string{"ls @ .", "ls @ ."}},
	{"cd /x; for f in a b; do ls; done", []string{"cd /x @ .", "ls @ /x"}},
	{"for d in a b; do cd $d; ls; done; ls", []string{"cd a @ ?", "cd b @ ?", "ls @ ?", "ls @ ?"}},
	{"for d in a b; do cd /srv; rm -rf y; done; ls", []string{"cd /srv @ ?", "rm -rf y @ /srv", "ls @ ?"}},
	{"for d in a b; do (cd $d; ls); done; ls", []string{"cd a @ .", "cd b @ .", "ls @ ?", "ls @ ."}},
	{"while read d; do cd sub; done; ls", []string{"read d @ ?", "cd sub @ ?", "ls @ ?"}},
	{"for f in $(cd /; ls); do rm $f; done", []string{"cd / @ .", "ls @ /", "rm $f @ ."}},
	// A function's body runs where it is called.
	{"f() { rm -rf x; }; f", []string{"rm -rf x @ ?", "f @ ."}},
	{"f() { cd /; }; f; rm -rf x", []string{"cd / @ ?", "f @ ?", "rm -rf x @ ?"}},
	// || runs its right side when something before it failed.
	{"cd /x || exit 1; rm -rf *", []string{"cd /x @ .", "exit 1 @ ?", "rm -rf * @ /x"}},
	{"cd /x || { echo no; exit 1; }; ls", []string{"cd /x @ .", "echo no @ ?", "exit 1 @ ?", "ls @ /x"}},
	{"cd x || rm -rf y", []string{"cd x @ .", "rm -rf y @ ?"}},
	{"cd x && make || echo failed; ls", []string{"cd x @ .", "make @ x", "echo failed @ ?", "ls @ ?"}},
	{"cd x; make || echo failed; ls", []string{"cd x @ .", "make @ x", "echo failed @ x", "ls @ x"}},
	{"cd x || cd /y && ls", []string{"cd x @ .", "cd /y @ ?", "ls @ ?"}},
	// Shell bodies start where their command runs; only eval and source
	// run theirs in this shell.
	{"cd /srv && bash -c 'cd app; rm -rf x'; ls", []string{"cd /srv @ .", "bash -c \"cd app; rm -rf x\" @ /srv", "cd app @ /srv", "rm -rf x @ /srv,app", "ls @ /srv"}},
	{"eval 'cd /tmp'; rm -rf x", []string{"eval \"cd /tmp\" @ .", "cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"source /dev/stdin <<'EOF'\ncd /tmp\nEOF\nrm -rf x", []string{"source /dev/stdin @ .", "cd /tmp @ .", "rm -rf x @ /tmp"}},
	{"echo 'cd /tmp' | source /dev/stdin; ls", []string{"echo \"cd /tmp\" @ .", "source /dev/stdin @ .", "cd /tmp @ .", "ls @ ."}},
	{"cd /srv; bash <<'EOF'\nrm -rf x\nEOF", []string{"cd /srv @ .", "bash @ /srv", "rm -rf x @ /srv"}},
	{"trap 'rm -rf x' EXIT", []string{"trap \"rm -rf x\" EXIT @ ?", "rm -rf x @ ?"}},
	{"su - bob -c 'rm -rf x'", []string{"su - bob -c \"rm -rf x\" @ ?", "rm -rf x @ ?"}},
	{"su bob -c 'rm -rf x'", []string{"su bob -c \"rm -rf x\" @ .", "rm -rf x @ ."}},
	{"parallel --wd /x rm ::: a", []string{"parallel --wd /x rm ::: a @ ?", "rm a @ ?"}},
	// Wrappers that change directory.
	{"env -C /x rm -rf y", []string{"rm -rf y @ ?"}},
	{"env --chdir=/x rm -rf y", []string{"rm -rf y @ ?"}},
	{"env FOO=1 rm -rf y", []string{"rm -rf y @ ."}},
	{"sudo -D /x rm -rf y", []string{"rm -rf y @ ?"}},
	{"sudo -i rm -rf y", []string{"rm -rf y @ ?"}},
	{"sudo -u bob rm -rf y", []string{"rm -rf y @ ."}},
	{"chroot /jail rm -rf y", []string{"rm -rf y @ ?"}},
	{"pkexec rm -rf y", []string{"rm -rf y @ ?"}},
	{"pkexec --keep-cwd rm -rf y", []string{"rm -rf y @ ."}},
	{"cd /x; find . -execdir rm {} + -exec ls {} +", []string{"cd /x @ .", "find . -execdir rm {} + -exec ls {} + @ /x", "rm {} @ ?", "ls {} @ /x"}},
	{"cd /x; find . -delete", []string{"cd /x @ .", "find . -delete @ /x", "rm -r -f . @ /x"}},
	{"cd /x; xargs rm -rf < list", []string{"cd /x @ .", "rm -rf @ /x"}},
	// time and ! run in this shell.
	{"time cd /x; ls", []string{"cd /x @ .", "ls @ /x"}},
	{"! cd /x; ls", []string{"cd /x @ .", "ls @ /x"}},
}

func TestParseDirs(t *testing.T) {
	for _, tt := range dirTests {
		l := Parse(tt.in)
		if l.Err != nil {
			t.Errorf("Parse(%q): %v", tt.in, l.Err)
			continue
		}
		if got := renderDirs(l); !equalStrings(got, tt.want) {
			t.Errorf("Parse(%q) dirs:\n got  %q\n want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseDirsBounded(t *testing.T) {
	l := Parse(strings.Repeat("cd a; ", maxDirs) + "ls; cd b; ls")
	n := len(l.Commands)
	if c := l.Commands[n-3]; c.DirUnknown || len(c.Dirs) != maxDirs {
		t.Errorf("after %d cd's: unknown %v, %d dirs", maxDirs, c.DirUnknown, len(c.Dirs))
	}
	if c := l.Commands[n-1]; !c.DirUnknown || c.Dirs != nil {
		t.Errorf("after %d cd's: unknown %v, %d dirs", maxDirs+1, c.DirUnknown, len(c.Dirs))
	}
}
