package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
)

// fuzzInput is the value a script of kind k is called with.
func fuzzInput(t *testing.T, k builtins.Kind) starlark.Value {
	if k == builtins.KindAudit {
		a := &builtins.AuditEvent{Sequence: 3, Timestamp: "2026-01-01T00:00:00.000Z", SessionID: "s", Event: "policy_decision",
			Fields: map[string]any{"secret": "x", "n": int64(1)}}
		v, err := a.Value()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	c := &builtins.Context{Phase: Phase(k), Argv: []string{"rm", "-rf", "/tmp/x"}, Program: "/bin/rm", Cwd: "/repo",
		Effects: []string{"write:/tmp/x"}, Policy: &builtins.Policy{Action: "ask", Reason: "rm", Matches: []builtins.PolicyMatch{{RuleID: "r", Action: "ask"}}}}
	return c.Value()
}

var failures = map[Failure]bool{FailFuel: true, FailTimeout: true, FailError: true, FailMemory: true, FailMalformed: true, FailState: true}

// FuzzReturnedValue: whatever expression a script returns, for every kind,
// the runtime answers with one action of that kind or a classified
// failure, and never panics.
func FuzzReturnedValue(f *testing.F) {
	for _, seed := range []string{
		`Match.yes("x")`, `Match.no()`, `None`, `"yes"`, `(Match.yes(), Match.no())`, `[Review.approve()]`,
		`Review.approve_for("durable_exact")`, `Review.approve_for("forever")`, `Review.rewrite(ctx.argv)`, `Review.rewrite([])`,
		`Intercept.respond(stdout = "x", exit = 300)`, `Intercept.rewrite(["echo", "\x00"])`, `Intercept.proceed`,
		`Result.replace(stdout = "x" * 300000)`, `Result.reject_disclosure("")`, `Effect.add(["network"] * 300)`,
		`Effect.add("read:")`, `Effect.read_path(ctx.cwd)`, `Effect.replace([])`, `Audit.replace({"a": "b"})`,
		`Audit.replace({1: "b"})`, `Audit.drop_field(ctx.event)`, `state`, `ctx`, `on_event`, `fail("x")`, `1 // 0`,
		`json.decode("[" * 40 + "]" * 40)`, `re.sub("(a*)*b", "", "a" * 1000)`, `shell.split("a 'b")`, `path.match("*", "x")`,
		`[x for x in range(100000)]`, `Match.yes(str(state.update(f = len)))`, `Match.yes(state.setdefault("x", [1] * 10)[0] and "y")`,
		"Match.yes()\n    x = 1", "1\nload(\"./x.star\", \"y\")", `struct(a = 1)`, `{"a": on_event}`,
		`"a" * (1 << 29)`, `[0] * 1000000000`, `list(range(100000000))`, `("x" * 100000).replace("x", "yy" * 1000)`,
		`"{0}" * 100 % ()`, `",".join([str(ctx)] * 100000)`, `{} | {1: 2}`, `(1, 2) * -1`, `ctx.argv + ctx.argv`,
		`"%s" % ([ctx] * 10000,)`, `str([[[[[[]]]]]] * 1000)`, `"ab".split("")`, `json.encode([ctx] * 100000)`,
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, expr string) {
		src := "def on_event(ctx, state):\n    return " + expr + "\n"
		for _, k := range builtins.Kinds() {
			s := Script{ID: "s", Kind: k, File: "x.star", Source: []byte(src), Limits: Limits{Fuel: 50_000, Timeout: 500 * time.Millisecond}}
			rt, err := Compile([]Script{s}, Options{Dir: dir})
			if err != nil {
				var ce *CompileError
				if !errors.As(err, &ce) {
					t.Fatalf("%s: Compile error %T %v", k, err, err)
				}
				continue
			}
			res := rt.Run(context.Background(), "s", fuzzInput(t, k), map[string]any{"n": int64(1)})
			if res.Action != nil {
				if res.Action.Kind != k || res.Action.Op == "" || res.Failure != "" || res.Err != nil {
					t.Fatalf("%s: %q returned %v (kind %s), failure %q, err %v", k, expr, res.Action, res.Action.Kind, res.Failure, res.Err)
				}
				if res.State == nil {
					t.Fatalf("%s: action without state", k)
				}
			} else if !failures[res.Failure] || res.Err == nil {
				t.Fatalf("%s: %q: no action and failure %q, err %v", k, expr, res.Failure, res.Err)
			}
			if len(res.Output) > DefaultMaxOutput+len("\n[print output truncated]\n") {
				t.Fatalf("%s: output of %d bytes", k, len(res.Output))
			}
		}
	})
}
