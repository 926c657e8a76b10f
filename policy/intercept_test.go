package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// icScript is a before-interceptor that acts on the command's second word.
const icScript = `def on_event(ctx, state):
    state["calls"] = state.get("calls", 0) + 1
    a = ctx.argv[1] if len(ctx.argv) > 1 else ""
    if a == "reject":
        return Intercept.reject("no " + ctx.basename)
    if a == "policy":
        return Intercept.reject(ctx.phase + " " + ctx.policy.action + " " + ",".join([m.rule_id for m in ctx.policy.matches]))
    if a == "respond":
        return Intercept.respond("canned \x1b[31mout\x1b[0m ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n", "canned err\n", 3)
    if a == "rewrite":
        return Intercept.rewrite(["tool", "safe", ctx.argv[-1]])
    if a == "rewrite-rm":
        return Intercept.rewrite(["rm", "-rf", "x"])
    if a == "rewrite-guard":
        return Intercept.rewrite(["touch", ".agent-shell/x"])
    if a == "loop":
        return Intercept.rewrite(["tool", "loop"])
    if a == "fail":
        fail("boom")
    return Intercept.proceed()
`

// icManifest: rm is denied, curl asks, everything else is allowed; ic is a
// before-interceptor with the given extra declaration lines and match.
func icManifest(extra, match string) string {
	m := "version = 1\n" + rule("no-rm", ActionDeny, `{ basename = "rm" }`) + rule("curl-asks", ActionAsk, `{ basename = "curl" }`) +
		"\n[[script]]\nid = \"ic\"\nkind = \"shell_before_interceptor\"\n" + extra + "\nsource = '''\n" + icScript + "'''\n" +
		"\n[[interceptor]]\nscript = \"ic\"\nphase = \"before\"\n"
	if match != "" {
		m += "match = " + match + "\n"
	}
	return m
}

func icEngine(t *testing.T, manifest string) (*Engine, string) {
	t.Helper()
	root, _ := writeRepo(t, manifest, nil)
	e := Load(root, noEnv)
	if e.LoadErr != nil {
		t.Fatal(e.LoadErr)
	}
	return e, root
}

func stepSummary(it *Interception) string {
	if it == nil {
		return ""
	}
	var parts []string
	for _, s := range it.Steps {
		parts = append(parts, s.Interceptor+":"+s.Answer+">"+s.Outcome)
	}
	return strings.Join(parts, " ")
}

func TestInterceptorManifestErrors(t *testing.T) {
	before := "\n[[script]]\nid = \"b\"\nkind = \"shell_before_interceptor\"\nsource = \"def on_event(ctx, state):\\n    return Intercept.proceed()\"\n"
	after := "\n[[script]]\nid = \"a\"\nkind = \"shell_after_interceptor\"\nsource = \"def on_event(r, state):\\n    return Result.keep()\"\n"
	matcher := "\n[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\nsource = \"def on_event(ctx, state):\\n    return Match.yes()\"\n"
	for _, tc := range []struct{ name, body, key, msg string }{
		{"no phase", before + "\n[[interceptor]]\nscript = \"b\"\n", "interceptor[1].phase", `"before" or "after"`},
		{"unknown phase", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"during\"\n", "interceptor[1].phase", `"during": want "before" or "after"`},
		{"no script", "\n[[interceptor]]\nphase = \"before\"\n", "interceptor[1].script", "names its shell_before_interceptor script"},
		{"unknown script", "\n[[interceptor]]\nscript = \"x\"\nphase = \"before\"\n", "interceptor[1].script", `no [[script]] has id "x"`},
		{"after script before", after + "\n[[interceptor]]\nscript = \"a\"\nphase = \"before\"\n", "interceptor[1].script", `script "a" is a shell_after_interceptor, not a shell_before_interceptor`},
		{"before script after", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"after\"\n", "interceptor[1].script", `script "b" is a shell_before_interceptor, not a shell_after_interceptor`},
		{"after with match", after + "\n[[interceptor]]\nscript = \"a\"\nphase = \"after\"\nmatch = { basename = \"x\" }\n", "interceptor[1].match", "an after-interceptor has no match"},
		{"empty match", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\nmatch = {}\n", "interceptor[1].match", "empty match table"},
		{"bad regex", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\nmatch = { program_regex = \"(\" }\n", "interceptor[1].match", "program_regex"},
		{"match script kind", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\nmatch = { script = \"b\" }\n", "interceptor[1].match.script", "not a shell_matcher"},
		{"twice", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\n\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\n", "interceptor[2].script", "listed twice"},
		{"unknown key", before + "\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\nwhen = 1\n", "interceptor.when", "unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"+tc.body))
			me, ok := err.(*ManifestError)
			if !ok || me.Key != tc.key || !strings.Contains(me.Msg, tc.msg) || me.Line == 0 {
				t.Fatalf("error %v (%T), want key %s, a line, and %q", err, err, tc.key, tc.msg)
			}
		})
	}
	// A valid manifest with both phases, and a matcher in the match.
	m, err := ParseManifest("agent-shell.toml", []byte("version = 1\n"+before+after+matcher+
		"\n[[interceptor]]\nscript = \"b\"\nphase = \"before\"\nmatch = { all = [{ basename = \"python\" }, { script = \"m\" }] }\n"+
		"\n[[interceptor]]\nscript = \"a\"\nphase = \"after\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Interceptors) != 2 || len(m.interceptors(PhaseBefore)) != 1 || len(m.interceptors(PhaseAfter)) != 1 {
		t.Errorf("interceptors %+v", m.Interceptors)
	}
}

func TestBeforeInterceptorStarlark(t *testing.T) {
	tests := []struct {
		name, command string
		extra, match  string
		want          Action
		reason        string // a substring
		outcome       string // the interception's outcome, "" for none
		rewritten     string
		steps         string
	}{
		{"proceed", "tool go", "", "", ActionAllow, "allowed by the policy default", InterceptProceed, "", "ic:proceed>proceed"},
		{"reject", "tool reject", "", "", ActionDeny, "ic: no tool", InterceptDeny, "", "ic:reject>deny"},
		{"policy in ctx", "curl policy", "", "", ActionDeny, "ic: shell_before ask curl-asks", InterceptDeny, "", "ic:reject>deny"},
		{"respond", "tool respond", "", "", ActionDeny, "interceptor ic answered for 'tool respond' without running it (exit 3)\nstdout:\ncanned out [REDACTED]\n\nstderr:\ncanned err", InterceptRespond, "", "ic:respond>respond"},
		{"rewrite", "tool rewrite x", "", "", ActionAllow, "(interceptor ic rewrote 'tool rewrite x' to: tool safe x)", InterceptRewrite, "tool safe x", "ic:rewrite>rewrite ic:proceed>proceed"},
		{"rewrite to a denied command", "tool rewrite-rm", "", "", ActionDeny, "denied by rule no-rm", InterceptRewrite, "rm -rf x", "ic:rewrite>rewrite"},
		{"rewrite to a guarded command", "tool rewrite-guard", "", "", ActionDeny, "agent-shell guard", InterceptRewrite, "touch .agent-shell/x", "ic:rewrite>rewrite"},
		{"rewrite loop", "tool loop", "", "", ActionDeny, "may be rewritten at most 8 times", InterceptDeny, "tool loop", strings.Repeat("ic:rewrite>rewrite ", 8) + "ic:rewrite>deny"},
		{"rewrite on a compound line", "tool rewrite x && ls", "", "", ActionDeny, "interceptor ic rewrites tool rewrite x to: tool safe x, but only a line of one simple command can be rewritten, and this one has 2 simple commands", InterceptDeny, "", "ic:rewrite>deny"},
		{"rewrite with a redirection", "tool rewrite x > out.txt", "", "", ActionDeny, "this one has redirections", InterceptDeny, "", "ic:rewrite>deny"},
		{"respond on a compound line", "tool respond; ls", "", "", ActionDeny, "with a synthetic result, which cannot stand for the whole line: it has 2 simple commands", InterceptDeny, "", "ic:respond>deny"},
		{"second command rejects", "ls && tool reject", "", "", ActionDeny, "ic: no tool", InterceptDeny, "", "ic:proceed>proceed ic:reject>deny"},
		{"failure denies", "tool fail", "", "", ActionDeny, "Command 'tool fail' denied: interceptor ic failed (error: ", InterceptDeny, "", "ic:error>deny"},
		{"failure proceeds", "tool fail", "failure = \"proceed\"", "", ActionAllow, "allowed by the policy default", InterceptProceed, "", "ic:error>proceed"},
		{"out of fuel", "tool loop", "fuel = 1", "", ActionDeny, "interceptor ic failed (fuel", InterceptDeny, "", "ic:fuel>deny"},
		{"deny rule first", "rm reject", "", "", ActionDeny, "denied by rule no-rm", "", "", ""},
		{"ask stays ask", "curl go", "", "", ActionAsk, "needs approval (rule curl-asks", InterceptProceed, "", "ic:proceed>proceed"},
		{"match holds", "sudo tool reject", "", `{ basename = "tool" }`, ActionDeny, "ic: no tool", InterceptDeny, "", "ic:reject>deny"},
		{"match does not hold", "other reject", "", `{ basename = "tool" }`, ActionAllow, "allowed by the policy default", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, root := icEngine(t, icManifest(tt.extra, tt.match))
			d := e.DecideRequest(tt.command, Request{Cwd: root, SessionID: "s1"})
			if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
				t.Fatalf("decision %s %q, want %s with %q", d.Action, d.Reason, tt.want, tt.reason)
			}
			it := d.Intercept
			if tt.outcome == "" {
				if it != nil {
					t.Fatalf("interception %+v, want none", it)
				}
				return
			}
			if it == nil || it.Outcome != tt.outcome || it.Command != tt.rewritten {
				t.Fatalf("interception %+v, want outcome %s, command %q", it, tt.outcome, tt.rewritten)
			}
			if got := stepSummary(it); got != strings.TrimSpace(tt.steps) {
				t.Errorf("steps %q, want %q", got, tt.steps)
			}
			if d.Action == ActionDeny && tt.outcome != InterceptRewrite && d.Rule != "interceptor:ic" {
				t.Errorf("rule %q, want interceptor:ic", d.Rule)
			}
			n := 0
			for _, r := range d.Extensions {
				if r.Kind == "shell_before_interceptor" {
					n++
				}
			}
			if n != len(it.Steps) {
				t.Errorf("%d interceptor runs recorded, %d steps", n, len(it.Steps))
			}
		})
	}
}

func TestBeforeInterceptorRespondOutput(t *testing.T) {
	e, root := icEngine(t, icManifest("", ""))
	d := e.DecideShim("tool respond", Request{Cwd: root, SessionID: "s1", Agent: "npm"})
	it := d.Intercept
	if it == nil || it.Outcome != InterceptRespond || it.Exit != 3 || it.Interceptor != "ic" {
		t.Fatalf("interception %+v", it)
	}
	// Finalized: escapes stripped, the token redacted.
	if it.Stdout != "canned out [REDACTED]\n" || it.Stderr != "canned err\n" {
		t.Errorf("stdout %q stderr %q", it.Stdout, it.Stderr)
	}
}

func TestInterceptorMatchFailure(t *testing.T) {
	failing := "\n[[script]]\nid = \"m\"\nkind = \"shell_matcher\"\n%s\nsource = \"def on_event(ctx, state):\\n    fail('boom')\"\n"
	for _, tc := range []struct {
		name, decl string
		want       Action
		reason     string
	}{
		// A failed matcher counts as a match: the interceptor runs.
		{"conservative", "", ActionDeny, "ic: no tool"},
		// A matcher whose declared failure is deny denies the line.
		{"deny", "failure = \"deny\"", ActionDeny, "matcher m failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, root := icEngine(t, icManifest("", `{ script = "m" }`)+fmt.Sprintf(failing, tc.decl))
			d := e.DecideRequest("tool reject", Request{Cwd: root, SessionID: "s1"})
			if d.Action != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("decision %s %q, want %s %q", d.Action, d.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestShimDecision: on the shim path no reviewer runs and the guard does
// not see a rewrite; the rules still stop the interceptors.
func TestShimDecision(t *testing.T) {
	rv := "\n[[script]]\nid = \"rv\"\nkind = \"shell_reviewer\"\nsource = \"def on_event(ctx, state):\\n    return Review.approve()\"\n\n[[reviewer]]\nscript = \"rv\"\n"
	e, root := icEngine(t, icManifest("", "")+rv)
	d := e.DecideShim("curl go", Request{Cwd: root, SessionID: "s1", Agent: "npm"})
	if d.Action != ActionAsk || reviewerRuns(d) != 0 || d.Intercept == nil || d.Intercept.Outcome != InterceptProceed {
		t.Errorf("shim: %s %q, %d reviewer runs, interception %+v; want ask, no reviewer, proceed", d.Action, d.Reason, reviewerRuns(d), d.Intercept)
	}
	if d := e.DecideRequest("curl go", Request{Cwd: root, SessionID: "s1"}); d.Action != ActionAllow || reviewerRuns(d) != 1 {
		t.Errorf("hook: %s %q, %d reviewer runs; want the reviewer's allow", d.Action, d.Reason, reviewerRuns(d))
	}
	d = e.DecideShim("tool rewrite-guard", Request{Cwd: root, SessionID: "s1", Agent: "npm"})
	if d.Intercept == nil || d.Intercept.Outcome != InterceptRewrite || d.Intercept.Command != "touch .agent-shell/x" || d.Guard != "" {
		t.Errorf("shim rewrite: %+v, guard %q", d.Intercept, d.Guard)
	}
	if d := e.DecideShim("rm reject", Request{Cwd: root, SessionID: "s1", Agent: "npm"}); d.Intercept != nil {
		t.Errorf("shim on a denied command: interception %+v, want none", d.Intercept)
	}
}

// TestBeforeInterceptorExecutable drives each action through a pinned
// shell-hook-json-v1 executable.
func TestBeforeInterceptorExecutable(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Action
		reason     string
		outcome    string
		command    string
	}{
		{"continue", `"action":"continue"`, ActionAsk, "needs approval (rule py-asks", InterceptProceed, ""},
		{"reject", `"action":"reject","reason":"not here"`, ActionDeny, "hk: not here", InterceptDeny, ""},
		{"respond", `"action":"respond","status":{"exited":2},"stdout":"hi\n","stderr":""`, ActionDeny, "interceptor hk answered for 'python3 -V' without running it (exit 2)\nstdout:\nhi", InterceptRespond, ""},
		{"rewrite", `"action":"rewrite","program":"rm","arguments":["-rf","x"]`, ActionDeny, "denied by rule no-rm", InterceptRewrite, "rm -rf x"},
		{"malformed", `"action":"proceed"`, ActionDeny, "interceptor hk failed (malformed", InterceptDeny, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hook := hookScript(tc.body)
			manifest := "version = 1\n" + rule("no-rm", ActionDeny, `{ basename = "rm" }`) + rule("py-asks", ActionAsk, `{ basename = "python3" }`) +
				executableDecl("hk", "shell_before_interceptor", "hooks/hk.sh", pin(hook)) +
				"\n[[interceptor]]\nscript = \"hk\"\nphase = \"before\"\nmatch = { basename = [\"python3\", \"x\"] }\n"
			root, mpath := writeRepo(t, manifest, nil)
			dir := filepath.Dir(mpath)
			writeExecutable(t, filepath.Join(dir, "hooks/hk.sh"), hook)
			e := Load(root, noEnv)
			if e.LoadErr != nil {
				t.Fatal(e.LoadErr)
			}
			d := e.DecideRequest("python3 -V", Request{Cwd: root, SessionID: "s1"})
			if d.Action != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("decision %s %q, want %s %q", d.Action, d.Reason, tc.want, tc.reason)
			}
			if d.Intercept == nil || d.Intercept.Outcome != tc.outcome || d.Intercept.Command != tc.command {
				t.Fatalf("interception %+v, want %s %q", d.Intercept, tc.outcome, tc.command)
			}
			req, err := os.ReadFile(filepath.Join(dir, "request.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"hook_id":"hk"`, `"kind":"before_interceptor"`, `"event":"before_command"`,
				`"command":{"arguments":["-V"],"program":"python3"}`, `"policy":{"action":"ask","matches":["py-asks"],"reason":""}`} {
				if !strings.Contains(string(req), want) {
					t.Errorf("request %s\nlacks %s", req, want)
				}
			}
		})
	}
}

// hookEvent parses a pre-tool payload of a host whose shell input is
// {"command": ...} (Claude, Codex, Gemini, Cursor) or opencode's.
func hookEvent(t *testing.T, host, command string) (*hostapi.Event, hostapi.Adapter) {
	t.Helper()
	ad, ok := hostapi.ByName(host, noEnv)
	if !ok {
		t.Fatalf("no adapter %s", host)
	}
	cmd, _ := json.Marshal(command)
	var payload, event string
	switch host {
	case "claude", "codex":
		payload = `{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + string(cmd) + `,"description":"d"}}`
	case "gemini":
		payload = `{"session_id":"s1","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":` + string(cmd) + `,"description":"d"}}`
	case "opencode":
		payload = `{"v":1,"event":"tool.execute.before","tool":"bash","sessionID":"s1","args":{"command":` + string(cmd) + `,"description":"d"},"cwd":"/w"}`
	case "cursor":
		payload = `{"hook_event_name":"beforeShellExecution","command":` + string(cmd) + `,"cwd":"/w","conversation_id":"c1"}`
	}
	ev, err := ad.Parse([]byte(payload), event)
	if err != nil {
		t.Fatal(err)
	}
	return ev, ad
}

// TestHookVerdictRewrite renders each interception on the hook path.
func TestHookVerdictRewrite(t *testing.T) {
	e, _ := icEngine(t, icManifest("", ""))
	for _, tc := range []struct{ host, command, want string }{
		{"gemini", "tool rewrite x", `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"tool safe x","description":"d"}}}`},
		{"opencode", "tool rewrite x", `{"args":{"command":"tool safe x","description":"d"},"decision":"allow"}`},
		{"claude", "tool rewrite x", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Command 'tool rewrite x' denied: interceptor ic rewrites it to: tool safe x, and claude cannot apply a rewritten command; run that command instead"}}`},
		{"codex", "tool rewrite x", `"permissionDecisionReason":"Command 'tool rewrite x' denied: interceptor ic rewrites it to: tool safe x, and codex cannot apply a rewritten command`},
		{"cursor", "tool rewrite x", `Command 'tool rewrite x' denied: interceptor ic rewrites it to: tool safe x, and cursor cannot apply a rewritten command`},
		// A rewritten command that is denied is a plain deny.
		{"gemini", "tool rewrite-rm", `{"decision":"deny","reason":"Command 'rm -rf x' denied by rule no-rm: matched (interceptor ic rewrote 'tool rewrite-rm' to: rm -rf x)"}`},
		// A respond is a deny carrying the synthetic output.
		{"gemini", "tool respond", `{"decision":"deny","reason":"interceptor ic answered for 'tool respond' without running it (exit 3)\nstdout:\ncanned out [REDACTED]\n\nstderr:\ncanned err\n"}`},
		{"claude", "tool reject", `"permissionDecision":"deny","permissionDecisionReason":"ic: no tool"`},
	} {
		t.Run(tc.host+" "+tc.command, func(t *testing.T) {
			ev, ad := hookEvent(t, tc.host, tc.command)
			d := e.DecideEvent(ev)
			r := ad.Render(ev, d.HookVerdict(ev, ad.Coverage(ev.Kind), ad.Name()))
			got := strings.TrimSpace(string(r.Stdout) + string(r.Stderr))
			if !strings.Contains(got, tc.want) {
				t.Errorf("rendered %s\nwant %s", got, tc.want)
			}
		})
	}
	// A rewritten command that needs approval cannot go to the host's
	// approval: it would ask about the original command.
	ask := icManifest("", "") + rule("safe-asks", ActionAsk, `{ argv_prefix = ["tool", "safe"] }`)
	e, _ = icEngine(t, ask)
	ev, ad := hookEvent(t, "claude", "tool rewrite x")
	d := e.DecideEvent(ev)
	v := d.HookVerdict(ev, ad.Coverage(ev.Kind), ad.Name())
	if d.Action != ActionAsk || v.Decision != hostapi.Deny || !strings.Contains(v.Reason, "rewrites it to: tool safe x, which needs approval") {
		t.Errorf("decision %s, verdict %+v", d.Action, v)
	}
}

func TestRewriteInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"command":"a","x":1}`, `{"command":"b c","x":1}`},
		{`{"cmd":"a"}`, `{"cmd":"b c"}`},
		{`{"command":["a"]}`, ``},
		{`{"other":"a"}`, ``},
		{`"a"`, ``},
	} {
		out, ok := RewriteInput(json.RawMessage(tc.in), "b c")
		if string(out) != tc.want || ok != (tc.want != "") {
			t.Errorf("RewriteInput(%s) = %s, %v; want %s", tc.in, out, ok, tc.want)
		}
	}
}

func TestFinalizeOutput(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		limit    int
		cut      bool
	}{
		{"plain\n", "plain\n", 100, false},
		{"\x1b[1;31mred\x1b[0m\tx\r\n", "red\tx\r\n", 100, false},
		{"bell\x07 del\x7f nul\x00", "bell del nul", 100, false},
		{"bad \xff utf8", "bad \uFFFD utf8", 100, false},
		{"token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "token [REDACTED]", 100, false},
		{"héllo", "h", 2, true},
		{"unterminated \x1b[31", "unterminated ", 100, false},
	} {
		got, cut := FinalizeOutput(tc.in, tc.limit)
		if got != tc.want || cut != tc.cut {
			t.Errorf("FinalizeOutput(%q) = %q, %v; want %q, %v", tc.in, got, cut, tc.want, tc.cut)
		}
	}
}

// afterScript acts on what the output says.
const afterScript = `def on_event(r, state):
    state["calls"] = state.get("calls", 0) + 1
    if "leak" in r.stdout:
        return Result.reject_disclosure("it leaks")
    if "swap" in r.stdout:
        return Result.replace("swapped %s %d %s \x1b[1m%s\x1b[0m" % (r.status_kind, r.status_code, r.argv[0], r.intercepted_by), "")
    if "boom" in r.stdout:
        fail("boom")
    return Result.keep()
`

func afterManifest(decl string) string {
	return "version = 1\n\n[[script]]\nid = \"af\"\nkind = \"shell_after_interceptor\"\n" + decl + "\nsource = '''\n" + afterScript + "'''\n" +
		"\n[[interceptor]]\nscript = \"af\"\nphase = \"after\"\n"
}

func afterSummary(out AfterOutcome) string {
	var parts []string
	for _, s := range out.Steps {
		parts = append(parts, s.Interceptor+":"+s.Answer+">"+s.Outcome)
	}
	return strings.Join(parts, " ")
}

func TestAfterInterceptorStarlark(t *testing.T) {
	for _, tc := range []struct {
		name, decl, stdout string
		by                 string
		outcome            string
		wantOut, note      string
		steps              string
	}{
		{"keep", "", "fine \x1b[32mgreen\x1b[0m", "", AfterKeep, "fine green", "", "af:keep>keep"},
		{"replace", "", "swap", "", AfterReplace, "swapped exited 7 make None", "", "af:replace>replace"},
		{"replace a synthetic result", "", "swap", "ic", AfterReplace, "swapped exited 7 make ic", "", "af:replace>replace"},
		{"reject_disclosure", "", "leak", "", AfterWithhold, "", "withheld by interceptor af: it leaks", "af:reject_disclosure>withhold"},
		{"failure withholds", "", "boom", "", AfterWithhold, "", "after-interceptor af failed (error: ", "af:error>withhold"},
		{"failure keeps", "failure = \"keep\"", "boom", "", AfterKeep, "boom", "", "af:error>keep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, root := icEngine(t, afterManifest(tc.decl))
			out := e.After(Request{Cwd: root, SessionID: "s1", Agent: "npm"},
				CommandResult{Argv: []string{"make", "test"}, Status: 7, Stdout: tc.stdout, Stderr: "e\x1b[0m", InterceptedBy: tc.by})
			if out.Outcome != tc.outcome || out.Stdout != tc.wantOut || !strings.Contains(out.Note, tc.note) {
				t.Fatalf("outcome %+v, want %s %q note %q", out, tc.outcome, tc.wantOut, tc.note)
			}
			if got := afterSummary(out); got != tc.steps {
				t.Errorf("steps %q, want %q", got, tc.steps)
			}
			if tc.outcome == AfterKeep && out.Stderr != "e" {
				t.Errorf("stderr %q, want it finalized", out.Stderr)
			}
		})
	}
}

func TestAfterInterceptorExecutable(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		outcome    string
		stdout     string
		note       string
	}{
		{"continue", `"action":"continue"`, AfterKeep, "out", ""},
		{"replace", `"action":"replace_result","status":{"exited":1},"stdout":"new \u001b[2mdim","stderr":""`, AfterReplace, "new dim", ""},
		{"reject", `"action":"reject","reason":"secret"`, AfterWithhold, "", "withheld by interceptor hk: secret"},
		// The exit status cannot change: a replacement that changes it fails.
		{"status change", `"action":"replace_result","status":{"exited":0},"stdout":"","stderr":""`, AfterWithhold, "", "after-interceptor hk failed (malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hook := hookScript(tc.body)
			manifest := "version = 1\n" + executableDecl("hk", "shell_after_interceptor", "hk.sh", pin(hook)) +
				"\n[[interceptor]]\nscript = \"hk\"\nphase = \"after\"\n"
			root, mpath := writeRepo(t, manifest, nil)
			writeExecutable(t, filepath.Join(filepath.Dir(mpath), "hk.sh"), hook)
			e := Load(root, noEnv)
			if e.LoadErr != nil {
				t.Fatal(e.LoadErr)
			}
			out := e.After(Request{Cwd: root}, CommandResult{Argv: []string{"make", "test"}, Status: 1, Stdout: "out", Stderr: "err"})
			if out.Outcome != tc.outcome || out.Stdout != tc.stdout || !strings.Contains(out.Note, tc.note) {
				t.Fatalf("outcome %+v, want %s %q %q", out, tc.outcome, tc.stdout, tc.note)
			}
			req, err := os.ReadFile(filepath.Join(filepath.Dir(mpath), "request.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"kind":"after_interceptor"`, `"event":"after_command"`, `"command":{"arguments":["test"],"program":"make"}`,
				`"status":{"exited":1}`, `"stdout":"out"`, `"untrusted_output":true`, `"intercepted_by":null`} {
				if !strings.Contains(string(req), want) {
					t.Errorf("request %s\nlacks %s", req, want)
				}
			}
		})
	}
}

// TestAfterEvent renders the after-interceptors on post-tool events.
func TestAfterEvent(t *testing.T) {
	e, _ := icEngine(t, afterManifest(""))
	post := func(host, output string) (*hostapi.Event, hostapi.Adapter) {
		ad, _ := hostapi.ByName(host, noEnv)
		out, _ := json.Marshal(output)
		var payload string
		switch host {
		case "claude":
			payload = `{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make test"},"tool_response":{"stdout":` + string(out) + `,"stderr":"","interrupted":false}}`
		case "cursor":
			inner, _ := json.Marshal(`{"exitCode":0,"stdout":` + string(out) + `}`)
			payload = `{"hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"make test"},"tool_output":` + string(inner) + `,"cwd":"/w","conversation_id":"s1"}`
		case "opencode":
			payload = `{"v":1,"event":"tool.execute.after","tool":"bash","sessionID":"s1","args":{"command":"make test"},"result":{"output":` + string(out) + `,"metadata":{"exit":0}},"cwd":"/w"}`
		}
		ev, err := ad.Parse([]byte(payload), "")
		if err != nil {
			t.Fatal(err)
		}
		return ev, ad
	}
	for _, tc := range []struct{ host, output, want string }{
		{"claude", "all good", ``},
		{"claude", "swap", `"additionalContext":"agent-shell: interceptor af replaced this command's output; read this instead of the output shown:\nstdout:\nswapped exited 0 make None\nstderr:\n"`},
		{"claude", "leak", `"additionalContext":"agent-shell: the command's output is withheld by interceptor af: it leaks. Do not use, quote or repeat that output."`},
		{"cursor", "leak", `{"additional_context":"agent-shell: the command's output is withheld by interceptor af: it leaks. Do not use, quote or repeat that output."}`},
		// opencode carries nothing on post-tool events: recorded only.
		{"opencode", "leak", ``},
	} {
		t.Run(tc.host+" "+tc.output, func(t *testing.T) {
			ev, ad := post(tc.host, tc.output)
			v, out := e.AfterEvent(ev, ad.Coverage(ev.Kind))
			if out == nil || len(out.Steps) != 1 {
				t.Fatalf("outcome %+v, want one step", out)
			}
			r := ad.Render(ev, v)
			got := strings.TrimSpace(string(r.Stdout))
			if tc.want == "" && got != "" && got != "{}" || !strings.Contains(got, tc.want) {
				t.Errorf("rendered %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestMayIntercept(t *testing.T) {
	MayIntercept := func(root string) bool { return ReadConfigText(root).Mentions("interceptor") }
	root, _ := writeRepo(t, "version = 1\n", nil)
	if MayIntercept(root) {
		t.Error("a manifest without interceptors: MayIntercept true")
	}
	if MayIntercept(t.TempDir()) {
		t.Error("no manifest: MayIntercept true")
	}
	copyManifest := filepath.Join(root, filepath.FromSlash(AuthorizedSubpath), "abc", ManifestSubpath)
	writeFile(t, copyManifest, icManifest("", ""))
	if !MayIntercept(root) {
		t.Error("an authorized copy with interceptors: MayIntercept false")
	}
	root2, _ := writeRepo(t, icManifest("", ""), nil)
	if !MayIntercept(root2) {
		t.Error("a manifest with interceptors: MayIntercept false")
	}
}
