package builtins

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Action is the one value a script returns. Only the surfaces' builtins make one; scripts
// cannot forge it (it is a Go type with no Starlark constructor and no mutators).
//
// Which fields are set depends on Op:
//
//	Match     yes, no                          Reason
//	Review    approve, defer                   -
//	          approve_for                      Scope
//	          deny                             Reason
//	          rewrite                          Argv
//	Intercept proceed                          -
//	          rewrite                          Argv
//	          respond                          Stdout, Stderr, Exit
//	          reject                           Reason
//	Result    keep                             -
//	          replace                          Stdout, Stderr
//	          reject_disclosure                Reason
//	Effect    add, replace                     Effects
//	Audit     keep                             -
//	          drop_field                       Field
//	          replace                          Fields
type Action struct {
	Kind           Kind
	Op             string
	Reason         string
	Scope          string            // Review.approve_for
	Argv           []string          // Review.rewrite, Intercept.rewrite
	Stdout, Stderr string            // Intercept.respond, Result.replace
	Exit           int               // Intercept.respond (0..255)
	Effects        []string          // Effect.add / Effect.replace and shortcuts
	Field          string            // Audit.drop_field
	Fields         map[string]string // Audit.replace
}

var (
	_ starlark.Value      = (*Action)(nil)
	_ starlark.HasAttrs   = (*Action)(nil)
	_ starlark.Comparable = (*Action)(nil)
)

var actionAttrs = []string{"argv", "effects", "exit", "field", "fields", "kind", "op", "reason", "scope", "stderr", "stdout"}

// Type returns "action".
func (a *Action) Type() string { return "action" }

// Freeze does nothing: an action has no mutators.
func (a *Action) Freeze() {}

// Truth is always True.
func (a *Action) Truth() starlark.Bool { return starlark.True }

// Hash fails: actions are not hashable (they carry lists and maps).
func (a *Action) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: action") }

// AttrNames lists the attributes a script may read.
func (a *Action) AttrNames() []string { return slices.Clone(actionAttrs) }

// Attr returns one attribute; argv and effects are tuples, fields a frozen dict with sorted
// keys. Every attribute exists on every action (unset ones are empty).
func (a *Action) Attr(name string) (starlark.Value, error) {
	switch name {
	case "kind":
		return starlark.String(a.Kind), nil
	case "op":
		return starlark.String(a.Op), nil
	case "reason":
		return starlark.String(a.Reason), nil
	case "scope":
		return starlark.String(a.Scope), nil
	case "argv":
		return stringTuple(a.Argv), nil
	case "stdout":
		return starlark.String(a.Stdout), nil
	case "stderr":
		return starlark.String(a.Stderr), nil
	case "exit":
		return starlark.MakeInt(a.Exit), nil
	case "effects":
		return stringTuple(a.Effects), nil
	case "field":
		return starlark.String(a.Field), nil
	case "fields":
		d := starlark.NewDict(len(a.Fields))
		for _, k := range slices.Sorted(maps.Keys(a.Fields)) {
			_ = d.SetKey(starlark.String(k), starlark.String(a.Fields[k]))
		}
		d.Freeze()
		return d, nil
	}
	return nil, nil // starlark reports "action has no .x attribute"
}

// CompareSameType implements == and != by value; other comparisons are errors.
func (a *Action) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	b := y.(*Action)
	switch op {
	case syntax.EQL:
		return a.Equal(b), nil
	case syntax.NEQ:
		return !a.Equal(b), nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", a.Type(), op, b.Type())
}

// Equal reports whether a and b are the same action (nil and empty slices and maps are
// equal).
func (a *Action) Equal(b *Action) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Op == b.Op && a.Reason == b.Reason && a.Scope == b.Scope &&
		slices.Equal(a.Argv, b.Argv) && a.Stdout == b.Stdout && a.Stderr == b.Stderr &&
		a.Exit == b.Exit && slices.Equal(a.Effects, b.Effects) && a.Field == b.Field &&
		maps.Equal(a.Fields, b.Fields)
}

// String renders the constructor call that makes an equal action, e.g.
// Match.yes("terraform destroy"), Review.approve(), Effect.add(["network"]).
func (a *Action) String() string {
	var b strings.Builder
	b.WriteString(a.Kind.Module())
	b.WriteByte('.')
	b.WriteString(a.Op)
	b.WriteByte('(')
	switch {
	case a.Op == OpApproveFor:
		b.WriteString(quote(a.Scope))
	case a.Op == OpRewrite:
		writeStrings(&b, a.Argv)
	case a.Kind == KindEffect:
		writeStrings(&b, a.Effects)
	case a.Op == OpRespond || (a.Kind == KindAfter && a.Op == OpReplace):
		sep := ""
		if a.Stdout != "" {
			b.WriteString("stdout = " + quote(a.Stdout))
			sep = ", "
		}
		if a.Stderr != "" {
			b.WriteString(sep + "stderr = " + quote(a.Stderr))
			sep = ", "
		}
		if a.Exit != 0 {
			b.WriteString(sep + "exit = " + strconv.Itoa(a.Exit))
		}
	case a.Op == OpDropField:
		b.WriteString(quote(a.Field))
	case a.Kind == KindAudit && a.Op == OpReplace:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(a.Fields)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(k) + ": " + quote(a.Fields[k]))
		}
		b.WriteByte('}')
	case a.Reason != "":
		b.WriteString(quote(a.Reason))
	}
	b.WriteByte(')')
	return b.String()
}

func quote(s string) string { return starlark.String(s).String() }

func writeStrings(b *strings.Builder, xs []string) {
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(x))
	}
	b.WriteByte(']')
}

func stringTuple(xs []string) starlark.Tuple {
	t := make(starlark.Tuple, len(xs))
	for i, x := range xs {
		t[i] = starlark.String(x)
	}
	return t
}
