package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
)

// fastFuel is a small budget for scripts that should not need more: a
// test that hits it by mistake stays fast.
var fastFuel = Limits{Fuel: 20_000, Timeout: 5 * time.Second}

// script builds a Script with id "s" in file "x.star".
func script(kind builtins.Kind, src string, lim Limits) Script {
	return Script{ID: "s", Kind: kind, File: "x.star", Source: []byte(src), Limits: lim}
}

// compileOne compiles a single script in a fresh temporary folder.
func compileOne(t testing.TB, kind builtins.Kind, src string, lim Limits) (*Runtime, error) {
	t.Helper()
	return Compile([]Script{script(kind, src, lim)}, Options{Dir: t.TempDir()})
}

// mustCompile compiles scripts and fails the test on error.
func mustCompile(t testing.TB, scripts []Script, opts Options) *Runtime {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	rt, err := Compile(scripts, opts)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return rt
}

// runOne compiles src as script "s" of kind and runs it once with empty
// state on a matcher-shaped ctx built from argv.
func runOne(t testing.TB, kind builtins.Kind, src string, lim Limits, argv ...string) Result {
	t.Helper()
	rt := mustCompile(t, []Script{script(kind, src, lim)}, Options{})
	return rt.Run(context.Background(), "s", ctxValue(kind, argv...), nil)
}

// ctxValue is a shell-context-v1 for kind with the given argv.
func ctxValue(kind builtins.Kind, argv ...string) starlark.Value {
	if len(argv) == 0 {
		argv = []string{"ls"}
	}
	c := &builtins.Context{
		Phase: Phase(kind), RequestID: "req-1", SessionID: "sess-1", Agent: "claude", Tool: "bash",
		Argv: argv, Program: argv[0], Cwd: "/repo", Timestamp: "2026-01-01T00:00:00.000Z",
	}
	return c.Value()
}

// writeFiles writes files (slash paths relative to dir) with their parents.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wantErrContains checks that err is set and contains every want.
func wantErrContains(t testing.TB, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error\n\t%v\nwant it to contain\n\t%s", what, err, w)
		}
	}
}

// wantFailure checks that res failed with failure f and an error containing
// every want.
func wantFailure(t testing.TB, what string, res Result, f Failure, want ...string) {
	t.Helper()
	if res.Action != nil {
		t.Errorf("%s: action %v, want failure %q", what, res.Action, f)
		return
	}
	if res.Failure != f {
		t.Errorf("%s: failure %q (%v), want %q", what, res.Failure, res.Err, f)
	}
	if res.Outcome() != string(f) {
		t.Errorf("%s: Outcome() = %q, want %q", what, res.Outcome(), f)
	}
	wantErrContains(t, what, res.Err, want...)
	if res.Err != nil && (f == FailFuel || f == FailTimeout || f == FailMemory) {
		var e *Error
		if !errors.As(res.Err, &e) || e.Failure != f {
			t.Errorf("%s: error %v is not a *runtime.Error of failure %q", what, res.Err, f)
		}
	}
}

// wantAction checks that res succeeded with the action want (its String).
func wantAction(t testing.TB, what string, res Result, want string) {
	t.Helper()
	if res.Action == nil {
		t.Errorf("%s: failure %q: %v\n%s", what, res.Failure, res.Err, res.Backtrace)
		return
	}
	if got := res.Action.String(); got != want {
		t.Errorf("%s: action %s, want %s", what, got, want)
	}
	if res.Failure != "" || res.Err != nil {
		t.Errorf("%s: action with failure %q / error %v", what, res.Failure, res.Err)
	}
}

// compileErr compiles src as one script and returns the error, failing
// the test when there is none or it is not a *CompileError for "s".
func compileErr(t testing.TB, kind builtins.Kind, src string) error {
	t.Helper()
	rt, err := compileOne(t, kind, src, Limits{})
	if err == nil {
		t.Errorf("Compile of\n%s\nsucceeded (%v), want an error", src, rt.IDs())
		return errors.New("no error")
	}
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Script != "s" {
		t.Errorf("Compile error %T %v is not a *CompileError for script \"s\"", err, err)
	}
	return err
}
