package builtins

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// The approval scopes Review.approve_for accepts.
var reviewScopes = []string{"once", "exact_session", "prefix_session", "durable_exact"}

// The effects that take no argument.
var bareEffects = []string{"network", "child_processes", "arbitrary_code", "privilege_change"}

type builtinFunc = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)

var actionModules = sync.OnceValue(func() [len(kinds)]*starlarkstruct.Module {
	var mods [len(kinds)]*starlarkstruct.Module
	for i, k := range kinds {
		m := &starlarkstruct.Module{Name: k.Module(), Members: starlark.StringDict{}}
		for name, fn := range constructors(k) {
			m.Members[name] = starlark.NewBuiltin(k.Module()+"."+name, fn)
		}
		m.Freeze()
		mods[i] = m
	}
	return mods
})

// ActionModule returns the action module of kind k (its constructors), or nil for an
// invalid kind. The module is built once, frozen and shared.
func ActionModule(k Kind) *starlarkstruct.Module {
	i := k.index()
	if i < 0 {
		return nil
	}
	return actionModules()[i]
}

func constructors(k Kind) map[string]builtinFunc {
	switch k {
	case KindMatcher:
		return map[string]builtinFunc{"yes": reasonOptional(k, OpYes), "no": reasonOptional(k, OpNo)}
	case KindReviewer:
		return map[string]builtinFunc{
			"approve":     noArgs(k, OpApprove),
			"approve_for": approveFor,
			"deny":        reasonRequired(k, OpDeny),
			"rewrite":     rewrite(k),
			"defer":       noArgs(k, OpDefer),
		}
	case KindBefore:
		return map[string]builtinFunc{
			"proceed": noArgs(k, OpProceed),
			"rewrite": rewrite(k),
			"respond": output(k, OpRespond, true),
			"reject":  reasonRequired(k, OpReject),
		}
	case KindAfter:
		return map[string]builtinFunc{
			"keep":              noArgs(k, OpKeep),
			"replace":           output(k, OpReplace, false),
			"reject_disclosure": reasonRequired(k, OpRejectDisclosure),
		}
	case KindEffect:
		m := map[string]builtinFunc{
			"add":        effectList(OpAdd),
			"replace":    effectList(OpReplace),
			"read_path":  effectPath("read"),
			"write_path": effectPath("write"),
		}
		for _, e := range bareEffects {
			m[e] = noArgs(k, OpAdd, e)
		}
		return m
	case KindAudit:
		return map[string]builtinFunc{
			"keep":       noArgs(k, OpKeep),
			"drop_field": dropField,
			"replace":    auditReplace,
		}
	}
	return nil
}

// noArgs makes a constructor that takes no arguments; effects, if any, become the action's
// Effects (for the Effect shortcuts network() and friends).
func noArgs(k Kind, op string, effects ...string) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
			return nil, err
		}
		a := &Action{Kind: k, Op: op}
		if len(effects) > 0 {
			a.Effects = slices.Clone(effects)
		}
		return a, nil
	}
}

func reasonOptional(k Kind, op string) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var reason string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "reason?", &reason); err != nil {
			return nil, err
		}
		if err := checkString(b.Name(), "reason", reason, MaxString); err != nil {
			return nil, err
		}
		return &Action{Kind: k, Op: op, Reason: reason}, nil
	}
}

func reasonRequired(k Kind, op string) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var reason string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "reason", &reason); err != nil {
			return nil, err
		}
		if strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("%s: reason must not be empty", b.Name())
		}
		if err := checkString(b.Name(), "reason", reason, MaxString); err != nil {
			return nil, err
		}
		return &Action{Kind: k, Op: op, Reason: reason}, nil
	}
}

func approveFor(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var scope string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "scope", &scope); err != nil {
		return nil, err
	}
	for _, s := range reviewScopes {
		if scope == s {
			return &Action{Kind: KindReviewer, Op: OpApproveFor, Scope: scope}, nil
		}
	}
	return nil, fmt.Errorf("%s: unknown scope %s (want one of %s)", b.Name(), clip(scope), strings.Join(reviewScopes, ", "))
}

func rewrite(k Kind) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &v); err != nil {
			return nil, err
		}
		argv, err := stringList(b.Name(), "argv", v)
		if err != nil {
			return nil, err
		}
		if len(argv) == 0 {
			return nil, fmt.Errorf("%s: argv must not be empty", b.Name())
		}
		if argv[0] == "" {
			return nil, fmt.Errorf("%s: argv[0] (the program) must not be empty", b.Name())
		}
		for i, s := range argv {
			if strings.IndexByte(s, 0) >= 0 {
				return nil, fmt.Errorf("%s: argv[%d] contains a NUL byte", b.Name(), i)
			}
			if err := checkString(b.Name(), fmt.Sprintf("argv[%d]", i), s, MaxString); err != nil {
				return nil, err
			}
		}
		return &Action{Kind: k, Op: OpRewrite, Argv: argv}, nil
	}
}

// output makes Intercept.respond (withExit) and Result.replace.
func output(k Kind, op string, withExit bool) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var stdout, stderr string
		exit := 0
		var err error
		if withExit {
			err = starlark.UnpackArgs(b.Name(), args, kwargs, "stdout?", &stdout, "stderr?", &stderr, "exit?", &exit)
		} else {
			err = starlark.UnpackArgs(b.Name(), args, kwargs, "stdout?", &stdout, "stderr?", &stderr)
		}
		if err != nil {
			return nil, err
		}
		if err := checkString(b.Name(), "stdout", stdout, MaxOutput); err != nil {
			return nil, err
		}
		if err := checkString(b.Name(), "stderr", stderr, MaxOutput); err != nil {
			return nil, err
		}
		if exit < 0 || exit > 255 {
			return nil, fmt.Errorf("%s: exit %d out of range 0..255", b.Name(), exit)
		}
		return &Action{Kind: k, Op: op, Stdout: stdout, Stderr: stderr, Exit: exit}, nil
	}
}

// effectList makes Effect.add (a string or a list of strings) and Effect.replace (a list).
func effectList(op string) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "effects", &v); err != nil {
			return nil, err
		}
		var effects []string
		if s, ok := v.(starlark.String); ok && op == OpAdd {
			effects = []string{string(s)}
		} else {
			var err error
			if effects, err = stringList(b.Name(), "effects", v); err != nil {
				return nil, err
			}
		}
		for _, e := range effects {
			if err := checkEffect(b.Name(), e); err != nil {
				return nil, err
			}
		}
		if effects == nil {
			effects = []string{}
		}
		return &Action{Kind: KindEffect, Op: op, Effects: effects}, nil
	}
}

func effectPath(prefix string) builtinFunc {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var p string
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &p); err != nil {
			return nil, err
		}
		e := prefix + ":" + p
		if err := checkEffect(b.Name(), e); err != nil {
			return nil, err
		}
		return &Action{Kind: KindEffect, Op: OpAdd, Effects: []string{e}}, nil
	}
}

// CheckEffect reports whether e is a well-formed effect string: read:<path>, write:<path>
// (non-empty path), network, child_processes, arbitrary_code, privilege_change or
// unknown:<reason> (non-empty reason), at most MaxString bytes with no NUL byte.
func CheckEffect(e string) error { return checkEffect("effect", e) }

func checkEffect(fn, e string) error {
	if err := checkString(fn, "effect", e, MaxString); err != nil {
		return err
	}
	if strings.IndexByte(e, 0) >= 0 {
		return fmt.Errorf("%s: effect %s contains a NUL byte", fn, clip(e))
	}
	for _, x := range bareEffects {
		if e == x {
			return nil
		}
	}
	for _, p := range []string{"read:", "write:", "unknown:"} {
		if rest, ok := strings.CutPrefix(e, p); ok {
			if rest == "" {
				what := "path"
				if p == "unknown:" {
					what = "reason"
				}
				return fmt.Errorf("%s: effect %q needs a %s after the colon", fn, e, what)
			}
			return nil
		}
	}
	return fmt.Errorf("%s: unknown effect %s (want read:<path>, write:<path>, network, child_processes, arbitrary_code, privilege_change or unknown:<reason>)", fn, clip(e))
}

func dropField(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("%s: field name must not be empty", b.Name())
	}
	if err := checkString(b.Name(), "name", name, MaxString); err != nil {
		return nil, err
	}
	return &Action{Kind: KindAudit, Op: OpDropField, Field: name}, nil
}

func auditReplace(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d *starlark.Dict
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fields", &d); err != nil {
		return nil, err
	}
	if d.Len() > MaxList {
		return nil, fmt.Errorf("%s: %d fields, more than %d", b.Name(), d.Len(), MaxList)
	}
	fields := make(map[string]string, d.Len())
	for k, v := range d.Entries() {
		name, ok := k.(starlark.String)
		if !ok {
			return nil, fmt.Errorf("%s: field name %s is %s, want string", b.Name(), clipRaw(k.String()), k.Type())
		}
		if name == "" {
			return nil, fmt.Errorf("%s: field name must not be empty", b.Name())
		}
		if err := checkString(b.Name(), "field name", string(name), MaxString); err != nil {
			return nil, err
		}
		val, ok := v.(starlark.String)
		if !ok {
			return nil, fmt.Errorf("%s: field %s is %s, want string", b.Name(), clip(string(name)), v.Type())
		}
		if err := checkString(b.Name(), "field "+clip(string(name)), string(val), MaxString); err != nil {
			return nil, err
		}
		fields[string(name)] = string(val)
	}
	return &Action{Kind: KindAudit, Op: OpReplace, Fields: fields}, nil
}

// stringList converts a list or tuple of strings of at most MaxList items.
func stringList(fn, what string, v starlark.Value) ([]string, error) {
	var seq starlark.Indexable
	switch v := v.(type) {
	case *starlark.List:
		seq = v
	case starlark.Tuple:
		seq = v
	default:
		return nil, fmt.Errorf("%s: %s is %s, want list or tuple of strings", fn, what, v.Type())
	}
	n := seq.Len()
	if n > MaxList {
		return nil, fmt.Errorf("%s: %s has %d items, more than %d", fn, what, n, MaxList)
	}
	out := make([]string, n)
	for i := range n {
		s, ok := seq.Index(i).(starlark.String)
		if !ok {
			return nil, fmt.Errorf("%s: %s[%d] is %s, want string", fn, what, i, seq.Index(i).Type())
		}
		out[i] = string(s)
	}
	return out, nil
}

func checkString(fn, what, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s: %s is %d bytes, more than %d", fn, what, len(s), max)
	}
	return nil
}

// clip quotes s for an error message, cut to 64 bytes.
func clip(s string) string {
	const n = 64
	if len(s) > n {
		return quote(s[:n]) + "..."
	}
	return quote(s)
}
