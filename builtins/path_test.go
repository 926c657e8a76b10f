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

func TestPathResolve(t *testing.T) {
	const p, h = `"/home/dev/proj"`, `"/home/dev"`
	tests := []struct{ expr, want string }{
		{`path.resolve("src/a.go", ` + p + `)`, `"/home/dev/proj/src/a.go"`},
		{`path.resolve(".", ` + p + `)`, `"/home/dev/proj"`},
		{`path.resolve("./", ` + p + `)`, `"/home/dev/proj"`},
		{`path.resolve("..", ` + p + `)`, `"/home/dev"`},
		{`path.resolve("../proj-old", ` + p + `)`, `"/home/dev/proj-old"`},
		{`path.resolve("build/../../x", ` + p + `)`, `"/home/dev/x"`},
		{`path.resolve("/tmp/../home/dev", ` + p + `)`, `"/home/dev"`},
		{`path.resolve("//etc///", ` + p + `)`, `"/etc"`},
		{`path.resolve("/../../..", ` + p + `)`, `"/"`},
		{`path.resolve("../../../../x", ` + p + `)`, `"/x"`},
		{`path.resolve("dist/*", ` + p + `)`, `"/home/dev/proj/dist/*"`},
		{`path.resolve("~", ` + p + `, ` + h + `)`, `"/home/dev"`},
		{`path.resolve("~/", ` + p + `, home = ` + h + `)`, `"/home/dev"`},
		{`path.resolve("~/.ssh/id_rsa", ` + p + `, ` + h + `)`, `"/home/dev/.ssh/id_rsa"`},
		{`path.resolve("$HOME", ` + p + `, ` + h + `)`, `"/home/dev"`},
		{`path.resolve("${HOME}", ` + p + `, ` + h + `)`, `"/home/dev"`},
		{`path.resolve("$HOME/.aws/credentials", ` + p + `, ` + h + `)`, `"/home/dev/.aws/credentials"`},
		{`path.resolve("${HOME}/x", ` + p + `, ` + h + `)`, `"/home/dev/x"`},
		{`path.resolve("/abs", "")`, `"/abs"`},
		{`path.resolve(p = "x", dir = "/d")`, `"/d/x"`},
		// Not knowable.
		{`path.resolve("", ` + p + `, ` + h + `)`, `None`},
		{`path.resolve("~", ` + p + `)`, `None`},
		{`path.resolve("$HOME/x", ` + p + `, "")`, `None`},
		{`path.resolve("x", "")`, `None`},
		{`path.resolve("~bob/x", ` + p + `, ` + h + `)`, `None`},
		{`path.resolve("$HOMEDIR", ` + p + `, ` + h + `)`, `None`},
		{`path.resolve("$DEPLOY_ROOT/*", ` + p + `, ` + h + `)`, `None`},
		{`path.resolve("/srv/$(date)", ` + p + `)`, `None`},
		{"path.resolve(\"/srv/`date`\", " + p + `)`, `None`},
		{`path.resolve("<(ls)", ` + p + `)`, `None`},
	}
	for _, tt := range tests {
		if got := mustEval(t, tt.expr); got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	errs := []struct{ expr, want string }{
		{`path.resolve("x", "rel")`, `path.resolve: dir "rel" is not absolute`},
		{`path.resolve("x", "/d", "rel")`, `path.resolve: home "rel" is not absolute`},
		{`path.resolve("x" * 16385, "/d")`, `path.resolve: path is 16385 bytes, more than 16384`},
		{`path.resolve("x", "/" * 16385)`, `path.resolve: dir is 16385 bytes, more than 16384`},
		{`path.resolve("x", "/d", "/" * 16385)`, `path.resolve: home is 16385 bytes, more than 16384`},
		{`path.resolve("x")`, `path.resolve: missing argument for dir`},
		{`path.resolve(1, "/d")`, `path.resolve: for parameter p: got int, want string`},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}

func TestPathInside(t *testing.T) {
	tests := []struct {
		p, root string
		want    bool
	}{
		{"/home/dev/proj/src", "/home/dev/proj", true},
		{"/home/dev/proj/a/b/c", "/home/dev/proj", true},
		{"/home/dev/proj", "/home/dev/proj", false},
		{"/home/dev/proj/", "/home/dev/proj", false},
		{"/home/dev/proj/.", "/home/dev/proj", false},
		{"/home/dev/proj-old", "/home/dev/proj", false},
		{"/home/dev/proj-old/x", "/home/dev/proj", false},
		{"/home/dev", "/home/dev/proj", false},
		{"/home/dev/proj/../x", "/home/dev/proj", false},
		{"/home/dev/proj/x/..", "/home/dev/proj", false},
		{"/home/dev/proj//x", "/home/dev/proj/", true},
		{"/x", "/", true},
		{"/", "/", false},
		{"//", "/", false},
	}
	for _, tt := range tests {
		expr := `path.inside("` + tt.p + `", "` + tt.root + `")`
		want := "False"
		if tt.want {
			want = "True"
		}
		if got := mustEval(t, expr); got.String() != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
	errs := []struct{ expr, want string }{
		{`path.inside("x", "/")`, `path.inside: path "x" is not absolute`},
		{`path.inside("/x", "")`, `path.inside: root "" is not absolute`},
		{`path.inside("/x", "~")`, `path.inside: root "~" is not absolute`},
		{`path.inside("/" * 16385, "/")`, `path.inside: path is 16385 bytes, more than 16384`},
		{`path.inside("/", "/" * 16385)`, `path.inside: root is 16385 bytes, more than 16384`},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}

func TestPathGlob(t *testing.T) {
	tests := []struct {
		p, prefix string
		glob      bool
	}{
		{"dist/*", "dist", true},
		{"packages/*/dist", "packages", true},
		{"*", ".", true},
		{"./*", ".", true},
		{".*", ".", true},
		{"/*", "/", true},
		{"//*", "/", true},
		{"~/*", "~", true},
		{"~/.ssh/id_*", "~/.ssh", true},
		{"$HOME/*", "$HOME", true},
		{"$X/../*", "$X/..", true},
		{"a//b/*.go", "a//b", true},
		{"src/?.c", "src", true},
		{"v[12]/x", ".", true},
		{"a/b[/c", "a", true},
		{"lib/!(keep)", "lib", true},
		{"lib/@(a|b)", "lib", true},
		{"lib/+(a)", "lib", true},
		{"dist", "dist", false},
		{"dist/", "dist/", false},
		{"/", "/", false},
		{"", "", false},
		{".", ".", false},
		{"a!b", "a!b", false},
	}
	for _, tt := range tests {
		expr := `path.glob_prefix("` + tt.p + `")`
		if got := mustEval(t, expr); got.String() != `"`+tt.prefix+`"` {
			t.Errorf("%s = %s, want %q", expr, got, tt.prefix)
		}
		expr = `path.has_glob("` + tt.p + `")`
		want := "False"
		if tt.glob {
			want = "True"
		}
		if got := mustEval(t, expr); got.String() != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
	errs := []struct{ expr, want string }{
		{`path.glob_prefix("x" * 16385)`, `path.glob_prefix: path is 16385 bytes, more than 16384`},
		{`path.has_glob("x" * 16385)`, `path.has_glob: path is 16385 bytes, more than 16384`},
		{`path.has_glob(None)`, `path.has_glob: for parameter p: got NoneType, want string`},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}
