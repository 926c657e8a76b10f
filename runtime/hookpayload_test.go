package runtime

import (
	"testing"

	"github.com/agent-shell/agent-shell/builtins"
)

// The typed payloads encode to the bytes the protocol's maps were sent as.
func TestHookPayloadBytes(t *testing.T) {
	argv := []string{"git", "push", "--force", "é\u2028"}
	effects := []string{"network", "write:/x"}
	matches := []builtins.PolicyMatch{{RuleID: "r1", Action: "ask", Reason: "why"}, {Action: "ask"}, {RuleID: "r1", Action: "deny"}, {RuleID: "r2", Action: "ask"}}
	for _, c := range []struct {
		kind    builtins.Kind
		payload HookPayload
		want    string
	}{
		{builtins.KindEffect,
			CommandRequest{Event: HookEventEffect, RequestID: "rid", SessionID: "s1", ManifestSHA256: "dig", Cwd: "/cwd", Argv: argv, Path: "/usr/bin/git", Effects: effects},
			`{"hook_id":"h","kind":"effect_analyzer","payload":{"command":{"arguments":["push","--force","é\u2028"],"program":"git"},"cwd":"/cwd","effects":["network","write:/x"],"environment_keys":[],"event":"effect_analysis","executable":{"path":"/usr/bin/git","requested":"git"},"manifest_sha256":"dig","origin":"tool","policy":null,"request_id":"rid","request_kind":"raw_shell","runtime_id":"agent-shell","session_id":"s1","stdin_bytes":0,"stdin_kind":"empty","stdin_sha256":null},"request_id":"r","version":1}`},
		{builtins.KindBefore,
			CommandRequest{Event: HookEventBefore, RequestID: "rid", SessionID: "s1", ManifestSHA256: "dig", Cwd: "/cwd", Argv: argv, Path: "git", Effects: effects,
				Policy: &RequestPolicy{Action: "ask", Matches: matches}},
			`{"hook_id":"h","kind":"before_interceptor","payload":{"command":{"arguments":["push","--force","é\u2028"],"program":"git"},"cwd":"/cwd","effects":["network","write:/x"],"environment_keys":[],"event":"before_command","executable":{"path":"git","requested":"git"},"manifest_sha256":"dig","origin":"tool","policy":{"action":"ask","matches":["r1","r2"],"reason":""},"request_id":"rid","request_kind":"raw_shell","runtime_id":"agent-shell","session_id":"s1","stdin_bytes":0,"stdin_kind":"empty","stdin_sha256":null},"request_id":"r","version":1}`},
		{builtins.KindReviewer,
			CommandRequest{Event: HookEventReview, RequestID: "rid", SessionID: "s1", ManifestSHA256: "dig", Cwd: "/cwd", Argv: []string{"git"}, Path: "git", Effects: effects,
				Policy: &RequestPolicy{Action: "ask", Reason: "rr", Matches: matches}, Review: &ReviewRequest{DisplayCommand: "git push", OfferedScopes: []string{"once"}}},
			`{"hook_id":"h","kind":"reviewer","payload":{"command":{"arguments":[],"program":"git"},"cwd":"/cwd","display_command":"git push","effects":["network","write:/x"],"environment_keys":[],"event":"approval_request","executable":{"path":"git","requested":"git"},"manifest_sha256":"dig","offered_scopes":["once"],"origin":"tool","policy":{"action":"ask","matches":[{"action":"ask","reason":"why","rule_id":"r1"},{"action":"ask","reason":null,"rule_id":""},{"action":"deny","reason":null,"rule_id":"r1"},{"action":"ask","reason":null,"rule_id":"r2"}],"reason":"rr"},"rationale":null,"request_id":"rid","request_kind":"raw_shell","runtime_id":"agent-shell","session_id":"s1","stdin_bytes":0,"stdin_kind":"empty","stdin_sha256":null},"request_id":"r","version":1}`},
		{builtins.KindAfter,
			AfterRequest{Argv: argv, InterceptedBy: "ic", Signaled: true, Status: 9, Stdout: "out\x1b", Stderr: "err", StdoutTruncated: true},
			`{"hook_id":"h","kind":"after_interceptor","payload":{"command":{"arguments":["push","--force","é\u2028"],"program":"git"},"event":"after_command","intercepted_by":"ic","status":{"signaled":9},"stderr":"err","stderr_truncated":false,"stdout":"out\u001b","stdout_truncated":true,"untrusted_output":true},"request_id":"r","version":1}`},
		{builtins.KindAudit,
			AuditRequest{RequestID: "audit-3", ManifestSHA256: "dig", SessionID: "s1", EventType: "tool_use", Sequence: 3, Timestamp: 1786579200.123,
				Fields: map[string]any{"command": "ls", "n": int64(3), "list": []any{"a", 1.5}, "nil": nil}},
			`{"hook_id":"h","kind":"audit_filter","payload":{"event":"audit_event","event_type":"tool_use","fields":{"command":"ls","list":"[\"a\",1.5]","n":"3","nil":"null"},"manifest_sha256":"dig","plan_id":null,"request_id":"audit-3","runtime_id":"agent-shell","sequence":3,"session_id":"s1","timestamp":1786579200.123},"request_id":"r","version":1}`},
	} {
		if spec, _ := Spec(c.kind); c.payload.Payload()["event"] != spec.HookEvent {
			t.Errorf("%s: payload event %v, spec %s", c.kind, c.payload.Payload()["event"], spec.HookEvent)
		}
		got, err := encodeRequest("h", c.kind, "r", c.payload.Payload())
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %v\n\t%s\nwant\n\t%s", c.kind, err, got, c.want)
		}
	}
}
