package runtime

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/builtins"
)

// The encoding check of docs/hook-protocol.md, "Request", byte for byte.
func TestHookRequestEncodingVector(t *testing.T) {
	got, err := encodeRequest("review", builtins.KindReviewer, "request", map[string]any{"z": int64(1), "a": "value"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hook_id":"review","kind":"reviewer","payload":{"a":"value","z":1},"request_id":"request","version":1}`
	if string(got) != want {
		t.Errorf("request\n\t%s\nwant\n\t%s", got, want)
	}
}

func TestHookRequestEncoding(t *testing.T) {
	payload := map[string]any{
		"b": []any{map[string]any{"y": nil, "x": true}, 1.5, int(-2), "<&>\u2028"},
		"a": map[string]string{"k2": "v", "k1": "\"\\\n\t\x01é"},
		"c": []string{"p", "q"},
		"d": 1786579200.123,
		"e": map[string]any{},
		"f": []any{},
	}
	got, err := encodeRequest("h", builtins.KindAudit, "r", payload)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hook_id":"h","kind":"audit_filter","payload":{"a":{"k1":"\"\\\n\t\u0001é","k2":"v"},` +
		`"b":[{"x":true,"y":null},1.5,-2,"<&>\u2028"],"c":["p","q"],"d":1786579200.123,"e":{},"f":[]},"request_id":"r","version":1}`
	if string(got) != want {
		t.Errorf("request\n\t%s\nwant\n\t%s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("request is not valid JSON")
	}

	for _, k := range []builtins.Kind{builtins.KindBefore, builtins.KindAfter, builtins.KindReviewer, builtins.KindEffect, builtins.KindAudit} {
		wire, _ := HookKind(k)
		got, err := encodeRequest("h", k, "r", nil)
		if err != nil || !strings.Contains(string(got), `"kind":"`+wire+`","payload":{}`) {
			t.Errorf("%s: %s, %v", k, got, err)
		}
	}

	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for what, c := range map[string]struct {
		payload map[string]any
		want    string
	}{
		"channel":       {map[string]any{"c": make(chan int)}, "Go type chan int is not data"},
		"NaN":           {map[string]any{"f": math.NaN()}, "is not data"},
		"Inf":           {map[string]any{"f": math.Inf(1)}, "is not data"},
		"bad UTF-8":     {map[string]any{"s": "a\xffb"}, "not valid UTF-8"},
		"bad UTF-8 key": {map[string]any{"\xff": 1}, "not valid UTF-8"},
		"cycle":         {cyclic, "nested deeper than"},
		"too big":       {map[string]any{"s": strings.Repeat("x", MaxHookRequest)}, "request is over 1048576 bytes"},
	} {
		_, err := encodeRequest("h", builtins.KindBefore, "r", c.payload)
		wantErrContains(t, what, err, CodeInputLimit, c.want)
	}
	_, err = encodeRequest("h", builtins.KindMatcher, "r", nil)
	wantErrContains(t, "matcher", err, CodeExecution, "no executable form")
}

// The test vectors of docs/hook-protocol.md, "Error codes", exactly.
func TestHookResponseVectors(t *testing.T) {
	for _, c := range []struct{ response, want string }{
		{`{"version":1,"request_id":"request","decision":"approve_once"}`, ""},
		{`{"version":1,"request_id":"request","decision":"approve_once","extra":true}`, "unknown field: extra"},
		{`{"version":1,"version":1,"request_id":"request","decision":"approve_once"}`, "duplicate field: version"},
		{`{"version":1,"request_id":"request","action":"continue"}`, "missing field: decision"},
		{`{"version":1,"request_id":"other","decision":"approve_once"}`, "shell.hook_request_id"},
	} {
		d, err := decodeResponse(builtins.KindReviewer, "request", nil, []byte(c.response))
		if c.want == "" {
			if err != nil || d.Action.String() != "Review.approve()" {
				t.Errorf("%s: %v, %v; want Review.approve()", c.response, d.Action, err)
			}
			continue
		}
		wantErrContains(t, c.response, err, c.want)
	}
}

func TestHookResponses(t *testing.T) {
	exited1 := &hookStatus{Code: 1}
	for _, c := range []struct {
		kind     builtins.Kind
		response string // REQ stands for "version":1,"request_id":"r"
		want     string // the action, or the error's code and text
	}{
		{builtins.KindBefore, `{REQ,"action":"continue"}`, `Intercept.proceed()`},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"safe-python","arguments":["script.py"]}`, `Intercept.rewrite(["safe-python", "script.py"])`},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"ls","arguments":[]}`, `Intercept.rewrite(["ls"])`},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":3},"stdout":"o","stderr":"e"}`, `Intercept.respond(stdout = "o", stderr = "e", exit = 3)`},
		{builtins.KindBefore, `{REQ,"action":"reject","reason":"no"}`, `Intercept.reject("no")`},
		{builtins.KindAfter, `{REQ,"action":"continue"}`, `Result.keep()`},
		{builtins.KindAfter, `{REQ,"action":"replace_result","status":{"exited":1},"stdout":"","stderr":"x"}`, `Result.replace(stderr = "x")`},
		{builtins.KindAfter, `{REQ,"action":"reject","reason":"secret"}`, `Result.reject_disclosure("secret")`},
		{builtins.KindReviewer, `{REQ,"decision":"defer"}`, `Review.defer()`},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"durable_exact"}`, `Review.approve_for("durable_exact")`},
		{builtins.KindReviewer, `{REQ,"decision":"deny","reason":"r"}`, `Review.deny("r")`},
		{builtins.KindReviewer, `{REQ,"decision":"rewrite","program":"git","arguments":["status","--short"]}`, `Review.rewrite(["git", "status", "--short"])`},
		{builtins.KindEffect, `{REQ,"action":"add_effects","effects":["network","read:/etc/hosts"]}`, `Effect.add(["network", "read:/etc/hosts"])`},
		{builtins.KindEffect, `{REQ,"action":"add_effects","effects":[]}`, `Effect.add([])`},
		{builtins.KindEffect, `{REQ,"action":"replace_effects","effects":["read:/w"]}`, `Effect.replace(["read:/w"])`},
		{builtins.KindAudit, `{REQ,"action":"keep"}`, `Audit.keep()`},
		{builtins.KindAudit, `{REQ,"action":"drop_field","field":"command"}`, `Audit.drop_field("command")`},
		{builtins.KindAudit, `{REQ,"action":"replace_fields","fields":{"command":"[hidden]","a":""}}`, `Audit.replace({"a": "", "command": "[hidden]"})`},
		{builtins.KindAudit, " \n\t{REQ,\"action\":\"keep\"}\r\n ", `Audit.keep()`},
		{builtins.KindAudit, `{"action":"keep","request_id":"r","version":1}`, `Audit.keep()`},

		// The envelope.
		{builtins.KindBefore, ``, "shell.hook_protocol: empty response"},
		{builtins.KindBefore, "  \n", "shell.hook_protocol: empty response"},
		{builtins.KindBefore, `[]`, "shell.hook_protocol: response is an array, want one JSON object"},
		{builtins.KindBefore, `"continue"`, "shell.hook_protocol: response is a string"},
		{builtins.KindBefore, `{REQ,"action":"continue"} x`, "shell.hook_protocol: trailing data"},
		{builtins.KindBefore, `{REQ,"action":"continue"}{REQ,"action":"continue"}`, "shell.hook_protocol: trailing data"},
		{builtins.KindBefore, `{REQ,"action":"continue"}` + "\n" + `{REQ,"action":"continue"}`, "shell.hook_protocol: trailing data"},
		{builtins.KindBefore, `{REQ,"action":"continue"`, "shell.hook_protocol: invalid JSON: the response ends early"},
		{builtins.KindBefore, `{REQ,"action":"cont`, "shell.hook_protocol: invalid JSON"},
		{builtins.KindBefore, `{REQ,"action":"continue",}`, "shell.hook_protocol: invalid JSON"},
		{builtins.KindBefore, `{REQ,action:"continue"}`, "shell.hook_protocol: invalid JSON"},
		{builtins.KindBefore, "{REQ,\"action\":\"continue\"}\x00", "shell.hook_protocol"},
		{builtins.KindBefore, "\ufeff{REQ,\"action\":\"continue\"}", "shell.hook_protocol: invalid JSON"},
		{builtins.KindBefore, "{REQ,\"action\":\"reject\",\"reason\":\"a\xffb\"}", "shell.hook_protocol: response is not valid UTF-8"},
		{builtins.KindBefore, "{REQ,\"action\":\"continue\"}\xc3", "shell.hook_protocol: response is not valid UTF-8"},
		{builtins.KindBefore, `{"request_id":"r","action":"continue"}`, "shell.hook_protocol: missing field: version"},
		{builtins.KindBefore, `{"version":2,"request_id":"r","action":"continue"}`, "shell.hook_protocol: unsupported version 2"},
		{builtins.KindBefore, `{"version":"1","request_id":"r","action":"continue"}`, "shell.hook_protocol: unsupported version a string"},
		{builtins.KindBefore, `{"version":1.0,"request_id":"r","action":"continue"}`, "shell.hook_protocol: unsupported version 1.0"},
		{builtins.KindBefore, `{"version":1e0,"request_id":"r","action":"continue"}`, "shell.hook_protocol: unsupported version 1e0"},
		{builtins.KindBefore, `{"version":1,"action":"continue"}`, "shell.hook_protocol: missing field: request_id"},
		{builtins.KindBefore, `{"version":1,"request_id":7,"action":"continue"}`, "shell.hook_protocol: wrong type: request_id is a number"},
		{builtins.KindBefore, `{"version":1,"request_id":"R","action":"continue"}`, `shell.hook_request_id: response request_id "R", want "r"`},
		{builtins.KindBefore, `{"version":1,"request_id":"r","action":"continue","request_id":"r"}`, "shell.hook_protocol: duplicate field: request_id"},
		{builtins.KindBefore, `{REQ}`, "shell.hook_protocol: missing field: action"},
		{builtins.KindBefore, `{REQ,"action":null}`, "shell.hook_protocol: wrong type: action is null"},

		// Unknown, missing and duplicate fields at every depth.
		{builtins.KindBefore, `{REQ,"action":"continue","reason":"x"}`, "shell.hook_protocol: unknown field: reason"},
		{builtins.KindBefore, `{REQ,"action":"reject"}`, "shell.hook_protocol: missing field: reason"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":0},"stdout":""}`, "shell.hook_protocol: missing field: stderr"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":0,"exited":0},"stdout":"","stderr":""}`, "shell.hook_protocol: duplicate field: status.exited"},
		{builtins.KindAudit, `{REQ,"action":"replace_fields","fields":{"a":"1","a":"2"}}`, "shell.hook_protocol: duplicate field: fields.a"},
		{builtins.KindAudit, `{REQ,"action":"keep","x":[{"a":1,"a":1}]}`, "shell.hook_protocol: duplicate field: x[0].a"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":0,"core":true},"stdout":"","stderr":""}`, "shell.hook_protocol: unknown field: status.core"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{},"stdout":"","stderr":""}`, "shell.hook_protocol: status must have exactly one of exited and signaled"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":0,"signaled":9},"stdout":"","stderr":""}`, "shell.hook_protocol: status must have exactly one"},
		{builtins.KindBefore, `{REQ,"action":"continue","x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, "shell.hook_protocol: response nested deeper than 32"},

		// Wrong types.
		{builtins.KindBefore, `{REQ,"action":"reject","reason":1}`, "shell.hook_protocol: wrong type: reason is a number, want a string"},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"ls","arguments":"-l"}`, "shell.hook_protocol: wrong type: arguments is a string"},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"ls","arguments":["-l",1]}`, "shell.hook_protocol: wrong type: arguments[1] is a number"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":"0"},"stdout":"","stderr":""}`, "shell.hook_protocol: wrong type: status.exited is a string"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":0.5},"stdout":"","stderr":""}`, "shell.hook_protocol: wrong type: status.exited is a number, want an integer"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":256},"stdout":"","stderr":""}`, "shell.hook_protocol: status: status.exited 256 out of range"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"exited":-1},"stdout":"","stderr":""}`, "shell.hook_protocol: status: status.exited -1 out of range"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":[0],"stdout":"","stderr":""}`, "shell.hook_protocol: wrong type: status is an array"},
		{builtins.KindAudit, `{REQ,"action":"replace_fields","fields":{"a":1}}`, "shell.hook_protocol: wrong type: fields.a is a number"},
		{builtins.KindAudit, `{REQ,"action":"replace_fields","fields":["a"]}`, "shell.hook_protocol: wrong type: fields is an array"},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"exact_session","expires_at":"soon"}`, "shell.hook_protocol: wrong type: expires_at is a string"},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"exact_session","expires_at":null}`, "shell.hook_protocol: wrong type: expires_at is null"},

		// Actions of another kind, and values a kind refuses.
		{builtins.KindBefore, `{REQ,"action":"keep"}`, `shell.hook_action: action "keep" is not one a before_interceptor may answer (want continue, reject, respond, rewrite)`},
		{builtins.KindAfter, `{REQ,"action":"respond","status":{"exited":0},"stdout":"","stderr":""}`, `shell.hook_action: action "respond"`},
		{builtins.KindEffect, `{REQ,"action":"continue"}`, `shell.hook_action: action "continue"`},
		{builtins.KindAudit, `{REQ,"action":"continue"}`, `shell.hook_action`},
		{builtins.KindReviewer, `{REQ,"decision":"approve"}`, `shell.hook_action: decision "approve"`},
		{builtins.KindBefore, `{REQ,"action":"reject","reason":"  "}`, "shell.hook_action: reason must not be empty"},
		{builtins.KindBefore, `{REQ,"action":"reject","reason":"` + strings.Repeat("x", builtins.MaxString+1) + `"}`, "shell.hook_action: reason is 16385 bytes"},
		{builtins.KindBefore, `{REQ,"action":"respond","status":{"signaled":9},"stdout":"","stderr":""}`, "shell.hook_action: respond status {\"signaled\":9}: a synthetic result cannot claim a signal"},
		{builtins.KindEffect, `{REQ,"action":"add_effects","effects":["teleport"]}`, "shell.hook_action: effect: unknown effect"},
		{builtins.KindEffect, `{REQ,"action":"add_effects","effects":["read:"]}`, "shell.hook_action"},
		{builtins.KindAudit, `{REQ,"action":"drop_field","field":""}`, "shell.hook_action: field name must not be empty"},
		{builtins.KindAudit, `{REQ,"action":"replace_fields","fields":{"":"x"}}`, "shell.hook_action: field name must not be empty"},

		// Rewrites.
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"","arguments":["x"]}`, "shell.hook_rewrite: rewrite to an empty program"},
		{builtins.KindReviewer, `{REQ,"decision":"rewrite","program":"","arguments":[]}`, "shell.hook_rewrite: rewrite to an empty program"},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"ls","arguments":["a\u0000b"]}`, "shell.hook_rewrite: rewrite argv[1] contains a NUL byte"},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"l\u0000s","arguments":[]}`, "shell.hook_rewrite: rewrite argv[0] contains a NUL byte"},
		{builtins.KindBefore, `{REQ,"action":"rewrite","program":"ls","arguments":[` + strings.Repeat(`"a",`, builtins.MaxList) + `"a"]}`, "shell.hook_rewrite: rewrite argv has 258 items"},

		// Scopes.
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"once"}`, `shell.hook_scope: scope "once" is not one a hook may approve for`},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"forever"}`, `shell.hook_scope: scope "forever"`},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"exact_session","expires_at":1e999}`, "shell.hook_scope: expires_at 1e999 is not a finite number"},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"exact_session","expires_at":-5}`, "shell.hook_scope: expires_at -5 is out of range"},
		{builtins.KindReviewer, `{REQ,"decision":"approve_scope","scope":"exact_session","expires_at":1e12}`, "shell.hook_scope: expires_at 1e12 is out of range"},

		// replace_result keeps the status (docs/hook-protocol.md, "Where agent-shell is stricter").
		{builtins.KindAfter, `{REQ,"action":"replace_result","status":{"exited":0},"stdout":"ok","stderr":""}`, `shell.hook_action: replace_result may not change the status ({"exited":1} to {"exited":0})`},
		{builtins.KindAfter, `{REQ,"action":"replace_result","status":{"signaled":1},"stdout":"ok","stderr":""}`, `shell.hook_action: replace_result may not change the status`},
	} {
		resp := strings.ReplaceAll(c.response, "REQ", `"version":1,"request_id":"r"`)
		d, err := decodeResponse(c.kind, "r", exited1, []byte(resp))
		what := fmt.Sprintf("%s %s", c.kind, clipString(c.response))
		if !strings.HasPrefix(c.want, "shell.") {
			if err != nil {
				t.Errorf("%s: %v, want %s", what, err, c.want)
			} else if got := d.Action.String(); got != c.want {
				t.Errorf("%s: %s, want %s", what, got, c.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: %v, want error %s", what, d.Action, c.want)
			continue
		}
		if code := HookCode(err); !strings.HasPrefix(c.want, code+":") && c.want != code {
			t.Errorf("%s: code %q (%v), want %s", what, code, err, c.want)
		}
		wantErrContains(t, what, err, c.want)
	}
}

func TestHookReviewerExpiry(t *testing.T) {
	for _, c := range []struct {
		expires string
		want    time.Time
	}{
		{`1786579200`, time.Unix(1786579200, 0)},
		{`1786579200.5`, time.Unix(1786579200, 5e8)},
		{`1.7865792e9`, time.Unix(1786579200, 0)},
	} {
		resp := `{"version":1,"request_id":"r","decision":"approve_scope","scope":"prefix_session","expires_at":` + c.expires + `}`
		d, err := decodeResponse(builtins.KindReviewer, "r", nil, []byte(resp))
		if err != nil {
			t.Fatalf("%s: %v", c.expires, err)
		}
		if !d.ExpiresAt.Equal(c.want) || d.Action.String() != `Review.approve_for("prefix_session")` {
			t.Errorf("%s: %v expires %v, want %v", c.expires, d.Action, d.ExpiresAt, c.want)
		}
	}
	d, err := decodeResponse(builtins.KindReviewer, "r", nil, []byte(`{"version":1,"request_id":"r","decision":"approve_scope","scope":"exact_session"}`))
	if err != nil || !d.ExpiresAt.IsZero() {
		t.Errorf("no expires_at: %v, %v", d.ExpiresAt, err)
	}
	// A replace_result with no original status to compare is refused.
	_, err = decodeResponse(builtins.KindAfter, "r", nil, []byte(`{"version":1,"request_id":"r","action":"replace_result","status":{"exited":0},"stdout":"","stderr":""}`))
	wantErrContains(t, "no original status", err, "shell.hook_action: replace_result: the request carried no status to keep")
}

func TestPayloadStatus(t *testing.T) {
	for _, c := range []struct {
		status any
		want   string
	}{
		{map[string]any{"exited": int64(0)}, `{"exited":0}`},
		{map[string]any{"exited": 2}, `{"exited":2}`},
		{map[string]any{"signaled": float64(9)}, `{"signaled":9}`},
		{nil, "error"},
		{map[string]any{}, "error"},
		{map[string]any{"exited": 1.5}, "error"},
		{map[string]any{"exited": "1"}, "error"},
		{map[string]any{"exited": 300}, "error"},
		{map[string]any{"signaled": 0}, "error"},
		{map[string]any{"stopped": 1}, "error"},
		{map[string]any{"exited": 0, "signaled": 1}, "error"},
	} {
		st, err := payloadStatus(map[string]any{"status": c.status})
		got := st.String()
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("%v: %s (%v), want %s", c.status, got, err, c.want)
		}
	}
}

// rebuild makes the action a through its kind's Starlark constructor: an
// accepted response must be an action a script could have returned.
func rebuild(a *builtins.Action) (*builtins.Action, error) {
	mod := builtins.ActionModule(a.Kind)
	op := a.Op
	var args starlark.Tuple
	var kwargs []starlark.Tuple
	strs := func(xs []string) *starlark.List {
		l := starlark.NewList(nil)
		for _, x := range xs {
			_ = l.Append(starlark.String(x))
		}
		return l
	}
	switch {
	case a.Kind == builtins.KindReviewer && op == "approve_for":
		args = starlark.Tuple{starlark.String(a.Scope)}
	case op == "rewrite":
		args = starlark.Tuple{strs(a.Argv)}
	case op == "respond" || (a.Kind == builtins.KindAfter && op == "replace"):
		kwargs = []starlark.Tuple{{starlark.String("stdout"), starlark.String(a.Stdout)}, {starlark.String("stderr"), starlark.String(a.Stderr)}}
		if op == "respond" {
			kwargs = append(kwargs, starlark.Tuple{starlark.String("exit"), starlark.MakeInt(a.Exit)})
		}
	case a.Kind == builtins.KindEffect:
		args = starlark.Tuple{strs(a.Effects)}
	case op == "drop_field":
		args = starlark.Tuple{starlark.String(a.Field)}
	case a.Kind == builtins.KindAudit && op == "replace":
		d := starlark.NewDict(len(a.Fields))
		for k, v := range a.Fields {
			_ = d.SetKey(starlark.String(k), starlark.String(v))
		}
		args = starlark.Tuple{d}
	case op == "deny" || op == "reject" || op == "reject_disclosure":
		args = starlark.Tuple{starlark.String(a.Reason)}
	}
	fn, ok := mod.Members[op]
	if !ok {
		return nil, fmt.Errorf("%s has no constructor %s", a.Kind.Module(), op)
	}
	v, err := starlark.Call(&starlark.Thread{}, fn, args, kwargs)
	if err != nil {
		return nil, err
	}
	return v.(*builtins.Action), nil
}

var hookCodes = map[string]bool{CodeProtocol: true, CodeRequestID: true, CodeRewrite: true, CodeScope: true, CodeAction: true}

// FuzzDecodeResponse: for every kind, the decoder never panics, fails only
// with a protocol error code, and accepts only well-formed JSON that maps
// to an action its kind's Starlark constructor would make too.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"request_id":"request","decision":"approve_once"}`,
		`{"version":1,"request_id":"request","decision":"approve_once","extra":true}`,
		`{"version":1,"version":1,"request_id":"request","decision":"approve_once"}`,
		`{"version":1,"request_id":"request","action":"continue"}`,
		`{"version":1,"request_id":"other","decision":"approve_once"}`,
		`{"version":1,"request_id":"request","action":"rewrite","program":"safe-python","arguments":["script.py"]}`,
		`{"version":1,"request_id":"request","action":"respond","status":{"exited":0},"stdout":"…","stderr":""}`,
		`{"version":1,"request_id":"request","action":"reject","reason":"…"}`,
		`{"version":1,"request_id":"request","action":"replace_result","status":{"exited":1},"stdout":"","stderr":"…"}`,
		`{"version":1,"request_id":"request","decision":"defer"}`,
		`{"version":1,"request_id":"request","decision":"approve_scope","scope":"exact_session","expires_at":1786579200}`,
		`{"version":1,"request_id":"request","decision":"deny","reason":"…"}`,
		`{"version":1,"request_id":"request","decision":"rewrite","program":"git","arguments":["status","--short"]}`,
		`{"version":1,"request_id":"request","action":"add_effects","effects":["network","read:/etc/hosts"]}`,
		`{"version":1,"request_id":"request","action":"replace_effects","effects":["read:/w"]}`,
		`{"version":1,"request_id":"request","action":"keep"}`,
		`{"version":1,"request_id":"request","action":"drop_field","field":"command"}`,
		`{"version":1,"request_id":"request","action":"replace_fields","fields":{"command":"[hidden]"}}`,
		`{"version":1,"request_id":"request","action":"continue"} {}`,
		"{\"version\":1,\"request_id\":\"request\",\"action\":\"reject\",\"reason\":\"\xff\"}",
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`, `{"a":{"b":{"a":1,"a":2}}}`, ``, `1`, `null`,
	} {
		f.Add([]byte(s))
	}
	kinds := []builtins.Kind{builtins.KindBefore, builtins.KindAfter, builtins.KindReviewer, builtins.KindEffect, builtins.KindAudit}
	orig := &hookStatus{Code: 1}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range kinds {
			d, err := decodeResponse(k, "request", orig, data)
			if err != nil {
				if d.Action != nil {
					t.Fatalf("%s: an action and an error: %v", k, err)
				}
				if !hookCodes[HookCode(err)] {
					t.Fatalf("%s: error %v has code %q", k, err, HookCode(err))
				}
				continue
			}
			if !json.Valid(data) {
				t.Fatalf("%s: accepted invalid JSON %q", k, data)
			}
			a := d.Action
			if a == nil || a.Kind != k || a.Op == "" {
				t.Fatalf("%s: accepted %q as %v", k, data, a)
			}
			b, err := rebuild(a)
			if err != nil {
				t.Fatalf("%s: %q decoded to %v, which its constructor refuses: %v", k, data, a, err)
			}
			if !a.Equal(b) {
				t.Fatalf("%s: %q decoded to %v, its constructor makes %v", k, data, a, b)
			}
			if !d.ExpiresAt.IsZero() && (a.Op != "approve_for" || d.ExpiresAt.Unix() <= 0) {
				t.Fatalf("%s: expiry %v on %v", k, d.ExpiresAt, a)
			}
		}
	})
}
