package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
)

// spin is a matcher that never ends on its own: the dialect has no while,
// so "forever" is a for loop over a huge range.
const spin = `def on_event(ctx, state):
    for i in range(1000000000):
        pass
    return Match.no()
`

func TestSandboxInfiniteLoopStoppedByFuel(t *testing.T) {
	start := time.Now()
	res := runOne(t, builtins.KindMatcher, spin, Limits{Fuel: 20_000, Timeout: 10 * time.Second})
	wantFailure(t, "spin", res, FailFuel, "out of fuel", "fuel exhausted")
	if res.Steps < 20_000 || res.Steps > 20_000+fuelChunk {
		t.Errorf("Steps = %d, want about the 20000 of fuel", res.Steps)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v: fuel did not stop it, the timeout did", d)
	}
}

func TestSandboxDefaultFuel(t *testing.T) {
	// No declared limits: DefaultFuel still stops it, long before DefaultTimeout.
	res := runOne(t, builtins.KindMatcher, spin, Limits{})
	wantFailure(t, "spin", res, FailFuel, "out of fuel")
	if res.Steps < DefaultFuel || res.Steps > DefaultFuel+fuelChunk {
		t.Errorf("Steps = %d, want about DefaultFuel %d", res.Steps, DefaultFuel)
	}
}

func TestSandboxSlowScriptStoppedByTime(t *testing.T) {
	start := time.Now()
	res := runOne(t, builtins.KindMatcher, spin, Limits{Fuel: 1 << 50, Timeout: 50 * time.Millisecond})
	wantFailure(t, "spin", res, FailTimeout, "timeout after 50ms")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v, want it stopped near the 50ms timeout", d)
	}
	if res.Elapsed < 50*time.Millisecond {
		t.Errorf("Elapsed = %v, shorter than the timeout", res.Elapsed)
	}
}

func TestSandboxCallerCancellation(t *testing.T) {
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, spin, Limits{Fuel: 1 << 50, Timeout: time.Minute})}, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := rt.Run(ctx, "s", ctxValue(builtins.KindMatcher), nil)
	wantFailure(t, "cancelled", res, FailTimeout, "deadline exceeded")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v after the caller's context ended", d)
	}
}

func TestSandboxRecursionRejected(t *testing.T) {
	res := runOne(t, builtins.KindMatcher, `def f(n):
    return f(n - 1)

def on_event(ctx, state):
    return f(10)
`, fastFuel)
	wantFailure(t, "recursion", res, FailError, "function f called recursively")
	for _, want := range []string{"x.star:5:13: in on_event", "x.star:2:13: in f"} {
		if !strings.Contains(res.Backtrace, want) {
			t.Errorf("Backtrace\n%s\nwant a line %q", res.Backtrace, want)
		}
	}
	// Mutual recursion too: the check is on the call stack, not the name.
	res = runOne(t, builtins.KindMatcher, `def f(n):
    return g(n)

def g(n):
    return f(n)

def on_event(ctx, state):
    return f(1)
`, fastFuel)
	wantFailure(t, "mutual recursion", res, FailError, "called recursively")
}

func TestSandboxDialect(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"while", "def on_event(ctx, state):\n    while True:\n        pass\n    return Match.no()\n",
			"x.star:2:5: this Starlark dialect does not support while loops"},
		{"top-level for", "for i in range(1000000000):\n    pass\ndef on_event(ctx, state):\n    return Match.no()\n",
			"x.star:1:1: for loop not within a function"},
		// Starlark has no ** either: the range(10**9) fails to parse.
		{"top-level for 10**9", "for i in range(10**9):\n    pass\ndef on_event(ctx, state):\n    return Match.no()\n",
			"x.star:1:20: got '**', want ','"},
		{"top-level if", "if True:\n    x = 1\ndef on_event(ctx, state):\n    return Match.no()\n",
			"x.star:1:1: if statement not within a function"},
		{"global reassignment", "x = 1\nx = 2\ndef on_event(ctx, state):\n    return Match.no()\n",
			"x.star:2:1: cannot reassign global x declared at x.star:1:1"},
		{"set", "def on_event(ctx, state):\n    return set([1])\n",
			"x.star:2:12: this Starlark dialect does not support sets"},
		{"syntax", "def on_event(ctx, state)\n    return Match.no()\n",
			"x.star:2:1: got newline, want ':'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compileErr(t, builtins.KindMatcher, tc.src)
			wantErrContains(t, tc.name, err, tc.want)
		})
	}
}

func TestSandboxCaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind builtins.Kind
		expr string
		want string
	}{
		{"long reason", builtins.KindMatcher, `Match.yes("x" * 100000)`, "Match.yes: reason is 100000 bytes, more than 16384"},
		{"300 effects", builtins.KindEffect, `Effect.add(["network"] * 300)`, "Effect.add: effects has 300 items, more than 256"},
		{"300 effects replace", builtins.KindEffect, `Effect.replace(["read:/x"] * 300)`, "more than 256"},
		{"long argv", builtins.KindReviewer, `Review.rewrite(["ls"] * 257)`, "more than 256"},
		{"long stdout", builtins.KindBefore, `Intercept.respond(stdout = "x" * (300 << 10))`, "stdout is 307200 bytes, more than 262144"},
		{"huge string", builtins.KindMatcher, `Match.yes("x" * (1 << 31))`, "too large"},
		{"huge list", builtins.KindMatcher, `Match.yes([1] * (1 << 31))`, "too large"},
		{"json bomb", builtins.KindMatcher, `json.decode("[" * 100 + "]" * 100)`, "deeper than 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runOne(t, tc.kind, "def on_event(ctx, state):\n    return "+tc.expr+"\n", Limits{Fuel: 100_000, Timeout: 5 * time.Second})
			wantFailure(t, tc.name, res, FailError, tc.want)
		})
	}
}

func TestSandboxMemory(t *testing.T) {
	// Every string is a new 1000-byte value kept alive in a growing list; the
	// fuel and time budgets are far out of reach, so only the memory
	// budget can stop it.
	start := time.Now()
	res := runOne(t, builtins.KindMatcher, `def on_event(ctx, state):
    xs = []
    for i in range(100000000):
        xs.append(str(i) + "x" * 1000)
    return Match.yes(str(len(xs)))
`, Limits{Fuel: 1 << 50, Timeout: 20 * time.Second})
	wantFailure(t, "grow", res, FailMemory, "went past its 256 MiB memory budget")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestSandboxNoAmbientAuthority(t *testing.T) {
	// Every kind compiles without any name that reaches files, the
	// environment, the network, processes or the clock.
	names := []struct{ expr, undefined string }{
		{`open("/etc/passwd")`, "open"},
		{`os.getenv("HOME")`, "os"},
		{`getenv("HOME")`, "getenv"},
		{`env["HOME"]`, "env"},
		{`environ["HOME"]`, "environ"},
		{`exec("id")`, "exec"},
		{`system("id")`, "system"},
		{`subprocess.run(["id"])`, "subprocess"},
		{`time.now()`, "time"},
		{`now()`, "now"},
		{`http.get("http://example.com")`, "http"},
		{`socket.connect("example.com:80")`, "socket"},
		{`read_file("/etc/passwd")`, "read_file"},
		{`sys.exit(1)`, "sys"},
		{`eval("1")`, "eval"},
	}
	for _, k := range builtins.Kinds() {
		for _, n := range names {
			t.Run(string(k)+"/"+n.undefined, func(t *testing.T) {
				err := compileErr(t, k, "def on_event(ctx, state):\n    return "+n.expr+"\n")
				wantErrContains(t, n.expr, err, "x.star:2:12: undefined: "+n.undefined)
			})
		}
	}
}

func TestSandboxNoLoadOutsideFolder(t *testing.T) {
	parent := t.TempDir()
	dir := parent + "/policy"
	writeFiles(t, parent, map[string]string{"secret.star": "x = 1\n", "policy/keep.txt": ""})
	for _, spec := range []string{"../secret.star", "/etc/passwd", parent + "/secret.star", "./../secret.star"} {
		src := fmt.Sprintf("load(%q, \"x\")\ndef on_event(ctx, state):\n    return Match.no()\n", spec)
		_, err := Compile([]Script{script(builtins.KindMatcher, src, Limits{})}, Options{Dir: dir})
		wantErrContains(t, spec, err, "x.star:1:6: load "+fmt.Sprintf("%q", spec))
	}
}

func TestSandboxOtherKindsConstructorsUndefined(t *testing.T) {
	for _, k := range builtins.Kinds() {
		for _, other := range builtins.Kinds() {
			if k == other {
				continue
			}
			m := other.Module()
			t.Run(string(k)+"/"+m, func(t *testing.T) {
				err := compileErr(t, k, "def on_event(ctx, state):\n    return "+m+".x()\n")
				wantErrContains(t, m, err, "x.star:2:12: undefined: "+m)
			})
		}
	}
	// The exact message of the example.
	err := compileErr(t, builtins.KindMatcher, "def on_event(ctx, state):\n    return Review.approve()\n")
	if got, want := err.Error(), `script "s": x.star:2:12: undefined: Review`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

func TestLimitsArmedForEntryTopLevel(t *testing.T) {
	// Top-level code cannot loop by itself (the dialect has no top-level
	// for), but it can call a function that does: the script's own fuel
	// stops it while the module is initialised.
	src := `def forever():
    for i in range(1000000000):
        pass
    return 1

x = forever()

def on_event(ctx, state):
    return Match.no()
`
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{Fuel: 20_000, Timeout: 10 * time.Second})}, Options{})
	start := time.Now()
	err := rt.Check()
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Script != "s" {
		t.Fatalf("Check() = %v, want a *CompileError for s", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Failure != FailFuel {
		t.Errorf("Check() = %v, want a fuel failure", err)
	}
	wantErrContains(t, "Check", err, "initialising x.star", "out of fuel")
	res := rt.Invoke(context.Background(), "s", ctxValue(builtins.KindMatcher), "sess")
	wantFailure(t, "Invoke", res, FailFuel, "initialising x.star")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}

	// And the wall-time limit as well.
	rt = mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{Fuel: 1 << 50, Timeout: 50 * time.Millisecond})}, Options{})
	res = rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil)
	wantFailure(t, "Run", res, FailTimeout, "initialising x.star", "timeout after 50ms")
}

func TestLimitsArmedForLoadedModuleTopLevel(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"spin.star": `def forever():
    for i in range(1000000000):
        pass
    return 1

x = forever()
`})
	src := "load(\"./spin.star\", \"x\")\ndef on_event(ctx, state):\n    return Match.no()\n"
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{Fuel: 1 << 50, Timeout: 20 * time.Second})}, Options{Dir: dir})
	start := time.Now()
	res := rt.Invoke(context.Background(), "s", ctxValue(builtins.KindMatcher), "sess")
	wantFailure(t, "Invoke", res, FailFuel, "cannot load ./spin.star", "initialising spin.star", "out of fuel")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if err := rt.Check(); err == nil {
		t.Errorf("Check() = nil after a failed initialisation")
	}
}

// captureStdio redirects os.Stdout and os.Stderr to pipes while fn runs and
// returns what arrived on each.
func captureStdio(t *testing.T, fn func()) (stdout, stderr string) {
	t.Helper()
	read := func(f **os.File) (func() string, func()) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		saved := *f
		*f = w
		done := make(chan string)
		go func() {
			data, _ := io.ReadAll(r)
			r.Close()
			done <- string(data)
		}()
		restore := func() { *f = saved; w.Close() }
		return func() string { return <-done }, restore
	}
	outText, restoreOut := read(&os.Stdout)
	errText, restoreErr := read(&os.Stderr)
	func() {
		defer restoreOut()
		defer restoreErr()
		fn()
	}()
	return outText(), errText()
}

func TestPrintBoundedAndNeverOnStdout(t *testing.T) {
	src := `x = print("top level says hi")

def on_event(ctx, state):
    for i in range(1000):
        print("line %d %s" % (i, "y" * 100))
    return Match.no("printed")
`
	var res, res2 Result
	stdout, stderr := captureStdio(t, func() {
		rt := mustCompile(t, []Script{script(builtins.KindMatcher, src, Limits{MaxOutput: 1000})}, Options{})
		res = rt.Invoke(context.Background(), "s", ctxValue(builtins.KindMatcher), "sess")
		res2 = rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil)
	})
	if stdout != "" {
		t.Errorf("the script wrote %d bytes to stdout: %.200q", len(stdout), stdout)
	}
	if stderr != "" {
		t.Errorf("the script wrote %d bytes to stderr: %.200q", len(stderr), stderr)
	}
	for _, r := range []Result{res, res2} {
		wantAction(t, "print", r, `Match.no("printed")`)
		const marker = "\n[print output truncated]\n"
		if len(r.Output) > 1000+len(marker) {
			t.Errorf("Output is %d bytes, want at most %d", len(r.Output), 1000+len(marker))
		}
		if !strings.HasPrefix(r.Output, "line 0 yyy") || !strings.HasSuffix(r.Output, marker) {
			t.Errorf("Output = %.80q...%q, want the first lines and the truncation marker", r.Output, r.Output[max(0, len(r.Output)-40):])
		}
	}

	// Output under the limit is kept whole, one line per print.
	res = runOne(t, builtins.KindMatcher, "def on_event(ctx, state):\n    print(\"a\", 1)\n    print(ctx.argv)\n    return Match.no()\n", Limits{}, "git", "status")
	if want := "a 1\n(\"git\", \"status\")\n"; res.Output != want {
		t.Errorf("Output = %q, want %q", res.Output, want)
	}
}

func TestMalformedReturns(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind builtins.Kind
		expr string
		want string
	}{
		{"None", builtins.KindMatcher, "None", "on_event returned None, want one Match action"},
		{"string", builtins.KindMatcher, `"yes"`, "on_event returned a string, want one Match action"},
		{"tuple of two actions", builtins.KindMatcher, `(Match.yes(), Match.no())`, "on_event returned a tuple of 2 values, want one Match action"},
		{"list of one action", builtins.KindReviewer, `[Review.approve()]`, "returned a list of 1 values"},
		{"dict", builtins.KindEffect, `{"op": "add"}`, "returned a dict"},
		{"bool", builtins.KindAudit, `True`, "returned a bool"},
		{"constructor itself", builtins.KindBefore, `Intercept.proceed`, "returned a builtin_function_or_method"},
		{"implicit None", builtins.KindAfter, `print("no return")`, "returned None, want one Result action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runOne(t, tc.kind, "def on_event(ctx, state):\n    return "+tc.expr+"\n", fastFuel)
			wantFailure(t, tc.name, res, FailMalformed, tc.want)
		})
	}
}

func TestRuntimeErrorBacktrace(t *testing.T) {
	res := runOne(t, builtins.KindMatcher, `def helper(c):
    return c.missing

def on_event(ctx, state):
    return helper(ctx)
`, fastFuel)
	wantFailure(t, "attr", res, FailError, "no .missing attribute")
	want := "Traceback (most recent call last):\n  x.star:5:18: in on_event\n  x.star:2:13: in helper\nError: \"shell_context\" struct has no .missing attribute"
	if res.Backtrace != want {
		t.Errorf("Backtrace =\n%s\nwant\n%s", res.Backtrace, want)
	}

	res = runOne(t, builtins.KindReviewer, "def on_event(ctx, state):\n    fail(\"boom\", ctx.argv[0])\n", fastFuel, "rm")
	wantFailure(t, "fail", res, FailError, "boom rm")
	if !strings.Contains(res.Backtrace, "x.star:2:9: in on_event") {
		t.Errorf("Backtrace =\n%s\nwant the fail() position x.star:2:9", res.Backtrace)
	}

	res = runOne(t, builtins.KindMatcher, "def on_event(ctx, state):\n    return Match.yes(1 // 0)\n", fastFuel)
	wantFailure(t, "div", res, FailError, "floored division by zero")
	if !strings.Contains(res.Backtrace, "x.star:2:24: in on_event") {
		t.Errorf("Backtrace =\n%s\nwant x.star:2:24", res.Backtrace)
	}
}

func TestEntryFunction(t *testing.T) {
	for _, tc := range []struct{ name, src, function, want string }{
		{"missing", "def other(ctx, state):\n    return Match.no()\n", "", "x.star: no function on_event(ctx, state)"},
		{"custom name missing", "def on_event(ctx, state):\n    return Match.no()\n", "decide", "x.star: no function decide(ctx, state)"},
		{"one parameter", "def on_event(ctx):\n    return Match.no()\n", "", "on_event must be a function of (ctx, state)"},
		{"three parameters", "def on_event(ctx, state, x):\n    return Match.no()\n", "", "on_event must be a function of (ctx, state)"},
		{"varargs", "def on_event(ctx, state, *args):\n    return Match.no()\n", "", "must be a function of (ctx, state)"},
		{"kwargs", "def on_event(ctx, state, **kw):\n    return Match.no()\n", "", "must be a function of (ctx, state)"},
		{"not a function", "on_event = 1\n", "", "on_event must be a function of (ctx, state)"},
		{"a builtin", "on_event = len\n", "", "on_event must be a function of (ctx, state)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := script(builtins.KindMatcher, tc.src, fastFuel)
			s.Function = tc.function
			rt := mustCompile(t, []Script{s}, Options{})
			err := rt.Check()
			var ce *CompileError
			if err == nil || !errors.As(err, &ce) || ce.Script != "s" {
				t.Errorf("Check() = %v, want a *CompileError for s", err)
			} else {
				wantErrContains(t, "Check", err, tc.want)
			}
			res := rt.Invoke(context.Background(), "s", ctxValue(builtins.KindMatcher), "sess")
			wantFailure(t, "Invoke", res, FailError, tc.want)
		})
	}

	// A custom function name that exists is used.
	s := script(builtins.KindMatcher, "def decide(ctx, state):\n    return Match.yes(\"custom\")\n", fastFuel)
	s.Function = "decide"
	rt := mustCompile(t, []Script{s}, Options{})
	if err := rt.Check(); err != nil {
		t.Fatalf("Check() = %v", err)
	}
	wantAction(t, "decide", rt.Run(context.Background(), "s", ctxValue(builtins.KindMatcher), nil), `Match.yes("custom")`)

	res := rt.Invoke(context.Background(), "nope", ctxValue(builtins.KindMatcher), "sess")
	wantFailure(t, "unknown id", res, FailError, `no script "nope" is declared`)
}

// TestEntryFunctionKeywordOnlyState: on_event(ctx, *, state) has two
// parameters, but no call with two positional arguments can succeed, so
// Check must reject it like any other wrong signature.
func TestEntryFunctionKeywordOnlyState(t *testing.T) {
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, "def on_event(ctx, *, state):\n    return Match.no()\n", fastFuel)}, Options{})
	if err := rt.Check(); err == nil {
		t.Errorf("Check() = nil for on_event(ctx, *, state), want \"on_event must be a function of (ctx, state)\"")
	}
	res := rt.Invoke(context.Background(), "s", ctxValue(builtins.KindMatcher), "sess")
	wantFailure(t, "Invoke", res, FailError, "on_event must be a function of (ctx, state)")
}

func TestCompileRejectsBadDeclarations(t *testing.T) {
	ok := "def on_event(ctx, state):\n    return Match.no()\n"
	_, err := Compile([]Script{script(builtins.KindMatcher, ok, Limits{}), script(builtins.KindMatcher, ok, Limits{})}, Options{Dir: t.TempDir()})
	wantErrContains(t, "duplicate", err, `script "s": duplicate script id`)
	_, err = Compile([]Script{script("shell_whatever", ok, Limits{})}, Options{Dir: t.TempDir()})
	wantErrContains(t, "kind", err, `script "s": unknown kind "shell_whatever"`)

	// One bad script fails the whole set.
	good := Script{ID: "good", Kind: builtins.KindMatcher, File: "good.star", Source: []byte(ok)}
	bad := Script{ID: "bad", Kind: builtins.KindMatcher, File: "bad.star", Source: []byte("def on_event(ctx, state):\n    return nope\n")}
	rt, err := Compile([]Script{good, bad}, Options{Dir: t.TempDir()})
	if rt != nil {
		t.Errorf("Compile returned a runtime along with error %v", err)
	}
	wantErrContains(t, "set", err, `script "bad": bad.star:2:12: undefined: nope`)
}

func TestActionsOfEveryKind(t *testing.T) {
	for _, tc := range []struct {
		kind       builtins.Kind
		expr, want string
	}{
		{builtins.KindMatcher, `Match.yes("terraform destroy")`, `Match.yes("terraform destroy")`},
		{builtins.KindReviewer, `Review.approve_for("exact_session")`, `Review.approve_for("exact_session")`},
		{builtins.KindReviewer, `Review.rewrite(["echo", ctx.argv[0]])`, `Review.rewrite(["echo", "rm"])`},
		{builtins.KindBefore, `Intercept.respond(stdout = "hi", exit = 3)`, `Intercept.respond(stdout = "hi", exit = 3)`},
		{builtins.KindAfter, `Result.keep()`, `Result.keep()`},
		{builtins.KindEffect, `Effect.write_path(ctx.cwd)`, `Effect.add(["write:/repo"])`},
		{builtins.KindAudit, `Audit.drop_field("env")`, `Audit.drop_field("env")`},
	} {
		res := runOne(t, tc.kind, "def on_event(ctx, state):\n    return "+tc.expr+"\n", fastFuel, "rm", "-rf")
		wantAction(t, tc.expr, res, tc.want)
		if res.Action != nil && res.Action.Kind != tc.kind {
			t.Errorf("%s: kind %s", tc.expr, res.Action.Kind)
		}
		if res.Outcome() != res.Action.Op {
			t.Errorf("Outcome() = %q, want the op %q", res.Outcome(), res.Action.Op)
		}
	}
}

func TestGlobalsFrozenAndThreadsFresh(t *testing.T) {
	// Globals are frozen after initialisation: no hidden state across calls.
	res := runOne(t, builtins.KindMatcher, "seen = []\ndef on_event(ctx, state):\n    seen.append(1)\n    return Match.no()\n", fastFuel)
	wantFailure(t, "frozen", res, FailError, "frozen list")
	// ctx is frozen too.
	res = runOne(t, builtins.KindMatcher, "def on_event(ctx, state):\n    ctx.argv.append(\"x\")\n    return Match.no()\n", fastFuel)
	wantFailure(t, "ctx", res, FailError, "no .append field or method")

	// A fresh thread per call: steps do not accumulate, so a script using
	// most of its fuel runs again and again.
	rt := mustCompile(t, []Script{script(builtins.KindMatcher, `def on_event(ctx, state):
    for i in range(3000):
        pass
    return Match.no()
`, Limits{Fuel: 20_000})}, Options{})
	var first uint64
	for i := range 10 {
		res := rt.Invoke(context.Background(), "s", ctxValue(builtins.KindMatcher), "sess")
		wantAction(t, fmt.Sprint("call ", i), res, "Match.no()")
		if i == 0 {
			first = res.Steps
		}
		if res.Steps < 3000 || res.Steps >= 20_000 || res.Steps != first {
			t.Errorf("call %d: Steps = %d, want the same count below the fuel as call 0 (%d)", i, res.Steps, first)
		}
	}
}
