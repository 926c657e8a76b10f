package builtins

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

const reporterKey = "agent-shell/builtins.reporter"

// maxRepr is the most bytes of one value's repr in an assertion message.
const maxRepr = 1 << 10

// SetReporter installs where failed assertions go for this thread: the position of the
// innermost frame of the caller (file:line:col) and the message. A failed assertion then
// reports and returns None, so a test goes on. Without a reporter, a failed assertion is an
// ordinary Starlark error.
func SetReporter(thread *starlark.Thread, report func(pos, msg string)) {
	thread.SetLocal(reporterKey, report)
}

var assertModule = sync.OnceValue(func() *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: "assert", Members: starlark.StringDict{
		"eq":       starlark.NewBuiltin("assert.eq", assertEq),
		"ne":       starlark.NewBuiltin("assert.ne", assertNe),
		"true":     starlark.NewBuiltin("assert.true", assertTrue),
		"contains": starlark.NewBuiltin("assert.contains", assertContains),
		"fails":    starlark.NewBuiltin("assert.fails", assertFails),
	}}
	m.Freeze()
	return m
})

// Assert is the `assert` module for *_test.star files: eq(a, b), ne(a, b), true(x, msg=""),
// contains(container, item) (a substring of a string; an element of a list or tuple; a key
// of a dict), fails(fn, pattern) (calls fn with no arguments and passes when it raises an
// error whose message matches the regular expression pattern). Assertions do not halt: a
// failed one goes to the thread's reporter (see SetReporter) and returns None. Messages read
// like `assert.eq: "allow" != "defer"`. Built once, frozen, shared.
func Assert() *starlarkstruct.Module { return assertModule() }

// failed reports msg for the assertion b, or returns it as an error without a reporter.
func failed(thread *starlark.Thread, b *starlark.Builtin, format string, args ...any) (starlark.Value, error) {
	msg := b.Name() + ": " + fmt.Sprintf(format, args...)
	report, _ := thread.Local(reporterKey).(func(pos, msg string))
	if report == nil {
		return nil, fmt.Errorf("%s", msg)
	}
	pos := ""
	if thread.CallStackDepth() > 1 {
		pos = thread.CallFrame(1).Pos.String()
	}
	report(pos, msg)
	return starlark.None, nil
}

// repr is a value's Starlark repr, cut to maxRepr bytes.
func repr(v starlark.Value) string {
	s := v.String()
	if len(s) > maxRepr {
		return s[:maxRepr] + "..."
	}
	return s
}

func assertEq(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, y starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &x, &y); err != nil {
		return nil, err
	}
	eq, err := starlark.Equal(x, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if !eq {
		return failed(thread, b, "%s != %s", repr(x), repr(y))
	}
	return starlark.None, nil
}

func assertNe(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, y starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &x, &y); err != nil {
		return nil, err
	}
	eq, err := starlark.Equal(x, y)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if eq {
		return failed(thread, b, "%s == %s", repr(x), repr(y))
	}
	return starlark.None, nil
}

func assertTrue(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var msg string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x, "msg?", &msg); err != nil {
		return nil, err
	}
	if !x.Truth() {
		if msg == "" {
			return failed(thread, b, "%s is not true", repr(x))
		}
		return failed(thread, b, "%s", msg)
	}
	return starlark.None, nil
}

func assertContains(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var container, item starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &container, &item); err != nil {
		return nil, err
	}
	switch container.(type) {
	case starlark.String, *starlark.List, starlark.Tuple, *starlark.Dict:
	default:
		return nil, fmt.Errorf("%s: got %s, want string, list, tuple or dict", b.Name(), container.Type())
	}
	in, err := starlark.Binary(syntax.IN, item, container)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	if !in.Truth() {
		return failed(thread, b, "%s does not contain %s", repr(container), repr(item))
	}
	return starlark.None, nil
}

func assertFails(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var fn starlark.Callable
	var pattern string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &fn, &pattern); err != nil {
		return nil, err
	}
	if len(pattern) > maxPattern {
		return nil, fmt.Errorf("%s: pattern is %d bytes, more than %d", b.Name(), len(pattern), maxPattern)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	_, err = starlark.Call(thread, fn, nil, nil)
	if err == nil {
		return failed(thread, b, "evaluation succeeded unexpectedly (want error matching %q)", pattern)
	}
	msg := err.Error()
	if e, ok := err.(*starlark.EvalError); ok {
		msg = e.Msg
	}
	if strings.Contains(msg, "Starlark computation cancelled") {
		return nil, err // out of fuel or time: the test stops
	}
	if !re.MatchString(msg) {
		return failed(thread, b, "error %s does not match %q", repr(starlark.String(msg)), pattern)
	}
	return starlark.None, nil
}
