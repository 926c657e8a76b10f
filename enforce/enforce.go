// Package enforce runs a command where the kernel, not the text of the
// command, keeps it from changing what agent-shell protects.
//
// The command runs in new user and mount namespaces. Each protected path
// that exists is bound onto itself read-only, so no spelling of a write
// reaches it (python's open, tar -x, a symlink made earlier, a rename of
// its folder). Then a Landlock ruleset is applied: it forbids changing the
// mounts back (a Landlock-restricted process may not mount or unmount),
// keeps writes to the folders of [enforce] write when there are any,
// denies TCP connections and binds with [enforce] network = "deny"
// (Landlock ABI 4 and later), forbids ptrace and /proc/PID/root of any
// process outside (which would lead around the mounts), and keeps signals
// and abstract sockets inside the sandbox (ABI 6).
//
// Two starts (Cmd.Spawn). Where Landlock has ABI 6 and the architecture
// has start_*.s, one clone whose child makes the mounts, restricts itself
// and execs the command, with no program of ours in between; agent-shell
// kills what the command leaves running. Elsewhere the sandbox's first
// process is agent-shell again (Enter), in a PID namespace of its own as
// well, whose end ends every process in it, and whose /proc shows only
// them: without ABI 6, Landlock would not keep its signals in.
//
// Landlock alone cannot do the first part: its rules only grant, and a
// right granted on a folder holds for everything under it, so a folder
// that holds a protected file could neither create nor delete anything
// (the project root holds .npmrc and .agent-shell/: no npm install, no
// rm -rf dist). A read-only bind mount protects exactly the path.
//
// Protected paths that do not exist yet cannot be bound; the text guards
// still cover them, and Plan.Missing lists them.
package enforce

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Plan is what a sandboxed command may not do.
type Plan struct {
	// ReadOnly are the paths made read-only, absolute.
	ReadOnly []string `json:"read_only"`
	// Writable are folders the command writes to whatever Write says
	// (the folder of the file where agent-shell exec --cwd-file reports
	// the working directory), kept writable even inside a read-only one.
	Writable []string `json:"writable,omitempty"`
	// Write, when not empty, are the only folders writes may go to.
	Write []string `json:"write,omitempty"`
	// DenyNetwork denies TCP connections and binds.
	DenyNetwork bool `json:"deny_network,omitempty"`

	inherit int  // descriptors passed on to the command, from 3
	nested  bool // inside a sandbox already: its mounts hold
}

// maxInherit bounds the descriptors a plan passes on.
const maxInherit = 16

// planMessage is a Plan as the sandbox's first process receives it.
type planMessage struct {
	Plan
	Inherit int  `json:"inherit,omitempty"`
	Nested  bool `json:"nested,omitempty"`
}

// Bound splits ReadOnly into the paths that exist (and are bound) and those
// that do not, each in a form the mounts take: symbolic links resolved, a
// path under another left out.
func (p Plan) Bound() (bound, missing []string) {
	var all []string
	for _, ro := range p.ReadOnly {
		real, err := realPath(ro)
		if err != nil {
			missing = append(missing, ro)
			continue
		}
		all = append(all, real)
	}
	sort.Strings(all)
	for _, p := range all {
		if len(bound) > 0 && within(p, bound[len(bound)-1]) {
			continue
		}
		bound = append(bound, p)
	}
	return bound, missing
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// Level is the enforcement a machine gives.
type Level struct {
	Namespaces  bool   // user, mount and PID namespaces can be made
	LandlockABI int    // 0: no Landlock
	Why         string // what is missing, and why
}

// Sandbox reports whether commands can run sandboxed: both parts work.
func (l Level) Sandbox() bool { return l.Namespaces && l.LandlockABI > 0 }

func (l Level) String() string {
	if l.Sandbox() {
		return fmt.Sprintf("sandbox (landlock ABI %d, read-only mounts)", l.LandlockABI)
	}
	return "text guard only (" + l.Why + ")"
}

// enterArg, as the first argument, makes agent-shell the sandbox's first
// process (see Enter); planEnv carries the plan to it.
const (
	enterArg = "__agent-shell-sandbox"
	planEnv  = "AGENTSHELL_SANDBOX_PLAN"
)

// IsEnter reports whether args (os.Args[1:]) start the sandbox.
func IsEnter(args []string) bool { return len(args) > 0 && args[0] == enterArg }

func encodePlan(p Plan) string {
	b, _ := json.Marshal(planMessage{Plan: p, Inherit: p.inherit, Nested: p.nested}) // a Plan always encodes
	return string(b)
}

// decodePlan takes the plan out of the environment.
func decodePlan() (Plan, error) {
	raw := os.Getenv(planEnv)
	os.Unsetenv(planEnv)
	return parsePlan(raw)
}

func parsePlan(raw string) (Plan, error) {
	var m planMessage
	if raw == "" {
		return m.Plan, fmt.Errorf("%s is not set: the sandbox is started by agent-shell exec", planEnv)
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return m.Plan, fmt.Errorf("%s: %v", planEnv, err)
	}
	if m.Inherit < 0 || m.Inherit > maxInherit {
		return m.Plan, fmt.Errorf("%s: %d descriptors to pass on (at most %d)", planEnv, m.Inherit, maxInherit)
	}
	m.Plan.inherit, m.Plan.nested = m.Inherit, m.Nested
	return m.Plan, nil
}
