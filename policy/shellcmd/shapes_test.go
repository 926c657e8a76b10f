package shellcmd

import (
	"slices"
	"strings"
	"testing"
)

// readable writes a shape with its markers visible: · a Hole, … a Spread.
func readable(shape []string) string {
	r := strings.NewReplacer(string(Hole), "·", string(Spread), "…")
	return r.Replace(strings.Join(shape, " "))
}

// fromReadable is the reverse of readable, for one word.
func fromReadable(s string) string {
	return strings.NewReplacer("·", string(Hole), "…", string(Spread)).Replace(s)
}

// shapeTests maps command lines to the shapes of each layer of their first
// command that runs the program of want's last layer, one string per layer.
var shapeTests = []struct {
	in   string
	want []string
}{
	{`F=-rf; rm $F x`, []string{"rm -rf x"}},
	{`rm "$F" x`, []string{"rm · x"}},
	{`rm -r$F x`, []string{"rm -r… x"}},
	{`rm -r"$F" x`, []string{"rm -r· x"}},
	{`rm $(cat o) x`, []string{"rm … x"}},
	{`rm "$(cat o)" x`, []string{"rm · x"}},
	{`rm "$(echo -rf)" x`, []string{"rm -rf x"}}, // a static echo's output is known
	{`rm ${X:--rf} x`, []string{"rm -rf x"}},
	{`set -- -rf; rm "$@" x`, []string{"rm -rf x"}},
	{`rm "$@" x`, []string{"rm … x"}},
	{`a=(-rf); rm "${a[@]}" x`, []string{"rm -rf x"}},
	{`rm "a$((1))b"`, []string{"rm a·b"}},
	{`git push origin "$B"`, []string{"git push origin ·"}},
	{`git push origin HEAD:"$B"`, []string{"git push origin HEAD:·"}},
	{`/bin/rm "$F"`, []string{"rm ·"}},
	{`sudo -u "$U" rm -rf x`, []string{"sudo -u · rm -rf x", "rm -rf x"}},
	// What run-time input supplies: appended arguments, placeholders.
	{`echo -rf x | xargs rm`, []string{"xargs rm …", "rm …"}},
	{`echo x | sudo xargs rm`, []string{"sudo xargs rm", "xargs rm …", "rm …"}},
	{`echo x | xargs -I{} rm {} y`, []string{"xargs -I{} rm · y", "rm · y"}},
	{`find . -exec rm {} +`, []string{"find . -exec rm {} +", "rm .·"}}, // the root, or a path below it
	{`find / -exec rm -rf {} \;`, []string{"find / -exec rm -rf {} ;", "rm -rf /·"}},
	{`find . -execdir rm {} \;`, []string{"find . -execdir rm {} ;", "rm ./·"}},
	{`find a b -exec rm {} \;`, []string{"find a b -exec rm {} ;", "rm ·"}},
	{`find "$D" -exec rm x \;`, []string{"find · -exec rm x ;"}},
	{`parallel rm ::: a b`, []string{"rm a"}},
	{`printf 'a\n' | parallel rm`, []string{"rm …"}},
	{`printf 'a\n' | parallel rm {} x`, []string{"rm · x"}},
	{`alias x='rm -r'`, []string{"rm -r …"}},
	{`rm {a,$F}`, []string{"rm a …"}},
	{`f(){ rm "$@"; }; f -rf x`, []string{"f -rf x"}},
}

func TestParseShapes(t *testing.T) {
	for _, tt := range shapeTests {
		l := Parse(tt.in)
		prog, _, _ := strings.Cut(tt.want[len(tt.want)-1], " ")
		i := slices.IndexFunc(l.Commands, func(c Command) bool { return c.Argv[0] == prog })
		if i < 0 {
			t.Fatalf("Parse(%q): no command %s", tt.in, prog)
		}
		c := l.Commands[i]
		var got []string
		for _, s := range c.Shapes {
			got = append(got, readable(s))
		}
		if c.Shapes == nil {
			for _, layer := range c.Layers {
				got = append(got, readable(layer))
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q) shapes:\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalShape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		// Static words: as Canonical.
		{"rm -rf x", "rm -f -r x"},
		// A run-time part that may be an option: anything after the program.
		{"rm … x", "rm …"},
		{"rm · x", "rm …"},
		{"rm -r… x", "rm …"},
		{"rm -r· x", "rm …"},
		{"rm x …", "rm …"},
		{"rm --f· x", "rm …"},
		{"git reset …", "git reset …"},
		{"git push origin ·", "git push …"},
		{"git push -C · …", "git push …"},
		{"sudo rm · x", "sudo rm …"},
		// One that cannot: its place is known.
		{"rm -rf x/·", "rm -f -r x/·"},
		// One that holds a character no flag has: an operand, or an
		// option that is no flag, both right after the flags.
		{"rm -rf ·/test", "rm -f -r ·/test"},
		{"rm -rf -·/test", "rm -f -r -·/test"},
		{"rm -rf x ·/test", "rm …"}, // an operand after x, or an option before it
		{"rm -rf ·/a ·/b", "rm …"},
		{"rm -rf --no-preserve-root ·/test", "rm …"},
		{"rm ·", "rm …"},                      // may be -rf
		{"git push origin ·/x", "git push …"}, // may be +main/x
		{"chmod -R 755 ·/bin", "chmod …"},     // an option before 755, or an operand after it
		{"rm -- · x", "rm … · x"},
		{"rm -- -x ·", "rm -- -x ·"},
		{"git push origin HEAD:·", "git push origin HEAD:·"},
		{"git commit -m ·", "git commit -m ·"},
		{"git commit -mfix:· -a", "git commit -a -m fix:·"},
		{"git commit -m· -a", "git commit …"}, // an empty value takes -a as the message
		{"git commit --message=· -a", "git commit -a -m ·"},
		{"git commit -m …", "git commit …"},
		{"git -C · push -f", "git push -f"},
		{"cat · …", "cat · …"},
		// After --, a git push operand may still be a +refspec.
		{"git push -- origin ·", "git push …"},
		// git's subcommand or configuration at run time: anything.
		{"git · --force", "git …"},
		{"git -c · p", "git …"},
		{"git -· p", "git …"},
		{"git --config-env=alias.p=· p", "git …"},
		// Wrappers keep their words; what they cannot unwrap is anything.
		{"env FOO=· rm -rf x", "env FOO=· rm -f -r x"},
		{"xargs rm …", "xargs rm …"},
		{"sudo …", "…"},
	} {
		in := strings.Fields(tt.in)
		for i := range in {
			in[i] = fromReadable(in[i])
		}
		orig := slices.Clone(in)
		got := readable(CanonicalShape(in))
		if got != tt.want {
			t.Errorf("CanonicalShape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !slices.Equal(in, orig) {
			t.Errorf("CanonicalShape modified its input %q", tt.in)
		}
	}
}

// fits reports whether s is one of the strings a template stands for,
// markers standing for any text: a glob match, greedy as policy's.
func fits(template, s string) bool {
	var segs []string
	last := 0
	for i := 0; i < len(template); i++ {
		if template[i] == Hole || template[i] == Spread {
			segs = append(segs, template[last:i])
			last = i + 1
		}
	}
	segs = append(segs, template[last:])
	if len(segs) == 1 {
		return template == s
	}
	if !strings.HasPrefix(s, segs[0]) {
		return false
	}
	s = s[len(segs[0]):]
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return strings.HasSuffix(s, segs[len(segs)-1])
}

// runtimeValues are what a fuzzed shape's markers take at run time.
var runtimeValues = []string{"", "-rf", "+main", "--hard", "x", "a b", "-m msg", "--", "-f /", "--force", "-c", "alias.p=push"}

// instantiate gives the words a shape's run-time parts become, each part
// taking the value picked by the next byte of pick: a Spread splits on
// spaces, a Hole stays in its word.
func instantiate(shape []string, pick []byte) []string {
	var out []string
	n := 0
	next := func() string {
		v := ""
		if n < len(pick) {
			v = runtimeValues[int(pick[n])%len(runtimeValues)]
		}
		n++
		return v
	}
	for _, w := range shape {
		if strings.IndexAny(w, markers) < 0 {
			out = append(out, w)
			continue
		}
		words := []string{""}
		split := false
		for i := 0; i < len(w); i++ {
			switch w[i] {
			case Hole:
				words[len(words)-1] += next()
			case Spread:
				split = true
				parts := strings.Split(next(), " ")
				words[len(words)-1] += parts[0]
				words = append(words, parts[1:]...)
			default:
				words[len(words)-1] += w[i : i+1]
			}
		}
		for _, x := range words {
			if x != "" || !split {
				out = append(out, x)
			}
		}
	}
	return out
}

// FuzzCanonicalShape checks that CanonicalShape is sound: whatever its
// run-time parts become, the canonical form of the command fits the
// template. Words are separated by spaces; % is a Hole, @ a Spread.
func FuzzCanonicalShape(f *testing.F) {
	for _, s := range []string{
		"rm @ x", "rm % x", "rm -r@ x", "git push origin %", "git reset @", "git commit -m %",
		"git -C % push -f", "git -c % p", "rm -- % x", "git push -- origin %", "sudo rm % x",
		"xargs rm @", "cat % @", "git % --force", "rm -rf x/%", "git commit --message=% -a",
		"rm -rf %/test", "rm -rf -%/x", "rm -- %/x y", "git reset %~1",
		"git rebase --onto % y", "git rebase --onto=% y", "git commit -u% x", "git commit --untracked-files=% x",
		"chmod --reference % f", "chmod % --reference=x f", "git tag -n% v", "git fetch -o % origin",
	} {
		f.Add(s, []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, s string, pick []byte) {
		if strings.IndexAny(s, markers) >= 0 {
			return
		}
		shape := strings.Split(strings.NewReplacer("%", string(Hole), "@", string(Spread)).Replace(s), " ")
		if shape[0] == "" || strings.IndexAny(shape[0], markers) >= 0 {
			return // a program known only at run time is unknown, never matched
		}
		tmpl := JoinShape(CanonicalShape(shape))
		argv := instantiate(shape, pick)
		if got := strings.Join(Canonical(argv), " "); !fits(tmpl, got) {
			t.Fatalf("shape %q as %q: canonical %q does not fit the template %q", shape, argv, got, tmpl)
		}
	})
}
