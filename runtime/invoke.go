package runtime

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/state"
)

// Failure says why a call produced no valid action. Each kind maps a
// failure to its declared failure outcome; the reason is recorded.
type Failure string

const (
	FailFuel      Failure = "fuel"      // the step budget ran out
	FailTimeout   Failure = "timeout"   // the wall-time limit (or the caller) cancelled it
	FailError     Failure = "error"     // a Starlark error: fail(), a bad builtin call, a missing entry function
	FailMemory    Failure = "memory"    // the process went past its memory budget while it ran
	FailMalformed Failure = "malformed" // not exactly one action of the script's kind, or state that is not data
	FailState     Failure = "state"     // the state store could not be read, locked or written
	FailInput     Failure = "input"     // the input was over the limits scripts are given (set by callers)
)

// Error is a classified failure.
type Error struct {
	Failure Failure
	Err     error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Result is the outcome of one call.
type Result struct {
	Action    *builtins.Action // nil when the call failed
	Failure   Failure          // "" when Action is set
	Err       error            // why it failed
	Backtrace string           // the Starlark call stack of a runtime error
	Output    string           // what the script printed, bounded
	Steps     uint64
	State     map[string]any // the committed state after the call
	Elapsed   time.Duration
	// ExpiresAt is when a grant an executable reviewer gave ends (its
	// approve_scope expires_at); zero when none was given.
	ExpiresAt time.Time
	// Note says how the call ran when it differs from its declaration.
	Note string
}

// Outcome is the action's op ("yes", "defer", ...) or the failure.
func (r Result) Outcome() string {
	if r.Action != nil {
		return r.Action.Op
	}
	return string(r.Failure)
}

// DefaultLifecycle is a kind's lifecycle when the declaration names none.
func DefaultLifecycle(k builtins.Kind) state.Lifecycle {
	spec, _ := Spec(k)
	return spec.Lifecycle
}

// Invoke runs a script's entry function on input with its committed state
// (session state is keyed by session), under its limits, and commits the
// new state only together with one valid action.
func (rt *Runtime) Invoke(ctx context.Context, id string, input starlark.Value, session string) Result {
	c, fn, res := rt.prepare(id)
	if fn == nil {
		return res
	}
	if c.Lifecycle == state.Invocation || c.Lifecycle == "" || rt.opts.Store == nil {
		return rt.call(ctx, c, fn, input, map[string]any{})
	}
	if c.Lifecycle == state.Session && session == "" {
		// Some hosts send no session id (Copilot's payloads); failing every
		// call for it would deny all their commands.
		res := rt.call(ctx, c, fn, input, map[string]any{})
		res.Note = "no session id: ran with fresh state, none kept"
		return res
	}
	lockCtx, cancel := context.WithTimeout(ctx, c.Limits.Timeout)
	defer cancel()
	called := false
	ident := state.Identity{ScriptID: c.ID, Kind: string(c.Kind), SourceSHA256: c.sourceSHA(), ManifestSHA256: rt.manifest}
	err := rt.opts.Store.Transact(lockCtx, c.Lifecycle, session, ident, func(cur map[string]any) (map[string]any, bool, error) {
		called = true
		res = rt.call(ctx, c, fn, input, cur)
		return res.State, res.Action != nil, nil
	})
	if err != nil {
		// The call's action stands only if its state was committed.
		what := "state"
		if called {
			what = "committing state"
		}
		return Result{Failure: FailState, Err: fmt.Errorf("%s: %w", what, err), Output: res.Output, Steps: res.Steps, Elapsed: res.Elapsed}
	}
	return res
}

// Run runs a script with the given state and nothing stored: what script
// tests use to observe a call, its new state and its failures.
func (rt *Runtime) Run(ctx context.Context, id string, input starlark.Value, st map[string]any) Result {
	c, fn, res := rt.prepare(id)
	if fn == nil {
		return res
	}
	if st == nil {
		st = map[string]any{}
	}
	return rt.call(ctx, c, fn, input, st)
}

func (rt *Runtime) prepare(id string) (*compiled, *starlark.Function, Result) {
	c, ok := rt.scripts[id]
	if !ok {
		return nil, nil, Result{Failure: FailError, Err: fmt.Errorf("no script %q is declared", id)}
	}
	fn, err := c.entry(rt)
	if err != nil {
		res := Result{Failure: FailError, Err: err}
		var e *Error
		if errors.As(err, &e) {
			res.Failure = e.Failure
		}
		res.Backtrace = backtrace(err)
		return c, nil, res
	}
	return c, fn, Result{}
}

// call runs fn once on a fresh thread. cur is never modified: the script
// gets a converted copy, so a failure leaves it as it was.
func (rt *Runtime) call(ctx context.Context, c *compiled, fn *starlark.Function, input starlark.Value, cur map[string]any) Result {
	start := time.Now()
	res := Result{State: cur}
	st, err := builtins.ToStarlark(cur)
	if err != nil {
		res.Failure, res.Err = FailState, fmt.Errorf("state: %w", err)
		return res
	}
	r := newRun(c.ID, c.Limits)
	r.watch(ctx)
	v, err := watched(r, func() (starlark.Value, error) { return starlark.Call(r.thread, fn, starlark.Tuple{input, st}, nil) })
	res.Output, res.Steps, res.Elapsed = r.output(), r.thread.ExecutionSteps(), time.Since(start)
	if failure, err := r.classify(err); err != nil {
		res.Failure, res.Err, res.Backtrace = failure, err, backtrace(err)
		return res
	}
	act, ok := v.(*builtins.Action)
	switch {
	case !ok:
		res.Failure, res.Err = FailMalformed, fmt.Errorf("%s returned %s, want one %s action", c.Function, describe(v), c.Kind.Module())
		return res
	case act.Kind != c.Kind:
		res.Failure, res.Err = FailMalformed, fmt.Errorf("%s returned %s, an action of another kind; want one %s action", c.Function, act, c.Kind.Module())
		return res
	}
	next, err := builtins.FromStarlark(st) // its errors name the state
	if err != nil {
		res.Failure, res.Err = FailMalformed, err
		return res
	}
	res.Action, res.State = act, next.(map[string]any)
	return res
}

func describe(v starlark.Value) string {
	switch v := v.(type) {
	case starlark.NoneType:
		return "None"
	case starlark.Tuple, *starlark.List:
		return fmt.Sprintf("a %s of %d values", v.Type(), v.(starlark.Sequence).Len())
	}
	return "a " + v.Type()
}

func backtrace(err error) string {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return ee.Backtrace()
	}
	return ""
}

// fuelChunk is how many steps run between two checkpoints.
const fuelChunk = 1_000

// run is one thread with its limits armed before any code runs on it.
// Fuel, time and the caller's context are checked every fuelChunk steps;
// the watchdog (watchdog.go) checks time and memory between them, for a
// step that runs long or allocates much.
type run struct {
	thread    *starlark.Thread
	out       strings.Builder
	maxOut    int
	truncated bool
	fuel      uint64
	deadline  time.Time
	timeout   time.Duration
	ctx       context.Context
	outOfFuel bool
	// Set by the watchdog's goroutine as well as the run's own.
	outOfMemory, timedOut atomic.Bool
	stoppedAt             atomic.Int64 // when the watchdog cancelled the run, in Unix ns
	stopReason            string       // why; guarded by watchdog.mu
}

func newRun(name string, lim Limits) *run {
	r := &run{maxOut: lim.MaxOutput, fuel: lim.Fuel, deadline: time.Now().Add(lim.Timeout), timeout: lim.Timeout}
	r.thread = &starlark.Thread{
		Name:  name,
		Print: r.print,
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errors.New("load() runs only when a module is initialised")
		},
		OnMaxSteps: r.checkpoint,
	}
	r.thread.SetMaxExecutionSteps(min(lim.Fuel, fuelChunk))
	return r
}

// checkpoint runs every fuelChunk steps: it ends the run when the fuel is
// spent, the time is up or the caller gave up, else arms the next chunk.
func (r *run) checkpoint(t *starlark.Thread) {
	switch steps := t.ExecutionSteps(); {
	case steps >= r.fuel:
		r.outOfFuel = true
		t.Cancel("fuel exhausted")
	case time.Now().After(r.deadline):
		r.timedOut.Store(true)
		t.Cancel(fmt.Sprintf("timeout after %s", r.timeout))
	case r.ctx != nil && r.ctx.Err() != nil:
		r.timedOut.Store(true)
		t.Cancel(context.Cause(r.ctx).Error())
	default:
		t.SetMaxExecutionSteps(min(r.fuel, steps+fuelChunk))
	}
}

// watch also ends the run when ctx is done.
func (r *run) watch(ctx context.Context) { r.ctx = ctx }

// print keeps what a script prints, up to the limit: it goes to the audit
// record, never to stdout (hook stdout is protocol data).
func (r *run) print(_ *starlark.Thread, msg string) {
	if r.truncated {
		return
	}
	if r.out.Len()+len(msg)+1 > r.maxOut {
		r.out.WriteString(msg[:max(0, min(len(msg), r.maxOut-r.out.Len()))])
		r.out.WriteString("\n[print output truncated]\n")
		r.truncated = true
		return
	}
	r.out.WriteString(msg)
	r.out.WriteByte('\n')
}

func (r *run) output() string { return r.out.String() }

// classify tells out-of-fuel and timeouts apart from ordinary errors.
func (r *run) classify(err error) (Failure, error) {
	switch {
	case err == nil:
		return "", nil
	case r.outOfFuel:
		return FailFuel, &Error{Failure: FailFuel, Err: fmt.Errorf("out of fuel after %d steps: %w", r.thread.ExecutionSteps(), err)}
	case r.outOfMemory.Load():
		// What the script built is garbage now: collect it, and give it
		// back, before the next run is measured against the budget.
		debug.FreeOSMemory()
		return FailMemory, &Error{Failure: FailMemory, Err: err}
	case r.timedOut.Load():
		return FailTimeout, &Error{Failure: FailTimeout, Err: err}
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Failure, err
	}
	return FailError, &Error{Failure: FailError, Err: err}
}
