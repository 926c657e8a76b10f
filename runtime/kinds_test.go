package runtime

import (
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/builtins"
)

// Every kind is in every table that must cover it, and each table agrees
// with its spec.
func TestKindSpecs(t *testing.T) {
	var listed []builtins.Kind
	for _, s := range kindSpecs {
		listed = append(listed, s.Kind)
	}
	if !slices.Equal(listed, builtins.Kinds()) {
		t.Fatalf("kindSpecs lists %v, builtins.Kinds is %v", listed, builtins.Kinds())
	}
	if _, ok := Spec("shell_other"); ok {
		t.Errorf("Spec of an unknown kind reports ok")
	}
	phases := map[string]builtins.Kind{}
	for _, k := range builtins.Kinds() {
		spec, ok := Spec(k)
		if !ok {
			t.Fatalf("%s: no spec", k)
		}
		// Its Starlark surface: the action module is predeclared, and its
		// constructors make exactly the ops the spec lists.
		mod := builtins.ActionModule(k)
		if mod == nil || mod.Name != k.Module() || builtins.Surface(k)[k.Module()] != mod {
			t.Errorf("%s: action module %v is not predeclared as %s", k, mod, k.Module())
		}
		if got := constructedOps(t, mod); !slices.Equal(got, sorted(spec.Ops)) {
			t.Errorf("%s: constructors make ops %v, spec lists %v", k, got, sorted(spec.Ops))
		}
		// The bridge value its entry function is called with.
		if other, dup := phases[spec.Phase]; dup || !strings.HasPrefix(spec.Phase, "shell_") {
			t.Errorf("%s: phase %q (also %s's)", k, spec.Phase, other)
		}
		phases[spec.Phase] = k
		if got := Phase(k); got != spec.Phase {
			t.Errorf("%s: Phase = %q, spec %q", k, got, spec.Phase)
		}
		version, phase := bridgeValue(t, k)
		if version != spec.Version || phase != spec.Phase {
			t.Errorf("%s: its bridge value is %s phase %s, spec %s phase %s", k, version, phase, spec.Version, spec.Phase)
		}
		// Declarations.
		if len(spec.Failures) == 0 {
			t.Errorf("%s: no failure outcome", k)
		}
		if !spec.Lifecycle.Valid() || DefaultLifecycle(k) != spec.Lifecycle {
			t.Errorf("%s: default lifecycle %q", k, spec.Lifecycle)
		}
		// The executable form: a wire name, a payload event, the answers
		// the decoder accepts (each one an op of the kind), and a request
		// that encodes.
		wire, hasHook := HookKind(k)
		if wire != spec.Hook || (spec.Hook == "") != (spec.HookEvent == "") {
			t.Errorf("%s: HookKind %q, spec hook %q event %q", k, wire, spec.Hook, spec.HookEvent)
		}
		if answers := hookActions.Get()[k]; hasHook != (len(answers) > 0) {
			t.Errorf("%s: executable form %v, but the decoder accepts %d answers", k, hasHook, len(answers))
		}
		if _, err := encodeRequest("h", k, "r", nil); hasHook != (err == nil) {
			t.Errorf("%s: executable form %v, encodeRequest: %v", k, hasHook, err)
		}
	}
	for k, answers := range hookActions.Get() {
		spec, _ := Spec(k)
		for name, a := range answers {
			if a.decode == nil {
				t.Errorf("%s: answer %s decodes nothing", k, name)
			}
		}
		if spec.Hook == "" {
			t.Errorf("%s: the decoder accepts answers of a kind with no executable form", k)
		}
	}
}

// constructedOps calls every constructor of mod with the first of a few
// argument lists it accepts, and returns the ops of the actions made.
func constructedOps(t *testing.T, mod *starlarkstruct.Module) []string {
	t.Helper()
	fields := starlark.NewDict(1)
	_ = fields.SetKey(starlark.String("f"), starlark.String("v"))
	tries := []starlark.Tuple{
		nil,
		{starlark.String("once")},
		{starlark.NewList([]starlark.Value{starlark.String("network")})},
		{fields},
	}
	var ops []string
	for name, fn := range mod.Members {
		var a *builtins.Action
		for _, args := range tries {
			v, err := starlark.Call(&starlark.Thread{}, fn, args, nil)
			if err == nil {
				a = v.(*builtins.Action)
				break
			}
		}
		if a == nil {
			t.Errorf("%s.%s: no argument list makes an action", mod.Name, name)
			continue
		}
		if !slices.Contains(ops, a.Op) {
			ops = append(ops, a.Op)
		}
	}
	return sorted(ops)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// bridgeValue builds the value a kind's entry function is called with and
// returns its version and phase.
func bridgeValue(t *testing.T, k builtins.Kind) (version, phase string) {
	t.Helper()
	var v starlark.Value
	switch k {
	case builtins.KindAfter:
		v = (&builtins.CommandResult{Argv: []string{"x"}}).Value()
	case builtins.KindAudit:
		var err error
		if v, err = (&builtins.AuditEvent{Event: "tool_use"}).Value(); err != nil {
			t.Fatal(err)
		}
	default:
		v = (&builtins.Context{Phase: Phase(k), Argv: []string{"x"}}).Value()
	}
	attr := func(name string) string {
		x, err := v.(starlark.HasAttrs).Attr(name)
		if err != nil {
			t.Fatalf("%s: %s: %v", k, name, err)
		}
		s, _ := starlark.AsString(x)
		return s
	}
	return attr("version"), attr("phase")
}
