package main

import (
	"os/exec"

	"github.com/agent-shell/agent-shell/call"
	"github.com/agent-shell/agent-shell/internal/project"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry"
)

// What the commands use of package call, which answers the hook's and the
// shim's calls (see there), under the names exec.go calls it by.

// loadPolicy is the policy of the repository around the current
// directory, loaded once per process (call.Process.LoadPolicy).
func (a *app) loadPolicy() *policy.Engine { return a.call.LoadPolicy() }

// record appends one event to the session's file (call.Process.Record).
func (a *app) record(e *telemetry.Event, hostSession string) { a.call.Record(e, hostSession) }

// callSession is the session a call's extensions keep their state under.
func (a *app) callSession(hostSession string) string { return a.call.CallSession(hostSession) }

// recording is an event about to be written (call.Recording).
type recording struct {
	*call.Recording
	id string
}

func (a *app) startRecording(hostSession string) *recording {
	r := a.call.StartRecording(hostSession)
	return &recording{Recording: r, id: r.ID}
}

func (r *recording) write(events ...*telemetry.Event) { r.Write(events...) }
func (r *recording) append(e *telemetry.Event)        { r.Append(e) }
func (r *recording) close()                           { r.Close() }

// childGroup is a child in a process group of its own (call.ChildGroup).
type childGroup struct{ *call.ChildGroup }

func newChildGroup(cmd *exec.Cmd) *childGroup              { return &childGroup{call.NewChildGroup(cmd)} }
func (g *childGroup) start(started func(error)) error      { return g.Start(started) }
func (g *childGroup) wait(wait func() error) (int, string) { return g.Wait(wait) }
func (g *childGroup) done()                                { g.Done() }

// sandboxed prepares argv to run in the sandbox of root's [enforce] under
// e, for the shim (call.Process.Sandbox).
func (a *app) sandboxed(root string, e *policy.Engine, argv []string) (*call.Sandboxed, error) {
	sb, err := a.sandboxCommand(a.enforcePlan(root, e), argv)
	if err != nil {
		return nil, err
	}
	return &call.Sandboxed{Cmd: sb.cmd.Cmd, Spawn: sb.cmd.Spawn, Started: sb.started, Finish: sb.finish}, nil
}

// here is the current directory and the project around it, read once per
// process (call.Process.Here).
func (a *app) here() (project.Here, error) { return a.call.Here() }
