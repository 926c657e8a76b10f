package policy

import (
	"encoding/json"
	"fmt"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/telemetry"

	"github.com/agent-shell/agent-shell/internal/termtext"
	"github.com/agent-shell/agent-shell/internal/textcut"
)

// HookVerdict is the verdict a host gets for a decision on ev, given what
// the host can carry on that event and its name: Verdict, except for a
// command an interceptor rewrote. That one is an allow with the host's input
// rewritten (UpdatedInput: the input as sent with its command replaced)
// where the host can carry a rewrite, and otherwise a deny naming the
// rewrite; a rewritten command that needs approval is a deny too (the host
// would ask about its original command).
func (d Decision) HookVerdict(ev *hostapi.Event, cov hostapi.Coverage, host string) hostapi.Verdict {
	v := d.Verdict()
	it := d.Intercept
	if it == nil || it.Outcome != InterceptRewrite || d.Action == ActionDeny {
		return v
	}
	if ev == nil { // no input to rewrite: never an allow of the original command
		return hostapi.Verdict{Decision: hostapi.Deny, Reason: fmt.Sprintf("interceptor %s rewrites the command to: %s; run that command instead", it.Interceptor, it.Command)}
	}
	orig := TrimCommand(ev.Command)
	if d.Action == ActionAsk {
		return hostapi.Verdict{Decision: hostapi.Deny, Reason: fmt.Sprintf(
			"Command '%s' denied: interceptor %s rewrites it to: %s, which needs approval (%s); a host cannot be asked about a command it did not send, so run that command if it is wanted",
			orig, it.Interceptor, it.Command, d.Reason)}
	}
	in, ok := RewriteInput(ev.Input, it.Command)
	if !cov.UpdatedInput || !ok {
		why := host + " cannot apply a rewritten command"
		if cov.UpdatedInput {
			why = "its tool input has no command field to rewrite"
		}
		return hostapi.Verdict{Decision: hostapi.Deny, Reason: fmt.Sprintf(
			"Command '%s' denied: interceptor %s rewrites it to: %s, and %s; run that command instead", orig, it.Interceptor, it.Command, why)}
	}
	v.UpdatedInput = in
	return v
}

// RewriteInput is a tool input (a JSON object) with its command field
// ("command", or Amp's "cmd") set to command, every other field kept; false
// when it has no such string field.
func RewriteInput(input json.RawMessage, command string) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil || m == nil {
		return nil, false
	}
	for _, k := range []string{"command", "cmd"} {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		c, err := json.Marshal(command)
		if err != nil {
			return nil, false
		}
		m[k] = c
		out, err := json.Marshal(m)
		return out, err == nil
	}
	return nil, false
}

// FinalizeOutput is output as an observer may see it (an after-interceptor
// is sent it: docs/hook-protocol.md, "Payloads"):
// terminal escapes (CSI sequences) stripped, other control characters but
// newline, carriage return and tab dropped, invalid UTF-8 replaced, secrets
// redacted, then cut to limit bytes (true when cut).
func FinalizeOutput(s string, limit int) (string, bool) {
	s = telemetry.Redact(termtext.Strip(s))
	return textcut.Cut(s, limit)
}
