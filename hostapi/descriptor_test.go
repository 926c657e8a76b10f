package hostapi

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// Every registered host describes itself whole: a name that is its
// adapter's, an actor and the environment that names it, markers, the
// files Install writes (each a registration, or in agent-shell's own
// folders), and how its commands take the sandbox.
func TestEveryHostDescribesItself(t *testing.T) {
	if len(Descriptors()) != len(Names()) {
		t.Fatalf("%d descriptors for %d hosts", len(Descriptors()), len(Names()))
	}
	actors := map[string]string{}
	for _, name := range Names() {
		d, ok := Describe(name)
		ad, _ := ByName(name, noGetenv)
		switch {
		case !ok || d.Name != name || ad.Name() != name:
			t.Errorf("%s: described as %q, adapter %q", name, d.Name, ad.Name())
		case d.Actor == "" || len(d.ActorEnv) == 0 || len(d.Markers) == 0 || len(d.Installs) == 0 || len(d.Registrations) == 0:
			t.Errorf("%s: incomplete descriptor %+v", name, d)
		case (d.Sandbox == SandboxNone) == (d.NoSandbox == ""):
			t.Errorf("%s: sandbox %v, why not %q: one of them", name, d.Sandbox, d.NoSandbox)
		}
		if other, dup := actors[d.Actor]; dup {
			t.Errorf("%s and %s share the actor %q", name, other, d.Actor)
		}
		actors[d.Actor] = name
		if Actor(name) != d.Actor {
			t.Errorf("Actor(%s) = %q", name, Actor(name))
		}
		for _, f := range d.Installs {
			if !registered(d, f) && !strings.HasPrefix(f, ".agent-shell/") && !strings.HasPrefix(f, ".github/hooks/agent-shell/") {
				t.Errorf("%s: Install writes %s, which is neither a registration nor agent-shell's", name, f)
			}
		}
		for _, m := range d.Markers {
			if (m.Path == "") == (m.Env.Name == "") {
				t.Errorf("%s: marker %+v: a path or an environment variable", name, m)
			}
		}
	}
	if Actor("npm") != "npm" {
		t.Errorf("a name that is no host's is not its own actor")
	}
}

func registered(d Descriptor, file string) bool {
	return slices.ContainsFunc(d.Registrations, func(r Registration) bool {
		ok, _ := path.Match(r.Path, file)
		return ok
	})
}

// Amp sets CLAUDECODE in its commands' environment too: its markers must
// be tried first.
func TestActorMarkersTryAmpBeforeClaude(t *testing.T) {
	ms := ActorMarkers()
	first := func(actor string) int {
		return slices.IndexFunc(ms, func(m ActorMarker) bool { return m.Actor == actor })
	}
	if a, c := first("amp"), first("claude-code"); a < 0 || c < 0 || a > c {
		t.Errorf("amp's markers at %d, Claude Code's at %d", a, c)
	}
}
