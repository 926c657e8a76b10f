package guard

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// Runs of agent-shell itself (the authorize guard).
//
// Only a human authorizes: authorize itself asks for a code typed on its
// terminal and refuses in an agent's session. The guard denies an agent's
// run of it beforehand, and any run whose subcommand it cannot read: a
// variable or substitution (agent-shell $A), what xargs, parallel or find
// -exec add at run time, or a word that is no subcommand name. A run that
// makes agent-shell write its own configuration or a hook registration
// (init, hook install and uninstall, pack add, update and remove, policy
// --init writing a manifest) is denied as the write itself would be. A program
// is agent-shell by its name, or, under another name, when its path is the
// running binary (a link to it). A copy under another name is not seen
// here; authorize refuses it itself.

// agentShellRun checks each layer of c that runs agent-shell.
func (g *guarder) agentShellRun(c *shellcmd.Command, cwds []string, depth int) *Denial {
	for li, layer := range c.Layers {
		if len(layer) == 0 {
			continue
		}
		innermost := li == len(c.Layers)-1
		sub, body, shim := agentShellSubcommand(layer[1:])
		var setup string // what the run changes of agent-shell's setup, read only for the subcommands that may
		switch sub {
		case "init", "hook", "pack", "policy":
			setup = g.changesSetup(layer[1:])
		}
		switch {
		case shim && layer[0] == "agent-shell":
			// The npm shim form runs a command line: read it as sh -c's.
			if depth < guardMaxDepth {
				if d := g.line(shellcmd.Parse(body), cwds, depth+1); d != nil {
					return d
				}
			}
		case shim:
		case sub == "authorize" && g.runsAgentShell(layer[0], innermost, c.Path, cwds):
			return g.deny(Authorize, "agent-shell authorize", "agent-shell guard "+Authorize+
				": an agent may not authorize agent-shell's configuration. A human runs 'agent-shell authorize' in their own terminal.")
		case sub == "uninstall" && g.runsAgentShell(layer[0], innermost, c.Path, cwds):
			return g.deny(Authorize, "agent-shell uninstall", "agent-shell guard "+Authorize+
				": an agent may not remove agent-shell's hook registrations. A human runs 'agent-shell uninstall' in their own terminal.")
		case setup != "" && g.runsAgentShell(layer[0], innermost, c.Path, cwds):
			guard, target := AgentShellFiles, project.ConfigDir+"/agent-shell.toml"
			if strings.HasPrefix(setup, "agent-shell hook") {
				guard, target = HookRegistration, setup
			}
			return g.deny(guard, target, "agent-shell guard "+guard+": '"+setup+"' changes agent-shell's "+
				"configuration or an agent's hook registration, which an agent may not change. A human runs it in their own terminal.")
		case (sub == "" && c.Dynamic || sub != "" && !subcommandName(sub)) && g.runsAgentShell(layer[0], innermost, c.Path, cwds):
			what := sub
			if what == "" {
				what = "the arguments " + layer[0] + " is given when it runs"
			}
			return g.deny(Authorize, "agent-shell "+sub, "agent-shell guard "+Authorize+
				": the command runs agent-shell with a subcommand known only when it runs ("+what+"), which the guard cannot tell from 'agent-shell authorize'. Write the subcommand out; a human runs 'agent-shell authorize' in their own terminal.")
		}
	}
	return nil
}

// changesSetup names the run of agent-shell (its arguments after the
// program) that writes its configuration or a hook registration, as the
// user would type it, "" for one that does not: init, hook install and
// uninstall, pack add, update and remove, policy --init writing a manifest
// (--write, or where none exists). Reading, checking, the hook's own call
// and the shim stay allowed.
func (g *guarder) changesSetup(args []string) string {
	var words []string
	proposes, write := false, false
	for _, a := range args {
		switch {
		case a == "--init":
			proposes = true
		case a == "--write" || a == "--yes":
			write = true
		case len(a) > 1 && a[0] == '-':
		default:
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return ""
	}
	switch sub := words[0]; {
	case sub == "init":
		return "agent-shell init"
	case sub == "hook":
		// hook --agent NAME is the hook's own call; its value is a word too.
		for _, w := range words[1:] {
			if w == "install" || w == "uninstall" {
				return "agent-shell hook " + w
			}
		}
	case sub == "pack" && len(words) > 1 && (words[1] == "add" || words[1] == "update" || words[1] == "remove"):
		return "agent-shell pack " + words[1]
	case sub == "policy" && proposes && (write || !g.exists(filepath.Join(g.root, filepath.FromSlash(project.ConfigDir), "agent-shell.toml"))):
		return "agent-shell policy --init"
	}
	return ""
}

// agentShellSubcommand is the first argument that is not a flag: the
// subcommand agent-shell runs, "" when there is none. With the shim's -c,
// body is the command line it runs instead.
func agentShellSubcommand(args []string) (sub, body string, shim bool) {
	for i, a := range args {
		switch {
		case a == "-c":
			if i+1 < len(args) {
				body = args[i+1]
			}
			return "", body, true
		case len(a) > 1 && a[0] == '-':
			continue
		}
		return a, "", false
	}
	return "", "", false
}

// subcommandName reports whether w is written as a subcommand's name is: a
// lower-case letter, then letters, digits and dashes. A dynamic word ($A,
// $(…), {}) is not.
func subcommandName(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return w != ""
}

// runsAgentShell reports whether the layer's program is agent-shell: by
// name, or, for the innermost layer, by a path (path, as written, relative
// to each cwd) that is the running binary.
func (g *guarder) runsAgentShell(prog string, innermost bool, path string, cwds []string) bool {
	if prog == "agent-shell" {
		return true
	}
	if !innermost || filepath.Base(path) == path {
		return false
	}
	self := runningBinary()
	if self == nil {
		return false
	}
	for _, cwd := range cwds {
		p := path
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if !g.spend() {
			return false
		}
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, self) {
			return true
		}
	}
	return false
}

// runningBinary is the executable of this process, nil when unknown.
var runningBinary = sync.OnceValue(func() os.FileInfo {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	return fi
})
