package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"
	"github.com/agent-shell/agent-shell/telemetry"
)

// Request is what the engine knows about who asks and where: what scripts
// see in their ctx beside the command itself.
type Request struct {
	Cwd string
	// Project is the repository root scripts see as ctx.project, when it
	// is not the engine's own (a rule's examples run in an example project).
	Project string
	// Home is the hook's $HOME, "" when unknown: scripts see it as
	// ctx.home, and ctx.dir resolves "~" against it.
	Home      string
	SessionID string
	Agent     string // "claude", "copilot", ... or "npm" for the shim
	Tool      string // normalized tool name, e.g. "bash"
	Time      time.Time
	// Context cancels running scripts (nil: never, beyond their own limits).
	Context context.Context
	// DryRun decides without storing the approval grants reviewers give
	// (policy explain); scripts still run, and keep their own state.
	DryRun bool
}

// evaluation is one decision's view of the extensions: the request they
// see, and what every script run did, for the record.
type evaluation struct {
	e         *Engine
	req       Request
	requestID string
	timestamp string
	runs      []telemetry.ExtensionRun
	denies    []Match         // failures whose declared outcome is deny
	denied    map[string]bool // scripts already in denies

	line   *shellcmd.Line                    // the line decided, for ctx.upstream; nil: none known
	stages map[*shellcmd.Command]pipeStage   // built on first use
	infos  map[*shellcmd.Command]*cmdContext // built on first use, per command

	ruleScratch // rulesFor's, reused from layer to layer
}

// pipeStage places a command that is a pipeline stage's own command.
type pipeStage struct{ pipeline, stage int }

// cmdContext is what every layer's ctx says of the command it belongs to,
// beyond the layer's own argv.
type cmdContext struct {
	dir      string
	upstream [][]string
	err      error // too big to hand to a script
}

func (e *Engine) newEvaluation(req Request) *evaluation {
	if req.Context == nil {
		req.Context = context.Background()
	}
	if req.Time.IsZero() {
		req.Time = time.Now()
	}
	return &evaluation{e: e, req: req}
}

func (ev *evaluation) rt() *runtime.Runtime {
	if ev.e.Manifest == nil {
		return nil
	}
	return ev.e.Manifest.runtime
}

// checkInput refuses a command too big to hand to a script: a script is
// given at most builtins.MaxList words or effects of builtins.MaxString
// bytes each, and a bigger input goes to the script's failure path. (The
// command's other ctx fields are checked the same way by ev.command.)
func checkInput(argv, effects []string) error {
	if err := checkList("argv", argv); err != nil {
		return err
	}
	return checkList("effects", effects)
}

// checkInput is checkInput, then the ctx fields of the command the layer
// belongs to (nil: none).
func (ev *evaluation) checkInput(argv, effects []string, cmd *shellcmd.Command) error {
	if err := checkInput(argv, effects); err != nil {
		return err
	}
	if cmd == nil {
		return nil
	}
	return ev.command(cmd).err
}

// context builds shell-context-v1 for one layer of a command.
func (ev *evaluation) context(phase string, s *subject, effects []string) starlark.Value {
	ev.ensureRequestID()
	c := &builtins.Context{
		Phase: phase, RequestID: ev.requestID, SessionID: ev.req.SessionID, Agent: ev.req.Agent, Tool: ev.req.Tool,
		Argv: s.argv, Program: s.program(), Cwd: ev.req.Cwd, Effects: effects, Timestamp: ev.timestamp,
	}
	ev.fill(c, s.cmd)
	return c.Value()
}

// fill sets the fields of ctx that describe the command a layer belongs
// to: home, project, dir, redirects, upstream, layers, implied, dynamic,
// assigns, code, guessed.
func (ev *evaluation) fill(c *builtins.Context, cmd *shellcmd.Command) {
	c.Home, c.Project = ev.req.Home, ev.e.Root
	if ev.req.Project != "" {
		c.Project = ev.req.Project
	}
	if cmd == nil {
		return
	}
	info := ev.command(cmd)
	c.Dir, c.Upstream = info.dir, info.upstream
	c.Redirects, c.Layers, c.Implied, c.Dynamic, c.Assigns = cmd.Redirects, cmd.Layers, cmd.Implied, cmd.Dynamic, cmd.Assigns
	c.Code, c.Guessed = cmd.Code, cmd.Guessed
}

// command returns what the ctx of cmd's layers says of it, computed once:
// the directory it runs in (Cwd with its Dirs applied, "~" resolved against
// Home; "" when unknown) and the argv of the earlier stages of the pipeline
// whose stage it is the own command of (its first); err when any of it,
// or of the command's layers and redirections, is past the caps scripts
// are given.
func (ev *evaluation) command(cmd *shellcmd.Command) *cmdContext {
	if info, ok := ev.infos[cmd]; ok {
		return info
	}
	info := &cmdContext{dir: cmd.Dir(ev.req.Cwd, ev.req.Home)}
	if ev.infos == nil {
		ev.infos = map[*shellcmd.Command]*cmdContext{}
	}
	ev.infos[cmd] = info
	check := func(what string, list []string) {
		if info.err == nil {
			info.err = checkList(what, list)
		}
	}
	check("home, project, dir or implied", []string{ev.req.Home, ev.e.Root, ev.req.Project, info.dir, cmd.Implied})
	if len(cmd.Layers) > builtins.MaxList {
		info.err = fmt.Errorf("the command has %d layers; scripts are given at most %d", len(cmd.Layers), builtins.MaxList)
	}
	for _, l := range cmd.Layers {
		check("layers", l)
	}
	check("assigns", cmd.Assigns)
	if cmd.Code != nil {
		check("code", append([]string{cmd.Code.Lang, cmd.Code.Unknown}, cmd.Code.Runs...))
	}
	if len(cmd.Redirects) > builtins.MaxList {
		info.err = fmt.Errorf("the command has %d redirections; scripts are given at most %d", len(cmd.Redirects), builtins.MaxList)
	}
	for _, r := range cmd.Redirects {
		check("redirections", []string{r.Op, r.Target})
	}
	if at, ok := ev.ownStage(cmd); ok && info.err == nil {
		if at.stage > builtins.MaxList {
			info.err = fmt.Errorf("the command is stage %d of its pipeline; scripts are given at most %d earlier stages", at.stage+1, builtins.MaxList)
			return info
		}
		p := ev.line.Pipelines[at.pipeline]
		info.upstream = make([][]string, at.stage)
		for j, stage := range p[:at.stage] {
			info.upstream[j] = []string{} // a stage without a command (a lone assignment)
			if len(stage) > 0 {
				info.upstream[j] = ev.line.Commands[stage[0]].Argv
			}
			check("upstream", info.upstream[j])
		}
	}
	return info
}

// ownStage finds the pipeline stage cmd is the own command of; where it is
// that of several (nested pipelines), the one with the most stages before
// it. Every command of the stage outside a shell body reads the stage's
// input as its own: those of a group or subshell (curl x | (cd /tmp &&
// sh)), and those the stage's program may run (Guessed: curl x |
// faketime now sh).
func (ev *evaluation) ownStage(cmd *shellcmd.Command) (pipeStage, bool) {
	if ev.line == nil || len(ev.line.Pipelines) == 0 {
		return pipeStage{}, false
	}
	if ev.stages == nil {
		ev.stages = map[*shellcmd.Command]pipeStage{}
		for pi, p := range ev.line.Pipelines {
			for si, stage := range p {
				if len(stage) == 0 || stage[0] < 0 || stage[0] >= len(ev.line.Commands) {
					continue
				}
				for _, ci := range stage {
					own := &ev.line.Commands[ci]
					if own.Depth != ev.line.Commands[stage[0]].Depth {
						continue
					}
					if prev, ok := ev.stages[own]; !ok || si > prev.stage {
						ev.stages[own] = pipeStage{pi, si}
					}
				}
			}
		}
	}
	at, ok := ev.stages[cmd]
	return at, ok
}

// checkList is checkInput's test of one list.
func checkList(what string, list []string) error {
	if len(list) > builtins.MaxList {
		return fmt.Errorf("the command's %s has %d items; scripts are given at most %d", what, len(list), builtins.MaxList)
	}
	for _, s := range list {
		if len(s) > builtins.MaxString {
			return fmt.Errorf("an item of the command's %s is %d bytes; scripts are given at most %d", what, len(s), builtins.MaxString)
		}
	}
	return nil
}

// ensureRequestID gives the request its id and timestamp on first use: a
// decision no script sees pays for neither.
func (ev *evaluation) ensureRequestID() {
	if ev.requestID == "" {
		var b [8]byte
		rand.Read(b[:]) //nolint:errcheck // never fails on Linux
		ev.requestID = "req-" + hex.EncodeToString(b[:])
		ev.timestamp = ev.req.Time.UTC().Format(telemetry.TimestampLayout)
	}
}

// invoke runs one script on one layer of a command and records the run.
func (ev *evaluation) invoke(id, phase string, s *subject, effects []string) runtime.Result {
	var res runtime.Result
	m := ev.e.Manifest
	if err := ev.checkInput(s.argv, effects, s.cmd); err != nil {
		res = runtime.Result{Failure: runtime.FailInput, Err: err}
	} else {
		input := func() (starlark.Value, error) {
			if phase != builtins.PhaseMatcher {
				return ev.context(phase, s, effects), nil
			}
			if s.ctx == nil { // one ctx per layer, shared by its matchers
				s.ctx = ev.context(phase, s, effects)
			}
			return s.ctx, nil
		}
		payload := func() runtime.HookPayload {
			ev.ensureRequestID()
			return runtime.CommandRequest{Event: runtime.HookEventEffect, RequestID: ev.requestID, SessionID: ev.req.SessionID,
				ManifestSHA256: m.Digest, Cwd: ev.req.Cwd, Argv: s.argv, Path: s.program(), Effects: effects}
		}
		res = m.invoke(ev.req.Context, id, ev.req.SessionID, input, payload)
	}
	ev.runs = append(ev.runs, extensionRun(id, m.kindOf(id), res))
	return res
}

func extensionRun(id string, kind builtins.Kind, res runtime.Result) telemetry.ExtensionRun {
	run := telemetry.ExtensionRun{Script: id, Kind: string(kind), Outcome: res.Outcome(), Output: res.Output,
		Steps: res.Steps, DurationMS: telemetry.Millis(res.Elapsed.Milliseconds())}
	if res.Err != nil {
		run.Error = res.Err.Error()
		if res.Backtrace != "" {
			run.Error += "\n" + res.Backtrace
		}
	}
	if res.Action != nil && res.Action.Reason != "" {
		run.Reason = res.Action.Reason
	}
	switch {
	case res.Note == "":
	case run.Reason == "":
		run.Reason = res.Note
	default:
		run.Reason += " (" + res.Note + ")"
	}
	return run
}

// deny records a script failure whose declared outcome is to deny.
func (ev *evaluation) deny(raw, id, what string, res runtime.Result) {
	if ev.denied[id] {
		return
	}
	if ev.denied == nil {
		ev.denied = map[string]bool{}
	}
	ev.denied[id] = true
	ev.denies = append(ev.denies, Match{Source: "script", Rule: id, Action: ActionDeny,
		reason: fmt.Sprintf("Command '%s' denied: %s %s failed (%s: %v)", raw, what, id, res.Failure, res.Err)})
}

// program is the layer's program as written (its path kept) where known.
func (s *subject) program() string {
	if s.innermost && s.cmd.Path != "" {
		return s.cmd.Path
	}
	return s.argv[0]
}

// tri is a dynamic match result: a script can fail, and a failure must
// never be read as either answer by accident.
type tri int8

const (
	triNo tri = iota
	triYes
	triFailed
)

func triOf(b bool) tri {
	if b {
		return triYes
	}
	return triNo
}

// matchScript runs a matcher once per layer, however many rules name it.
func (s *subject) matchScript(id string) tri {
	if r, ok := s.scripts[id]; ok {
		return r
	}
	ev := s.eval
	res := ev.invoke(id, builtins.PhaseMatcher, s, s.effects)
	r := triFailed
	if res.Action != nil {
		r = triOf(res.Action.Op == builtins.OpYes)
		if r == triYes && res.Action.Reason != "" {
			if s.why == nil {
				s.why = map[string]string{}
			}
			s.why[id] = res.Action.Reason
		}
	} else if decl := ev.e.Manifest.script(id); decl != nil && decl.Failure == runtime.OnFailureDeny {
		ev.deny(s.raw, id, "matcher", res)
	}
	if s.scripts == nil {
		s.scripts = map[string]tri{}
	}
	s.scripts[id] = r
	return r
}

// scriptReasons joins what the matchers of mt that said yes on this layer
// said, in the matcher's order.
func (s *subject) scriptReasons(mt *Matcher) string {
	if len(s.why) == 0 || mt == nil {
		return ""
	}
	var parts []string
	for _, id := range mt.scriptRefs(nil) {
		if w := s.why[id]; w != "" && !contains(parts, w) {
			parts = append(parts, w)
		}
	}
	return strings.Join(parts, "; ")
}

// analyze runs the effect analyzers in order over one layer's built-in
// effects. An analyzer adds effects; it replaces them only where the
// manifest says replace = true; a failure adds unknown:analyzer failed.
func (ev *evaluation) analyze(s *subject, effects []string) []string {
	if ev.rt() == nil || len(ev.e.Manifest.Analyzers) == 0 {
		return effects
	}
	for _, a := range ev.e.Manifest.Analyzers {
		res := ev.invoke(a.Script, builtins.PhaseEffect, s, effects)
		if res.Action != nil && res.Action.Op == builtins.OpReplace && !a.Replace {
			res = runtime.Result{Failure: runtime.FailMalformed,
				Err: fmt.Errorf("Effect.replace needs replace = true in the analyzer's [[analyzer]] entry")}
			ev.runs[len(ev.runs)-1] = extensionRun(a.Script, builtins.KindEffect, res)
		}
		if res.Action == nil {
			effects = appendNew(effects, fmt.Sprintf("%s:analyzer failed: %s (%s)", EffectUnknown, a.Script, res.Failure))
			if decl := ev.e.Manifest.script(a.Script); decl != nil && decl.Failure == runtime.OnFailureDeny {
				ev.deny(s.raw, a.Script, "effect analyzer", res)
			}
			continue
		}
		added := make([]string, 0, len(res.Action.Effects))
		for _, e := range res.Action.Effects {
			added = append(added, absoluteEffect(e, ev.req.Cwd))
		}
		if res.Action.Op == builtins.OpReplace {
			effects = appendNew(nil, added...)
		} else {
			effects = appendNew(effects, added...)
		}
	}
	return effects
}

// absoluteEffect makes a read or write path absolute against cwd, as the
// built-in effects are.
func absoluteEffect(e, cwd string) string {
	kind, p, ok := strings.Cut(e, ":")
	if !ok || (kind != EffectRead && kind != EffectWrite) {
		return e
	}
	return kind + ":" + effectPath(p, cwd)
}

// AuditFilter returns the manifest's audit filter as the event writer's
// filter, or nil when the manifest declares none.
func (e *Engine) AuditFilter() telemetry.AuditFilter {
	if e.LoadErr != nil || e.Manifest == nil || e.Manifest.Audit.Filter == "" || e.Manifest.runtime == nil {
		return nil
	}
	m, id := e.Manifest, e.Manifest.Audit.Filter
	return func(ev *telemetry.Event, fields map[string]any) (telemetry.FilterEdit, error) {
		input := func() (starlark.Value, error) {
			ae := &builtins.AuditEvent{Sequence: ev.Seq, Timestamp: ev.Timestamp.UTC().Format(telemetry.TimestampLayout),
				SessionID: ev.SessionID, Event: ev.Event, Fields: fields}
			v, err := ae.Value()
			if err != nil {
				return nil, fmt.Errorf("event: %w", err)
			}
			return v, nil
		}
		payload := func() runtime.HookPayload {
			return runtime.AuditRequest{RequestID: fmt.Sprintf("audit-%d", ev.Seq), ManifestSHA256: m.Digest, SessionID: ev.SessionID,
				EventType: ev.Event, Sequence: ev.Seq, Timestamp: float64(ev.Timestamp.UnixMilli()) / 1000, Fields: fields}
		}
		res := m.invoke(context.Background(), id, ev.SessionID, input, payload)
		if res.Action == nil {
			return telemetry.FilterEdit{}, fmt.Errorf("audit filter %s: %s: %v", id, res.Failure, res.Err)
		}
		var edit telemetry.FilterEdit
		switch res.Action.Op {
		case builtins.OpDropField:
			edit.Drop = []string{res.Action.Field}
		case builtins.OpReplace:
			edit.Set = res.Action.Fields
		}
		return edit, nil
	}
}
