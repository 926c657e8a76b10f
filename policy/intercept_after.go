package policy

import (
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
	"github.com/agent-shell/agent-shell/runtime"

	"github.com/agent-shell/agent-shell/internal/textcut"
)

// CommandResult is a finished command as after-interceptors see it.
type CommandResult struct {
	Command  string   // the command line as run, for the record ("" records Argv quoted)
	Argv     []string // the command (CommandArgv of its line)
	Signaled bool     // Status is a signal number, not an exit code
	Status   int
	// The output as captured (raw: After finalizes it), and whether the
	// capture was cut.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	// InterceptedBy names the before-interceptor whose synthetic result this
	// is, "" for a command that ran.
	InterceptedBy string
}

// AfterOutcome is what the after-interceptors made of a result.
type AfterOutcome struct {
	// Outcome is "keep" (the finalized output as it was), "replace" (an
	// interceptor replaced it) or "withhold" (it must not be shown; Note
	// says why).
	Outcome string
	// The output to release, finalized.
	Stdout, Stderr                   string
	StdoutTruncated, StderrTruncated bool
	// Interceptor is the last one that replaced, or the one that withheld.
	Interceptor string
	Note        string
	Steps       []InterceptStep
}

// The outcomes of the after stage.
const (
	AfterKeep     = "keep"
	AfterReplace  = "replace"
	AfterWithhold = "withhold"
)

// CommandArgv is the argv of a command line as after-interceptors see it:
// the outermost layer of its one simple command, else sh -c LINE.
func CommandArgv(raw string) []string {
	raw = shellcmd.TrimSpace(raw)
	if len(raw) <= maxCommandBytes {
		line := shellcmd.Parse(raw)
		if notSimple(line) == "" && len(line.Commands[0].Layers) > 0 {
			return slices.Clone(line.Commands[0].Layers[0])
		}
	}
	return []string{"sh", "-c", raw}
}

// After runs the after-interceptors, in declaration order, on a finished
// command's output: the output is finalized first and again after each
// replacement; a reject_disclosure withholds it and ends the chain; a
// failure withholds it (declared failure deny, the default) or keeps it
// (keep). The exit status is never changed.
func (e *Engine) After(req Request, r CommandResult) AfterOutcome {
	out := AfterOutcome{Outcome: AfterKeep}
	out.Stdout, out.StdoutTruncated = FinalizeOutput(r.Stdout, MaxInterceptOutput)
	out.Stderr, out.StderrTruncated = FinalizeOutput(r.Stderr, MaxInterceptOutput)
	out.StdoutTruncated = out.StdoutTruncated || r.StdoutTruncated
	out.StderrTruncated = out.StderrTruncated || r.StderrTruncated
	if !e.HasAfterInterceptors() {
		return out
	}
	m := e.Manifest
	ev := e.newEvaluation(req)
	command := r.Command
	if command == "" {
		command = quoteWords(r.Argv)
	}
	if len(r.Argv) == 3 && r.Argv[0] == "sh" && r.Argv[1] == "-c" {
		command = r.Argv[2]
	}
	for _, ic := range m.interceptors(PhaseAfter) {
		res := e.invokeAfter(ev, ic.Script, r, out)
		run := extensionRun(ic.Script, builtins.KindAfter, res)
		step := InterceptStep{Phase: PhaseAfter, Command: command, Argv: r.Argv, Interceptor: ic.Script, Answer: res.Outcome(), Run: run}
		withhold := func(note string) AfterOutcome {
			out.Outcome, out.Interceptor, out.Note = AfterWithhold, ic.Script, note
			out.Stdout, out.Stderr, out.StdoutTruncated, out.StderrTruncated = "", "", false, false
			step.Outcome = AfterWithhold
			out.Steps = append(out.Steps, step)
			return out
		}
		a := res.Action
		if a == nil {
			step.Failed = true
			step.Reason = fmt.Sprintf("%s: %v", res.Failure, res.Err)
			if decl := m.script(ic.Script); decl != nil && decl.Failure == runtime.OnFailureKeep {
				step.Outcome = AfterKeep
				out.Steps = append(out.Steps, step)
				continue
			}
			return withhold(fmt.Sprintf("the command's output is withheld: after-interceptor %s failed (%s)", ic.Script, step.Reason))
		}
		switch a.Op {
		case builtins.OpKeep:
			step.Outcome = AfterKeep
		case builtins.OpReplace:
			step.Outcome = AfterReplace
			out.Outcome, out.Interceptor = AfterReplace, ic.Script
			out.Stdout, out.StdoutTruncated = FinalizeOutput(a.Stdout, MaxInterceptOutput)
			out.Stderr, out.StderrTruncated = FinalizeOutput(a.Stderr, MaxInterceptOutput)
		case builtins.OpRejectDisclosure:
			step.Reason = a.Reason
			return withhold(fmt.Sprintf("the command's output is withheld by interceptor %s: %s", ic.Script, a.Reason))
		default:
			step.Reason = "answered " + a.String()
			return withhold(fmt.Sprintf("the command's output is withheld: interceptor %s answered %s", ic.Script, a))
		}
		out.Steps = append(out.Steps, step)
	}
	return out
}

// invokeAfter runs one after-interceptor on the current result.
func (e *Engine) invokeAfter(ev *evaluation, id string, r CommandResult, cur AfterOutcome) runtime.Result {
	if err := checkInput(r.Argv, nil); err != nil {
		return runtime.Result{Failure: runtime.FailInput, Err: err}
	}
	input := func() (starlark.Value, error) {
		res := &builtins.CommandResult{Argv: r.Argv, Signaled: r.Signaled, Status: r.Status, Stdout: cur.Stdout, Stderr: cur.Stderr,
			StdoutTruncated: cur.StdoutTruncated, StderrTruncated: cur.StderrTruncated, InterceptedBy: r.InterceptedBy}
		return res.Value(), nil
	}
	payload := func() runtime.HookPayload {
		return runtime.AfterRequest{Argv: r.Argv, InterceptedBy: r.InterceptedBy, Signaled: r.Signaled, Status: r.Status,
			Stdout: cur.Stdout, Stderr: cur.Stderr, StdoutTruncated: cur.StdoutTruncated, StderrTruncated: cur.StderrTruncated}
	}
	return e.Manifest.invoke(ev.req.Context, id, ev.req.SessionID, input, payload)
}

// PostToolResult reads a shell post-tool event's result as a
// CommandResult, as far as the host reports it: the adapter read it in the
// host's own shape (hostapi.ToolOutput). The output is the text the host
// hands the model as the command's output, else its error message; stderr
// where the host reports it apart; the exit code where it reports one
// (else 0). false when the event is not a shell post-tool call with a
// result.
func PostToolResult(ev *hostapi.Event) (CommandResult, bool) {
	if ev == nil || ev.Kind != hostapi.KindPostTool || !ev.IsShell() || ev.Output == nil {
		return CommandResult{}, false
	}
	o := ev.Output
	r := CommandResult{Argv: CommandArgv(ev.Command), Stdout: o.Output, Stderr: o.Stderr, Status: o.Exit}
	if r.Stdout == "" {
		r.Stdout = o.Error
	}
	for _, p := range []*string{&r.Stdout, &r.Stderr} {
		if len(*p) > MaxInterceptOutput {
			*p, _ = textcut.Cut(*p, MaxInterceptOutput)
			if p == &r.Stdout {
				r.StdoutTruncated = true
			} else {
				r.StderrTruncated = true
			}
		}
	}
	return r, true
}

// AfterEvent runs the after-interceptors on a shell post-tool event and
// says what the host gets: nothing (an allow that abstains) when the output
// is kept or the host can carry nothing; added context with the
// replacement where the host carries context on post-tool events; for
// withheld output a block where the host can block on them, else context
// saying the output is withheld. The outcome is nil when no
// after-interceptor ran.
func (e *Engine) AfterEvent(ev *hostapi.Event, cov hostapi.Coverage) (hostapi.Verdict, *AfterOutcome) {
	allow := hostapi.Verdict{Decision: hostapi.Allow}
	if !e.HasAfterInterceptors() {
		return allow, nil
	}
	r, ok := PostToolResult(ev)
	if !ok {
		return allow, nil
	}
	out := e.After(Request{Cwd: ev.Cwd, Home: e.Home, SessionID: ev.SessionID, Agent: ev.Agent, Tool: ev.Tool}, r)
	switch out.Outcome {
	case AfterReplace:
		if cov.Context {
			var b strings.Builder
			fmt.Fprintf(&b, "agent-shell: interceptor %s replaced this command's output; read this instead of the output shown:", out.Interceptor)
			for _, s := range []struct{ name, text string }{{"stdout", out.Stdout}, {"stderr", out.Stderr}} {
				text, cut := textcut.Cut(s.text, maxReasonOutput)
				fmt.Fprintf(&b, "\n%s:\n%s", s.name, text)
				if cut {
					b.WriteString("\n[truncated]")
				}
			}
			allow.Context = b.String()
		}
	case AfterWithhold:
		if cov.Deny {
			return hostapi.Verdict{Decision: hostapi.Deny, Reason: "agent-shell: " + out.Note}, &out
		}
		if cov.Context {
			allow.Context = "agent-shell: " + out.Note + ". Do not use, quote or repeat that output."
		}
	}
	return allow, &out
}
