package main

import (
	"os"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// record fills in what every event carries and appends it to the session's
// file. hostSession is the agent's own session id from a hook payload, ""
// when there is none. A telemetry failure never changes what the command
// answered or how it exits: it is reported on one stderr line and, where
// the log can still be written, as a shim_error event.
func (a *app) record(e *telemetry.Event, hostSession string) {
	w, id, err := a.openSessionWriter(hostSession)
	if err != nil {
		a.errorf("telemetry write error: %v", err)
		return
	}
	defer w.Close()
	a.fillContext(e, id)
	if err := w.Append(e); err != nil {
		a.errorf("telemetry write error: %v", err)
		se := &telemetry.Event{Event: telemetry.EventShimError, Command: e.Command, Agent: e.Agent, Error: err.Error()}
		a.fillContext(se, id)
		_ = w.Append(se)
	}
}

func (a *app) fillContext(e *telemetry.Event, sessionID string) {
	env := a.environ()
	e.SessionID = sessionID
	e.Actor = telemetry.DetectActor(a.getenv)
	e.Env = telemetry.CaptureEnv(env)
	e.Tags = telemetry.CaptureTags(env)
	e.Timestamp = time.Time{} // taken under the file lock
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
	id := hostSession
	if !telemetry.ValidSessionID(id) {
		id, warn = telemetry.SessionID(a.getenv)
		if warn != nil {
			a.errorf("%v", warn)
		}
	}
	w, err := telemetry.OpenWriter(dir, id)
	if err != nil {
		return nil, "", err
	}
	w.Now = a.now
	return w, id, nil
}
