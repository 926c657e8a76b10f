// Package replay decides recorded calls again under a configuration and
// says what would have changed: the pre-tool calls of agents' hooks
// (policy_decision, guard and config_unauthorized events) and the npm
// scripts the shim ran (script_end events), each with the recorded cwd,
// agent, tool and time.
package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Options says what to replay, and under what.
type Options struct {
	// Engine decides again (policy.LoadReplay); it must have loaded.
	Engine *policy.Engine
	// Root is the repository root: the cwd of calls recorded without one
	// (lines written before decisions kept their cwd).
	Root string
	// Files are the session files to read; Since, when set, keeps the
	// calls recorded at or after it.
	Files []string
	Since time.Time
	// Home is what scripts see as ctx.home.
	Home string
	// Timeout bounds one call's extensions together, as the hook's own
	// deadline does; 0 is no bound beyond each script's own limits.
	Timeout time.Duration
}

// Outcome is one decision: recorded, or taken again.
type Outcome struct {
	Decision string `json:"decision"`
	Rule     string `json:"rule,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Change is how a call's decision changed.
type Change string

const (
	Unchanged Change = "unchanged"
	// Loosens: the new decision is less strict (deny -> ask, deny ->
	// allow, ask -> allow).
	Loosens Change = "loosens"
	// Tightens: the new decision is stricter.
	Tightens Change = "tightens"
	// RuleChanged: the same decision, taken by another rule.
	RuleChanged Change = "rule"
)

// Call is one recorded call decided again.
type Call struct {
	Session   string `json:"session"`
	Line      int    `json:"line"`
	Timestamp string `json:"timestamp,omitempty"`
	Event     string `json:"event"`
	Agent     string `json:"agent,omitempty"` // "npm" for a script
	Tool      string `json:"tool,omitempty"`  // the agent's own tool name
	Command   string `json:"command,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	// CwdRecorded is false when the line has no cwd and the call was
	// judged at the repository root.
	CwdRecorded bool    `json:"cwd_recorded"`
	Was         Outcome `json:"was"`
	Now         Outcome `json:"now"`
	Change      Change  `json:"change"`
	// Inexact says why the replayed call may not be the recorded one
	// exactly: "redacted" (a secret in the command was replaced before it
	// was written), "truncated" (the command was cut), "no cwd recorded",
	// "executable not run".
	Inexact []string `json:"inexact,omitempty"`
	// executables is set when an executable extension was not run.
	executables bool
}

// Skip is a recorded call that cannot be decided again.
type Skip struct {
	Session string `json:"session"`
	Line    int    `json:"line"`
	Event   string `json:"event"`
	Reason  string `json:"reason"`
}

// Damage is a session file's damaged lines: they may have been calls, and
// are counted, never dropped silently.
type Damage struct {
	File       string `json:"file"`
	Count      int    `json:"count"`
	FirstLine  int    `json:"first_line"`
	FirstError string `json:"first_error"`
}

// Result is what a replay found. Changed calls are kept whole; unchanged
// ones are counted.
type Result struct {
	Sessions int `json:"sessions"` // session files read
	Calls    int `json:"calls"`    // calls decided again
	// Unchanged, Loosened, Tightened and RuleChanged count the calls by
	// Change.
	Unchanged   int `json:"unchanged"`
	Loosened    int `json:"loosened"`
	Tightened   int `json:"tightened"`
	RuleChanged int `json:"rule_changed"`
	// NoCwd counts the calls judged at the repository root because their
	// line recorded no cwd.
	NoCwd int `json:"no_cwd"`
	// ExecutablesNotRun counts the calls decided without running an
	// executable extension they met (see policy.LoadReplay).
	ExecutablesNotRun int      `json:"executables_not_run"`
	Changed           []Call   `json:"changes"`
	Skipped           []Skip   `json:"skipped"`
	Damaged           []Damage `json:"damaged"`
}

// DamagedLines is the number of damaged lines in every file.
func (r *Result) DamagedLines() int {
	n := 0
	for _, d := range r.Damaged {
		n += d.Count
	}
	return n
}

// ErrNotLoaded is returned when the engine's configuration did not load:
// every call would be denied, which says nothing about the configuration.
var ErrNotLoaded = errors.New("the configuration does not load")

// Run decides every recorded call of the files again, in time order, one
// at a time (scripts with session state see the session as it went).
func Run(o Options) (*Result, error) {
	if o.Engine == nil || o.Engine.LoadErr != nil {
		var err error
		if o.Engine != nil {
			err = o.Engine.LoadErr
		}
		return nil, fmt.Errorf("%w: %v", ErrNotLoaded, err)
	}
	e := o.Engine
	e.Home = o.Home
	e.EventTimeout = o.Timeout
	res := &Result{Sessions: len(o.Files), Changed: []Call{}, Skipped: []Skip{}, Damaged: []Damage{}}
	q := &telemetry.Query{Files: o.Files, Filter: telemetry.Filter{Since: o.Since}, Decode: true}
	damage, err := q.Run(func(r *telemetry.Record) error {
		ev := r.Event
		session := telemetry.SessionIDOf(r.File)
		switch ev.Event {
		case telemetry.EventPolicyDecision, telemetry.EventGuard, telemetry.EventConfigUnauthorized:
			c, skip := hookCall(o, ev)
			res.add(session, r.Line, ev, c, skip)
		case telemetry.EventScriptEnd:
			c, skip := scriptCall(o, ev)
			res.add(session, r.Line, ev, c, skip)
		}
		return nil
	})
	for _, d := range damage {
		res.Damaged = append(res.Damaged, Damage{File: d.File, Count: d.Count, FirstLine: d.FirstLine, FirstError: d.FirstErr})
	}
	if err != nil {
		return res, err
	}
	return res, nil
}

func (res *Result) add(session string, line int, ev *telemetry.Event, c *Call, skip string) {
	if skip != "" {
		res.Skipped = append(res.Skipped, Skip{Session: session, Line: line, Event: ev.Event, Reason: skip})
		return
	}
	c.Session, c.Line, c.Event = session, line, ev.Event
	if !ev.Timestamp.IsZero() {
		c.Timestamp = ev.Timestamp.UTC().Format(telemetry.TimestampLayout)
	}
	if !c.CwdRecorded {
		res.NoCwd++
		c.Inexact = append(c.Inexact, "no cwd recorded")
	}
	if strings.Contains(c.Command, "[REDACTED]") {
		c.Inexact = append(c.Inexact, "redacted")
	}
	if strings.HasSuffix(c.Command, "…[truncated]") {
		c.Inexact = append(c.Inexact, "truncated")
	}
	if c.executables {
		res.ExecutablesNotRun++
		c.Inexact = append(c.Inexact, "executable not run")
	}
	c.Change = compare(c.Was, c.Now)
	res.Calls++
	switch c.Change {
	case Unchanged:
		res.Unchanged++
		return
	case Loosens:
		res.Loosened++
	case Tightens:
		res.Tightened++
	case RuleChanged:
		res.RuleChanged++
	}
	res.Changed = append(res.Changed, *c)
}

var severity = map[string]int{"allow": 0, "ask": 1, "deny": 2}

func compare(was, now Outcome) Change {
	a, b := severity[was.Decision], severity[now.Decision]
	switch {
	case b < a:
		return Loosens
	case b > a:
		return Tightens
	case was.Rule != now.Rule:
		return RuleChanged
	}
	return Unchanged
}

// cwdOf is where a recorded call is judged: its recorded cwd, else the
// repository root.
func cwdOf(o Options, ev *telemetry.Event) (string, bool) {
	if ev.Cwd != "" {
		return ev.Cwd, true
	}
	return o.Root, false
}

// hookCall decides a recorded pre-tool call again.
func hookCall(o Options, ev *telemetry.Event) (*Call, string) {
	was := Outcome{Decision: ev.Decision, Rule: ev.Rule, Reason: ev.Reason}
	if was.Rule == "" {
		was.Rule = ev.MatchedRule // the reference tool's lines
	}
	if _, ok := severity[was.Decision]; !ok {
		return nil, fmt.Sprintf("the recorded decision %q is not allow, deny or ask", ev.Decision)
	}
	cwd, recorded := cwdOf(o, ev)
	c := &Call{Agent: ev.Agent, Tool: ev.ToolName, Command: ev.Command, Cwd: cwd, CwdRecorded: recorded, Was: was}
	var hev *hostapi.Event
	switch {
	case ev.Agent == "" && ev.ToolName == "" && ev.Command != "":
		// A line of the reference tool: a shell command, no agent named.
		hev = &hostapi.Event{Kind: hostapi.KindPreTool, Tool: hostapi.ToolBash, Command: ev.Command,
			Cwd: cwd, SessionID: ev.SessionID}
	case ev.ToolName == "" && ev.Command == "" && len(ev.Input) == 0:
		return nil, "the hook payload could not be read, so there is no call to decide again"
	default:
		var ok bool
		hev, ok = hostapi.ReplayEvent(hostapi.RecordedCall{Agent: ev.Agent, NativeEvent: ev.NativeEvent,
			NativeTool: ev.ToolName, Command: ev.Command, Input: ev.Input, Meta: ev.Meta,
			Cwd: cwd, CwdResolved: recorded, SessionID: ev.SessionID})
		if !ok {
			return nil, fmt.Sprintf("agent %q has no adapter in this agent-shell", ev.Agent)
		}
		c.Cwd = hev.Cwd
	}
	at := ev.Timestamp
	o.Engine.Now = func() time.Time {
		if at.IsZero() {
			return time.Now()
		}
		return at
	}
	d := o.Engine.DecideEvent(hev)
	c.Now = Outcome{Decision: string(d.Action), Rule: d.Rule, Reason: d.Reason}
	c.executables = skippedExecutable(d)
	return c, ""
}

// scriptCall decides a recorded npm script again as the shim would: the
// shim enforces the interceptors, not the rules (a command the rules deny
// still runs), so the decision is whether the script runs.
func scriptCall(o Options, ev *telemetry.Event) (*Call, string) {
	if ev.Command == "" {
		return nil, "the script's command was not recorded"
	}
	was := Outcome{Decision: "allow", Reason: "the script ran"}
	if r, ok := strings.CutPrefix(ev.Error, "not run: "); ok {
		was = Outcome{Decision: "deny", Reason: r}
	}
	cwd, recorded := cwdOf(o, ev)
	c := &Call{Agent: "npm", Tool: ev.Script, Command: ev.Command, Cwd: cwd, CwdRecorded: recorded, Was: was}
	req := policy.Request{Cwd: cwd, Home: o.Home, SessionID: ev.SessionID, Agent: "npm", Tool: hostapi.ToolBash, Time: ev.Timestamp}
	if o.Timeout > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), o.Timeout)
		defer cancel()
		req.Context = ctx
	}
	d := o.Engine.DecideShim(ev.Command, req)
	c.executables = skippedExecutable(d)
	c.Now = Outcome{Decision: "allow", Reason: "the script runs"}
	if it := d.Intercept; it != nil {
		switch it.Outcome {
		case policy.InterceptDeny:
			c.Now = Outcome{Decision: "deny", Rule: d.Rule, Reason: d.Reason}
		case policy.InterceptRewrite:
			c.Now.Reason = "the script runs, rewritten by interceptor " + it.Interceptor + " to: " + it.Command
		case policy.InterceptRespond:
			c.Now.Reason = "interceptor " + it.Interceptor + " answers in the script's place"
		}
	}
	return c, ""
}

// skippedExecutable reports whether the decision met an executable
// extension that was not run.
func skippedExecutable(d policy.Decision) bool {
	for _, r := range d.Extensions {
		if r.Outcome == string(runtime.FailSkipped) {
			return true
		}
	}
	return false
}

// Group is the changed calls that changed alike: from one decision and
// rule to another.
type Group struct {
	Change   Change `json:"change"`
	From     string `json:"from"`
	To       string `json:"to"`
	RuleFrom string `json:"rule_from,omitempty"`
	RuleTo   string `json:"rule_to,omitempty"`
	Calls    []Call `json:"-"`
	Count    int    `json:"count"`
}

// changeOrder lists what matters most first.
var changeOrder = map[Change]int{Loosens: 0, Tightens: 1, RuleChanged: 2}

// Groups sorts the changed calls into groups: loosening first, then
// tightening, then rule changes; the largest group first within each.
func (r *Result) Groups() []Group {
	idx := map[[4]string]int{}
	var groups []Group
	for _, c := range r.Changed {
		k := [4]string{c.Was.Decision, c.Now.Decision, c.Was.Rule, c.Now.Rule}
		i, ok := idx[k]
		if !ok {
			i = len(groups)
			idx[k] = i
			groups = append(groups, Group{Change: c.Change, From: k[0], To: k[1], RuleFrom: k[2], RuleTo: k[3]})
		}
		groups[i].Calls = append(groups[i].Calls, c)
		groups[i].Count++
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if changeOrder[a.Change] != changeOrder[b.Change] {
			return changeOrder[a.Change] < changeOrder[b.Change]
		}
		if a.From+a.To != b.From+b.To {
			return a.From+" "+a.To < b.From+" "+b.To
		}
		return a.Count > b.Count
	})
	return groups
}

// ErrNoConfig is returned by ConfigRoot for a folder that is neither.
var ErrNoConfig = errors.New("no agent-shell configuration")

// ConfigRoot is the root of the checkout a --config folder names: dir
// itself when it holds policy.ConfigFolder, or the checkout around dir when
// dir is that folder (its path ends in .github/hooks/agent-shell).
func ConfigRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(filepath.Join(abs, filepath.FromSlash(policy.ConfigFolder))); err == nil && fi.IsDir() {
		return abs, nil
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", err
	} else if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	folder := filepath.FromSlash(policy.ConfigFolder)
	if root, ok := strings.CutSuffix(abs, string(filepath.Separator)+folder); ok {
		return root, nil
	}
	return "", fmt.Errorf("%w in %s: give a checkout that holds %s/, or that folder itself", ErrNoConfig, dir, policy.ConfigFolder)
}
