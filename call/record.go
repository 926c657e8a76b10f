package call

import (
	"fmt"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/telemetry"

	"github.com/agent-shell/agent-shell/policy"
)

// record fills in what every event carries and appends it to the session's
// file. hostSession is the agent's own session id from a hook payload, ""
// when there is none. A telemetry failure never changes what the command
// answered or how it exits: it is reported on one stderr line and, where
// the log can still be written, as a shim_error event.
func (p *Process) Record(e *telemetry.Event, hostSession string) {
	p.StartRecording(hostSession).Write(e)
}

// auditFilter is the project's audit filter. A process that has not
// loaded the policy (the shim) loads it only when the configuration can
// declare a filter, so npm runs in a project without one stay cheap.
func (p *Process) auditFilter() telemetry.AuditFilter {
	if p.unfiltered {
		return nil
	}
	if p.engine == nil {
		h, err := p.Here()
		if err != nil || !h.InRepo || !policy.ReadConfigText(h.Root).Mentions("audit") {
			return nil
		}
	}
	return p.LoadPolicy().AuditFilter()
}

// recordAll records events in order, in one session file.
func (p *Process) recordAll(events []*telemetry.Event, hostSession string) {
	p.StartRecording(hostSession).Write(events...)
}

// Recording is an event about to be written: the session file open, the
// context captured and the chain's tail read, so that what is left once
// the event is known is one locked append. The shim prepares it while the
// script runs.
type Recording struct {
	p       *Process
	w       *telemetry.Writer
	relay   *telemetry.Relay // inside the sandbox: events go out through it
	ID      string           // the session the events go to
	openErr error
	actor   string
	claimed string
	env     map[string]string
	tags    map[string]string
}

func (p *Process) StartRecording(hostSession string) *Recording {
	r := &Recording{p: p}
	if relay, ok := telemetry.OpenRelay(p.Getenv); ok {
		r.relay, r.ID = relay, p.sessionID(hostSession)
	} else {
		r.w, r.ID, r.openErr = p.openSessionWriter(hostSession)
	}
	if r.openErr != nil {
		return r
	}
	environ := p.Environ()
	r.actor, r.claimed = telemetry.DetectActor(p.Getenv, hostapi.ActorMarkers())
	r.env = telemetry.CaptureEnv(environ)
	r.tags = telemetry.CaptureTags(environ)
	if r.relay != nil {
		return r // the recorder outside filters and chains
	}
	// Every event goes through the project's audit filter, if it has one.
	r.w.Filter = p.auditFilter()
	_ = r.w.Prepare() // an error here shows again, and is reported, on Append
	return r
}

func (r *Recording) Write(events ...*telemetry.Event) {
	if r.openErr != nil {
		r.p.errorf("telemetry write error: %v", r.openErr)
		return
	}
	defer r.Close()
	for _, e := range append(events, extensionErrors(events)...) {
		r.fill(e)
		r.Append(e)
	}
}

// append writes one event as it is.
func (r *Recording) Append(e *telemetry.Event) {
	if r.openErr != nil {
		r.p.errorf("telemetry write error: %v", r.openErr)
		return
	}
	if r.relay != nil {
		if err := r.relay.Send(e); err != nil {
			r.p.errorf("telemetry relay error: %v", err)
		}
		return
	}
	if err := r.w.Append(e); err != nil {
		r.p.errorf("telemetry write error: %v", err)
		se := &telemetry.Event{Event: telemetry.EventShimError, Command: e.Command, Agent: e.Agent, Error: err.Error()}
		r.fill(se)
		_ = r.w.Append(se)
	}
}

func (r *Recording) Close() {
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

func (r *Recording) fill(e *telemetry.Event) {
	e.SessionID, e.Actor, e.ClaimedActor, e.Env, e.Tags = r.ID, r.actor, r.claimed, r.env, r.tags
	// A hook call comes from the agent whose hook it is, whatever its
	// environment shows (hooks run with a cleaned one) or AGENTSHELL_ACTOR
	// claims: the adapter's identity wins, a claim is kept beside it.
	if e.Agent != "" {
		e.Actor, e.ClaimedActor = telemetry.ClaimActor(r.p.Getenv, hostapi.Actor(e.Agent))
	}
	e.Timestamp = time.Time{} // taken under the file lock
}

// CallSession is the session a call's extensions keep their state under:
// the host's id, else a valid AGENTSHELL_SESSION_ID, else none (session
// scripts then run with fresh state and say so in their record).
func (p *Process) CallSession(hostSession string) string {
	if hostSession == "" {
		if id := p.Getenv("AGENTSHELL_SESSION_ID"); telemetry.ValidSessionID(id) {
			return id
		}
	}
	return hostSession
}

// sessionID is the host's session when it is a valid id, else the one
// AGENTSHELL_SESSION_ID gives or a new one.
func (p *Process) sessionID(hostSession string) string {
	if telemetry.ValidSessionID(hostSession) {
		return hostSession
	}
	id, warn := telemetry.SessionID(p.Getenv)
	if warn != nil {
		p.errorf("%v", warn)
	}
	return id
}

// openSessionWriter opens the session file under the project root. The
// session is the host's own id when valid (one agent session, one file),
// else AGENTSHELL_SESSION_ID, else a fresh UUID.
func (p *Process) openSessionWriter(hostSession string) (*telemetry.Writer, string, error) {
	h, err := p.Here()
	if err != nil {
		return nil, "", err
	}
	dir, warn := telemetry.EventsDir(h.Root, p.Getenv)
	if warn != nil {
		p.errorf("%v", warn)
	}
	id := p.sessionID(hostSession)
	w, err := telemetry.OpenWriter(dir, id)
	if err != nil {
		return nil, "", err
	}
	w.Now = p.Now
	return w, id, nil
}
