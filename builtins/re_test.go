package builtins

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRe(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`re.match("a(b)?", "abc")`, `["ab", "b"]`},
		{`re.match("(x)?a", "abc")`, `["a", None]`},
		{`re.match("b", "abc")`, `None`},
		{`re.match("a|ab", "ab")`, `["a"]`},
		{`re.match("", "x")`, `[""]`},
		{`re.search("b(c)", "abcd")`, `["bc", "c"]`},
		{`re.search("(?P<n>\\d+)", "pid 42")`, `["42", "42"]`},
		{`re.search("z", "abc")`, `None`},
		{`re.search("^b", "a\nb")`, `None`},
		{`re.search("(?m)^b", "a\nb")`, `["b"]`},
		{`re.fullmatch("a|ab", "ab")`, `["ab"]`},
		{`re.fullmatch("a", "ab")`, `None`},
		{`re.fullmatch("(a)(b)?", "a")`, `["a", "a", None]`},
		{`re.fullmatch("a$", "a\n")`, `None`},
		{`re.findall("\\d+", "a1 b22 c333")`, `["1", "22", "333"]`},
		{`re.findall("x*", "axb")`, `["", "x", ""]`},
		{`re.findall("\\bfoo\\b", "foo foobar barfoo foo")`, `["foo", "foo"]`},
		{`re.findall("z", "abc")`, `[]`},
		{`re.findall("\\w", "é" * 256)`, `[]`},
		{`re.sub("(\\w+)@(\\w+)", "$2 at ${1}", "me@host you@there")`, `"host at me there at you"`},
		{`re.sub("(?P<user>\\w+)@", "${user}:", "me@host")`, `"me:host"`},
		{`re.sub("a", "$$", "banana")`, `"b$n$n$"`},
		{`re.sub("a", "$9", "banana")`, `"bnn"`},
		{`re.sub("a", "$", "banana")`, `"b$n$n$"`},
		{`re.sub("", "-", "abc")`, `"-a-b-c-"`},
		{`re.sub("token=\\S+", "token=[REDACTED]", "x token=abc y")`, `"x token=[REDACTED] y"`},
		{`re.split(",\\s*", "a, b,c")`, `["a", "b", "c"]`},
		{`re.split("x", "")`, `[""]`},
		{`re.split("", "abc")`, `["a", "b", "c"]`},
		{`re.split("a", "a")`, `["", ""]`},
		{`len(re.split(",", "," * 254))`, `255`},
	}
	for _, tt := range tests {
		if got := mustEval(t, tt.expr); got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	long := itoa(MaxOutput + 1)
	errs := []struct{ expr, want string }{
		{`re.search("(", "x")`, "re.search: error parsing regexp: missing closing )"},
		{`re.fullmatch("a)|(b", "a")`, "re.fullmatch: error parsing regexp: unexpected )"},
		{`re.sub("[", "", "x")`, "re.sub: error parsing regexp: missing closing ]"},
		{`re.search("a" * 1025, "x")`, "re.search: pattern is 1025 bytes, more than 1024"},
		{`re.match("a", "a" * ` + long + `)`, "re.match: input is 262145 bytes, more than 262144"},
		{`re.sub("a", "b", "a" * ` + long + `)`, "re.sub: input is 262145 bytes"},
		{`re.sub("a", "b" * 16385, "a")`, "re.sub: repl is 16385 bytes, more than 16384"},
		{`re.sub("a", "bb", "a" * 200000)`, "re.sub: result is more than 262144 bytes"},
		{`re.sub("a", "$0$0$0$0$0$0$0$0", "a" * 40000)`, "re.sub: result is more than 262144 bytes"},
		{`re.findall("a", "a" * 257)`, "re.findall: more than 256 matches"},
		{`re.split(",", "," * 256)`, "re.split: more than 256 parts"},
		{`re.search(1, "a")`, "re.search: for parameter pattern: got int, want string"},
		{`re.search("a")`, "re.search: missing argument for s"},
		{`re.sub("a.*b|a", "x", "a" * 262144)`, "re.sub: too much work"},
		{`re.findall("a.*b|a", "a" * 262144)`, "re.findall: too much work"},
		{`re.search("(?:[a-z]?){1000}b", "a" * 262144)`, "re.search: too much work"},
		{`re.search("(?:(?:[a-z]?){100}){100}", "a")`, "re.search: error parsing regexp: invalid repeat count"},
		{`re.search("(?:a?b?c?){1000}", "a")`, "re.search: pattern is too complex (6002 instructions, more than 4096)"},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr[:min(60, len(tt.expr))], err, tt.want)
	}
}

// The metered iteration finds exactly what regexp's own FindAll does, and sub expands
// templates exactly as ReplaceAllString does.
func TestReAllMatchesRegexp(t *testing.T) {
	patterns := []string{
		``, `a`, `a*`, `x*`, `a|ab`, `ab|a`, `\b`, `\B`, `\bfoo\b`, `^`, `$`, `(?m)^`, `(?m)$`,
		`(?m)^\w+`, `\Aa`, `a\z`, `(a)|(b)`, `(?P<x>a)(b)?`, `[^a]*`, `\s+`, `.`, `(?s).`, `é`,
		`\w+@\w+`, `(?i)A`, `a{2,3}`, `(?U)a+`, `x*$`, `\B.`, `(?m)\b$`,
	}
	inputs := []string{
		"", "a", "aaa", "abab", "foo foobar barfoo foo", "a\nb\n\nc", "é a é", "\xffa\xc3", "x y  z ",
		"me@host, you@there", "aAaA", "abxbaaab",
	}
	for _, pat := range patterns {
		std := regexp.MustCompile(pat)
		p, err := compileRe("test", pat, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			want := std.FindAllStringSubmatchIndex(in, -1)
			var got [][]int
			if err := p.all(in, func(loc []int) bool { got = append(got, slices.Clone(loc)); return true }); err != nil {
				t.Fatal(err)
			}
			if !equalLocs(got, want) {
				t.Errorf("all(%q, %q) = %v, want %v", pat, in, got, want)
			}
			for _, repl := range []string{"", "-", "<$0>", "$1$2", "${1}x", "$x", "${x}y", "$$", "$", "${", "$1x", "$01", "${2}"} {
				wantS := std.ReplaceAllString(in, repl)
				v, err := eval(Library(), `re.sub(p, r, s)`+"\n", "p", pat, "r", repl, "s", in)
				if err != nil {
					t.Fatalf("re.sub(%q, %q, %q): %v", pat, repl, in, err)
				}
				if got := v.String(); got != quote(wantS) {
					t.Errorf("re.sub(%q, %q, %q) = %s, want %q", pat, repl, in, got, wantS)
				}
			}
			wantSplit := std.Split(in, -1)
			v, err := eval(Library(), `re.split(p, s)`, "p", pat, "s", in)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := v.String(), stringsRepr(wantSplit); got != want {
				t.Errorf("re.split(%q, %q) = %s, want %s", pat, in, got, want)
			}
		}
	}
}

func equalLocs(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

// The metered path of a single search (taken for big inputs) agrees with regexp.
func TestReFirstMetered(t *testing.T) {
	for _, pat := range []string{`a`, `\bfoo\b`, `(x)?b$`, `z`} {
		p, err := compileRe("test", pat, false)
		if err != nil {
			t.Fatal(err)
		}
		in := strings.Repeat("foo a ", 1000) + "xb"
		got, err := p.find(in, 0, newMeter(p.cost))
		if err != nil {
			t.Fatal(err)
		}
		if want := p.re.FindStringSubmatchIndex(in); !slices.Equal(got, want) {
			t.Errorf("find(%q) = %v, want %v", pat, got, want)
		}
	}
}

func TestReCacheBounded(t *testing.T) {
	for i := range 3 * maxReCache {
		if _, err := compileRe("test", "x"+strings.Repeat("y", i), i%2 == 0); err != nil {
			t.Fatal(err)
		}
	}
	reCache.Lock()
	n := len(reCache.m)
	reCache.Unlock()
	if n > maxReCache {
		t.Errorf("cache holds %d patterns, more than %d", n, maxReCache)
	}
}

func stringsRepr(xs []string) string {
	var b strings.Builder
	writeStrings(&b, xs)
	return b.String()
}
