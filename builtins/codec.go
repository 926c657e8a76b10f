package builtins

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// ToStarlark converts JSON-like Go data (nil, bool, int, int64, float64, string, []any,
// map[string]any) to a fresh, unfrozen Starlark value: dicts with keys inserted in sorted
// order, lists as *starlark.List. Nesting deeper than MaxDepth containers, a list or dict
// over MaxList, a string over MaxOutput, a non-finite float, a value costing more than
// MaxValue, or any other Go type is an error naming the path, e.g.
// `value["x"][2]: Go type chan int is not data`.
func ToStarlark(v any) (starlark.Value, error) { return toStarlarkNamed("value", v) }

func toStarlarkNamed(root string, v any) (starlark.Value, error) {
	c := &toConv{budget: MaxValue}
	x, err := c.conv(v, 0)
	if err != nil {
		return nil, at(err, root)
	}
	return x, nil
}

type toConv struct{ budget int }

func (c *toConv) spend(n int) error {
	c.budget -= n
	if c.budget < 0 {
		return errorf("value is larger than %d bytes", MaxValue)
	}
	return nil
}

func (c *toConv) conv(v any, depth int) (starlark.Value, error) {
	if err := c.spend(1); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return starlark.None, nil
	case bool:
		return starlark.Bool(v), nil
	case int:
		return starlark.MakeInt(v), nil
	case int64:
		return starlark.MakeInt64(v), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errorf("float %v is not data", v)
		}
		return starlark.Float(v), nil
	case string:
		if err := c.str(v); err != nil {
			return nil, err
		}
		return starlark.String(v), nil
	case []any:
		if err := container(depth, "list", len(v)); err != nil {
			return nil, err
		}
		elems := make([]starlark.Value, len(v))
		for i, x := range v {
			e, err := c.conv(x, depth+1)
			if err != nil {
				return nil, at(err, index(i))
			}
			elems[i] = e
		}
		return starlark.NewList(elems), nil
	case map[string]any:
		if err := container(depth, "dict", len(v)); err != nil {
			return nil, err
		}
		d := starlark.NewDict(len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := c.str(k); err != nil {
				return nil, at(err, key(k))
			}
			e, err := c.conv(v[k], depth+1)
			if err != nil {
				return nil, at(err, key(k))
			}
			if err := d.SetKey(starlark.String(k), e); err != nil {
				return nil, errorf("%v", err)
			}
		}
		return d, nil
	}
	return nil, errorf("Go type %T is not data", v)
}

func (c *toConv) str(s string) error {
	if len(s) > MaxOutput {
		return errorf("string is %d bytes, more than %d", len(s), MaxOutput)
	}
	return c.spend(len(s))
}

// container checks one list, tuple or dict of n items at the given depth (the number of
// containers around it).
func container(depth int, what string, n int) error {
	if depth >= MaxDepth {
		return errorf("nested deeper than %d", MaxDepth)
	}
	if n > MaxList {
		unit := "items"
		if what == "dict" {
			unit = "entries"
		}
		return errorf("%s has %d %s, more than %d", what, n, unit, MaxList)
	}
	return nil
}

// FromStarlark converts a Starlark value back to JSON-like Go data: None→nil, Bool→bool,
// Int→int64 (an error if it does not fit), Float→float64 (NaN and infinities rejected),
// String→string, List and Tuple→[]any, Dict→map[string]any (keys must be strings). Anything
// else (functions, builtins, structs, actions, sets, bytes...) is an error naming the type
// and the path, e.g. `state["x"][2]: function is not data`. The caps are those of
// ToStarlark. The root of the path is "state", the value this mostly converts;
// [FromStarlarkNamed] names it otherwise.
func FromStarlark(v starlark.Value) (any, error) { return FromStarlarkNamed("state", v) }

// FromStarlarkNamed is FromStarlark with root as the first element of paths in errors.
func FromStarlarkNamed(root string, v starlark.Value) (any, error) {
	c := &fromConv{budget: MaxValue}
	x, err := c.conv(v, 0)
	if err != nil {
		return nil, at(err, root)
	}
	return x, nil
}

type fromConv struct{ budget int }

func (c *fromConv) spend(n int) error {
	c.budget -= n
	if c.budget < 0 {
		return errorf("value is larger than %d bytes", MaxValue)
	}
	return nil
}

func (c *fromConv) str(s starlark.String) error {
	if len(s) > MaxOutput {
		return errorf("string is %d bytes, more than %d", len(s), MaxOutput)
	}
	return c.spend(len(s))
}

func (c *fromConv) conv(v starlark.Value, depth int) (any, error) {
	if err := c.spend(1); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		i, ok := v.Int64()
		if !ok {
			return nil, errorf("int %s does not fit in 64 bits", clipRaw(v.String()))
		}
		return i, nil
	case starlark.Float:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errorf("float %s is not data", v.String())
		}
		return f, nil
	case starlark.String:
		if err := c.str(v); err != nil {
			return nil, err
		}
		return string(v), nil
	case *starlark.List:
		return c.seq(v, depth)
	case starlark.Tuple:
		return c.seq(v, depth)
	case *starlark.Dict:
		if err := container(depth, "dict", v.Len()); err != nil {
			return nil, err
		}
		out := make(map[string]any, v.Len())
		for k, x := range v.Entries() {
			ks, ok := k.(starlark.String)
			if !ok {
				return nil, errorf("dict key %s is %s, want string", clipRaw(k.String()), k.Type())
			}
			if err := c.str(ks); err != nil {
				return nil, at(err, key(string(ks)))
			}
			e, err := c.conv(x, depth+1)
			if err != nil {
				return nil, at(err, key(string(ks)))
			}
			out[string(ks)] = e
		}
		return out, nil
	}
	return nil, errorf("%s is not data", v.Type())
}

func (c *fromConv) seq(v starlark.Indexable, depth int) (any, error) {
	n := v.Len()
	if err := container(depth, v.Type(), n); err != nil {
		return nil, err
	}
	out := make([]any, n)
	for i := range n {
		e, err := c.conv(v.Index(i), depth+1)
		if err != nil {
			return nil, at(err, index(i))
		}
		out[i] = e
	}
	return out, nil
}

// pathError is a conversion error at a path. The path is collected while the error unwinds,
// innermost element first, and printed outermost first.
type pathError struct {
	path []string
	msg  string
}

func (e *pathError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		b.WriteString(e.path[i])
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.msg)
	return b.String()
}

func errorf(format string, args ...any) error {
	return &pathError{msg: fmt.Sprintf(format, args...)}
}

// at adds the next outer path element (a root, an index or a key) to err.
func at(err error, elem string) error {
	if pe, ok := err.(*pathError); ok {
		pe.path = append(pe.path, elem)
	}
	return err
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

func key(k string) string { return "[" + clipRaw(starlark.String(k).String()) + "]" }
