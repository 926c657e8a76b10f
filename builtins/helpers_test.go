package builtins

import (
	"maps"
	"os"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

var dialect = &syntax.FileOptions{}

// eval evaluates one expression with env predeclared, on a fresh thread; vars are extra
// string variables, given as name, value pairs.
func eval(env starlark.StringDict, expr string, vars ...string) (starlark.Value, error) {
	if len(vars) > 0 {
		env = maps.Clone(env)
		for i := 0; i+1 < len(vars); i += 2 {
			env[vars[i]] = starlark.String(vars[i+1])
		}
	}
	thread := &starlark.Thread{Name: "test"}
	return starlark.EvalOptions(dialect, thread, "x.star", expr, env)
}

// execFile runs a file with env predeclared and returns its globals.
func execFile(env starlark.StringDict, src string) (starlark.StringDict, error) {
	thread := &starlark.Thread{Name: "test"}
	return starlark.ExecFileOptions(dialect, thread, "x.star", src, env)
}

// mustEval evaluates expr in Library() and fails the test on error.
func mustEval(t *testing.T, expr string) starlark.Value {
	t.Helper()
	v, err := eval(Library(), expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// wantErr checks err is non-nil and contains want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, want)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q, want it to contain %q", what, err, want)
	}
}

// starlarkString builds a Starlark string literal of n copies of c.
func big(c string, n int) string { return `"` + strings.Repeat(c, n) + `"` }

// readSources returns the package's non-test Go sources, concatenated.
func readSources(t *testing.T) string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			data, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
	}
	return b.String()
}
