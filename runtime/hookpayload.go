package runtime

import (
	"encoding/json"
	"slices"

	"github.com/agent-shell/agent-shell/builtins"
)

// A HookPayload is the payload of one shell-hook-json-v1 request: a
// CommandRequest, an AfterRequest or an AuditRequest. Payload is the object
// Executable.Run sends, JSON-like data as writeJSON takes it.
type HookPayload interface {
	Payload() map[string]any
}

// CommandRequest is the payload about one simple command that a
// before-interceptor (HookEventBefore), a reviewer (HookEventReview) or an
// effect analyzer (HookEventEffect) is sent (docs/hook-protocol.md,
// "Payloads"). Fields the protocol has and agent-shell does not model
// (capabilities, stdin) are given their empty values; environment values
// are never sent.
type CommandRequest struct {
	Event          string
	RequestID      string
	SessionID      string // "" is sent as null
	ManifestSHA256 string
	Cwd            string
	Argv           []string // the command: its program and arguments
	Path           string   // the executable, as far as it is known
	Effects        []string
	// Policy is the line's policy decision; nil (sent as null) for an
	// effect analyzer, which runs before there is one.
	Policy *RequestPolicy
	// Review is what a reviewer is sent beyond the command.
	Review *ReviewRequest
}

// RequestPolicy is the policy decision a CommandRequest carries. A
// before_command names the rules that matched by id, once each; an
// approval_request sends each match.
type RequestPolicy struct {
	Action  string
	Reason  string
	Matches []builtins.PolicyMatch
}

// ReviewRequest is what an approval_request carries beyond the command.
type ReviewRequest struct {
	DisplayCommand string
	// OfferedScopes is our addition: reviewers know what they may grant.
	OfferedScopes []string
}

// Payload implements HookPayload.
func (r CommandRequest) Payload() map[string]any {
	effs := make([]any, len(r.Effects))
	for i, e := range r.Effects {
		effs[i] = e
	}
	var policy any
	if p := r.Policy; p != nil {
		policy = p.payload(r.Event)
	}
	m := map[string]any{
		"event":            r.Event,
		"request_id":       r.RequestID,
		"runtime_id":       "agent-shell",
		"manifest_sha256":  r.ManifestSHA256,
		"session_id":       nullable(r.SessionID),
		"origin":           "tool",
		"request_kind":     "raw_shell",
		"command":          commandPayload(r.Argv),
		"executable":       map[string]any{"requested": r.Argv[0], "path": r.Path},
		"cwd":              r.Cwd,
		"effects":          effs,
		"environment_keys": []any{},
		"policy":           policy,
		"stdin_kind":       "empty",
		"stdin_bytes":      int64(0),
		"stdin_sha256":     nil,
	}
	if rv := r.Review; rv != nil {
		m["display_command"] = rv.DisplayCommand
		m["rationale"] = nil
		scopes := make([]any, len(rv.OfferedScopes))
		for i, sc := range rv.OfferedScopes {
			scopes[i] = sc
		}
		m["offered_scopes"] = scopes
	}
	return m
}

func (p *RequestPolicy) payload(event string) map[string]any {
	matches := make([]any, 0, len(p.Matches))
	for _, mt := range p.Matches {
		if event != HookEventReview {
			if mt.RuleID != "" && !slices.Contains(matches, any(mt.RuleID)) {
				matches = append(matches, mt.RuleID)
			}
			continue
		}
		matches = append(matches, map[string]any{"rule_id": mt.RuleID, "action": mt.Action, "reason": nullable(mt.Reason)})
	}
	return map[string]any{"action": p.Action, "reason": p.Reason, "matches": matches}
}

// AfterRequest is the payload an after-interceptor is sent: a finished
// command's finalized output.
type AfterRequest struct {
	Argv          []string
	InterceptedBy string // the before-interceptor that answered for it; "" is sent as null
	Signaled      bool   // Status is the signal that ended it, not its exit status
	Status        int
	Stdout        string
	Stderr        string

	StdoutTruncated, StderrTruncated bool
}

// Payload implements HookPayload.
func (r AfterRequest) Payload() map[string]any {
	kind := "exited"
	if r.Signaled {
		kind = "signaled"
	}
	return map[string]any{
		"command":          commandPayload(r.Argv),
		"event":            HookEventAfter,
		"intercepted_by":   nullable(r.InterceptedBy),
		"status":           map[string]any{kind: int64(r.Status)},
		"stdout":           r.Stdout,
		"stderr":           r.Stderr,
		"stdout_truncated": r.StdoutTruncated,
		"stderr_truncated": r.StderrTruncated,
		"untrusted_output": true,
	}
}

// AuditRequest is the payload an audit filter is sent: one event's fields
// as name/value strings (a value that is not a string as its JSON).
type AuditRequest struct {
	RequestID      string
	ManifestSHA256 string
	SessionID      string // "" is sent as null
	EventType      string
	Sequence       int64
	Timestamp      float64 // seconds since the epoch
	Fields         map[string]any
}

// Payload implements HookPayload.
func (r AuditRequest) Payload() map[string]any {
	strs := make(map[string]any, len(r.Fields))
	for k, v := range r.Fields {
		if s, ok := v.(string); ok {
			strs[k] = s
			continue
		}
		b, _ := json.Marshal(v)
		strs[k] = string(b)
	}
	return map[string]any{
		"event": HookEventAudit, "event_type": r.EventType, "fields": strs, "manifest_sha256": r.ManifestSHA256,
		"plan_id": nil, "request_id": r.RequestID, "runtime_id": "agent-shell", "sequence": r.Sequence,
		"session_id": nullable(r.SessionID), "timestamp": r.Timestamp,
	}
}

// commandPayload is a request's command object.
func commandPayload(argv []string) map[string]any {
	args := make([]any, 0, len(argv))
	for _, a := range argv[1:] {
		args = append(args, a)
	}
	return map[string]any{"program": argv[0], "arguments": args}
}

// nullable is s, or nil (null) for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
