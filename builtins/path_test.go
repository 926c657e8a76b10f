package builtins

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`path.clean("a//b/./c/..")`, `"a/b"`},
		{`path.clean("")`, `"."`},
		{`path.clean("/../x")`, `"/x"`},
		{`path.base("/usr/bin/git")`, `"git"`},
		{`path.base("")`, `"."`},
		{`path.base("/")`, `"/"`},
		{`path.dir("/usr/bin/git")`, `"/usr/bin"`},
		{`path.dir("git")`, `"."`},
		{`path.join("a", "b/", "../c")`, `"a/c"`},
		{`path.join()`, `""`},
		{`path.join("/", "x")`, `"/x"`},
		{`path.is_abs("/x")`, `True`},
		{`path.is_abs("x")`, `False`},
		{`path.rel("/repo", "/repo/src/a.go")`, `"src/a.go"`},
		{`path.rel("/repo/src", "/repo/docs")`, `"../docs"`},
		{`path.rel("/repo", "/repo")`, `"."`},
		{`path.rel("/a/b/c", "/")`, `"../../.."`},
		{`path.rel("a", "a/b")`, `"b"`},
		{`path.rel(".", "x")`, `"x"`},
		{`path.match("**/*.go", "cmd/agent-shell/main.go")`, `True`},
		{`path.match("**/*.go", "main.go")`, `True`},
		{`path.match("*.go", "cmd/main.go")`, `False`},
		{`path.match("src/{a,b}/*.ts", "src/b/x.ts")`, `True`},
		{`path.match("[abc]?", "bz")`, `True`},
		{`path.match("/etc/**", "/etc/ssh/sshd_config")`, `True`},
		{`path.match("", "")`, `True`},
		{`path.match("\\*", "*")`, `True`},
	}
	for _, tt := range tests {
		if got := mustEval(t, tt.expr); got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	errs := []struct{ expr, want string }{
		{`path.rel("/a", "b")`, `path.rel: cannot make "b" relative to "/a": one is absolute and the other is not`},
		{`path.rel("../a", "b")`, `path.rel: cannot make "b" relative to "../a": base climbs above its start`},
		{`path.match("[a", "a")`, `path.match: bad pattern "[a"`},
		{`path.match("{a,b", "a")`, `path.match: bad pattern`},
		{`path.match("x" * 1025, "a")`, `path.match: pattern is 1025 bytes, more than 1024`},
		{`path.match("a", "x" * 4097)`, `path.match: name is 4097 bytes, more than 4096`},
		{`path.match("{a,b}" * 9, "a")`, `path.match: pattern has more than 256 combinations of {alternatives}`},
		{`path.match("{a,b,c,d}{a,b,c,d}{a,b,c,d}{a,b,c,d}*a*b", "a" * 4096)`, `path.match: too much work`},
		{`path.clean("x" * 16385)`, `path.clean: path is 16385 bytes, more than 16384`},
		{`path.base(1)`, `path.base: for parameter p: got int, want string`},
		{`path.join("a", 1)`, `path.join: parts[1] is int, want string`},
		{`path.join(*(["a"] * 257))`, `path.join: parts has 257 items, more than 256`},
		{`path.join(*(["a" * 2000] * 200))`, `path.join: parts total 400200 bytes, more than 262144`},
		{`path.join(p = "a")`, `path.join: unexpected keyword arguments`},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}

// relPath agrees with filepath.Rel on slash paths.
func TestRelMatchesFilepath(t *testing.T) {
	paths := []string{"", ".", "/", "a", "a/b", "a/b/c", "/a", "/a/b", "/a/c", "../a", "a/../b", "./a/", "ab", "/ab/c", ".."}
	for _, base := range paths {
		for _, targ := range paths {
			want, wantErr := filepath.Rel(base, targ)
			got, gotErr := relPath(base, targ)
			if (wantErr != nil) != (gotErr != nil) || got != want {
				t.Errorf("relPath(%q, %q) = %q, %v; filepath.Rel = %q, %v", base, targ, got, gotErr, want, wantErr)
			}
		}
	}
}

func TestGlobAlternatives(t *testing.T) {
	for _, tt := range []struct {
		p    string
		want int
	}{
		{"", 1}, {"a", 1}, {"{a,b}", 2}, {"{a,b}{c,d,e}", 6}, {"{a,{b,c}}", 4}, {`\{a,b}`, 1}, {"{a,b", 1},
		{strings.Repeat("{a,b}", 20), maxGlobAlts + 1},
	} {
		if got := globAlternatives(tt.p); got != tt.want {
			t.Errorf("globAlternatives(%q) = %d, want %d", tt.p, got, tt.want)
		}
	}
}
