package builtins

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

const assertProgram = `
def helper():
    assert.eq([1], [2])

def test_all():
    assert.eq("allow", "defer")
    assert.eq(1, 1)
    assert.eq(Match.yes("x"), Match.yes("x"))
    assert.ne(1, 1)
    assert.ne(1, 2)
    assert.true(False)
    assert.true(0, msg = "zero is false")
    assert.true([1])
    assert.contains("abc", "b")
    assert.contains("abc", "z")
    assert.contains([1, 2], 3)
    assert.contains((1, 2), 2)
    assert.contains({"a": 1}, "a")
    assert.contains({"a": 1}, "b")
    assert.fails(lambda: 1 // 0, "division by zero")
    assert.fails(lambda: 1 // 0, "^nope$")
    assert.fails(lambda: 1, "x")
    assert.fails(lambda: Match.yes(1), "Match.yes: for parameter reason")
    helper()
    assert.eq("x" * 2000, "y")

test_all()
`

func TestAssertReports(t *testing.T) {
	env := Surface(KindMatcher)
	env["assert"] = Assert()
	thread := &starlark.Thread{Name: "test"}
	var got []string
	SetReporter(thread, func(pos, msg string) { got = append(got, pos+": "+msg) })
	if _, err := starlark.ExecFileOptions(dialect, thread, "t.star", assertProgram, env); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`t.star:6:14: assert.eq: "allow" != "defer"`,
		`t.star:9:14: assert.ne: 1 == 1`,
		`t.star:11:16: assert.true: False is not true`,
		`t.star:12:16: assert.true: zero is false`,
		`t.star:15:20: assert.contains: "abc" does not contain "z"`,
		`t.star:16:20: assert.contains: [1, 2] does not contain 3`,
		`t.star:19:20: assert.contains: {"a": 1} does not contain "b"`,
		`t.star:21:17: assert.fails: error "floored division by zero" does not match "^nope$"`,
		`t.star:22:17: assert.fails: evaluation succeeded unexpectedly (want error matching "x")`,
		`t.star:3:14: assert.eq: [1] != [2]`,
		`t.star:25:14: assert.eq: "` + strings.Repeat("x", maxRepr-1) + `... != "y"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d reports:\n%s\nwant %d:\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("report %d:\n got %s\nwant %s", i, clipRaw(got[i]), clipRaw(want[i]))
		}
	}
}

func TestAssertWithoutReporter(t *testing.T) {
	env := starlark.StringDict{"assert": Assert()}
	tests := []struct{ src, want string }{
		{`assert.eq("allow", "defer")`, `assert.eq: "allow" != "defer"`},
		{`assert.true(None, msg = "m")`, `assert.true: m`},
		{`assert.fails(lambda: 1, "x")`, `assert.fails: evaluation succeeded unexpectedly`},
		{`assert.eq(1)`, `assert.eq: got 1 arguments, want 2`},
		{`assert.contains(1, 1)`, `assert.contains: got int, want string, list, tuple or dict`},
		{`assert.contains("abc", 1)`, `assert.contains: 'in <string>' requires string as left operand, not int`},
		{`assert.fails(1, "x")`, `assert.fails: for parameter 1: got int, want callable`},
		{`assert.fails(lambda: 1 // 0, "(")`, "assert.fails: error parsing regexp: missing closing )"},
	}
	for _, tt := range tests {
		_, err := execFile(env, tt.src+"\n")
		wantErr(t, tt.src, err, tt.want)
	}
	for _, src := range []string{`assert.eq(1, 1)`, `assert.ne(1, 2)`, `assert.true(1)`, `assert.contains([1], 1)`, `assert.fails(lambda: fail("boom"), "bo+m")`} {
		if _, err := execFile(env, src+"\n"); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// assert.fails does not swallow cancellation: out of fuel or time, the test stops.
func TestAssertFailsPropagatesCancellation(t *testing.T) {
	src := `
def spin():
    for i in range(1000000):
        pass

def cancelled():
    stop()
    return 1

def test():
    assert.fails(%s, ".*")
    reached()

test()
`
	for _, tt := range []struct{ fn, want string }{
		{"spin", "Starlark computation cancelled: too many steps"},
		{"cancelled", "Starlark computation cancelled: timeout"},
	} {
		reached := false
		env := starlark.StringDict{
			"assert": Assert(),
			"stop": starlark.NewBuiltin("stop", func(th *starlark.Thread, _ *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				th.Cancel("timeout")
				return starlark.None, nil
			}),
			"reached": starlark.NewBuiltin("reached", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				reached = true
				return starlark.None, nil
			}),
		}
		thread := &starlark.Thread{Name: "test"}
		thread.SetMaxExecutionSteps(10000)
		var reports []string
		SetReporter(thread, func(pos, msg string) { reports = append(reports, msg) })
		_, err := starlark.ExecFileOptions(dialect, thread, "t.star", fmt.Sprintf(src, tt.fn), env)
		wantErr(t, tt.fn, err, tt.want)
		if reached || len(reports) > 0 {
			t.Errorf("%s: reached=%v reports=%v", tt.fn, reached, reports)
		}
	}
}

func TestAssertModuleShared(t *testing.T) {
	if Assert() != Assert() {
		t.Error("Assert is rebuilt per call")
	}
	if Assert().Name != "assert" {
		t.Errorf("name %q", Assert().Name)
	}
}
