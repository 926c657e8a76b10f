package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// TestFile is one *_test.star file.
type TestFile struct {
	Name   string // as shown in results, e.g. "scripts/tf_test.star"
	Path   string // slash path relative to the runtime's folder (or Pack's), for its loads; "" when outside it
	Pack   string // the declared pack the file belongs to: its loads resolve in the pack, and t.run finds the pack's scripts by their own ids
	Source []byte
}

// TestOptions controls a test run.
type TestOptions struct {
	Run     *regexp.Regexp // only tests whose "file/name" matches; nil for all
	Verbose bool           // "=== RUN" lines and what tests print
	JSON    bool           // test2json events instead of text
	Timeout time.Duration  // per test; 5s when 0
	Fuel    uint64         // per test function, not counting the scripts it runs; 10M when 0
}

// TestSummary counts the outcomes of a run.
type TestSummary struct{ Passed, Failed, Skipped int }

const (
	defaultTestTimeout = 5 * time.Second
	defaultTestFuel    = 10_000_000
	testPrefix         = "test_"
	todoPrefix         = "todo_test_"
)

// testSurface is what a test file sees: the assertions, every kind's
// action constructors (to compare with what a script returned; a test
// cannot hand an action to the script under test, only observe its
// answer) and the pure modules.
func testSurface() starlark.StringDict {
	d := starlark.StringDict{"assert": builtins.Assert()}
	for k, v := range builtins.Library() {
		d[k] = v
	}
	for _, k := range builtins.Kinds() {
		d[k.Module()] = builtins.ActionModule(k)
	}
	return d
}

// RunTests runs the test functions of each file, in file order and, within
// a file, in source order, writing results to out like `go test` does. A
// file that does not compile counts as one failed test.
func (rt *Runtime) RunTests(files []TestFile, opts TestOptions, out io.Writer) TestSummary {
	if opts.Timeout == 0 {
		opts.Timeout = defaultTestTimeout
	}
	if opts.Fuel == 0 {
		opts.Fuel = defaultTestFuel
	}
	rep := &reporter{out: out, json: opts.JSON, verbose: opts.Verbose}
	surface := testSurface()
	var sum TestSummary
	for _, f := range files {
		start := time.Now()
		tests, err := rt.loadTestFile(f, surface, opts)
		if err != nil {
			rep.result(f.Name, "", "fail", 0, []string{err.Error()}, "")
			if !opts.JSON { // the result above was the file's own event
				rep.file(f.Name, true, time.Since(start))
			}
			sum.Failed++
			continue
		}
		failedBefore := sum.Failed
		for _, tc := range tests {
			full := f.Name + "/" + tc.name
			if opts.Run != nil && !opts.Run.MatchString(full) {
				continue
			}
			if strings.HasPrefix(tc.name, todoPrefix) {
				rep.start(f.Name, tc.name)
				rep.result(f.Name, tc.name, "skip", 0, nil, "")
				sum.Skipped++
				continue
			}
			rep.start(f.Name, tc.name)
			elapsed, failures, output := rt.runTest(tc.fn, f.Pack, opts)
			if len(failures) > 0 {
				rep.result(f.Name, tc.name, "fail", elapsed, failures, output)
				sum.Failed++
			} else {
				rep.result(f.Name, tc.name, "pass", elapsed, nil, output)
				sum.Passed++
			}
		}
		rep.file(f.Name, sum.Failed > failedBefore, time.Since(start))
	}
	return sum
}

// Add adds the counts of another run.
func (s *TestSummary) Add(o TestSummary) {
	s.Passed, s.Failed, s.Skipped = s.Passed+o.Passed, s.Failed+o.Failed, s.Skipped+o.Skipped
}

// String is the last line of a text run: "N passed, N failed".
func (s TestSummary) String() string {
	line := fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
	if s.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	return line
}

type testCase struct {
	name string
	fn   *starlark.Function
}

// loadTestFile compiles a test file on the test surface, resolves its
// loads as a script's are, runs its top level, and lists its tests in
// source order.
func (rt *Runtime) loadTestFile(f TestFile, surface starlark.StringDict, opts TestOptions) ([]testCase, error) {
	file := f.Name
	prog, err := compileSource(file, f.Source, surface.Has)
	if err != nil {
		return nil, err
	}
	from := origin{pack: f.Pack, dir: "."}
	if f.Path != "" {
		from = originOf(f.Path, f.Pack)
	}
	l := &loader{rt: rt}
	defer l.close()
	deps, err := l.resolveLoads(prog, file, from, []string{f.Path})
	if err != nil {
		return nil, err
	}
	globals, err := rt.initProgram(file, prog, loadMap(prog, deps), surface, Limits{Fuel: opts.Fuel, Timeout: opts.Timeout}.withDefaults())
	if err != nil {
		return nil, err
	}
	var tests []testCase
	for name, v := range globals {
		fn, ok := v.(*starlark.Function)
		if !ok || !(strings.HasPrefix(name, testPrefix) || strings.HasPrefix(name, todoPrefix)) {
			continue
		}
		if fn.NumParams() != 1 {
			return nil, fmt.Errorf("%s: %s must take one parameter, t", fn.Position(), name)
		}
		tests = append(tests, testCase{name: name, fn: fn})
	}
	sort.Slice(tests, func(i, j int) bool {
		pi, pj := tests[i].fn.Position(), tests[j].fn.Position()
		return pi.Line < pj.Line || pi.Line == pj.Line && pi.Col < pj.Col
	})
	return tests, nil
}

// runTest calls one test function on a fresh thread with the test-side
// limits. Failed assertions do not stop it; an error does.
func (rt *Runtime) runTest(fn *starlark.Function, pack string, opts TestOptions) (time.Duration, []string, string) {
	start := time.Now()
	r := newRun(fn.Name(), Limits{Fuel: opts.Fuel, Timeout: opts.Timeout, MaxOutput: DefaultMaxOutput})
	var failures []string
	builtins.SetReporter(r.thread, func(pos, msg string) {
		failures = append(failures, pos+": "+msg)
	})
	_, err := watched(r, func() (starlark.Value, error) {
		return starlark.Call(r.thread, fn, starlark.Tuple{&tester{rt: rt, pack: pack}}, nil)
	})
	if failure, err := r.classify(err); err != nil {
		msg := err.Error()
		if bt := backtrace(err); bt != "" {
			msg = bt
		}
		if failure != FailError {
			msg = fmt.Sprintf("test %s: %s", failure, msg)
		}
		failures = append(failures, msg)
	}
	return time.Since(start), failures, r.output()
}

// tester is the t a test function receives.
// tester is t; a pack's tests name the pack's scripts by their own ids.
type tester struct {
	rt   *Runtime
	pack string
}

var testerMethods = []string{"audit_event", "context", "result", "run"}

func (t *tester) String() string        { return "<t>" }
func (t *tester) Type() string          { return "t" }
func (t *tester) Freeze()               {}
func (t *tester) Truth() starlark.Bool  { return starlark.True }
func (t *tester) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: t") }
func (t *tester) AttrNames() []string   { return testerMethods }

func (t *tester) Attr(name string) (starlark.Value, error) {
	switch name {
	case "run":
		return starlark.NewBuiltin("t.run", t.run), nil
	case "context":
		return starlark.NewBuiltin("t.context", t.context), nil
	case "audit_event":
		return starlark.NewBuiltin("t.audit_event", t.auditEvent), nil
	case "result":
		return starlark.NewBuiltin("t.result", t.result), nil
	}
	return nil, nil
}

// contextSpec is a shell-context-v1 a test built; t.run gives it the phase
// of the script it runs.
type contextSpec struct{ c builtins.Context }

func (c *contextSpec) String() string {
	return fmt.Sprintf("t.context(argv = %s)", starlark.String(strings.Join(c.c.Argv, " ")))
}
func (c *contextSpec) Type() string          { return "context" }
func (c *contextSpec) Freeze()               {}
func (c *contextSpec) Truth() starlark.Bool  { return starlark.True }
func (c *contextSpec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: context") }

// resultSpec is a shell-result-v1 a test built, for after-interceptors.
type resultSpec struct{ r builtins.CommandResult }

func (r *resultSpec) String() string {
	return fmt.Sprintf("t.result(argv = %s)", starlark.String(strings.Join(r.r.Argv, " ")))
}
func (r *resultSpec) Type() string          { return "result" }
func (r *resultSpec) Freeze()               {}
func (r *resultSpec) Truth() starlark.Bool  { return starlark.True }
func (r *resultSpec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: result") }

// auditSpec is a shell-audit-v1 a test built.
type auditSpec struct{ a builtins.AuditEvent }

func (a *auditSpec) String() string        { return fmt.Sprintf("t.audit_event(event = %q)", a.a.Event) }
func (a *auditSpec) Type() string          { return "audit_event" }
func (a *auditSpec) Freeze()               {}
func (a *auditSpec) Truth() starlark.Bool  { return starlark.True }
func (a *auditSpec) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: audit_event") }

// Phase is the phase value a kind's scripts see in ctx.phase.
func Phase(k builtins.Kind) string {
	spec, _ := Spec(k)
	return spec.Phase
}

// run is t.run(script_id, ctx, state = {}): the real script, under its
// real limits, on its own thread; the result is frozen.
func (t *tester) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var id string
	var input starlark.Value
	var st starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "script_id", &id, "ctx", &input, "state?", &st); err != nil {
		return nil, err
	}
	if _, ok := t.rt.Kind(id); !ok && t.pack != "" {
		id = t.pack + "/" + id
	}
	kind, ok := t.rt.Kind(id)
	if !ok {
		return nil, fmt.Errorf("%s: no script %q is declared (declared: %s)", b.Name(), id, strings.Join(t.rt.IDs(), ", "))
	}
	var value starlark.Value
	switch in := input.(type) {
	case *resultSpec:
		if kind != builtins.KindAfter {
			return nil, fmt.Errorf("%s: script %q is a %s; give it %s", b.Name(), id, kind, wantInput(kind))
		}
		value = in.r.Value()
	case *contextSpec:
		if kind == builtins.KindAudit || kind == builtins.KindAfter {
			return nil, fmt.Errorf("%s: script %q is a %s; give it %s", b.Name(), id, kind, wantInput(kind))
		}
		c := in.c
		c.Phase = Phase(kind)
		value = c.Value()
	case *auditSpec:
		if kind != builtins.KindAudit {
			return nil, fmt.Errorf("%s: script %q is a %s; give it %s", b.Name(), id, kind, wantInput(kind))
		}
		v, err := in.a.Value()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
		value = v
	default:
		return nil, fmt.Errorf("%s: ctx is a %s; build it with %s", b.Name(), input.Type(), wantInput(kind))
	}
	initial, err := dictArg(b, "state", st)
	if err != nil {
		return nil, err
	}
	res := t.rt.Run(context.Background(), id, value, initial)
	return resultValue(res)
}

func wantInput(k builtins.Kind) string {
	switch k {
	case builtins.KindAudit:
		return "t.audit_event(...)"
	case builtins.KindAfter:
		return "t.result(...)"
	}
	return "t.context(...)"
}

// resultValue is the frozen struct t.run returns.
func resultValue(res Result) (starlark.Value, error) {
	stateValue, err := builtins.ToStarlark(res.State)
	if err != nil {
		return nil, err
	}
	var action starlark.Value = starlark.None
	if res.Action != nil {
		action = res.Action
	}
	errText := starlark.Value(starlark.None)
	if res.Err != nil {
		errText = starlark.String(res.Err.Error())
	}
	v := starlarkstruct.FromStringDict(starlark.String("result"), starlark.StringDict{
		"outcome": starlark.String(res.Outcome()),
		"failure": starlark.String(res.Failure),
		"action":  action,
		"state":   stateValue,
		"steps":   starlark.MakeUint64(res.Steps),
		"output":  starlark.String(res.Output),
		"error":   errText,
	})
	v.Freeze()
	return v, nil
}

// context is t.context(argv = [...], ...): a shell-context-v1 with test
// defaults; an unknown field is an error, so tests break when the schema
// changes. The command fields default to a plain command run in cwd: dir
// is cwd, layers is [argv], home and project are "", no redirections, no
// upstream stages. redirects is a list of dicts {op, target, file, write,
// dynamic} (op required, unknown keys refused); upstream and layers are
// lists of argv lists.
func (t *tester) context(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	c := builtins.Context{
		RequestID: "req-test", SessionID: "test-session", Agent: "test", Tool: "bash",
		Cwd: "/repo", Timestamp: "2026-01-01T00:00:00.000Z",
	}
	var argv, effects, policy starlark.Value = starlark.None, starlark.None, starlark.None
	var redirects, upstream, layers starlark.Value = starlark.None, starlark.None, starlark.None
	var dir, assigns starlark.Value = starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"argv", &argv, "program?", &c.Program, "cwd?", &c.Cwd, "effects?", &effects,
		"session_id?", &c.SessionID, "agent?", &c.Agent, "tool?", &c.Tool,
		"request_id?", &c.RequestID, "timestamp?", &c.Timestamp, "policy?", &policy,
		"home?", &c.Home, "project?", &c.Project, "dir?", &dir, "redirects?", &redirects,
		"upstream?", &upstream, "layers?", &layers, "implied?", &c.Implied, "dynamic?", &c.Dynamic, "assigns?", &assigns,
		"guessed?", &c.Guessed); err != nil {
		return nil, err
	}
	c.Dir = c.Cwd
	if dir != starlark.None {
		d, ok := starlark.AsString(dir)
		if !ok {
			return nil, fmt.Errorf("%s: dir must be a string, not %s", b.Name(), dir.Type())
		}
		c.Dir = d
	}
	var err error
	if c.Argv, err = stringList(argv); err != nil || len(c.Argv) == 0 {
		return nil, fmt.Errorf("%s: argv must be a non-empty list of strings", b.Name())
	}
	if effects != starlark.None {
		if c.Effects, err = stringList(effects); err != nil {
			return nil, fmt.Errorf("%s: effects: %v", b.Name(), err)
		}
	}
	if c.Program == "" {
		c.Program = c.Argv[0]
		c.Argv = append([]string{path.Base(c.Argv[0])}, c.Argv[1:]...)
	}
	if scan, ok := shellcmd.ScanCode(c.Argv); ok {
		// As the engine does: an interpreter one-liner's ctx.code.
		c.Code = &scan
	}
	if assigns != starlark.None {
		if c.Assigns, err = stringList(assigns); err != nil {
			return nil, fmt.Errorf("%s: assigns: %v", b.Name(), err)
		}
	}
	if policy != starlark.None {
		p, err := policyValue(policy)
		if err != nil {
			return nil, fmt.Errorf("%s: policy: %v", b.Name(), err)
		}
		c.Policy = p
	}
	if redirects != starlark.None {
		if c.Redirects, err = redirectsValue(redirects); err != nil {
			return nil, fmt.Errorf("%s: redirects: %v", b.Name(), err)
		}
	}
	if upstream != starlark.None {
		if c.Upstream, err = argvLists(upstream, false); err != nil {
			return nil, fmt.Errorf("%s: upstream: %v", b.Name(), err)
		}
	}
	c.Layers = [][]string{c.Argv}
	if layers != starlark.None {
		if c.Layers, err = argvLists(layers, true); err != nil {
			return nil, fmt.Errorf("%s: layers: %v", b.Name(), err)
		}
		if len(c.Layers) == 0 || !slices.Equal(c.Layers[len(c.Layers)-1], c.Argv) {
			return nil, fmt.Errorf("%s: layers: the last layer must be argv %q", b.Name(), c.Argv)
		}
	}
	return &contextSpec{c: c}, nil
}

// argvLists reads a list of argv lists (each non-empty when nonEmpty).
func argvLists(v starlark.Value, nonEmpty bool) ([][]string, error) {
	seq, ok := v.(starlark.Indexable)
	if !ok || v.Type() == "string" {
		return nil, fmt.Errorf("want a list of argv lists, not %s", v.Type())
	}
	out := make([][]string, seq.Len())
	for i := range out {
		l, err := stringList(seq.Index(i))
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
		if nonEmpty && len(l) == 0 {
			return nil, fmt.Errorf("item %d is empty", i)
		}
		out[i] = l
	}
	return out, nil
}

// redirectsValue reads [{"op": ">", "target": "f", "file": True, "write":
// True, "dynamic": False}, ...]: op is required, the rest default to ""
// and False, and any other key is an error.
func redirectsValue(v starlark.Value) ([]shellcmd.Redirect, error) {
	data, err := builtins.FromStarlark(v)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var in []struct {
		Op      *string `json:"op"`
		Target  string  `json:"target"`
		File    bool    `json:"file"`
		Write   bool    `json:"write"`
		Dynamic bool    `json:"dynamic"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("want a list of dicts of op, target, file, write and dynamic: %v", err)
	}
	out := make([]shellcmd.Redirect, len(in))
	for i, r := range in {
		if r.Op == nil || *r.Op == "" {
			return nil, fmt.Errorf("item %d has no op", i)
		}
		out[i] = shellcmd.Redirect{Op: *r.Op, Target: r.Target, File: r.File, Write: r.Write, Dynamic: r.Dynamic}
	}
	return out, nil
}

// policyValue reads {"action": ..., "reason": ..., "matches": [rule ids]}.
func policyValue(v starlark.Value) (*builtins.Policy, error) {
	data, err := builtins.FromStarlark(v)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var in struct {
		Action  string   `json:"action"`
		Reason  string   `json:"reason"`
		Matches []string `json:"matches"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("want a dict of action, reason and matches (rule ids): %v", err)
	}
	p := &builtins.Policy{Action: in.Action, Reason: in.Reason}
	for _, id := range in.Matches {
		p.Matches = append(p.Matches, builtins.PolicyMatch{RuleID: id, Action: in.Action})
	}
	return p, nil
}

// result is t.result(argv = [...], exit = 0, stdout = "", stderr = "",
// ...): a finished command's shell-result-v1; signal = N instead of exit
// for a command killed by signal N.
func (t *tester) result(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var r builtins.CommandResult
	var argv starlark.Value
	exit, signal := 0, 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &argv, "exit?", &exit, "signal?", &signal,
		"stdout?", &r.Stdout, "stderr?", &r.Stderr, "stdout_truncated?", &r.StdoutTruncated,
		"stderr_truncated?", &r.StderrTruncated, "intercepted_by?", &r.InterceptedBy); err != nil {
		return nil, err
	}
	var err error
	if r.Argv, err = stringList(argv); err != nil || len(r.Argv) == 0 {
		return nil, fmt.Errorf("%s: argv must be a non-empty list of strings", b.Name())
	}
	r.Status = exit
	if signal != 0 {
		if exit != 0 {
			return nil, fmt.Errorf("%s: give exit or signal, not both", b.Name())
		}
		r.Signaled, r.Status = true, signal
	}
	return &resultSpec{r: r}, nil
}

// auditEvent is t.audit_event(event = "...", fields = {...}, ...).
func (t *tester) auditEvent(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a := builtins.AuditEvent{Sequence: 1, Timestamp: "2026-01-01T00:00:00.000Z", SessionID: "test-session"}
	var fields starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "event", &a.Event, "fields?", &fields,
		"session_id?", &a.SessionID, "sequence?", &a.Sequence, "timestamp?", &a.Timestamp); err != nil {
		return nil, err
	}
	var err error
	if a.Fields, err = dictArg(b, "fields", fields); err != nil {
		return nil, err
	}
	a.Fields["v"], a.Fields["event"], a.Fields["session_id"], a.Fields["timestamp"] = int64(1), a.Event, a.SessionID, a.Timestamp
	return &auditSpec{a: a}, nil
}

// dictArg converts an optional dict argument to data; None is empty.
func dictArg(b *starlark.Builtin, name string, v starlark.Value) (map[string]any, error) {
	if v == starlark.None {
		return map[string]any{}, nil
	}
	data, err := builtins.FromStarlark(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", b.Name(), name, err)
	}
	m, ok := data.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s must be a dict, not %s", b.Name(), name, v.Type())
	}
	return m, nil
}

func stringList(v starlark.Value) ([]string, error) {
	seq, ok := v.(starlark.Indexable)
	if _, isString := v.(starlark.String); !ok || isString { // a string indexes its bytes: not a list
		return nil, fmt.Errorf("want a list of strings, not %s", v.Type())
	}
	out := make([]string, seq.Len())
	for i := range out {
		s, ok := starlark.AsString(seq.Index(i))
		if !ok {
			return nil, fmt.Errorf("item %d is a %s, not a string", i, seq.Index(i).Type())
		}
		out[i] = s
	}
	return out, nil
}

// reporter writes results as text like `go test`, or as test2json events.
type reporter struct {
	out     io.Writer
	json    bool
	verbose bool
}

type testEvent struct {
	Time    time.Time `json:"Time"`
	Action  string    `json:"Action"`
	Package string    `json:"Package"`
	Test    string    `json:"Test,omitempty"`
	Elapsed *float64  `json:"Elapsed,omitempty"`
	Output  string    `json:"Output,omitempty"`
}

func (r *reporter) event(ev testEvent) {
	ev.Time = time.Now()
	data, _ := json.Marshal(ev)
	fmt.Fprintf(r.out, "%s\n", data)
}

func (r *reporter) start(file, test string) {
	if r.json {
		r.event(testEvent{Action: "run", Package: file, Test: test})
		return
	}
	if r.verbose {
		fmt.Fprintf(r.out, "=== RUN   %s/%s\n", file, test)
	}
}

func (r *reporter) result(file, test, action string, elapsed time.Duration, failures []string, output string) {
	name := file
	if test != "" {
		name += "/" + test
	}
	word := map[string]string{"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[action]
	if r.json {
		if output != "" {
			r.event(testEvent{Action: "output", Package: file, Test: test, Output: output})
		}
		for _, f := range failures {
			for _, line := range strings.Split(strings.TrimRight(f, "\n"), "\n") {
				r.event(testEvent{Action: "output", Package: file, Test: test, Output: "    " + line + "\n"})
			}
		}
		secs := elapsed.Seconds()
		r.event(testEvent{Action: action, Package: file, Test: test, Elapsed: &secs})
		return
	}
	fmt.Fprintf(r.out, "--- %s: %s (%.2fs)\n", word, name, elapsed.Seconds())
	for _, f := range failures {
		for _, line := range strings.Split(strings.TrimRight(f, "\n"), "\n") {
			fmt.Fprintf(r.out, "    %s\n", line)
		}
	}
	if output != "" && (r.verbose || len(failures) > 0) {
		for _, line := range strings.Split(strings.TrimRight(output, "\n"), "\n") {
			fmt.Fprintf(r.out, "    | %s\n", line)
		}
	}
}

func (r *reporter) file(name string, failed bool, elapsed time.Duration) {
	action := "pass"
	if failed {
		action = "fail"
	}
	if r.json {
		secs := elapsed.Seconds()
		r.event(testEvent{Action: action, Package: name, Elapsed: &secs})
		return
	}
	if failed {
		fmt.Fprintf(r.out, "FAIL\t%s\t%.3fs\n", name, elapsed.Seconds())
	} else if r.verbose {
		fmt.Fprintf(r.out, "ok  \t%s\t%.3fs\n", name, elapsed.Seconds())
	}
}
