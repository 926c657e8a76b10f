package call

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
	"github.com/agent-shell/agent-shell/policy"
)

// newProject makes a repository with files (paths relative to its root),
// moves into it, and returns it.
func newProject(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(root)
	return root
}

// process is a Process on in-memory streams with only env set.
func process(root, stdin string, env map[string]string) (*Process, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	all := map[string]string{"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, ".config")}
	for k, v := range env {
		all[k] = v
	}
	p := New(strings.NewReader(stdin), &out, &errb)
	p.Getenv = func(k string) string { return all[k] }
	p.Environ = func() []string { return nil }
	p.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	p.MaxPayload = hostapi.DefaultMaxPayload
	return p, &out, &errb
}

// events reads a session file's events.
func events(t *testing.T, root, session string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(root, ".agent-shell", "events", session+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// recorded checks that session holds one event, with the fields of want.
func recorded(t *testing.T, root, session string, want map[string]any) {
	t.Helper()
	evs := events(t, root, session)
	if len(evs) != 1 {
		t.Fatalf("recorded %d events, want 1: %v", len(evs), evs)
	}
	for k, v := range want {
		if evs[0][k] != v {
			t.Errorf("%s = %v, want %v", k, evs[0][k], v)
		}
	}
}

func adapter(t *testing.T, p *Process, name string) hostapi.Adapter {
	t.Helper()
	ad, err := p.Adapter(name)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

const denyPolicy = `{"deny":["rm -rf *"]}`

func TestHookClaudeDenyAnswersAndRecords(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/policy.json": denyPolicy})
	payload := `{"session_id":"claude-7f3c9e21","cwd":"/home/user/my-project","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"toolu_01DENY"}`
	p, out, errb := process(root, payload, nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 {
		t.Fatalf("exit %d, want 0 (Claude reads a deny from the JSON)", code)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Command 'rm -rf build' denied by policy rule: rm -rf *"}}` + "\n"
	if out.String() != want {
		t.Errorf("answer:\n%q\nwant:\n%q", out.String(), want)
	}
	if errb.Len() != 0 {
		t.Errorf("stderr: %s", errb)
	}
	recorded(t, root, "claude-7f3c9e21", map[string]any{"event": "policy_decision", "decision": "deny", "command": "rm -rf build",
		"agent": "claude", "request_id": "toolu_01DENY", "cwd": "/home/user/my-project", "native_event": "PreToolUse"})
}

func TestHookClaudeAllowAbstains(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/policy.json": denyPolicy})
	payload := `{"session_id":"s-allow","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"t1"}`
	p, out, _ := process(root, payload, nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d, answer %q; want 0 and no answer", code, out)
	}
	recorded(t, root, "s-allow", map[string]any{"decision": "allow"})
}

// A command an MCP server's shell tool runs meets the rules as the host's
// shell tool's does, and is never wrapped in the sandbox: the server runs
// it with a shell of its own.
func TestHookMCPShellTool(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": "version = 1\n\n[enforce]\nmode = \"sandbox\"\n\n[[rule]]\nid = \"no-rm\"\naction = \"deny\"\nmatch = { command_name = \"rm\" }\n"})
	mcp := func(command string) string {
		return `{"session_id":"s-mcp","cwd":"` + root + `","hook_event_name":"PreToolUse","tool_name":"mcp__desktop-commander__start_process","tool_input":{"command":"` + command + `","timeout_ms":1000},"tool_use_id":"t"}`
	}
	p, out, _ := process(root, mcp("faketime now rm -rf build"), nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("exit %d, answer %q; want a deny", code, out)
	}
	p, out, _ = process(root, mcp("npm test"), nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 || strings.Contains(out.String(), "agent-shell exec") || strings.Contains(out.String(), "updatedInput") {
		t.Fatalf("exit %d, answer %q; want no rewrite", code, out)
	}
}

// A payload that is not JSON is the host's own deny, recorded as one.
func TestHookUnreadablePayloadDenies(t *testing.T) {
	root := newProject(t, nil)
	p, out, _ := process(root, "not json", map[string]string{"AGENTSHELL_SESSION_ID": "s-bad"})
	p.Hook(adapter(t, p, "claude"), "")
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("answer %q is not a deny", out)
	}
	recorded(t, root, "s-bad", map[string]any{"event": "policy_decision", "decision": "deny"})
}

// Outside a repository there is no policy to trust: a shell call is denied.
func TestHookOutsideRepositoryDenies(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	payload := `{"session_id":"s-out","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	p, out, errb := process(dir, payload, nil)
	p.Hook(adapter(t, p, "claude"), "")
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("answer %q is not a deny", out)
	}
	if !strings.Contains(errb.String(), "not inside a git repository") {
		t.Errorf("stderr %q does not say why", errb)
	}
}

func TestHookPostToolRecordsToolUse(t *testing.T) {
	root := newProject(t, nil)
	payload := `{"session_id":"s-post","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_response":{"stdout":"hi"},"tool_use_id":"t2"}`
	p, out, _ := process(root, payload, nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d, answer %q", code, out)
	}
	// The actor is the hook's agent.
	recorded(t, root, "s-post", map[string]any{"event": "tool_use", "command": "echo hi", "actor": "claude-code"})
}

// A shell call's exit status is recorded as each host reports it, read by
// its adapter: Claude's failure text, Gemini's "Exit Code:" line.
func TestHookPostToolRecordsExitStatus(t *testing.T) {
	for _, c := range []struct{ agent, payload string }{
		{"claude", `{"session_id":"s-exit","cwd":"/w","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"t3","error":"Exit code 3\nError: no tests"}`},
		{"gemini", `{"session_id":"s-exit","cwd":"/w","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"npm test"},"tool_response":{"llmContent":"Command: npm test\nOutput: no tests\nExit Code: 3","returnDisplay":"no tests"}}`},
	} {
		root := newProject(t, nil)
		p, _, _ := process(root, c.payload, nil)
		if code := p.Hook(adapter(t, p, c.agent), ""); code != 0 {
			t.Fatalf("%s: exit %d", c.agent, code)
		}
		evs := events(t, root, "s-exit")
		if len(evs) != 1 {
			t.Fatalf("%s: %d events", c.agent, len(evs))
		}
		if r, _ := evs[0]["tool_result"].(map[string]any); r == nil || r["exit_code"] != float64(3) {
			t.Errorf("%s: tool_result %v, want exit_code 3", c.agent, evs[0]["tool_result"])
		}
	}
}

// policy-check without --agent: Copilot's camelCase payload and answer.
func TestAliasDefaultsToCopilot(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/policy.json": denyPolicy})
	payload := `{"timestamp":1704614600000,"cwd":"/w","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\"}"}`
	p, out, _ := process(root, payload, map[string]string{"AGENTSHELL_SESSION_ID": "s-cop"})
	if code := p.Alias("", "preToolUse", hostapi.KindPreTool); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("answer %q is not Copilot's deny", out)
	}
	recorded(t, root, "s-cop", map[string]any{"agent": "copilot", "native_event": "preToolUse"})
}

func TestShimRunsTheScriptAndRecordsItsEnd(t *testing.T) {
	root := newProject(t, nil)
	p, out, errb := process(root, "", map[string]string{"AGENTSHELL_SESSION_ID": "s-npm", "npm_lifecycle_event": "test", "npm_package_name": "pkg"})
	ended := false
	p.OnEnd = func() { ended = true }
	if code := p.Shim([]string{"echo hi; echo oops >&2; exit 3"}); code != 3 {
		t.Fatalf("exit %d, want the script's 3", code)
	}
	if out.String() != "hi\n" || errb.String() != "oops\n" {
		t.Errorf("stdout %q, stderr %q", out, errb)
	}
	if !ended {
		t.Error("OnEnd did not run")
	}
	recorded(t, root, "s-npm", map[string]any{"event": "script_end", "command": "echo hi; echo oops >&2; exit 3", "exit_code": 3.0,
		"script": "test", "package": "pkg", "cwd": root})
}

func TestShimReportsSignals(t *testing.T) {
	root := newProject(t, nil)
	p, _, _ := process(root, "", map[string]string{"AGENTSHELL_SESSION_ID": "s-sig"})
	if code := p.Shim([]string{"kill -TERM $$"}); code != 128+15 {
		t.Fatalf("exit %d, want 143", code)
	}
	recorded(t, root, "s-sig", map[string]any{"signal": "SIGTERM", "exit_code": 143.0})
}

func TestShimWithoutCommandIsUsage(t *testing.T) {
	p, _, errb := process(t.TempDir(), "", nil)
	if code := p.Shim(nil); code != exitUsage || !strings.Contains(errb.String(), "-c: option requires an argument") {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
}

const interceptors = `version = 1

[[script]]
id = "py"
kind = "shell_before_interceptor"
source = '''
def on_event(ctx, state):
    if "-c" in ctx.argv:
        return Intercept.reject("inline Python is not allowed here")
    if "old.py" in ctx.argv:
        return Intercept.rewrite(["echo", "ran", "new.py"])
    return Intercept.proceed()
'''

[[interceptor]]
script = "py"
phase = "before"
match = { basename = ["python", "python3"] }

[[script]]
id = "scrub"
kind = "shell_after_interceptor"
source = '''
def on_event(r, state):
    if "swap" in r.stdout:
        return Result.replace(r.stdout.replace("swap", "swapped"), r.stderr)
    return Result.keep()
'''

[[interceptor]]
script = "scrub"
phase = "after"
`

func TestShimInterceptors(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": interceptors})
	env := map[string]string{"AGENTSHELL_SESSION_ID": "s-int"}

	// reject: nothing runs, exit 1, the reason on stderr.
	p, out, errb := process(root, "", env)
	if code := p.Shim([]string{`python3 -c "print(1)" && touch rejected`}); code != shimExitIntercepted {
		t.Fatalf("reject: exit %d", code)
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "inline Python is not allowed here") {
		t.Errorf("reject: stdout %q, stderr %q", out, errb)
	}
	if _, err := os.Stat(filepath.Join(root, "rejected")); err == nil {
		t.Error("reject: the command ran")
	}

	// rewrite, then the after-interceptor on the captured output.
	p, out, errb = process(root, "", env)
	if code := p.Shim([]string{"python3 old.py"}); code != 0 {
		t.Fatalf("rewrite: exit %d, stderr %q", code, errb)
	}
	if out.String() != "ran new.py\n" || !strings.Contains(errb.String(), "rewrote the command to: echo ran new.py") {
		t.Errorf("rewrite: stdout %q, stderr %q", out, errb)
	}
	p, out, _ = process(root, "", env)
	p.Shim([]string{"echo swap"})
	if out.String() != "swapped\n" {
		t.Errorf("after: stdout %q", out)
	}

	var kinds []string
	for _, e := range events(t, root, "s-int") {
		kinds = append(kinds, e["event"].(string)+":"+str(e["decision"]))
	}
	want := "intercept:deny script_end: intercept:rewrite intercept:keep script_end: intercept:replace script_end:"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("recorded\n%s\nwant\n%s", got, want)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// A post-tool shell call goes to the after-interceptors; what replaces the
// output is answered in the host's terms, and the step recorded before
// the tool_use it belongs to.
func TestHookAfterInterceptorReplacesOutput(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": interceptors})
	payload := `{"session_id":"s-after","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_response":{"stdout":"swap \u001b[1mthis\u001b[0m","stderr":"warn","interrupted":false}}`
	p, out, _ := process(root, payload, nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := `{"hookSpecificOutput":{"additionalContext":"agent-shell: interceptor scrub replaced this command's output; read this instead of the output shown:\nstdout:\nswapped this\nstderr:\nwarn","hookEventName":"PostToolUse"}}` + "\n"
	if out.String() != want {
		t.Errorf("answer:\n%q\nwant:\n%q", out, want)
	}
	var kinds []string
	for _, e := range events(t, root, "s-after") {
		kinds = append(kinds, e["event"].(string)+":"+str(e["decision"]))
	}
	if got := strings.Join(kinds, " "); got != "tool_use: intercept:replace" {
		t.Errorf("recorded %s", got)
	}
}

// With [enforce] mode = "sandbox" the script runs through Process.Sandbox,
// given the project's root, its policy and the shell's argv; its end and
// the signal Finish reports are recorded.
func TestShimRunsInTheSandbox(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/agent-shell.toml": "version = 1\n\n[enforce]\nmode = \"sandbox\"\n"})
	p, out, _ := process(root, "", map[string]string{"AGENTSHELL_SESSION_ID": "s-sb"})
	var gotRoot string
	var gotArgv []string
	p.Sandbox = func(root string, e *policy.Engine, argv []string) (*Sandboxed, error) {
		if e == nil || e.LoadErr != nil {
			t.Errorf("the sandbox got no policy: %v", e)
		}
		gotRoot, gotArgv = root, argv
		cmd := exec.Command("/bin/sh", "-c", "echo in the sandbox; exit 4")
		return &Sandboxed{Cmd: cmd, Finish: func(sig string) string { return sig }}, nil
	}
	if code := p.Shim([]string{"npm test"}); code != 4 {
		t.Fatalf("exit %d, want the sandboxed command's 4", code)
	}
	if gotRoot != root || strings.Join(gotArgv, " ") != "/bin/sh -c npm test" {
		t.Errorf("sandbox asked for %q %q", gotRoot, gotArgv)
	}
	if out.String() != "in the sandbox\n" {
		t.Errorf("stdout %q", out)
	}
	recorded(t, root, "s-sb", map[string]any{"event": "script_end", "command": "npm test", "exit_code": 4.0})

	// A sandbox that cannot be made runs nothing.
	p, _, errb := process(root, "", map[string]string{"AGENTSHELL_SESSION_ID": "s-sb2"})
	p.Sandbox = func(string, *policy.Engine, []string) (*Sandboxed, error) { return nil, errors.New("no landlock") }
	if code := p.Shim([]string{"touch ran"}); code != 126 || !strings.Contains(errb.String(), "sandbox: no landlock; the script is not run") {
		t.Fatalf("exit %d, stderr %q", code, errb)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the script ran")
	}
}
