package builtins

import (
	"fmt"
	"maps"
	"sync"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// pure is the frozen set of pure modules every script and library sees.
var pure = sync.OnceValue(func() starlark.StringDict {
	d := starlark.StringDict{
		"struct": starlark.NewBuiltin("struct", starlarkstruct.Make),
		"json":   jsonModule(),
		"re":     reModule(),
		"path":   pathModule(),
		"shell":  shellModule(),
		"git":    gitModule(),
	}
	maps.Copy(d, boundedBuiltins())
	d.Freeze()
	return d
})

// Surface is the predeclared names a script of kind k compiles and runs with: its own action
// module (e.g. "Match") plus the pure modules. The values are built once, frozen and shared;
// the map itself is a fresh copy, so a caller may add names (a test surface) without
// affecting anyone else. An invalid kind gets nil (on which Has reports false for every name).
func Surface(k Kind) starlark.StringDict {
	m := ActionModule(k)
	if m == nil {
		return nil
	}
	d := Library()
	d[m.Name] = m
	return d
}

// Library is the pure modules only (struct, json, re, path, shell, git): what loaded library
// modules (load("./x.star"), load("@agent-shell//x.star")) compile with; a library can compute
// data but cannot mint actions. The map is a fresh copy of frozen, shared values.
func Library() starlark.StringDict { return maps.Clone(pure()) }

// jsonModule wraps go.starlark.net/lib/json with size limits: decode and indent refuse input
// over MaxOutput bytes (and decode input nested deeper than MaxDepth), and encode and
// encode_indent refuse to produce more than MaxOutput bytes, checking what they would
// write before they write it.
func jsonModule() *starlarkstruct.Module {
	up := json.Module.Members
	m := &starlarkstruct.Module{Name: "json", Members: starlark.StringDict{
		"encode":        starlark.NewBuiltin("json.encode", capResult(up["encode"])),
		"encode_indent": starlark.NewBuiltin("json.encode_indent", capResult(up["encode_indent"])),
		"decode":        starlark.NewBuiltin("json.decode", capInput(up["decode"], true)),
		"indent":        starlark.NewBuiltin("json.indent", capInput(up["indent"], false)),
	}}
	m.Freeze()
	return m
}

func capResult(up starlark.Value) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 && textSize(args[0], MaxValueBytes) > MaxValueBytes {
			return nil, tooLarge(b.Name(), textSize(args[0], MaxValueBytes))
		}
		v, err := starlark.Call(thread, up, args, kwargs)
		if err != nil {
			return nil, err
		}
		if s, ok := v.(starlark.String); ok && len(s) > MaxOutput {
			return nil, fmt.Errorf("%s: result is %d bytes, more than %d", b.Name(), len(s), MaxOutput)
		}
		return v, nil
	}
}

func capInput(up starlark.Value, depth bool) builtinFunc {
	return func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			if s, ok := args[0].(starlark.String); ok {
				if len(s) > MaxOutput {
					return nil, fmt.Errorf("%s: input is %d bytes, more than %d", b.Name(), len(s), MaxOutput)
				}
				if depth && jsonDepth(string(s)) > MaxDepth {
					return nil, fmt.Errorf("%s: input nests deeper than %d", b.Name(), MaxDepth)
				}
			}
		}
		return starlark.Call(thread, up, args, kwargs)
	}
}

// jsonDepth returns the deepest nesting of arrays and objects in s, skipping strings. It does
// not validate s (decode does).
func jsonDepth(s string) int {
	depth, max := 0, 0
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > max {
				max = depth
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return max
}
