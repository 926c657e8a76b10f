package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agent-shell/agent-shell/enforce"
	"github.com/agent-shell/agent-shell/telemetry"
)

func newDoctorCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that agent-shell can do its job here, and say how to fix what is wrong",
		Long: `Runs status's checks and those a setup needs to work at all: agent-shell on the
PATH the agents' hooks and npm run with (they call it by name) and the same
binary as this one, each registered agent's hook command, the enforcement the
kernel offers (Landlock), and whether the events folder takes writes. Each
problem says how to fix it; it exits 1 when there is one.`,
		Args: cobra.NoArgs,
		RunE: runE(func(*cobra.Command, []string) error {
			h, err := a.here()
			if err != nil {
				return err
			}
			root, ok := h.Root, h.InRepo
			if !ok {
				return errors.New("run agent-shell doctor inside a git repository")
			}
			r := &statusReport{a: a, asJSON: asJSON, name: "doctor"}
			r.onPath()
			r.enforcement()
			r.eventsWritable(root)
			return a.finishStatus(r, root)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as one JSON object, as status --json")
	return cmd
}

// onPath checks that the hooks' and npm's `agent-shell` is this binary.
func (r *statusReport) onPath() {
	found, err := exec.LookPath("agent-shell")
	if err != nil {
		r.fail("PATH: agent-shell is not on PATH, so every hook and npm's script-shell fail to start it (the agents run the tool unchecked); fix: export PATH=\"%s:$PATH\" in the profile the agents and npm start from", r.selfDir())
		return
	}
	self, err1 := os.Executable()
	a, err2 := filepath.EvalSymlinks(found)
	b, err3 := filepath.EvalSymlinks(self)
	if err1 == nil && err2 == nil && err3 == nil && a != b {
		r.info("PATH: agent-shell is %s, not this binary (%s): the hooks run that one; check `agent-shell --version` from the agents' shell", found, self)
		return
	}
	r.ok("PATH: agent-shell is %s", found)
}

func (r *statusReport) selfDir() string {
	if self, err := os.Executable(); err == nil {
		return filepath.Dir(self)
	}
	return "$(go env GOPATH)/bin"
}

// enforcement says what the kernel offers below the text of commands, by
// running a sandbox.
func (r *statusReport) enforcement() {
	l := enforce.Probe()
	r.level = &l
	if !l.Sandbox() {
		r.info("enforcement: %s; the policy and the text guards still apply, and the README says what they leave open", l)
		return
	}
	r.ok("enforcement: agent-shell exec can run commands in a %s; [enforce] mode = \"sandbox\" in agent-shell.toml runs the agents' and npm's commands there", l)
}

// eventsWritable checks that the recorder can write where it records.
func (r *statusReport) eventsWritable(root string) {
	dir, warn := telemetry.EventsDir(root, r.a.getenv)
	if warn != nil {
		r.info("recorder: %v", warn)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.fail("recorder: cannot create %s: %v; fix: make the repository writable for the agents' user", rel(dir), err)
		return
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		r.fail("recorder: cannot write in %s: %v; fix: make it writable for the agents' user", rel(dir), err)
		return
	}
	f.Close()
	os.Remove(f.Name())
	r.ok("recorder: %s takes writes", rel(dir))
}
