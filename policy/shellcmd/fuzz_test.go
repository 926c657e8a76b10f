package shellcmd

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, never hides a parse error, and
// keeps its invariants (see checkLine); Canonical stays idempotent on
// every command it reports, and its shapes fit their layers. Seeds: the
// tables of TestParse, TestParseDirs, TestParseIndirect and
// TestParseShapes.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, tt := range dirTests {
		f.Add(tt.in)
	}
	for _, tt := range indirectTests {
		f.Add(tt.in)
	}
	for _, tt := range shapeTests {
		f.Add(tt.in)
	}
	for _, s := range []string{
		"echo 'abc", "(ls", "cat <<EOF\nx", "a |", "$(", "${x", "case x in", "{a,b}{c,d}",
		"sudo -u", "env -S", "xargs -I", "find . -exec", "parallel :::", "bash -c", "eval",
		"git -C", "timeout", "trap", "su -c", "flock f -c", "watch", "echo x | sh",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkLine(t, src, Parse(src))
	})
}

// FuzzCanonical checks that Canonical never panics, never modifies its
// input, and is idempotent; and that GitSplit loses no word. Words are separated by spaces in the input.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", "rm --recursive --force /", "git -C d push --force", "git commit -am m",
		"git commit -m", "sudo -u root rm -fR /", "env -S 'rm -rf' x", "xargs", "xargs -I{} rm {}",
		"git push --force*", "rm -- -x", "grep -A3 x -e", "git branch -D x", "curl -fsSLo out u",
		"chmod -rwx f", "git -c a=b -C x push -f +m", "timeout 5 nice -n 1 rm -rf /", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Split(s, " ")
		orig := slices.Clone(argv)
		once := Canonical(argv)
		if !slices.Equal(argv, orig) {
			t.Fatalf("Canonical modified its input: %q -> %q", orig, argv)
		}
		if len(once) == 0 {
			t.Fatalf("Canonical(%q) is empty", argv)
		}
		if twice := Canonical(once); !slices.Equal(once, twice) {
			t.Fatalf("Canonical is not idempotent on %q: %q then %q", argv, once, twice)
		}
		// GitSplit loses no word and leaves its input alone.
		g, sub, rest := GitSplit(argv[1:])
		if !slices.Equal(argv, orig) {
			t.Fatalf("GitSplit modified its input: %q -> %q", orig, argv)
		}
		var back []string
		back = append(back, g...)
		if sub != "" || len(g)+len(rest) < len(argv)-1 {
			back = append(back, sub)
		}
		if back = append(back, rest...); !slices.Equal(back, argv[1:]) {
			t.Fatalf("GitSplit(%q) = %q, %q, %q", argv[1:], g, sub, rest)
		}
	})
}
