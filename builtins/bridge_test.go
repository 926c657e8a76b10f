package builtins

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

func testContext() *Context {
	return &Context{
		Phase:     "shell_reviewer",
		RequestID: "req-1",
		SessionID: "sess-1",
		Agent:     "claude",
		Tool:      "bash",
		Argv:      []string{"/usr/bin/terraform", "destroy", "-auto-approve"},
		Program:   "/usr/bin/terraform",
		Cwd:       "/repo",
		Effects:   []string{"network", "write:/repo"},
		Policy: &Policy{Action: "ask", Reason: "review", Matches: []PolicyMatch{
			{RuleID: "tf", Action: "ask", Reason: "terraform"},
			{RuleID: "net", Action: "allow"},
		}},
		Timestamp: "2026-11-29T12:00:00.000Z",
		Home:      "/home/dev",
		Project:   "/repo",
		Dir:       "/repo/infra",
		Redirects: []shellcmd.Redirect{
			{Op: ">", Target: "plan.out", File: true, Write: true},
			{Op: "2>&", Target: "1"},
			{Op: "<", Target: "$IN", File: true, Dynamic: true},
		},
		Upstream: [][]string{{"curl", "-s", "x"}, {"tee", "log"}},
		Layers:   [][]string{{"sudo", "/usr/bin/terraform", "destroy", "-auto-approve"}, {"/usr/bin/terraform", "destroy", "-auto-approve"}},
		Implied:  "",
		Dynamic:  true,
	}
}

func TestContextValue(t *testing.T) {
	env := Surface(KindReviewer)
	env["ctx"] = testContext().Value()
	tests := []struct{ expr, want string }{
		{`ctx.version`, `"shell-context-v1"`},
		{`ctx.phase`, `"shell_reviewer"`},
		{`ctx.request_id`, `"req-1"`},
		{`ctx.session_id`, `"sess-1"`},
		{`ctx.agent`, `"claude"`},
		{`ctx.tool`, `"bash"`},
		{`ctx.argv`, `("/usr/bin/terraform", "destroy", "-auto-approve")`},
		{`ctx.basename`, `"terraform"`},
		{`ctx.program`, `"/usr/bin/terraform"`},
		{`ctx.cwd`, `"/repo"`},
		{`ctx.effects`, `("network", "write:/repo")`},
		{`ctx.timestamp`, `"2026-11-29T12:00:00.000Z"`},
		{`ctx.policy.action`, `"ask"`},
		{`ctx.policy.reason`, `"review"`},
		{`[m.rule_id for m in ctx.policy.matches]`, `["tf", "net"]`},
		{`ctx.policy.matches[1].reason`, `""`},
		{`"destroy" in ctx.argv`, `True`},
		{`dir(ctx)`, `["agent", "argv", "assigns", "basename", "code", "cwd", "dir", "dynamic", "effects", "guessed", "home", "implied", "layers", "phase", "policy", "program", "project", "redirects", "request_id", "session_id", "timestamp", "tool", "upstream", "version"]`},
		{`ctx.assigns`, `()`},
		{`ctx.code`, `None`},
		{`ctx.home`, `"/home/dev"`},
		{`ctx.project`, `"/repo"`},
		{`ctx.dir`, `"/repo/infra"`},
		{`[(r.op, r.target, r.file, r.write, r.dynamic) for r in ctx.redirects]`, `[(">", "plan.out", True, True, False), ("2>&", "1", False, False, False), ("<", "$IN", True, False, True)]`},
		{`dir(ctx.redirects[0])`, `["dynamic", "file", "op", "target", "write"]`},
		{`ctx.upstream`, `(("curl", "-s", "x"), ("tee", "log"))`},
		{`ctx.upstream[-1][0]`, `"tee"`},
		{`ctx.layers[0][0]`, `"sudo"`},
		{`ctx.layers[-1] == ctx.argv`, `True`},
		{`ctx.implied`, `""`},
		{`ctx.dynamic`, `True`},
		{`dir(ctx.policy.matches[0])`, `["action", "reason", "rule_id"]`},
		{`ctx == struct(**{k: getattr(ctx, k) for k in dir(ctx)})`, `False`},
		{`json.decode(json.encode(ctx))["argv"][0]`, `"/usr/bin/terraform"`},
	}
	for _, tt := range tests {
		v, err := eval(env, tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if v.String() != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, v, tt.want)
		}
	}
	// Frozen all the way down.
	frozen := []struct{ src, want string }{
		{"ctx.argv.append('x')\n", "has no .append field or method"},
		{"l = [ctx.argv]\nl[0] += ('x',)\nlen(ctx.argv) == 3 or fail('changed')\n", ""},
		{"ctx.cwd = '/'\n", "can't assign to .cwd field of struct"},
		{"ctx.policy.matches[0].rule_id = 'x'\n", "can't assign to .rule_id field of struct"},
		{"ctx.redirects[0].target = 'x'\n", "can't assign to .target field of struct"},
		{"ctx.upstream[0].append('x')\n", "has no .append field or method"},
	}
	for _, tt := range frozen {
		_, err := execFile(env, tt.src)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.src, err)
			}
			continue
		}
		wantErr(t, tt.src, err, tt.want)
	}
	v := env["ctx"]
	if _, err := v.Hash(); err != nil {
		t.Errorf("ctx should be hashable (all fields immutable): %v", err)
	}
}

func TestContextNoPolicy(t *testing.T) {
	c := &Context{Phase: "shell_matcher"}
	env := Surface(KindMatcher)
	env["ctx"] = c.Value()
	for expr, want := range map[string]string{
		`ctx.policy`:    "None",
		`ctx.argv`:      "()",
		`ctx.basename`:  `""`,
		`ctx.effects`:   "()",
		`ctx.version`:   `"shell-context-v1"`,
		`ctx.home`:      `""`,
		`ctx.dir`:       `""`,
		`ctx.redirects`: "()",
		`ctx.upstream`:  "()",
		`ctx.layers`:    "((),)",
		`ctx.implied`:   `""`,
		`ctx.dynamic`:   "False",
	} {
		v, err := eval(env, expr)
		if err != nil || v.String() != want {
			t.Errorf("%s = %v, %v; want %s", expr, v, err, want)
		}
	}
	c2 := &Context{Argv: []string{"git"}}
	if got, _ := c2.Value().(starlark.HasAttrs).Attr("basename"); got != starlark.String("git") {
		t.Errorf("basename = %v", got)
	}
}

func TestAuditEventValue(t *testing.T) {
	ev := &AuditEvent{
		Sequence:  41,
		Timestamp: "2026-11-29T12:00:00.000Z",
		SessionID: "s",
		Event:     "policy_decision",
		Fields: map[string]any{
			"v": int64(1), "decision": "deny", "effects": []any{"network"}, "env": map[string]any{}, "score": 0.5,
		},
	}
	v, err := ev.Value()
	if err != nil {
		t.Fatal(err)
	}
	env := Surface(KindAudit)
	env["event"] = v
	tests := []struct{ expr, want string }{
		{`event.version`, `"shell-audit-v1"`},
		{`event.phase`, `"shell_audit"`},
		{`event.sequence`, `41`},
		{`event.timestamp`, `"2026-11-29T12:00:00.000Z"`},
		{`event.session_id`, `"s"`},
		{`event.event`, `"policy_decision"`},
		{`list(event.fields.keys())`, `["decision", "effects", "env", "score", "v"]`},
		{`event.fields["effects"]`, `["network"]`},
		{`event.fields["score"]`, `0.5`},
	}
	for _, tt := range tests {
		got, err := eval(env, tt.expr)
		if err != nil || got.String() != tt.want {
			t.Errorf("%s = %v, %v; want %s", tt.expr, got, err, tt.want)
		}
	}
	for _, src := range []string{`event.fields["x"] = "y"`, `event.fields["effects"].append("z")`} {
		_, err := execFile(env, src+"\n")
		wantErr(t, src, err, "frozen")
	}
	empty, err := (&AuditEvent{Event: "tool_use"}).Value()
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := empty.(starlark.HasAttrs).Attr("fields"); f.String() != "{}" {
		t.Errorf("fields of an empty event = %v", f)
	}
	_, err = (&AuditEvent{Fields: map[string]any{"x": []any{make(chan int)}}}).Value()
	wantErr(t, "bad fields", err, `fields["x"][0]: Go type chan int is not data`)
	_, err = (&AuditEvent{Fields: map[string]any{"x": strings.Repeat("s", MaxOutput+1)}}).Value()
	wantErr(t, "long field", err, `fields["x"]: string is 262145 bytes`)
}
