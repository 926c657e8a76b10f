package call

import (
	"errors"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Interceptors on the hook path and in the npm shim (policy/intercept.go
// decides; this is where their outcome meets the host, npm and the record).
//
// The shim runs the interceptors only when the project's configuration
// mentions them (Process.mayMention, a read of the manifest's text), so an
// npm run in a project without interceptors costs what it did before. It
// enforces the interceptors' outcomes, not the rules': the rules only
// decide whether the interceptors run (none runs on a command they deny,
// and that command still runs, as every command did before), and no
// reviewer runs.
//
//   - A rewrite runs the rewritten command instead (saying so on stderr).
//   - A respond runs nothing: its synthetic output (finalized) goes out, and
//     the shim exits with its status.
//   - A reject, a failure whose declared outcome is deny, a refused rewrite:
//     nothing runs, the reason goes to stderr, and the shim exits 1.
//   - After-interceptors: the command's output is captured (at most
//     policy.MaxInterceptOutput bytes per stream are kept; the command
//     never blocks on a full pipe), finalized, put to the after-interceptors
//     and only then released; withheld output is replaced by a note on
//     stderr. The command's exit status is never changed. The command
//     then writes to pipes, not to the terminal.
//
// A configuration that mentions interceptors but does not load runs
// nothing (exit 1): the interceptors it may hold cannot be skipped.

// shimExitIntercepted is the shim's exit status when an interceptor (or a
// configuration that does not load) stops a script before it runs.
const shimExitIntercepted = 1

// waitDelay bounds how long the shim waits, once a command whose output it
// captures has exited, for the rest of that output (a background process
// may keep the pipe open).
const waitDelay = 2 * time.Second

// shimInterception is the npm shim's interceptor stage for one run; nil
// when the project declares no interceptor.
type shimInterception struct {
	p       *Process
	engine  *policy.Engine
	rec     *Recording
	req     policy.Request
	command string // what runs: the original command, or its rewrite
	events  []*telemetry.Event
	after   bool // after-interceptors are declared: the output is captured
	stdout  *capture
	stderr  *capture
	// released is set once the captured output went out (or was withheld).
	released atomic.Bool
}

// shimBefore runs the before-interceptors on the shim's command. done
// reports that nothing is to run, and code is then the shim's exit status.
func (p *Process) shimBefore(command string) (si *shimInterception, code int, done bool) {
	h, err := p.Here()
	if err != nil || !h.InRepo || !p.mayMention(h.Root, "interceptor") {
		return nil, 0, false
	}
	cwd := h.Cwd
	engine := p.LoadPolicy()
	if engine.LoadErr != nil {
		p.errorf("the policy does not load, so its interceptors cannot run; the script is not run: %v", engine.LoadErr)
		p.Record(&telemetry.Event{Event: telemetry.EventShimError, Command: command,
			Error: "not run: the policy does not load: " + engine.LoadErr.Error()}, "")
		return nil, shimExitIntercepted, true
	}
	if !engine.HasInterceptors() {
		return nil, 0, false
	}
	si = &shimInterception{p: p, engine: engine, command: command, after: engine.HasAfterInterceptors()}
	si.rec = p.StartRecording("")
	session := si.rec.ID
	if session == "" {
		session, _ = telemetry.SessionID(p.Getenv)
	}
	si.req = policy.Request{Cwd: cwd, Home: p.Getenv("HOME"), SessionID: session, Agent: "npm", Tool: hostapi.ToolBash}
	if !engine.HasBeforeInterceptors() {
		return si, 0, false
	}
	d := engine.DecideShim(command, si.req)
	it := d.Intercept
	if it == nil {
		return si, 0, false
	}
	for _, step := range it.Steps {
		si.events = append(si.events, interceptEvent(step))
	}
	switch it.Outcome {
	case policy.InterceptRewrite:
		si.command = it.Command
		p.errorf("interceptor %s rewrote the command to: %s", it.Interceptor, it.Command)
	case policy.InterceptRespond:
		si.release(policy.CommandResult{Argv: policy.CommandArgv(command), Status: it.Exit, Stdout: it.Stdout, Stderr: it.Stderr,
			StdoutTruncated: it.StdoutTruncated, StderrTruncated: it.StderrTruncated, InterceptedBy: it.Interceptor})
		si.finish(&telemetry.Event{Event: telemetry.EventScriptEnd, Command: command, ExitCode: it.Exit})
		return si, it.Exit, true
	case policy.InterceptDeny:
		p.errorf("%s", d.Reason)
		si.finish(&telemetry.Event{Event: telemetry.EventScriptEnd, Command: command, ExitCode: shimExitIntercepted,
			Error: "not run: " + d.Reason})
		return si, shimExitIntercepted, true
	}
	return si, 0, false
}

// args are the shell's arguments with the command that runs.
func (si *shimInterception) args(args []string) []string {
	if si == nil || si.command == args[0] {
		return args
	}
	return append([]string{si.command}, args[1:]...)
}

// capture sends the command's output to bounded buffers when
// after-interceptors are to see it.
func (si *shimInterception) capture(cmd *exec.Cmd) {
	if si == nil || !si.after {
		return
	}
	si.stdout, si.stderr = &capture{max: policy.MaxInterceptOutput}, &capture{max: policy.MaxInterceptOutput}
	cmd.Stdout, cmd.Stderr = si.stdout, si.stderr
	cmd.WaitDelay = waitDelay
}

// wait waits for the command; output a background process still holds
// open past waitDelay is given up, which does not make the command fail.
func (si *shimInterception) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	if si != nil && errors.Is(err, exec.ErrWaitDelay) {
		return nil
	}
	return err
}

// recording is the run's recording: the one the interceptors started, or a
// new one.
func (si *shimInterception) recording(p *Process) *Recording {
	if si != nil && si.rec != nil {
		return si.rec
	}
	return p.StartRecording("")
}

// recorded lists the intercept events of the run, in order.
func (si *shimInterception) recorded() []*telemetry.Event {
	if si == nil {
		return nil
	}
	return si.events
}

// ran puts the output of the command that ran to the after-interceptors
// and releases it. code and sig are how it ended (ExitStatus).
func (si *shimInterception) ran(code int, sig string) {
	if si == nil || !si.after {
		return
	}
	r := policy.CommandResult{Command: si.command, Argv: policy.CommandArgv(si.command), Status: code,
		Stdout: string(si.stdout.buf), Stderr: string(si.stderr.buf), StdoutTruncated: si.stdout.cut, StderrTruncated: si.stderr.cut}
	if sig != "" {
		r.Signaled, r.Status = true, code-128
	}
	si.release(r)
}

// release runs the after-interceptors on a result and writes what they
// leave of it.
func (si *shimInterception) release(r policy.CommandResult) {
	out := si.engine.After(si.req, r)
	if si.released.Swap(true) {
		return // the watchdog released it (releaseUnseen)
	}
	for _, step := range out.Steps {
		si.events = append(si.events, interceptEvent(step))
	}
	if out.Outcome == policy.AfterWithhold {
		if n := len(out.Steps); n > 0 && out.Steps[n-1].Failed {
			// An interceptor that fails does not lose the script's output:
			// the shim's output is npm's, a person's or CI's, not a model's.
			si.p.errorf("after-interceptor %s failed (%s); the output is released as it was", out.Interceptor, out.Steps[n-1].Reason)
			_, _ = si.p.Stdout.Write([]byte(r.Stdout))
			_, _ = si.p.Stderr.Write([]byte(r.Stderr))
			return
		}
		si.p.errorf("%s", out.Note)
		return
	}
	_, _ = si.p.Stdout.Write([]byte(out.Stdout))
	_, _ = si.p.Stderr.Write([]byte(out.Stderr))
}

// releaseUnseen writes the captured output as it is, when the
// after-interceptors never got to release it: a runaway among them does not
// lose the command's output.
func (si *shimInterception) releaseUnseen() {
	if si == nil || !si.after || si.released.Swap(true) {
		return
	}
	_, _ = si.p.Stdout.Write(si.stdout.buf)
	_, _ = si.p.Stderr.Write(si.stderr.buf)
}

// finish records the run's events and its end.
func (si *shimInterception) finish(end *telemetry.Event) {
	end.Cwd = si.req.Cwd
	end.Script = si.p.Getenv("npm_lifecycle_event")
	end.Package = si.p.Getenv("npm_package_name")
	end.PackageVersion = si.p.Getenv("npm_package_version")
	si.rec.Write(append(si.events, end)...)
}

// capture keeps the first max bytes written to it and counts the rest as
// cut; it never fails a write, so the command never sees a broken pipe.
type capture struct {
	buf []byte
	max int
	cut bool
}

func (c *capture) Write(p []byte) (int, error) {
	room := c.max - len(c.buf)
	if len(p) > room {
		c.cut = true
		c.buf = append(c.buf, p[:room]...)
	} else {
		c.buf = append(c.buf, p...)
	}
	return len(p), nil
}

// interceptEvent records one interceptor's step.
func interceptEvent(step policy.InterceptStep) *telemetry.Event {
	e := &telemetry.Event{
		Event: telemetry.EventIntercept, Command: step.Command, Decision: step.Outcome,
		Rule: step.Interceptor, Reason: step.Reason, Answer: step.Answer,
		Extensions: []telemetry.ExtensionRun{step.Run},
	}
	if step.Failed {
		e.Error = step.Reason
	}
	return e
}

// interceptEvents records what each before-interceptor did on the way to a
// hook decision.
func interceptEvents(ad hostapi.Adapter, ev *hostapi.Event, d policy.Decision) []*telemetry.Event {
	if d.Intercept == nil {
		return nil
	}
	return stepEvents(ad, ev, d.Intercept.Steps)
}

// stepEvents records interceptors' steps on a hook call.
func stepEvents(ad hostapi.Adapter, ev *hostapi.Event, steps []policy.InterceptStep) []*telemetry.Event {
	var out []*telemetry.Event
	for _, step := range steps {
		e := interceptEvent(step)
		e.Agent = ad.Name()
		describe(e, ev)
		out = append(out, e)
	}
	return out
}

// afterTool runs the after-interceptors on a shell post-tool call: the
// verdict to render (an abstaining allow unless they replaced or withheld
// the output and the host can carry that) and the events to record.
func (p *Process) afterTool(ad hostapi.Adapter, ev *hostapi.Event) (hostapi.Verdict, []*telemetry.Event) {
	allow := hostapi.Verdict{Decision: hostapi.Allow}
	if ev.Kind != hostapi.KindPostTool || !ev.IsShell() || len(ev.Result) == 0 {
		return allow, nil
	}
	if h, err := p.Here(); err != nil || !h.InRepo || !p.mayMention(h.Root, "interceptor") {
		return allow, nil
	}
	engine := p.LoadPolicy()
	if !engine.HasAfterInterceptors() {
		return allow, nil
	}
	v, out := engine.AfterEvent(ev, ad.Coverage(ev.Kind))
	if out == nil {
		return allow, nil
	}
	return v, stepEvents(ad, ev, out.Steps)
}
