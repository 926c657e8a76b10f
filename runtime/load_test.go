package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/scripts"
)

func sum(data string) string {
	s := sha256.Sum256([]byte(data))
	return hex.EncodeToString(s[:])
}

// loadTree is a manifest folder whose entry script scripts/main.star loads
// a sibling, a file in a subfolder (which loads its own sibling), a file by
// its path from the folder's root, and the embedded library.
var loadTree = map[string]string{
	"scripts/main.star": `load("./sibling.star", "sib")
load("sub/x.star", "subx")
load("//top.star", "top")
load("@agent-shell//helpers.star", "subcommand")

def on_event(ctx, state):
    return Match.yes(" ".join([sib, subx, top, subcommand(ctx.argv)]))
`,
	"scripts/sibling.star": "sib = \"sibling\"\n",
	"scripts/sub/x.star":   "load(\"./y.star\", \"y\")\nsubx = \"x+\" + y\n",
	"scripts/sub/y.star":   "y = \"y\"\n",
	"top.star":             "top = \"top\"\n",
}

func TestLoadRelativeToLoadingFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, loadTree)
	src, err := ReadSource(dir, "scripts/main.star")
	if err != nil {
		t.Fatal(err)
	}
	main := Script{ID: "main", Kind: builtins.KindMatcher, File: "scripts/main.star", Source: src}
	// A second script loading one of the same modules.
	other := Script{ID: "other", Kind: builtins.KindReviewer, File: "scripts/other.star",
		Source: []byte("load(\"./sub/x.star\", \"subx\")\ndef on_event(ctx, state):\n    return Review.deny(subx)\n")}
	rt := mustCompile(t, []Script{main, other}, Options{Dir: dir})
	if err := rt.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	res := rt.Invoke(context.Background(), "main", ctxValue(builtins.KindMatcher, "terraform", "-chdir=x", "destroy"), "sess")
	wantAction(t, "main", res, `Match.yes("sibling x+y top destroy")`)
	res = rt.Invoke(context.Background(), "other", ctxValue(builtins.KindReviewer, "ls"), "sess")
	wantAction(t, "other", res, `Review.deny("x+y")`)

	helpers, err := scripts.Library("helpers.star")
	if err != nil {
		t.Fatal(err)
	}
	want := []Digest{
		{"module @agent-shell//helpers.star", sum(string(helpers))},
		{"module scripts/sibling.star", sum(loadTree["scripts/sibling.star"])},
		{"module scripts/sub/x.star", sum(loadTree["scripts/sub/x.star"])},
		{"module scripts/sub/y.star", sum(loadTree["scripts/sub/y.star"])},
		{"module top.star", sum(loadTree["top.star"])},
		{"script main", sum(loadTree["scripts/main.star"])},
		{"script other", sum(string(other.Source))},
	}
	if got := rt.Digests(); !reflect.DeepEqual(got, want) {
		t.Errorf("Digests() =\n%v\nwant\n%v", got, want)
	}
	if got := rt.IDs(); !reflect.DeepEqual(got, []string{"main", "other"}) {
		t.Errorf("IDs() = %v", got)
	}
	if k, ok := rt.Kind("other"); !ok || k != builtins.KindReviewer {
		t.Errorf("Kind(other) = %v, %v", k, ok)
	}
	if _, ok := rt.Kind("nope"); ok {
		t.Errorf("Kind(nope) found")
	}
}

func TestLoadGraphResolvedBeforeAnythingRuns(t *testing.T) {
	// The missing module is loaded by a module two levels down: Compile
	// reports it, with the position of the load that names it, before any
	// top-level code has run.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.star": "load(\"./b.star\", \"b\")\na = b\n",
		"b.star": "x = 1\n\nload(\"./missing.star\", \"m\")\nb = m\n",
	})
	_, err := Compile([]Script{script(builtins.KindMatcher, "load(\"./a.star\", \"a\")\ndef on_event(ctx, state):\n    return Match.no()\n", Limits{})}, Options{Dir: dir})
	wantErrContains(t, "missing", err, `script "s": b.star:3:6: load "./missing.star": `, "missing.star: no such file or directory")
}

func TestLoadHelpersLibrary(t *testing.T) {
	src := `load("@agent-shell//helpers.star", "has_flag", "subcommand", "under", "effect_paths")

def on_event(ctx, state):
    return Match.yes(json.encode({
        "r": has_flag(ctx.argv, "-r"),
        "force": has_flag(ctx.argv, "--force", "-f"),
        "sub": subcommand(ctx.argv),
        "under": [under(p, ctx.cwd) for p in effect_paths(ctx.effects, "write")],
        "reads": effect_paths(ctx.effects, "read"),
    }))
`
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, src, fastFuel)}, Options{})
	type out struct {
		R, Force bool
		Sub      *string
		Under    []bool
		Reads    []string
	}
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		argv, effects []string
		cwd           string
		want          out
	}{
		{[]string{"rm", "-rf", "build"}, []string{"write:/repo/build", "read:/etc/passwd", "network"}, "/repo",
			out{R: true, Force: true, Sub: str("build"), Under: []bool{true}, Reads: []string{"/etc/passwd"}}},
		{[]string{"git", "--no-pager", "log", "--", "-r", "--force"}, []string{"write:/repository/x", "write:/repo/../etc/x", "write:/repo/./a/../b"}, "/repo",
			out{Sub: str("log"), Under: []bool{false, false, true}, Reads: []string{}}},
		{[]string{"terraform", "--force=yes"}, []string{"write:/repo"}, "/repo/",
			out{Force: true, Under: []bool{true}, Reads: []string{}}},
		{[]string{"ls", "--recursive"}, []string{"write:/x"}, "/",
			out{Sub: nil, Under: []bool{true}, Reads: []string{}}},
	} {
		c := &builtins.Context{Phase: "shell_matcher", Argv: tc.argv, Program: tc.argv[0], Cwd: tc.cwd, Effects: tc.effects}
		res := rt.Run(context.Background(), "s", c.Value(), nil)
		if res.Action == nil {
			t.Errorf("%v: %v\n%s", tc.argv, res.Err, res.Backtrace)
			continue
		}
		var got out
		if err := json.Unmarshal([]byte(res.Action.Reason), &got); err != nil {
			t.Fatalf("%v: %v", res.Action.Reason, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v %v: got %+v (%s), want %+v", tc.argv, tc.effects, got, res.Action.Reason, tc.want)
		}
	}
}

func TestLoadRejected(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "policy")
	writeFiles(t, parent, map[string]string{
		"escape.star":           "x = 1\n",
		"policy/notes.txt":      "x = 1\n",
		"policy/dir.star/a":     "",
		"policy/big.star":       "x = \"" + strings.Repeat("a", maxModuleBytes) + "\"\n",
		"policy/real/in.star":   "x = \"inside\"\n",
		"policy/sub/keep.star":  "x = 1\n",
		"policy/ok/escape.star": "x = 1\n",
	})
	if err := os.Symlink(filepath.Join(parent, "escape.star"), filepath.Join(dir, "link.star")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../escape.star", filepath.Join(dir, "sub", "rel.star")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real/in.star", filepath.Join(dir, "inlink.star")); err != nil {
		t.Fatal(err)
	}
	compileLoad := func(spec string) error {
		src := fmt.Sprintf("load(%q, \"x\")\ndef on_event(ctx, state):\n    return Match.yes(str(x))\n", spec)
		rt, err := Compile([]Script{script(builtins.KindMatcher, src, Limits{})}, Options{Dir: dir})
		if err == nil {
			// Positive controls must also run.
			res := rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil)
			if res.Action == nil {
				return fmt.Errorf("compiled, but the run failed: %v", res.Err)
			}
		}
		return err
	}
	for _, tc := range []struct{ spec, want string }{
		{"../escape.star", "the path leaves the manifest folder"},
		{"./sub/../../escape.star", "the path leaves the manifest folder"},
		{"//../escape.star", "the path leaves the manifest folder"},
		{"/abs.star", "absolute paths cannot be loaded"},
		{filepath.Join(parent, "escape.star"), "absolute paths cannot be loaded"},
		{"./link.star", "path escapes from parent"},
		{"sub/rel.star", "path escapes from parent"},
		{"./notes.txt", "only .star files can be loaded"},
		{"./real", "only .star files can be loaded"},
		{"./", "the path leaves the manifest folder"},
		{"@corp//x.star", `no pack named "corp" is declared`},
		{"@agent-shell//missing.star", "the @agent-shell// library has no missing.star"},
		{"@agent-shell//../escape.star", "the path leaves the @agent-shell// library"},
		{"@agent-shell///etc/x.star", "a path in the library is relative"},
		{"./missing.star", "no such file or directory"},
		{"./dir.star", "dir.star is not a regular file"},
		{"./big.star", fmt.Sprintf("big.star is longer than the %d bytes a script may have", maxModuleBytes)},
	} {
		err := compileLoad(tc.spec)
		wantErrContains(t, tc.spec, err, fmt.Sprintf("x.star:1:6: load %q: ", tc.spec), tc.want)
	}
	// Positive controls: a symlink that stays inside, and a path that goes
	// up and back down without leaving.
	for _, spec := range []string{"./inlink.star", "real/../real/in.star", "sub/../ok/escape.star"} {
		if err := compileLoad(spec); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}

func TestLoadCycles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		entry string // entry file
		files map[string]string
		want  string
	}{
		{"a -> b -> a", "a.star", map[string]string{
			"a.star": "load(\"./b.star\", \"b\")\ndef on_event(ctx, state):\n    return Match.no()\n",
			"b.star": "load(\"./a.star\", \"a\")\nb = 1\n",
		}, `b.star:1:6: load "./a.star": cycle: a.star -> b.star -> a.star`},
		{"self", "a.star", map[string]string{
			"a.star": "load(\"./a.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.no()\n",
		}, `a.star:1:6: load "./a.star": cycle: a.star -> a.star`},
		{"among modules", "e.star", map[string]string{
			"e.star": "load(\"./b.star\", \"b\")\ndef on_event(ctx, state):\n    return Match.no()\n",
			"b.star": "load(\"./c.star\", \"c\")\nb = 1\n",
			"c.star": "x = 1\nload(\"./b.star\", \"b\")\nc = 1\n",
		}, `c.star:2:6: load "./b.star": cycle: b.star -> c.star -> b.star`},
		{"through folders", "s/a.star", map[string]string{
			"s/a.star":     "load(\"./lib/b.star\", \"b\")\ndef on_event(ctx, state):\n    return Match.no()\n",
			"s/lib/b.star": "load(\"../a.star\", \"a\")\nb = 1\n",
		}, `s/lib/b.star:1:6: load "../a.star": cycle: s/a.star -> s/lib/b.star -> s/a.star`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			s := Script{ID: "s", Kind: builtins.KindMatcher, File: tc.entry, Source: []byte(tc.files[tc.entry])}
			_, err := Compile([]Script{s}, Options{Dir: dir})
			wantErrContains(t, tc.name, err, tc.want)
		})
	}

	// A diamond is not a cycle, and its shared module is compiled once.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"b.star": "load(\"./d.star\", \"d\")\nb = d + 1\n",
		"c.star": "load(\"./d.star\", \"d\")\nc = d + 2\n",
		"d.star": "d = 10\n",
	})
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, "load(\"./b.star\", \"b\")\nload(\"./c.star\", \"c\")\ndef on_event(ctx, state):\n    return Match.yes(str(b + c))\n", Limits{})}, Options{Dir: dir})
	wantAction(t, "diamond", rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil), `Match.yes("23")`)
	if n := len(rt.Digests()); n != 4 {
		t.Errorf("Digests() = %v, want the script and 3 modules", rt.Digests())
	}
}

func TestLoadedModulesHaveTheLibrarySurface(t *testing.T) {
	for _, m := range []string{"Match", "Review", "Intercept", "Result", "Effect", "Audit"} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"lib.star": "def yes():\n    return " + m + ".yes()\n"})
		_, err := Compile([]Script{script(builtins.KindMatcher, "load(\"./lib.star\", \"yes\")\ndef on_event(ctx, state):\n    return yes()\n", Limits{})}, Options{Dir: dir})
		wantErrContains(t, m, err, `script "s": lib.star:2:12: undefined: `+m)
	}
	// The pure modules are there.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"lib.star": "def f(s):\n    return json.encode(shell.split(s)) + path.base(\"/a/b\") + str(re.search(\"b+\", \"abbc\") != None)\n"})
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, "load(\"./lib.star\", \"f\")\ndef on_event(ctx, state):\n    return Match.yes(f(\"a 'b c'\"))\n", Limits{})}, Options{Dir: dir})
	wantAction(t, "pure", rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil), `Match.yes("[\"a\",\"b c\"]bTrue")`)
}

func TestLoadedBindingsNotReexported(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.star": "load(\"@agent-shell//helpers.star\", \"has_flag\")\nmine = has_flag([\"rm\", \"-f\"], \"-f\")\n_private = 1\n",
	})
	// What a.star defines is visible...
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, "load(\"./a.star\", \"mine\")\ndef on_event(ctx, state):\n    return Match.yes(str(mine))\n", Limits{})}, Options{Dir: dir})
	wantAction(t, "mine", rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil), `Match.yes("True")`)

	// ...what it loaded is not.
	rt = mustCompile(t, []Script{script(builtins.KindMatcher, "load(\"./a.star\", \"has_flag\")\ndef on_event(ctx, state):\n    return Match.no()\n", Limits{})}, Options{Dir: dir})
	wantErrContains(t, "Check", rt.Check(), "load: name has_flag not found in module ./a.star")
	wantFailure(t, "Run", rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil), FailError, "has_flag not found")

	// Underscored names are private.
	_, err := Compile([]Script{script(builtins.KindMatcher, "load(\"./a.star\", \"_private\")\ndef on_event(ctx, state):\n    return Match.no()\n", Limits{})}, Options{Dir: dir})
	wantErrContains(t, "_private", err, "x.star:1:19: load: names with leading underscores are not exported: _private")
}

func TestReadSource(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "policy")
	writeFiles(t, parent, map[string]string{"outside.star": "x\n", "policy/s/tf.star": "tf\n"})
	if err := os.Symlink("../outside.star", filepath.Join(dir, "link.star")); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSource(dir, "s/../s/./tf.star"); err != nil || string(got) != "tf\n" {
		t.Errorf("ReadSource = %q, %v", got, err)
	}
	for _, src := range []string{"../outside.star", "/etc/passwd", "link.star", "s/missing.star", "s"} {
		if got, err := ReadSource(dir, src); err == nil {
			t.Errorf("ReadSource(%q) = %q, want an error", src, got)
		}
	}
}

// FuzzLoadSpec: resolve never panics, and whatever it accepts stays inside
// its root: a relative, clean slash path ending in .star, with no ".."
// element, whose origin is its own folder.
func FuzzLoadSpec(f *testing.F) {
	for _, seed := range []struct {
		spec, dir string
		embedded  bool
	}{
		{"./sibling.star", ".", false},
		{"sub/x.star", "scripts", false},
		{"../x.star", "scripts/sub", false},
		{"../../x.star", "scripts", false},
		{"//top.star", "scripts", false},
		{"@agent-shell//helpers.star", ".", false},
		{"./other.star", ".", true},
		{"../x.star", ".", true},
		{"@corp//x.star", ".", false},
		{"/abs.star", ".", false},
		{"///etc/x.star", ".", false},
		{"//./../x.star", "a", false},
		{"@agent-shell///x.star", ".", false},
		{"a/./b/../../../c.star", "d/e", false},
		{"x.txt", ".", false},
		{"", ".", false},
	} {
		f.Add(seed.spec, seed.dir, seed.embedded)
	}
	f.Fuzz(func(t *testing.T, spec, dir string, embedded bool) {
		// Origins come from resolve itself or from an entry file's folder:
		// clean relative paths inside the root.
		dir = path.Clean(dir)
		if path.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../") {
			return
		}
		name, org, err := (&Runtime{}).resolve(spec, origin{embedded: embedded, dir: dir})
		if err != nil {
			if name != "" {
				t.Errorf("resolve(%q, %q) = %q with error %v", spec, dir, name, err)
			}
			return
		}
		rel := name
		if org.embedded {
			if !strings.HasPrefix(name, libraryPrefix) {
				t.Fatalf("resolve(%q, %q): embedded %q lacks %s", spec, dir, name, libraryPrefix)
			}
			rel = strings.TrimPrefix(name, libraryPrefix)
		} else if strings.HasPrefix(name, libraryPrefix) {
			// (A local folder may be called "@x"; cleaning keeps it from
			// ever spelling the library's "//".)
			t.Fatalf("resolve(%q, %q): local name %q looks like the library's", spec, dir, name)
		}
		if strings.HasPrefix(rel, "/") {
			t.Errorf("resolve(%q, origin %q embedded=%v) = %q: an absolute path", spec, dir, embedded, name)
		}
		for _, elem := range strings.Split(rel, "/") {
			if elem == ".." {
				t.Errorf("resolve(%q, %q) = %q: a .. element", spec, dir, name)
			}
		}
		if path.Clean(rel) != rel || !strings.HasSuffix(rel, ".star") {
			t.Errorf("resolve(%q, %q) = %q: not a clean .star path", spec, dir, name)
		}
		if org.dir != path.Dir(rel) {
			t.Errorf("resolve(%q, %q) = %q with origin dir %q", spec, dir, name, org.dir)
		}
		// Resolving again from the result's own origin is stable.
		if name2, _, err := (&Runtime{}).resolve("./"+path.Base(rel), org); err != nil || name2 != name {
			t.Errorf("re-resolving %q from its origin: %q, %v", name, name2, err)
		}
	})
}
