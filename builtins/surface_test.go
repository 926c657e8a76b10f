package builtins

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

func compile(env starlark.StringDict, src string) error {
	_, _, err := starlark.SourceProgramOptions(dialect, "x.star", src, env.Has)
	return err
}

func TestSurfaceOnlyOwnModule(t *testing.T) {
	for _, k := range Kinds() {
		env := Surface(k)
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range env {
				if !yield(n) {
					return
				}
			}
		})
		want := slices.Sorted(slices.Values(append([]string{k.Module(), "git", "json", "path", "re", "shell", "struct", BoundedName, BoundedMethodName}, append(CollectionBuiltins, TextBuiltins...)...)))
		if !slices.Equal(names, want) {
			t.Errorf("Surface(%s) = %v, want %v", k, names, want)
		}
		for _, other := range Kinds() {
			src := "def on_event(ctx, state):\n    return " + other.Module() + ".x\n"
			err := compile(env, src)
			if other == k {
				if err != nil {
					t.Errorf("%s naming %s: %v", k, other.Module(), err)
				}
				continue
			}
			if err == nil || err.Error() != "x.star:2:12: undefined: "+other.Module() {
				t.Errorf("%s naming %s: err = %v, want x.star:2:12: undefined: %s", k, other.Module(), err, other.Module())
			}
		}
		if !env.Has("struct") || env[k.Module()].(*starlarkstruct.Module).Name != k.Module() {
			t.Errorf("%s: surface lacks its module", k)
		}
	}
}

func TestSurfaceIsFrozenAndShared(t *testing.T) {
	a, b := Surface(KindMatcher), Surface(KindMatcher)
	if a["Match"] != b["Match"] || a["re"] != b["re"] {
		t.Error("surface values are rebuilt per call")
	}
	a["extra"] = starlark.None // the map is a copy
	if Surface(KindMatcher).Has("extra") || Library().Has("extra") {
		t.Error("Surface returned a shared map")
	}
	// Module members are frozen: a script cannot rebind them (modules have no setters) and
	// module values cannot be mutated.
	_, err := execFile(Surface(KindMatcher), "Match.yes = None\n")
	wantErr(t, "assign to module", err, "can't assign to .yes field of module")
}

func TestLibraryHasNoActions(t *testing.T) {
	lib := Library()
	for _, k := range Kinds() {
		if lib.Has(k.Module()) {
			t.Errorf("Library has %s", k.Module())
		}
		err := compile(lib, "x = "+k.Module()+".yes()\n")
		wantErr(t, "library naming "+k.Module(), err, "x.star:1:5: undefined: "+k.Module())
	}
	for _, name := range []string{"json", "re", "path", "shell", "struct", "git"} {
		if !lib.Has(name) {
			t.Errorf("Library lacks %s", name)
		}
	}
}

func TestEveryKindUsesPureModules(t *testing.T) {
	src := `
def on_event(ctx, state):
    s = struct(a = 1)
    j = json.decode(json.encode({"a": [1, 2]}))
    m = re.search("(o+)", "foo")
    p = path.join("a", "b")
    w = shell.split("ls -l 'a b'")
    return (s.a, j["a"], m[1], p, w)
result = on_event(None, {})
`
	for _, k := range Kinds() {
		g, err := execFile(Surface(k), src)
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if got := g["result"].String(); got != `(1, [1, 2], "oo", "a/b", ["ls", "-l", "a b"])` {
			t.Errorf("%s: %s", k, got)
		}
	}
}

// Nothing with a clock, a filesystem, the environment or a process is predeclared.
func TestNoAmbientAuthority(t *testing.T) {
	for _, name := range []string{"time", "os", "open", "load_file", "env", "exec", "http", "math"} {
		if Library().Has(name) {
			t.Errorf("Library has %s", name)
		}
	}
}

func TestJSON(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`json.encode({"b": 1, "a": [True, None, 1.5, "x"]})`, `"{\"a\":[true,null,1.5,\"x\"],\"b\":1}"`},
		{`json.decode('{"a": [1, 2.5, "x", null, false]}')`, `{"a": [1, 2.5, "x", None, False]}`},
		{`json.decode('nope', default = 7)`, `7`},
		{`json.indent('{"a":1}', indent = " ")`, `"{\n \"a\": 1\n}"`},
		{`json.encode_indent({"a": 1}, indent = "  ")`, `"{\n  \"a\": 1\n}"`},
		{`json.decode("[" * 32 + "]" * 32)[0][0][0] != None`, `True`},
		{`json.decode('"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["')`, `"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["`},
		{`json.decode('{"a\\"[": "[[["}')`, `{"a\"[": "[[["}`},
	}
	for _, tt := range tests {
		if got := mustEval(t, tt.expr); got.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	errs := []struct{ expr, want string }{
		{`json.decode(" " * ` + itoa(MaxOutput+1) + `)`, "json.decode: input is 262145 bytes, more than 262144"},
		{`json.indent(" " * ` + itoa(MaxOutput+1) + `)`, "json.indent: input is 262145 bytes, more than 262144"},
		{`json.decode("[" * 33 + "]" * 33)`, "json.decode: input nests deeper than 32"},
		{`json.encode(["x" * 1000] * 263)`, "json.encode: result is"},
		{`json.encode_indent(["x" * 1000] * 263)`, "json.encode_indent: result is"},
		{`json.decode("{")`, "json.decode:"},
		{`json.encode(lambda: 1)`, "json.encode: cannot encode function as JSON"},
	}
	for _, tt := range errs {
		_, err := eval(Library(), tt.expr)
		wantErr(t, tt.expr, err, tt.want)
	}
}

func itoa(n int) string { return starlark.MakeInt(n).String() }

func TestJSONDepth(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{
		{`1`, 0}, {`[]`, 1}, {`[{"a": [1]}]`, 3}, {`"[[["`, 0}, {`["\"[[", [1]]`, 2}, {`[[]][[]]`, 2},
	} {
		if got := jsonDepth(tt.s); got != tt.want {
			t.Errorf("jsonDepth(%s) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

// The package does no eager work: nothing is built before first use.
func TestNoInitWork(t *testing.T) {
	src := readSources(t)
	if m := regexp.MustCompile(`(?m)^var \w+ = regexp\.`).FindString(src); m != "" {
		t.Errorf("package-level regexp: %s", m)
	}
	if strings.Contains(src, "func init()") {
		t.Error("package has an init function")
	}
}

// Surfaces are shared by every thread; calls from many goroutines at once are safe.
func TestConcurrentUse(t *testing.T) {
	const src = `
def f(i):
    p = "(x)" + str(i % 70) + "|y"
    return (re.findall(p, "x1 x2 y" * 3), re.sub(p, "$1", "x1y"), shell.split("a 'b c'"), path.match("**/*.go", "a/b.go"), Match.yes(str(i)))
`
	done := make(chan error)
	for g := range 8 {
		go func() {
			globals, err := execFile(Surface(KindMatcher), src)
			if err == nil {
				for i := range 50 {
					thread := &starlark.Thread{}
					if _, err = starlark.Call(thread, globals["f"], starlark.Tuple{starlark.MakeInt(g*50 + i)}, nil); err != nil {
						break
					}
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
