package runtime

import (
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
)

// The bounded operators keep Starlark's meaning: in-place += on lists and
// |= on dicts (aliases see the change), frozen values refused, numbers and
// formatting as before; only what would be too large fails.
func TestBoundedOperatorsKeepTheirMeaning(t *testing.T) {
	src := `
G = [1]

def on_event(ctx, state):
    a = [1]
    b = a
    b += [2]
    b += (3,)
    d = {"x": 1}
    e = d
    e |= {"y": 2}
    s = "ab"
    s += "c"
    n = 6
    n *= 7
    n += 1
    m = {"k": 1} | {"j": 2}
    t = (1, 2) + (3,)
    fmt = "%s-%d" % ("x", 2)
    fmt %= ()
    checks = [
        a == [1, 2, 3],
        d == {"x": 1, "y": 2},
        s == "abc",
        n == 43,
        len(m) == 2,
        t == (1, 2, 3),
        fmt == "x-2",
        "a-b".replace("-", "+") == "a+b",
        ",".join(["a", "b"]) == "a,b",
        "a b".split() == ["a", "b"],
        "{} {}".format(1, "x") == "1 x",
        str([1, "a"]) == '[1, "a"]',
        list("ab".elems()) == ["a", "b"],
        sorted([3, 1]) == [1, 3],
        [0] * 3 == [0, 0, 0],
        3 * "ab" == "ababab",
        2 * 3 == 6,
    ]
    for i, ok in enumerate(checks):
        if not ok:
            fail("check %d failed" % i)
    return Match.yes("ok")
`
	res := runOne(t, builtins.KindMatcher, src, Limits{Fuel: 100_000, Timeout: 5 * time.Second})
	wantAction(t, "meaning", res, `Match.yes("ok")`)

	frozen := "G = [1]\n\ndef on_event(ctx, state):\n    x = G\n    x += [2]\n    return Match.yes()\n"
	wantFailure(t, "frozen list", runOne(t, builtins.KindMatcher, frozen, Limits{Fuel: 1000, Timeout: time.Second}), FailError, "frozen")
}

func TestBoundedOperatorsRefusals(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"index +=", "    x = [1]\n    x[0] += 1", "+= on an index or a field is not supported here: write x = x + y"},
		{"reserved name", "    __bounded_op = 1", "__bounded_op is a reserved name"},
	} {
		_, err := Compile([]Script{script(builtins.KindMatcher, "def on_event(ctx, state):\n"+tc.body+"\n    return Match.yes()\n", Limits{})}, Options{Dir: t.TempDir()})
		wantErrContains(t, tc.name, err, tc.want)
	}
}
