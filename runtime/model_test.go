package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecodeModelReview(t *testing.T) {
	offered := []string{"once", "exact_session"}
	for _, tc := range []struct {
		in, op, scope, reason, err string
	}{
		{in: `{"decision":"approve_once"}`, op: "approve"},
		{in: ` {"decision":"approve_once","reason":"fine"}` + "\n", op: "approve", reason: "fine"},
		{in: `{"version":"shell-model-review-v1","decision":"approve_scope","scope":"exact_session"}`, op: "approve_for", scope: "exact_session"},
		{in: `{"decision":"deny","reason":"no"}`, op: "deny", reason: "no"},
		{in: `{"decision":"defer"}`, op: "defer"},
		{in: `{"decision":"approve_scope","scope":"durable_exact"}`, err: `scope "durable_exact" is not offered (offered: exact_session)`},
		{in: `{"decision":"approve_scope","scope":"once"}`, err: `scope "once" is not offered`},
		{in: `{"decision":"approve_scope"}`, err: "missing field: scope"},
		{in: `{"decision":"approve_once","scope":"exact_session"}`, err: "scope is only for approve_scope"},
		{in: `{"decision":"deny"}`, err: "deny needs a reason"},
		{in: `{"decision":"deny","reason":"  "}`, err: "deny needs a reason"},
		{in: `{"decision":"allow"}`, err: `decision "allow" is not one of`},
		{in: `{"decision":"rewrite","program":"ls"}`, err: "unknown field: program"},
		{in: `{"decision":"approve_once","tools":[]}`, err: "unknown field: tools"},
		{in: `{"decision":"deny","decision":"approve_once"}`, err: "duplicate field: decision"},
		{in: `{"version":1,"decision":"defer"}`, err: "unsupported version"},
		{in: "```json\n{\"decision\":\"approve_once\"}\n```", err: "fenced"},
		{in: `Here you go: {"decision":"approve_once"}`, err: "invalid JSON"},
		{in: `{"decision":"approve_once"} thanks`, err: "trailing data"},
		{in: `{"decision":"approve_once"}{"decision":"deny","reason":"x"}`, err: "trailing data"},
		{in: `["approve_once"]`, err: "want one JSON object"},
		{in: ``, err: "empty response"},
		{in: `{"decision":"approve_once"`, err: "ends early"},
		{in: `{"decision":5}`, err: "want a string"},
		{in: strings.Repeat(" ", MaxModelResponse) + `{"decision":"defer"}`, err: "more than 8192"},
	} {
		a, err := DecodeModelReview([]byte(tc.in), offered)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if a.Op != tc.op || a.Scope != tc.scope || a.Reason != tc.reason {
			t.Errorf("%q: got %+v, want op %s scope %q reason %q", tc.in, a, tc.op, tc.scope, tc.reason)
		}
	}
}

func TestModelReviewerRun(t *testing.T) {
	fake, err := filepath.Abs("testdata/model/fake-model.sh")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	reqFile := filepath.Join(tmp, "request.json")
	request := []byte(`{"version":"shell-model-review-request-v1","command":"curl x"}`)
	offered := []string{"once", "exact_session"}
	for _, tc := range []struct {
		mode    string
		op      string
		failure Failure
		err     string
	}{
		{mode: "approve", op: "approve"},
		{mode: "session", op: "approve_for"},
		{mode: "deny", op: "deny"},
		{mode: "defer", op: "defer"},
		{mode: "durable", failure: FailMalformed, err: "not offered"},
		{mode: "once-scope", failure: FailMalformed, err: "not offered"},
		{mode: "prose", failure: FailMalformed, err: "invalid JSON"},
		{mode: "trailing", failure: FailMalformed, err: "trailing data"},
		{mode: "fenced", failure: FailMalformed, err: "fenced"},
		{mode: "duplicate", failure: FailMalformed, err: "duplicate field: decision"},
		{mode: "unknown", failure: FailMalformed, err: "unknown field: tools"},
		{mode: "no-reason", failure: FailMalformed, err: "deny needs a reason"},
		{mode: "huge", failure: FailMalformed, err: "stdout is over 8192 bytes"},
		{mode: "slow", failure: FailTimeout, err: "timed out after 500ms"},
		{mode: "crash", failure: FailExit, err: "killed by signal SIGSEGV"},
		{mode: "fail", failure: FailExit, err: "exit status 3; stderr: model unreachable"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			m := &ModelReviewer{ID: "llm", Argv: []string{fake, tc.mode, reqFile}, Dir: tmp, Timeout: 500 * time.Millisecond}
			start := time.Now()
			res := m.Review(context.Background(), request, offered)
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %s", el)
			}
			if tc.failure != "" {
				if res.Action != nil || res.Failure != tc.failure || res.Err == nil || !strings.Contains(res.Err.Error(), tc.err) {
					t.Fatalf("got action %v failure %q err %v, want failure %q with %q", res.Action, res.Failure, res.Err, tc.failure, tc.err)
				}
				return
			}
			if res.Action == nil || res.Action.Op != tc.op {
				t.Fatalf("got %+v (err %v), want %s", res.Action, res.Err, tc.op)
			}
			got, err := os.ReadFile(reqFile)
			if err != nil || string(got) != string(request) || !json.Valid(got) {
				t.Errorf("the program read %q (%v), want the request", got, err)
			}
		})
	}

	// A relative program is relative to Dir; a missing one fails.
	if err := os.WriteFile(filepath.Join(tmp, "m.sh"), []byte("#!/bin/sh\necho '{\"decision\":\"defer\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := (&ModelReviewer{ID: "rel", Argv: []string{"./m.sh"}, Dir: tmp}).Review(context.Background(), request, offered); res.Outcome() != "defer" {
		t.Errorf("relative program: %v %v", res.Outcome(), res.Err)
	}
	if res := (&ModelReviewer{ID: "missing", Argv: []string{"no-such-model-program-xyz"}, Dir: tmp}).Review(context.Background(), request, offered); res.Failure != FailError {
		t.Errorf("missing program: %v %v", res.Outcome(), res.Err)
	}
}
