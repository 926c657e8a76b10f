package telemetry

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/agent-shell/agent-shell/internal/jsonstr"
)

// Event types of schema v1.
const (
	EventScriptEnd      = "script_end"
	EventToolUse        = "tool_use"
	EventPolicyDecision = "policy_decision"
	EventShimError      = "shim_error"
	// Hook events beyond v1, one per kind of agent event that is not a tool call.
	EventPrompt       = "prompt"
	EventSessionStart = "session_start"
	EventSessionEnd   = "session_end"
	EventStop         = "stop"
	EventUnknown      = "unknown" // an agent event agent-shell does not know yet
	// EventGuard is a pre-tool call a built-in guard rule denied: a write
	// to agent-shell's own files or a host's hook registration.
	EventGuard = "guard"
	// EventConfigUnauthorized is a decision taken while the configuration
	// differs from the last one a human authorized.
	EventConfigUnauthorized = "config_unauthorized"
	// EventReview is one reviewer's answer, or one approval grant used, on
	// the way to a decision (decision holds what the step did).
	EventReview = "review"
	// EventExtensionError is an extension script or executable that failed
	// (fuel, timeout, error, malformed reply, pin...), one per failure, so
	// that failures can be found without reading every decision's runs.
	EventExtensionError = "extension_error"
	// EventIntercept is one interceptor's answer about one command: a
	// before-interceptor's proceed, rewrite, respond or reject, an
	// after-interceptor's keep, replace or reject_disclosure, or its failure
	// (error says why); decision holds what the step did.
	EventIntercept = "intercept"
	// EventRepair is written by the recorder itself before the next event
	// when the file ends in torn lines (a write cut short by a crash or a
	// full disk): torn names them, and the chain continues from the last
	// intact line before them (see repair.go).
	EventRepair = "repair"
	// EventCommandEnd is a command agent-shell exec ran in the sandbox: its
	// real exit status, signal and duration, with the request id of the
	// decision that allowed it.
	EventCommandEnd = "command_end"
)

// EventTypes lists every event type, in the order above.
var EventTypes = []string{EventScriptEnd, EventToolUse, EventPolicyDecision, EventShimError, EventPrompt,
	EventSessionStart, EventSessionEnd, EventStop, EventUnknown, EventGuard, EventConfigUnauthorized,
	EventReview, EventExtensionError, EventIntercept, EventRepair, EventCommandEnd}

// SchemaVersion is the value of every event's "v" field.
const SchemaVersion = 1

// TimestampLayout is how timestamps are written: UTC with milliseconds. Lines
// written in this layout sort in time order as plain strings, which the
// reader relies on to merge files without parsing every timestamp.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Event is one line of the flight recorder. The v1 fields come first, in the
// reference tool's key order for each event type; the optional fields follow
// and are omitted when empty, so older readers that ignore them still work.
type Event struct {
	SessionID string            `json:"session_id"`
	Event     string            `json:"event"`
	Command   string            `json:"command"`
	Actor     string            `json:"actor"`
	Timestamp time.Time         `json:"timestamp"`
	Env       map[string]string `json:"env"`
	Tags      map[string]string `json:"tags"`

	// script_end
	ExitCode       int    `json:"exit_code"`
	Signal         string `json:"signal"` // "" is written as null
	DurationMS     Millis `json:"duration_ms"`
	Script         string `json:"script"`
	Package        string `json:"package"`
	PackageVersion string `json:"package_version"`

	// policy_decision
	Decision    string `json:"decision"`
	MatchedRule string `json:"matched_rule"` // "" is written as null

	// tool_use
	ToolName string `json:"tool_name"`

	// Optional fields beyond v1.
	Agent string `json:"agent"`
	// ClaimedActor is what AGENTSHELL_ACTOR claimed where an agent was
	// detected (the agent is the actor).
	ClaimedActor string          `json:"claimed_actor"`
	NativeEvent  string          `json:"native_event"`
	Prompt       string          `json:"prompt"`
	Input        json.RawMessage `json:"input"` // the tool input as sent, redacted (RedactJSON)
	Meta         json.RawMessage `json:"meta"`  // the payload's other fields, redacted (RedactJSON)
	Rule         string          `json:"rule"`
	Reason       string          `json:"reason"`
	Effects      []string        `json:"effects"`
	Error        string          `json:"error"` // what went wrong, for shim_error
	ToolResult   *ToolResult     `json:"tool_result"`
	// Extensions lists the extension scripts that ran for this event.
	Extensions []ExtensionRun `json:"extensions"`
	// Answer, Scope and Grant describe a review step: the reviewer's answer
	// ("approve_for", "defer", "grant" for a grant used, a failure...), the
	// scope granted or used, and the grant's id.
	Answer string `json:"answer"`
	Scope  string `json:"scope"`
	Grant  string `json:"grant"`
	// FilterError says why the audit filter failed; the event is then
	// written as the core redaction left it, unfiltered.
	FilterError string `json:"filter_error"`
	// Torn names the torn lines a repair event ends, in file order.
	Torn []TornLine `json:"torn"`
	// RequestID is the host's id of the tool call (Claude's tool_use_id):
	// on a command_end, the call whose decision let the command run.
	RequestID string `json:"request_id"`
	// Cwd is the directory a call was decided or run in: on a hook's
	// pre-tool decision, the payload's cwd as the decision used it (moved
	// to the directory a shell tool's arguments name); on a script_end, the
	// shim's working directory. Replay decides the call there again.
	Cwd string `json:"cwd"`

	// Chain fields, set by the Writer under its lock.
	Seq        int64  `json:"seq"`
	PrevSHA256 string `json:"prev_sha256"`
}

// ToolResult summarizes a tool's result without keeping its (possibly large,
// possibly secret) body.
type ToolResult struct {
	Type     string `json:"type,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Length   int    `json:"length"`
}

// ExtensionRun is one run of an extension script: what it answered, or why
// it failed (fuel, timeout, error, malformed, state), and what it printed.
type ExtensionRun struct {
	Script     string `json:"script"`
	Kind       string `json:"kind"`
	Outcome    string `json:"outcome"`
	Reason     string `json:"reason,omitempty"`
	Error      string `json:"error,omitempty"`  // the error, with its Starlark backtrace; redacted
	Output     string `json:"output,omitempty"` // what the script printed; redacted
	Steps      uint64 `json:"steps"`
	DurationMS Millis `json:"duration_ms"`
}

// AppendJSON appends the event as one JSON object (no newline) to b.
func (e *Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, SchemaVersion, 10)
	b = appendKey(b, "session_id")
	b = appendString(b, e.SessionID)
	b = appendKey(b, "event")
	b = appendString(b, e.Event)
	switch e.Event {
	case EventScriptEnd, EventCommandEnd:
		b = appendKey(b, "command")
		b = appendString(b, e.Command)
		b = appendKey(b, "actor")
		b = appendString(b, e.Actor)
		b = appendKey(b, "exit_code")
		b = strconv.AppendInt(b, int64(e.ExitCode), 10)
		b = appendKey(b, "signal")
		b = appendNullableString(b, e.Signal)
		b = appendKey(b, "duration_ms")
		b = strconv.AppendInt(b, int64(e.DurationMS), 10)
		b = appendCommonTail(b, e)
		b = appendOptionalString(b, "script", e.Script)
		b = appendOptionalString(b, "package", e.Package)
		b = appendOptionalString(b, "package_version", e.PackageVersion)
	case EventPolicyDecision, EventGuard, EventConfigUnauthorized, EventReview, EventIntercept:
		b = appendKey(b, "command")
		b = appendString(b, e.Command)
		b = appendKey(b, "decision")
		b = appendString(b, e.Decision)
		b = appendKey(b, "matched_rule")
		b = appendNullableString(b, e.MatchedRule)
		b = appendKey(b, "actor")
		b = appendString(b, e.Actor)
		b = appendCommonTail(b, e)
	case EventToolUse:
		b = appendKey(b, "tool_name")
		b = appendString(b, e.ToolName)
		b = appendKey(b, "command")
		b = appendString(b, e.Command)
		b = appendKey(b, "actor")
		b = appendString(b, e.Actor)
		b = appendCommonTail(b, e)
	default: // shim_error and any later type
		b = appendKey(b, "command")
		b = appendString(b, e.Command)
		b = appendKey(b, "actor")
		b = appendString(b, e.Actor)
		b = appendCommonTail(b, e)
	}
	if e.Event != EventToolUse { // tool_use has it among the v1 fields
		b = appendOptionalString(b, "tool_name", e.ToolName)
	}
	b = appendOptionalString(b, "agent", e.Agent)
	b = appendOptionalString(b, "claimed_actor", e.ClaimedActor)
	b = appendOptionalString(b, "native_event", e.NativeEvent)
	b = appendOptionalString(b, "prompt", e.Prompt)
	b = appendRaw(b, "input", e.Input)
	b = appendRaw(b, "meta", e.Meta)
	b = appendOptionalString(b, "request_id", e.RequestID)
	b = appendOptionalString(b, "cwd", e.Cwd)
	b = appendOptionalString(b, "rule", e.Rule)
	b = appendOptionalString(b, "reason", e.Reason)
	if len(e.Effects) > 0 {
		b = appendKey(b, "effects")
		b = append(b, '[')
		for i, eff := range e.Effects {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, eff)
		}
		b = append(b, ']')
	}
	b = appendOptionalString(b, "error", e.Error)
	if r := e.ToolResult; r != nil {
		b = appendKey(b, "tool_result")
		b = append(b, '{')
		if r.Type != "" {
			b = append(b, `"type":`...)
			b = appendString(b, r.Type)
			b = append(b, ',')
		}
		if r.ExitCode != nil {
			b = append(b, `"exit_code":`...)
			b = strconv.AppendInt(b, int64(*r.ExitCode), 10)
			b = append(b, ',')
		}
		b = append(b, `"length":`...)
		b = strconv.AppendInt(b, int64(r.Length), 10)
		b = append(b, '}')
	}
	if len(e.Extensions) > 0 {
		b = appendKey(b, "extensions")
		b = append(b, '[')
		for i, r := range e.Extensions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"script":`...)
			b = appendString(b, r.Script)
			b = append(b, `,"kind":`...)
			b = appendString(b, r.Kind)
			b = append(b, `,"outcome":`...)
			b = appendString(b, r.Outcome)
			if r.Reason != "" {
				b = append(b, `,"reason":`...)
				b = appendString(b, r.Reason)
			}
			if r.Error != "" {
				b = append(b, `,"error":`...)
				b = appendString(b, r.Error)
			}
			if r.Output != "" {
				b = append(b, `,"output":`...)
				b = appendString(b, r.Output)
			}
			b = append(b, `,"steps":`...)
			b = strconv.AppendUint(b, r.Steps, 10)
			b = append(b, `,"duration_ms":`...)
			b = strconv.AppendInt(b, int64(r.DurationMS), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendOptionalString(b, "answer", e.Answer)
	b = appendOptionalString(b, "scope", e.Scope)
	b = appendOptionalString(b, "grant", e.Grant)
	b = appendOptionalString(b, "filter_error", e.FilterError)
	if len(e.Torn) > 0 {
		b = appendKey(b, "torn")
		b = append(b, '[')
		for i, t := range e.Torn {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"offset":`...)
			b = strconv.AppendInt(b, t.Offset, 10)
			b = append(b, `,"length":`...)
			b = strconv.AppendInt(b, t.Length, 10)
			b = append(b, `,"sha256":`...)
			b = appendString(b, t.SHA256)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if e.Seq > 0 {
		b = appendKey(b, "seq")
		b = strconv.AppendInt(b, e.Seq, 10)
	}
	b = appendOptionalString(b, "prev_sha256", e.PrevSHA256)
	return append(b, '}')
}

// appendCommonTail writes the fields every v1 event ends with.
func appendCommonTail(b []byte, e *Event) []byte {
	b = appendKey(b, "timestamp")
	b = append(b, '"')
	b = e.Timestamp.UTC().AppendFormat(b, TimestampLayout)
	b = append(b, '"')
	b = appendKey(b, "env")
	b = appendStringMap(b, e.Env)
	b = appendKey(b, "tags")
	return appendStringMap(b, e.Tags)
}

func appendKey(b []byte, k string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// appendRaw writes a JSON value that RedactJSON produced: compact, valid,
// one line.
func appendRaw(b []byte, k string, v json.RawMessage) []byte {
	if len(v) == 0 {
		return b
	}
	return append(appendKey(b, k), v...)
}

func appendOptionalString(b []byte, k, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(appendKey(b, k), v)
}

func appendNullableString(b []byte, v string) []byte {
	if v == "" {
		return append(b, "null"...)
	}
	return appendString(b, v)
}

func appendStringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, m[k])
	}
	return append(b, '}')
}

// appendString writes s as a JSON string (jsonstr.Append: invalid UTF-8
// becomes U+FFFD, and a line never holds a raw newline).
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s) }

// Millis is a duration in whole milliseconds. The reference tool wrote
// fractional values (9.232238000000024); they are still read, rounded.
type Millis int64

// UnmarshalJSON accepts any JSON number.
func (m *Millis) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("duration_ms: %w", err)
	}
	*m = Millis(math.Round(f))
	return nil
}
