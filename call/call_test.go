package call

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/hostapi"
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
	evs := events(t, root, "claude-7f3c9e21")
	if len(evs) != 1 {
		t.Fatalf("recorded %d events, want 1: %v", len(evs), evs)
	}
	e := evs[0]
	for k, v := range map[string]any{"event": "policy_decision", "decision": "deny", "command": "rm -rf build",
		"agent": "claude", "request_id": "toolu_01DENY", "cwd": "/home/user/my-project", "native_event": "PreToolUse"} {
		if e[k] != v {
			t.Errorf("%s = %v, want %v", k, e[k], v)
		}
	}
}

func TestHookClaudeAllowAbstains(t *testing.T) {
	root := newProject(t, map[string]string{".github/hooks/agent-shell/policy.json": denyPolicy})
	payload := `{"session_id":"s-allow","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test"},"tool_use_id":"t1"}`
	p, out, _ := process(root, payload, nil)
	if code := p.Hook(adapter(t, p, "claude"), ""); code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d, answer %q; want 0 and no answer", code, out)
	}
	if e := events(t, root, "s-allow"); len(e) != 1 || e[0]["decision"] != "allow" {
		t.Fatalf("recorded %v", e)
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
	evs := events(t, root, "s-bad")
	if len(evs) != 1 || evs[0]["event"] != "policy_decision" || evs[0]["decision"] != "deny" {
		t.Fatalf("recorded %v", evs)
	}
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
	evs := events(t, root, "s-post")
	if len(evs) != 1 || evs[0]["event"] != "tool_use" || evs[0]["command"] != "echo hi" {
		t.Fatalf("recorded %v", evs)
	}
	if evs[0]["actor"] != "claude-code" {
		t.Errorf("actor %v, want the hook's agent", evs[0]["actor"])
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
	evs := events(t, root, "s-cop")
	if len(evs) != 1 || evs[0]["agent"] != "copilot" || evs[0]["native_event"] != "preToolUse" {
		t.Fatalf("recorded %v", evs)
	}
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
	evs := events(t, root, "s-npm")
	if len(evs) != 1 {
		t.Fatalf("recorded %v", evs)
	}
	e := evs[0]
	for k, v := range map[string]any{"event": "script_end", "command": "echo hi; echo oops >&2; exit 3", "exit_code": 3.0, "script": "test", "package": "pkg", "cwd": root} {
		if e[k] != v {
			t.Errorf("%s = %v, want %v", k, e[k], v)
		}
	}
}

func TestShimReportsSignals(t *testing.T) {
	root := newProject(t, nil)
	p, _, _ := process(root, "", map[string]string{"AGENTSHELL_SESSION_ID": "s-sig"})
	if code := p.Shim([]string{"kill -TERM $$"}); code != 128+15 {
		t.Fatalf("exit %d, want 143", code)
	}
	if e := events(t, root, "s-sig"); len(e) != 1 || e[0]["signal"] != "SIGTERM" {
		t.Fatalf("recorded %v", e)
	}
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
