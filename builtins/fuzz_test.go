package builtins

import (
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

var shellSeeds = []string{
	"", "ls -la", `git commit -m 'fix: it''s "quoted"'`, `a\ b "c\"d" 'e'`, "echo $HOME", "a; b", "a | b && c",
	"FOO=1 cmd", "export X=1 Y", "ls *.go", "echo {a,b}", "~/x", "echo $'x'", "(a)", "a > f", "\\\n",
	"echo \"$(id)\"", "x=(1 2)", "[[ -f x ]]", "echo a#b #c", "'", "\"", "\\", "a\x00", "\xff",
	"curl -sSL https://example.com/install.sh", "rm -rf / --no-preserve-root", "find . -name '*.go' -exec rm {} \\;",
}

// Splitting never panics, and what it splits, quoting and splitting again gives back.
func FuzzShellSplit(f *testing.F) {
	for _, s := range shellSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitWords(s)
		if err != nil {
			return
		}
		if len(words) > MaxList {
			t.Fatalf("%d words", len(words))
		}
		joined, err := joinWords(words)
		if err != nil {
			t.Fatalf("join %q: %v", words, err)
		}
		again, err := SplitWords(joined)
		if err != nil {
			t.Fatalf("SplitWords(%q) (joined from %q): %v", joined, words, err)
		}
		if !slices.Equal(again, words) {
			t.Fatalf("SplitWords(%q) = %q, want %q", joined, again, words)
		}
	})
}

// Any word without a NUL byte survives quote then split.
func FuzzShellQuote(f *testing.F) {
	for _, s := range shellSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		q, err := QuoteWord(w)
		if strings.IndexByte(w, 0) >= 0 {
			if err == nil {
				t.Fatalf("QuoteWord(%q) accepted a NUL", w)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(w) || len(q) > MaxString {
			return // the parser refuses invalid UTF-8; too long to split
		}
		got, err := SplitWords(q)
		if err != nil {
			t.Fatalf("SplitWords(%q): %v", q, err)
		}
		if len(got) != 1 || got[0] != w {
			t.Fatalf("SplitWords(%q) = %q, want [%q]", q, got, w)
		}
	})
}

// The metered iteration agrees with regexp's own FindAll and ReplaceAllString.
func FuzzReAll(f *testing.F) {
	f.Add(`a|ab`, "abab")
	f.Add(`\b`, "foo bar")
	f.Add(`(?m)^\w*`, "a\n\nb")
	f.Add(``, "é\xff")
	f.Add(`x*`, "axxb")
	f.Add(`(a)(b)?`, "aab")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > maxPattern || len(s) > 4096 {
			return
		}
		std, err := regexp.Compile(pattern)
		p, err2 := compileRe("fuzz", pattern, false)
		if err != nil || err2 != nil {
			if (err == nil) != (err2 == nil) && !strings.Contains(err2.Error(), "too complex") {
				t.Fatalf("compile %q: regexp %v, ours %v", pattern, err, err2)
			}
			return
		}
		want := std.FindAllStringSubmatchIndex(s, -1)
		var got [][]int
		if err := p.all(s, func(loc []int) bool { got = append(got, slices.Clone(loc)); return true }); err != nil {
			return // over the work budget
		}
		if !equalLocs(got, want) {
			t.Fatalf("all(%q, %q) = %v, want %v", pattern, s, got, want)
		}
		const repl = "<$0|$1|${2}$x>$$"
		v, err := eval(Library(), "re.sub(p, r, s)", "p", pattern, "r", repl, "s", s)
		if err != nil {
			return
		}
		if w := std.ReplaceAllString(s, repl); string(v.(starlark.String)) != w {
			t.Fatalf("re.sub(%q, %q) = %q, want %q", pattern, s, v, w)
		}
	})
}

// Whatever JSON decodes to converts to Go and back to the same thing, or fails cleanly.
func FuzzFromStarlark(f *testing.F) {
	for _, s := range []string{`null`, `1`, `-1.5e3`, `"x"`, `[1, [2, [3]]]`, `{"b": 1, "a": {"c": [true, null]}}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `1e400`, `123456789012345678901234567890`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<14 {
			return
		}
		v, err := eval(Library(), "json.decode(s)", "s", text)
		if err != nil {
			return
		}
		x, err := FromStarlark(v)
		if err != nil {
			return
		}
		sv, err := ToStarlark(x)
		if err != nil {
			t.Fatalf("ToStarlark(FromStarlark(%s)): %v", text, err)
		}
		y, err := FromStarlark(sv)
		if err != nil {
			t.Fatalf("FromStarlark(ToStarlark(...)) of %s: %v", text, err)
		}
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("round trip of %s: %#v != %#v", text, x, y)
		}
	})
}

// path.resolve gives None or a clean absolute path that agrees with path.inside and
// path.glob_prefix; path.glob_prefix is a prefix of its input; git.parse loses no word.
func FuzzPathResolve(f *testing.F) {
	for _, s := range [][3]string{
		{"build/../../x", "/home/dev/proj", "/home/dev"}, {"/tmp/../home/dev", "/p", ""}, {".", "/p", ""},
		{"./", "/p", ""}, {"", "/p", "/h"}, {"~/*", "/p", "/h"}, {"${HOME}/.ssh/id_*", "/p", "/h"},
		{"$HOME", "/p", ""}, {"../proj-old", "/home/dev/proj", "/h"}, {"packages/*/dist", "/", "/"},
		{"//a//b/", "", ""}, {"$X/..", "/p", "/h"}, {"~bob", "/p", "/h"}, {"lib/!(x)", "/p", "/h"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, p, dir, home string) {
		if len(p) > MaxString || len(dir) > MaxString || len(home) > MaxString {
			return
		}
		env := map[string]string{"p": p, "dir": dir, "home": home}
		run := func(expr string) (starlark.Value, error) {
			return eval(Library(), expr, "p", env["p"], "dir", env["dir"], "home", env["home"])
		}
		v, err := run("path.resolve(p, dir, home)")
		validDir := dir == "" || strings.HasPrefix(dir, "/")
		validHome := home == "" || strings.HasPrefix(home, "/")
		if (err == nil) != (validDir && validHome) {
			t.Fatalf("path.resolve(%q, %q, %q): %v", p, dir, home, err)
		}
		if err == nil && v != starlark.None {
			r := string(v.(starlark.String))
			if !strings.HasPrefix(r, "/") || path.Clean(r) != r {
				t.Fatalf("path.resolve(%q, %q, %q) = %q: not clean and absolute", p, dir, home, r)
			}
			if validDir && dir != "" {
				in, err := eval(Library(), "path.inside(r, dir)", "r", r, "dir", dir)
				if err != nil {
					t.Fatal(err)
				}
				c := path.Clean(dir)
				want := r != c && strings.HasPrefix(r, strings.TrimSuffix(c, "/")+"/")
				if in != starlark.Bool(want) {
					t.Fatalf("path.inside(%q, %q) = %v", r, dir, in)
				}
			}
		}
		g, err := run("path.glob_prefix(p)")
		if err != nil {
			t.Fatal(err)
		}
		prefix := string(g.(starlark.String))
		has, _ := run("path.has_glob(p)")
		switch {
		case has == starlark.False && prefix != p:
			t.Fatalf("path.glob_prefix(%q) = %q without a glob", p, prefix)
		case has == starlark.True && prefix != "." && prefix != "/" && !strings.HasPrefix(p, prefix+"/"):
			t.Fatalf("path.glob_prefix(%q) = %q: not a directory prefix", p, prefix)
		case has == starlark.True && strings.ContainsAny(prefix, "*?["):
			t.Fatalf("path.glob_prefix(%q) = %q holds a pattern", p, prefix)
		}
		words := append([]string{"git"}, strings.Fields(p)...)
		if len(words) > MaxList {
			return
		}
		list := starlark.NewList(nil)
		for _, w := range words {
			list.Append(starlark.String(w))
		}
		gv, err := eval(starlark.StringDict{"git": Library()["git"], "argv": list}, "git.parse(argv)")
		if err != nil {
			t.Fatalf("git.parse(%q): %v", words, err)
		}
		st := gv.(*starlarkstruct.Struct)
		var back []string
		for _, name := range []string{"globals", "sub", "args"} {
			x, _ := st.Attr(name)
			switch x := x.(type) {
			case starlark.String:
				if x != "" {
					back = append(back, string(x))
				}
			case starlark.Tuple:
				for _, e := range x {
					back = append(back, string(e.(starlark.String)))
				}
			}
		}
		if !slices.Equal(back, words[1:]) {
			t.Fatalf("git.parse(%q) = %s", words, gv)
		}
	})
}
