package hostapi

import (
	"slices"

	"github.com/agent-shell/agent-shell/internal/lazy"
)

// Descriptor is what agent-shell knows of a host besides its hook protocol:
// where its hooks are registered (which the guard protects and init
// installs), how init tells that a repository uses it, how the flight
// recorder names it, and how its shell tool takes a sandboxed command.
// Each adapter states its own (Adapter.Describe); the guard, setup and
// actor detection read them from the registry (Descriptors) instead of
// lists of their own, and tests iterate every registered host.
type Descriptor struct {
	Name string // the adapter's name, as --agent takes it: "claude"
	// Actor is the flight recorder's name of the host's agent
	// ("claude-code"); ActorEnv are the variables the host sets in the
	// environment of the commands it runs, which tell that one of its
	// agents runs a command.
	Actor    string
	ActorEnv []EnvMarker
	// Markers say that a repository uses the host, the first present one
	// reported.
	Markers []Marker
	// Installs are the root-relative files Install reads and writes, the
	// one reports name first.
	Installs []string
	// InstallNote is what a human must know once Install wrote them, ""
	// when nothing.
	InstallNote string
	// Registrations are the files, relative to the root, and
	// HomeRegistrations those relative to the user's home, in which the
	// host reads hook registrations: the guard keeps agents from changing
	// them. Installs under a registration or under agent-shell's own
	// folders are guarded with them.
	Registrations, HomeRegistrations []Registration
	// ProjectDirEnv is the variable the host sets to the project's root in
	// its commands' environment, "" when none: the guard resolves it.
	ProjectDirEnv string
	// Sandbox is how the host's shell tool takes a command wrapped in
	// agent-shell exec; NoSandbox says why it is not wrapped (SandboxNone),
	// and SandboxCaveat what may still escape the sandbox when it is.
	Sandbox       SandboxWrap
	NoSandbox     string
	SandboxCaveat string
}

// EnvMarker is an environment variable that is set: to Value, or to
// anything not empty when Value is "".
type EnvMarker struct{ Name, Value string }

// Set reports whether getenv holds the marker.
func (m EnvMarker) Set(getenv func(string) string) bool {
	v := getenv(m.Name)
	return v != "" && (m.Value == "" || v == m.Value)
}

// String is the marker as init reports it: NAME=value, or NAME.
func (m EnvMarker) String() string {
	if m.Value == "" {
		return m.Name
	}
	return m.Name + "=" + m.Value
}

// Marker is evidence that a repository uses a host: a root-relative Path
// that exists (a folder counts only when it holds an entry other than
// Besides), or, when Path is "", Env in init's environment (for a host
// that may keep nothing of its own in the repository).
type Marker struct {
	Path    string
	Besides string
	Env     EnvMarker
}

// Registration is one file a host reads hook registrations from.
type Registration struct {
	// Path is slash-separated; a path.Match pattern when it holds *, ?
	// or [; a whole folder when it ends in /** (plugins that carry hooks).
	Path string
	What string // what it is, for the guard's reasons: "Claude Code's hook registration"
	// Beside says how a file here is seen to register hooks beside
	// agent-shell's, for status: HooksAlways for every file (a plugin, a
	// hooks file), other text for a file that holds it ("hooks:" in a
	// frontmatter), "" for none looked at (agent-shell's own file, a
	// folder of plugins).
	Beside string
}

// HooksAlways is a Registration.Beside: every file there runs beside
// agent-shell's.
const HooksAlways = "*"

// descriptors are every registered host's, in Names' order; built on
// first use.
var descriptors = lazy.Value[[]Descriptor]{New: func() []Descriptor {
	names := Names()
	out := make([]Descriptor, 0, len(names))
	for _, name := range names {
		ad, _ := ByName(name, noEnv)
		out = append(out, ad.Describe())
	}
	return out
}}

func noEnv(string) string { return "" }

// Descriptors lists every registered host's descriptor, sorted by name.
// The slices they hold are shared: callers must not change them.
func Descriptors() []Descriptor { return descriptors.Get() }

// Describe returns the named host's descriptor.
func Describe(name string) (Descriptor, bool) {
	all := Descriptors()
	i := slices.IndexFunc(all, func(d Descriptor) bool { return d.Name == name })
	if i < 0 {
		return Descriptor{}, false
	}
	return all[i], true
}

// Actor is the flight recorder's name of a host's agent ("claude-code" for
// claude); a name that is no host's is its own.
func Actor(host string) string {
	if d, ok := Describe(host); ok {
		return d.Actor
	}
	return host
}

// ActorMarker is one host's EnvMarker with the actor it names. It is an
// unnamed struct type, as telemetry.AgentEnv is, so that ActorMarkers
// passes to telemetry's actor detection as it is and neither package
// imports the other.
type ActorMarker = struct{ Name, Value, Actor string }

// ActorMarkers lists every host's ActorEnv, host by host in Names' order
// (Amp's before Claude Code's, for Amp sets CLAUDECODE too), for actor
// detection. The list is shared: callers must not change it.
func ActorMarkers() []ActorMarker { return actorMarkers.Get() }

var actorMarkers = lazy.Value[[]ActorMarker]{New: func() []ActorMarker {
	var out []ActorMarker
	for _, d := range Descriptors() {
		for _, m := range d.ActorEnv {
			out = append(out, ActorMarker{Name: m.Name, Value: m.Value, Actor: d.Actor})
		}
	}
	return out
}}
