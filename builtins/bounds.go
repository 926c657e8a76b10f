package builtins

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// MaxValueBytes bounds one value a script builds in one step: a string or
// bytes of that many bytes, a list, tuple, dict or set of that many bytes
// of slots. go.starlark.net lets one step build up to a GiB ("x" * (1 << 29),
// [0] * 10**9, list(range(10**8))), more than a hook process may hold, and
// checks between steps come too late for it. Every operator and builtin that
// can build a value much larger than its inputs goes through a check here
// first: the compiler routes operators and string methods to Bounded and
// BoundedMethod (runtime/rewrite.go), and the builtins that build
// collections or text are wrapped.
const MaxValueBytes = 16 << 20

// slotBytes is what one element of a list, tuple, dict or set costs at least.
const slotBytes = 16

// BoundedName and BoundedMethodName are the predeclared names the compiler
// routes operators and method calls to; scripts may not use them.
const (
	BoundedName       = "__bounded_op"
	BoundedMethodName = "__bounded_method"
)

// BoundedMethods are the string methods whose result can outgrow their
// inputs many times over.
var BoundedMethods = map[string]bool{"replace": true, "join": true, "split": true, "rsplit": true, "splitlines": true, "format": true}

// tooLarge is the error for a value over the bound.
func tooLarge(what string, n int) error {
	return fmt.Errorf("%s would build a value of about %d MiB, more than the %d MiB a value may have", what, n>>20, MaxValueBytes>>20)
}

// shallowSize is what building a copy of v costs: its bytes, or its slots.
func shallowSize(v starlark.Value) int {
	switch v := v.(type) {
	case starlark.String:
		return len(v)
	case starlark.Bytes:
		return len(v)
	case starlark.Sequence:
		return v.Len() * slotBytes
	case starlark.IterableMapping:
		return starlark.Len(v) * 3 * slotBytes
	}
	return 0
}

// textSize is how long v's text (str, repr, json) could be, counted until
// it passes limit: shared references count each time they are written, so
// [s] * 1000 of a 1 MiB s is a GiB of text.
func textSize(v starlark.Value, limit int) int {
	n := 0
	var walk func(v starlark.Value, depth int)
	walk = func(v starlark.Value, depth int) {
		if n > limit {
			return
		}
		switch v := v.(type) {
		case starlark.String:
			n += len(v) + 2
		case starlark.Bytes:
			n += 4*len(v) + 3
		case starlark.Indexable:
			n += 2
			if depth > MaxDepth*8 {
				n += limit // deeper than any text worth building
				return
			}
			for i := 0; i < v.Len() && n <= limit; i++ {
				n += 2
				walk(v.Index(i), depth+1)
			}
		case starlark.IterableMapping:
			n += 2
			for _, kv := range v.Items() {
				if n > limit {
					return
				}
				n += 4
				walk(kv[0], depth+1)
				walk(kv[1], depth+1)
			}
		case starlark.HasAttrs: // a struct, a ctx: its fields are written out
			n += 24
			if depth > MaxDepth*8 {
				n += limit
				return
			}
			for _, name := range v.AttrNames() {
				if n > limit {
					return
				}
				if a, err := v.Attr(name); err == nil && a != nil {
					n += len(name) + 4
					walk(a, depth+1)
				}
			}
		default:
			n += 24
		}
	}
	walk(v, 0)
	return n
}

// Bounded is x op y for the operators whose result can outgrow its
// operands (+ * % |), checked before it is built.
func Bounded(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) != 3 || len(kwargs) != 0 {
		return nil, fmt.Errorf("%s: internal call with %d arguments", b.Name(), len(args))
	}
	op, err := starlark.AsInt32(args[0])
	if err != nil {
		return nil, fmt.Errorf("%s: internal call without an operator", b.Name())
	}
	tok := syntax.Token(op)
	x, y := args[1], args[2]
	if n := resultSize(tok, x, y); n > MaxValueBytes {
		return nil, tooLarge(fmt.Sprintf("%s %s %s", x.Type(), tok, y.Type()), n)
	}
	switch tok {
	case syntax.PLUS_EQ:
		// x += y extends a list in place; other values get x + y.
		if l, ok := x.(*starlark.List); ok {
			return l, extend(l, y)
		}
		tok = syntax.PLUS
	case syntax.PIPE_EQ:
		// x |= y updates a dict in place; other values get x | y.
		xd, ok1 := x.(*starlark.Dict)
		yd, ok2 := y.(*starlark.Dict)
		if ok1 && ok2 {
			for _, kv := range yd.Items() {
				if err := xd.SetKey(kv[0], kv[1]); err != nil {
					return nil, err
				}
			}
			return xd, nil
		}
		tok = syntax.PIPE
	}
	return starlark.Binary(tok, x, y)
}

// extend appends y's elements to l, read first: l += l doubles l.
func extend(l *starlark.List, y starlark.Value) error {
	iter := starlark.Iterate(y)
	if iter == nil {
		return fmt.Errorf("list += %s: not iterable", y.Type())
	}
	var elems []starlark.Value
	var v starlark.Value
	for iter.Next(&v) {
		elems = append(elems, v)
	}
	iter.Done()
	for _, v := range elems {
		if err := l.Append(v); err != nil {
			return err
		}
	}
	return nil
}

// resultSize estimates the size of x op y without building it.
func resultSize(op syntax.Token, x, y starlark.Value) int {
	switch op {
	case syntax.PLUS, syntax.PLUS_EQ, syntax.PIPE, syntax.PIPE_EQ:
		return shallowSize(x) + shallowSize(y)
	case syntax.STAR:
		seq, n := x, y
		if _, ok := x.(starlark.Int); ok {
			seq, n = y, x
		}
		count, err := starlark.AsInt32(n)
		if err != nil || count <= 0 {
			return 0
		}
		return shallowSize(seq) * count
	case syntax.PERCENT:
		if _, ok := x.(starlark.String); ok {
			return len(x.(starlark.String)) + textSize(y, MaxValueBytes)
		}
	}
	return 0
}

// BoundedMethod is x.name(args...), with the result of a string method
// that can outgrow its inputs checked first; any other value's attribute
// is called as it is.
func BoundedMethod(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("%s: internal call with %d arguments", b.Name(), len(args))
	}
	recv, name := args[0], args[1].(starlark.String)
	if s, ok := recv.(starlark.String); ok {
		if n := methodSize(string(s), string(name), args[2:], kwargs); n > MaxValueBytes {
			return nil, tooLarge("str."+string(name), n)
		}
	}
	fn, err := getAttr(recv, string(name))
	if err != nil {
		return nil, err
	}
	return starlark.Call(thread, fn, args[2:], kwargs)
}

func getAttr(v starlark.Value, name string) (starlark.Value, error) {
	if h, ok := v.(starlark.HasAttrs); ok {
		attr, err := h.Attr(name)
		if err != nil {
			return nil, err
		}
		if attr != nil {
			return attr, nil
		}
	}
	return nil, starlark.NoSuchAttrError(fmt.Sprintf("%s has no .%s field or method", v.Type(), name))
}

// methodSize estimates the result of s.name(args) in bytes (or slots).
func methodSize(s, name string, args starlark.Tuple, kwargs []starlark.Tuple) int {
	str := func(i int) (string, bool) {
		if i < len(args) {
			a, ok := args[i].(starlark.String)
			return string(a), ok
		}
		return "", false
	}
	switch name {
	case "replace":
		old, ok1 := str(0)
		repl, ok2 := str(1)
		if !ok1 || !ok2 || len(repl) <= len(old) {
			return len(s)
		}
		count := len(s) + 1 // "" matches between every byte
		if old != "" {
			count = strings.Count(s, old)
		}
		return len(s) + count*(len(repl)-len(old))
	case "join":
		if len(args) == 0 {
			return 0
		}
		n := 0
		if seq, ok := args[0].(starlark.Sequence); ok {
			n = seq.Len() * len(s)
		}
		return n + textSize(args[0], MaxValueBytes)
	case "split", "rsplit", "splitlines":
		sep, ok := str(0)
		if !ok || sep == "" {
			return (len(strings.Fields(s)) + 1) * 2 * slotBytes
		}
		return (strings.Count(s, sep) + 1) * 2 * slotBytes
	case "format":
		n := len(s)
		fields := strings.Count(s, "{")
		for _, a := range args {
			n += fields * textSize(a, MaxValueBytes)
		}
		for _, kv := range kwargs {
			n += fields * textSize(kv[1], MaxValueBytes)
		}
		return n
	}
	return 0
}

// The universe's builtins a script gets wrapped: those that build a
// collection from an iterable, and those that write a value's text.
var (
	CollectionBuiltins = []string{"list", "tuple", "sorted", "dict", "enumerate", "zip", "reversed"}
	TextBuiltins       = []string{"str", "repr", "print", "fail"}
)

// boundedBuiltins wraps the universe's builtins that build a collection
// from an iterable, or text from a value, with a check of what they would
// build.
func boundedBuiltins() starlark.StringDict {
	d := starlark.StringDict{}
	for _, name := range CollectionBuiltins {
		up := starlark.Universe[name].(*starlark.Builtin)
		d[name] = starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := 0
			for _, a := range args {
				if a, ok := a.(starlark.Sequence); ok {
					n = max(n, a.Len()*3*slotBytes)
				}
			}
			if n > MaxValueBytes {
				return nil, tooLarge(name+"()", n)
			}
			return up.CallInternal(thread, args, kwargs)
		})
	}
	for _, name := range TextBuiltins {
		up := starlark.Universe[name].(*starlark.Builtin)
		d[name] = starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := 0
			for _, a := range args {
				n += textSize(a, MaxValueBytes)
			}
			if n > MaxValueBytes {
				return nil, tooLarge(name+"()", n)
			}
			return up.CallInternal(thread, args, kwargs)
		})
	}
	d[BoundedName] = starlark.NewBuiltin(BoundedName, Bounded)
	d[BoundedMethodName] = starlark.NewBuiltin(BoundedMethodName, BoundedMethod)
	return d
}
