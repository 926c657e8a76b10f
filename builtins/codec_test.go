package builtins

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func TestCodecRoundTrip(t *testing.T) {
	values := []any{
		nil, true, false, int64(0), int64(-7), int64(math.MaxInt64), int64(math.MinInt64), 1.5, -0.25, "", "héllo\x00",
		[]any{}, map[string]any{},
		[]any{int64(1), "a", nil, []any{true}},
		map[string]any{"b": int64(2), "a": []any{1.5, map[string]any{"c": "d"}}, "": nil},
	}
	for _, v := range values {
		sv, err := ToStarlark(v)
		if err != nil {
			t.Fatalf("ToStarlark(%#v): %v", v, err)
		}
		back, err := FromStarlark(sv)
		if err != nil {
			t.Fatalf("FromStarlark(%s): %v", sv, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Errorf("round trip %#v -> %s -> %#v", v, sv, back)
		}
	}
	// int converts to an int64 on the way back.
	sv, err := ToStarlark(map[string]any{"n": 3})
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := FromStarlark(sv); !reflect.DeepEqual(back, map[string]any{"n": int64(3)}) {
		t.Errorf("int round trip = %#v", back)
	}
}

func TestToStarlarkShape(t *testing.T) {
	v, err := ToStarlark(map[string]any{"zeta": int64(1), "alpha": []any{"x"}, "mid": map[string]any{"y": nil, "b": true}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `{"alpha": ["x"], "mid": {"b": True, "y": None}, "zeta": 1}`; got != want {
		t.Errorf("got %s, want %s (keys sorted)", got, want)
	}
	d := v.(*starlark.Dict)
	if err := d.SetKey(starlark.String("new"), starlark.None); err != nil {
		t.Errorf("result should be unfrozen: %v", err)
	}
	l, _, _ := d.Get(starlark.String("alpha"))
	if err := l.(*starlark.List).Append(starlark.None); err != nil {
		t.Errorf("nested list should be unfrozen: %v", err)
	}
	// Two conversions share nothing.
	v2, _ := ToStarlark(map[string]any{"alpha": []any{"x"}})
	l2, _, _ := v2.(*starlark.Dict).Get(starlark.String("alpha"))
	if l2.(*starlark.List).Len() != 1 {
		t.Error("conversions share state")
	}
}

// nest returns depth nested lists around x.
func nest(depth int, x any) any {
	for range depth {
		x = []any{x}
	}
	return x
}

func TestToStarlarkErrors(t *testing.T) {
	many := make([]any, MaxList+1)
	manyKeys := map[string]any{}
	for i := range MaxList + 1 {
		manyKeys[strings.Repeat("k", i+1)] = nil
	}
	bigString := strings.Repeat("s", MaxOutput)
	tests := []struct {
		v    any
		want string
	}{
		{make(chan int), "value: Go type chan int is not data"},
		{map[string]any{"x": []any{int64(1), int64(2), struct{}{}}}, `value["x"][2]: Go type struct {} is not data`},
		{[]string{"a"}, "value: Go type []string is not data"},
		{map[string]string{}, "value: Go type map[string]string is not data"},
		{int32(1), "value: Go type int32 is not data"},
		{uint64(1), "value: Go type uint64 is not data"},
		{math.NaN(), "value: float NaN is not data"},
		{[]any{math.Inf(1)}, "value[0]: float +Inf is not data"},
		{strings.Repeat("s", MaxOutput+1), "value: string is 262145 bytes, more than 262144"},
		{map[string]any{strings.Repeat("k", MaxOutput+1): nil}, "string is 262145 bytes"},
		{many, "value: list has 257 items, more than 256"},
		{manyKeys, "value: dict has 257 entries, more than 256"},
		{nest(MaxDepth+1, nil), "value" + strings.Repeat("[0]", MaxDepth) + ": nested deeper than 32"},
		{[]any{bigString, bigString, bigString, bigString, bigString}, "value[3]: value is larger than 1048576 bytes"},
	}
	for _, tt := range tests {
		_, err := ToStarlark(tt.v)
		wantErr(t, clipRaw(reflect.TypeOf(tt.v).String()), err, tt.want)
	}
	if _, err := ToStarlark(nest(MaxDepth, "leaf")); err != nil {
		t.Errorf("%d nested lists: %v", MaxDepth, err)
	}
}

func TestFromStarlark(t *testing.T) {
	env := Surface(KindMatcher)
	ok := []struct {
		expr string
		want any
	}{
		{`None`, nil},
		{`(1, "a")`, []any{int64(1), "a"}},
		{`{"b": [1.0, ()], "a": {}}`, map[string]any{"b": []any{1.0, []any{}}, "a": map[string]any{}}},
		{`-(1 << 63)`, int64(math.MinInt64)},
	}
	for _, tt := range ok {
		v, err := eval(env, tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromStarlark(v)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.expr, got, tt.want)
		}
	}
	bad := []struct{ expr, want string }{
		{`{"x": [1, 2, lambda: 3]}`, `state["x"][2]: function is not data`},
		{`{"x": len}`, `state["x"]: builtin_function_or_method is not data`},
		{`[struct(a = 1)]`, `state[0]: struct is not data`},
		{`{"a": Match.yes()}`, `state["a"]: action is not data`},
		{`[b"x"]`, `state[0]: bytes is not data`},
		{`range(3)`, `state: range is not data`},
		{`Match`, `state: module is not data`},
		{`{1: "x"}`, `state: dict key 1 is int, want string`},
		{`{"a": {("t",): 1}}`, `state["a"]: dict key ("t",) is tuple, want string`},
		{`1 << 63`, `state: int 9223372036854775808 does not fit in 64 bits`},
		{`[float("nan")]`, `state[0]: float nan is not data`},
		{`{"f": float("-inf")}`, `state["f"]: float -inf is not data`},
		{`["x"] * 257`, `state: list has 257 items, more than 256`},
		{`tuple(["x"] * 257)`, `state: tuple has 257 items, more than 256`},
		{`{str(i): i for i in range(257)}`, `state: dict has 257 entries, more than 256`},
		{`"s" * 262145`, `state: string is 262145 bytes, more than 262144`},
		{`["s" * 200000] * 6`, `state[5]: value is larger than 1048576 bytes`},
	}
	for _, tt := range bad {
		v, err := eval(env, tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		_, err = FromStarlark(v)
		wantErr(t, tt.expr, err, tt.want)
	}
}

// A value whose parts are shared (so it is small in memory but huge as a tree), and a list
// that contains itself, stop at the caps instead of running away.
func TestFromStarlarkSharedAndCyclic(t *testing.T) {
	g, err := execFile(Library(), `
def build():
    x = ["a"]
    for i in range(30):
        x = [x] * 256
    return x
wide = build()
def cyc():
    l = []
    l.append(l)
    return l
cyclic = cyc()
`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = FromStarlark(g["wide"])
	wantErr(t, "wide", err, "value is larger than 1048576 bytes")
	_, err = FromStarlark(g["cyclic"])
	wantErr(t, "cyclic", err, "nested deeper than 32")
	// A named root.
	_, err = FromStarlarkNamed("ctx", g["cyclic"])
	wantErr(t, "named", err, "ctx"+strings.Repeat("[0]", MaxDepth)+": nested deeper than 32")
}

func TestFromStarlarkDepth(t *testing.T) {
	ok, _ := ToStarlark(nest(MaxDepth, int64(1)))
	if _, err := FromStarlark(ok); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	deep := starlark.Value(starlark.NewList(nil))
	for range MaxDepth {
		deep = starlark.Tuple{deep}
	}
	_, err := FromStarlark(deep)
	wantErr(t, "deep", err, "nested deeper than 32")
}
