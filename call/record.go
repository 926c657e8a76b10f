package main

import (
	"fmt"
	"os"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"

	"github.com/agent-shell/agent-shell/policy"
)

// record fills in what every event carries and appends it to the session's
// file. hostSession is the agent's own session id from a hook payload, ""
// when there is none. A telemetry failure never changes what the command
// answered or how it exits: it is reported on one stderr line and, where
// the log can still be written, as a shim_error event.
func (a *app) record(e *telemetry.Event, hostSession string) {
	a.startRecording(hostSession).write(e)
}

// auditFilter is the project's audit filter. A process that has not
// loaded the policy (the shim) loads it only when the configuration can
// declare a filter, so npm runs in a project without one stay cheap.
func (a *app) auditFilter() telemetry.AuditFilter {
	if a.unfiltered {
		return nil
	}
	if a.engine == nil {
		cwd, err := os.Getwd()
		if err != nil {
			return nil
		}
		root, ok := telemetry.RepoRoot(cwd)
		if !ok || !policy.ReadConfigText(root).Mentions("audit") {
			return nil
		}
	}
	return a.loadPolicy().AuditFilter()
}

// recordAll records events in order, in one session file.
func (a *app) recordAll(events []*telemetry.Event, hostSession string) {
	a.startRecording(hostSession).write(events...)
}

// recording is an event about to be written: the session file open, the
// context captured and the chain's tail read, so that what is left once
// the event is known is one locked append. The shim prepares it while the
// script runs.
type recording struct {
	a       *app
	w       *telemetry.Writer
	relay   *telemetry.Relay // inside the sandbox: events go out through it
	id      string
	openErr error
	actor   string
	claimed string
	env     map[string]string
	tags    map[string]string
}

func (a *app) startRecording(hostSession string) *recording {
	r := &recording{a: a}
	if relay, ok := telemetry.OpenRelay(a.getenv); ok {
		r.relay, r.id = relay, a.sessionID(hostSession)
	} else {
		r.w, r.id, r.openErr = a.openSessionWriter(hostSession)
	}
	if r.openErr != nil {
		return r
	}
	environ := a.environ()
	r.actor, r.claimed = telemetry.DetectActor(a.getenv)
	r.env = telemetry.CaptureEnv(environ)
	r.tags = telemetry.CaptureTags(environ)
	if r.relay != nil {
		return r // the recorder outside filters and chains
	}
	// Every event goes through the project's audit filter, if it has one.
	r.w.Filter = a.auditFilter()
	_ = r.w.Prepare() // an error here shows again, and is reported, on Append
	return r
}

func (r *recording) write(events ...*telemetry.Event) {
	if r.openErr != nil {
		r.a.errorf("telemetry write error: %v", r.openErr)
		return
	}
	defer r.close()
	for _, e := range append(events, extensionErrors(events)...) {
		r.fill(e)
		r.append(e)
	}
}

// append writes one event as it is.
func (r *recording) append(e *telemetry.Event) {
	if r.openErr != nil {
		r.a.errorf("telemetry write error: %v", r.openErr)
		return
	}
	if r.relay != nil {
		if err := r.relay.Send(e); err != nil {
			r.a.errorf("telemetry relay error: %v", err)
		}
		return
	}
	if err := r.w.Append(e); err != nil {
		r.a.errorf("telemetry write error: %v", err)
		se := &telemetry.Event{Event: telemetry.EventShimError, Command: e.Command, Agent: e.Agent, Error: err.Error()}
		r.fill(se)
		_ = r.w.Append(se)
	}
}

func (r *recording) close() {
	if r.w != nil {
		r.w.Close()
	}
}

// extensionErrors is one extension_error event for each extension run that
// failed among events (a run listed by two events, a decision and its
// intercept step, counts once).
func extensionErrors(events []*telemetry.Event) []*telemetry.Event {
	var out []*telemetry.Event
	seen := map[string]bool{}
	for _, e := range events {
		for _, run := range e.Extensions {
			key := run.Script + "\x00" + run.Outcome + "\x00" + run.Error
			if run.Error == "" || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, &telemetry.Event{
				Event: telemetry.EventExtensionError, Command: e.Command, Agent: e.Agent,
				ToolName: e.ToolName, NativeEvent: e.NativeEvent, Rule: run.Script,
				Reason: fmt.Sprintf("%s %s failed: %s", run.Kind, run.Script, run.Outcome), Error: run.Error,
			})
		}
	}
	return out
}

func (r *recording) fill(e *telemetry.Event) {
	e.SessionID, e.Actor, e.ClaimedActor, e.Env, e.Tags = r.id, r.actor, r.claimed, r.env, r.tags
	// A hook call comes from the agent whose hook it is, whatever its
	// environment shows (hooks run with a cleaned one) or AGENTSHELL_ACTOR
	// claims: the adapter's identity wins, a claim is kept beside it.
	if e.Agent != "" {
		e.Actor, e.ClaimedActor = telemetry.ClaimActor(r.a.getenv, telemetry.AgentActor(e.Agent))
	}
	e.Timestamp = time.Time{} // taken under the file lock
}

// callSession is the session a call's extensions keep their state under:
// the host's id, else a valid AGENTSHELL_SESSION_ID, else none (session
// scripts then run with fresh state and say so in their record).
func (a *app) callSession(hostSession string) string {
	if hostSession == "" {
		if id := a.getenv("AGENTSHELL_SESSION_ID"); telemetry.ValidSessionID(id) {
			return id
		}
	}
	return hostSession
}

// sessionID is the host's session when it is a valid id, else the one
// AGENTSHELL_SESSION_ID gives or a new one.
func (a *app) sessionID(hostSession string) string {
	if telemetry.ValidSessionID(hostSession) {
		return hostSession
	}
	id, warn := telemetry.SessionID(a.getenv)
	if warn != nil {
		a.errorf("%v", warn)
	}
	return id
}

// openSessionWriter opens the session file under the project root. The
// session is the host's own id when valid (one agent session, one file),
// else AGENTSHELL_SESSION_ID, else a fresh UUID.
func (a *app) openSessionWriter(hostSession string) (*telemetry.Writer, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	dir, warn := telemetry.EventsDir(telemetry.FindRoot(cwd), a.getenv)
	if warn != nil {
		a.errorf("%v", warn)
	}
	id := a.sessionID(hostSession)
	w, err := telemetry.OpenWriter(dir, id)
	if err != nil {
		return nil, "", err
	}
	w.Now = a.now
	return w, id, nil
}
