package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/builtins"
)

var hookexeDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if hookexeDir != "" {
		os.RemoveAll(hookexeDir)
	}
	os.Exit(code)
}

// hookexeBuild builds testdata/hookexe once: its path and SHA-256.
var hookexeBuild = sync.OnceValues(func() ([2]string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(goruntime.GOROOT(), "bin", "go")
	}
	dir, err := os.MkdirTemp("", "hookexe")
	if err != nil {
		return [2]string{}, err
	}
	hookexeDir = dir
	bin := filepath.Join(dir, "hookexe")
	cmd := exec.Command(goTool, "build", "-o", bin, "./testdata/hookexe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return [2]string{}, fmt.Errorf("go build ./testdata/hookexe: %v\n%s", err, out)
	}
	sum, err := fileSHA256(bin)
	return [2]string{bin, sum}, err
})

func fileSHA256(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// hookexe is the test program pinned as a hook of kind k, running in a
// fresh folder.
func hookexe(t testing.TB, k builtins.Kind) *Executable {
	t.Helper()
	b, err := hookexeBuild()
	if err != nil {
		t.Fatal(err)
	}
	return &Executable{ID: "h-" + string(k), Kind: k, Path: b[0], SHA256: b[1], Dir: t.TempDir()}
}

// pinned writes body as an executable file and pins it.
func pinned(t testing.TB, k builtins.Kind, body string) *Executable {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "hook")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	return &Executable{ID: "sh", Kind: k, Path: path, SHA256: hex.EncodeToString(sum[:])}
}

const rid = "shell-hook-00000042"

func runHook(x *Executable, payload map[string]any) ExecResult {
	return x.Run(context.Background(), rid, rawPayload(payload))
}

// rawPayload sends a test hook whatever the test wants it to see.
type rawPayload map[string]any

func (p rawPayload) Payload() map[string]any { return p }

// wantHookFailure checks a failed run: its failure, code and message.
func wantHookFailure(t testing.TB, what string, res ExecResult, f Failure, code string, want ...string) {
	t.Helper()
	wantFailure(t, what, res.Result, f, append([]string{code + ": "}, want...)...)
	var e *Error
	if res.Err != nil && (!errors.As(res.Err, &e) || e.Failure != f) {
		t.Errorf("%s: error %v is not a *runtime.Error of failure %q", what, res.Err, f)
	}
	if got := HookCode(res.Err); got != code {
		t.Errorf("%s: code %q, want %q", what, got, code)
	}
}

// Every kind answering every action it has, through a real process.
func TestExecutableActions(t *testing.T) {
	t.Parallel()
	status := map[string]any{"exited": int64(2)}
	for _, c := range []struct {
		kind  builtins.Kind
		reply string
		want  string
	}{
		{builtins.KindBefore, `{"action":"continue"}`, `Intercept.proceed()`},
		{builtins.KindBefore, `{"action":"rewrite","program":"safe-python","arguments":["script.py"]}`, `Intercept.rewrite(["safe-python", "script.py"])`},
		{builtins.KindBefore, `{"action":"respond","status":{"exited":4},"stdout":"out","stderr":"err"}`, `Intercept.respond(stdout = "out", stderr = "err", exit = 4)`},
		{builtins.KindBefore, `{"action":"reject","reason":"not here"}`, `Intercept.reject("not here")`},
		{builtins.KindAfter, `{"action":"continue"}`, `Result.keep()`},
		{builtins.KindAfter, `{"action":"replace_result","status":{"exited":2},"stdout":"[hidden]","stderr":""}`, `Result.replace(stdout = "[hidden]")`},
		{builtins.KindAfter, `{"action":"reject","reason":"a secret"}`, `Result.reject_disclosure("a secret")`},
		{builtins.KindReviewer, `{"decision":"defer"}`, `Review.defer()`},
		{builtins.KindReviewer, `{"decision":"approve_once"}`, `Review.approve()`},
		{builtins.KindReviewer, `{"decision":"approve_scope","scope":"exact_session"}`, `Review.approve_for("exact_session")`},
		{builtins.KindReviewer, `{"decision":"approve_scope","scope":"prefix_session","expires_at":1786579200}`, `Review.approve_for("prefix_session")`},
		{builtins.KindReviewer, `{"decision":"approve_scope","scope":"durable_exact","expires_at":1786579200.25}`, `Review.approve_for("durable_exact")`},
		{builtins.KindReviewer, `{"decision":"deny","reason":"no"}`, `Review.deny("no")`},
		{builtins.KindReviewer, `{"decision":"rewrite","program":"git","arguments":["status","--short"]}`, `Review.rewrite(["git", "status", "--short"])`},
		{builtins.KindEffect, `{"action":"add_effects","effects":["network","read:/etc/hosts"]}`, `Effect.add(["network", "read:/etc/hosts"])`},
		{builtins.KindEffect, `{"action":"replace_effects","effects":["read:/w"]}`, `Effect.replace(["read:/w"])`},
		{builtins.KindAudit, `{"action":"keep"}`, `Audit.keep()`},
		{builtins.KindAudit, `{"action":"drop_field","field":"command"}`, `Audit.drop_field("command")`},
		{builtins.KindAudit, `{"action":"replace_fields","fields":{"command":"[hidden]"}}`, `Audit.replace({"command": "[hidden]"})`},
	} {
		t.Run(c.want, func(t *testing.T) {
			t.Parallel()
			var reply map[string]any
			if err := json.Unmarshal([]byte(c.reply), &reply); err != nil {
				t.Fatal(err)
			}
			res := runHook(hookexe(t, c.kind), map[string]any{"mode": "reply", "reply": reply, "status": status})
			wantAction(t, c.reply, res.Result, c.want)
			if res.Action != nil && res.Action.Kind != c.kind {
				t.Errorf("action of kind %s", res.Action.Kind)
			}
			var want time.Time
			if e, ok := reply["expires_at"].(float64); ok {
				want = time.UnixMilli(int64(e * 1000)).UTC()
			}
			if !res.ExpiresAt.Equal(want) {
				t.Errorf("ExpiresAt %v, want %v", res.ExpiresAt, want)
			}
			if res.Elapsed <= 0 || res.State != nil {
				t.Errorf("Elapsed %v, State %v", res.Elapsed, res.State)
			}
		})
	}
}

// The test vectors of docs/hook-protocol.md, "Error codes", answered by a
// process.
func TestExecutableVectors(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindReviewer)
	for _, c := range []struct{ raw, want string }{
		{`{"version":1,"request_id":"REQUEST_ID","decision":"approve_once"}`, ""},
		{`{"version":1,"request_id":"REQUEST_ID","decision":"approve_once","extra":true}`, "shell.hook_protocol: unknown field: extra"},
		{`{"version":1,"version":1,"request_id":"REQUEST_ID","decision":"approve_once"}`, "shell.hook_protocol: duplicate field: version"},
		{`{"version":1,"request_id":"REQUEST_ID","action":"continue"}`, "shell.hook_protocol: missing field: decision"},
		{`{"version":1,"request_id":"other","decision":"approve_once"}`, "shell.hook_request_id: "},
	} {
		res := x.Run(context.Background(), "request", rawPayload{"mode": "raw", "raw": c.raw})
		if c.want == "" {
			wantAction(t, c.raw, res.Result, "Review.approve()")
		} else {
			wantFailure(t, c.raw, res.Result, FailMalformed, c.want)
		}
	}
}

// Replies that are not one valid response fail, with their code.
func TestExecutableMalformed(t *testing.T) {
	t.Parallel()
	ok := `{"version":1,"request_id":"REQUEST_ID","action":"continue"}`
	for _, c := range []struct {
		what string
		kind builtins.Kind
		raw  string // or raw_b64 when it starts with "b64:"
		code string
		want string
	}{
		{"unknown field", builtins.KindBefore, `{"version":1,"request_id":"REQUEST_ID","action":"continue","note":"hi"}`, CodeProtocol, "unknown field: note"},
		{"duplicate key", builtins.KindBefore, `{"version":1,"request_id":"REQUEST_ID","action":"continue","action":"continue"}`, CodeProtocol, "duplicate field: action"},
		{"nested duplicate key", builtins.KindAudit, `{"version":1,"request_id":"REQUEST_ID","action":"replace_fields","fields":{"a":"x","a":"y"}}`, CodeProtocol, "duplicate field: fields.a"},
		{"missing field", builtins.KindBefore, `{"version":1,"request_id":"REQUEST_ID","action":"reject"}`, CodeProtocol, "missing field: reason"},
		{"missing request_id", builtins.KindBefore, `{"version":1,"action":"continue"}`, CodeProtocol, "missing field: request_id"},
		{"wrong request_id", builtins.KindBefore, `{"version":1,"request_id":"shell-hook-00000041","action":"continue"}`, CodeRequestID, `"shell-hook-00000041", want "shell-hook-00000042"`},
		{"version 2", builtins.KindBefore, `{"version":2,"request_id":"REQUEST_ID","action":"continue"}`, CodeProtocol, "unsupported version 2"},
		{`version "1"`, builtins.KindBefore, `{"version":"1","request_id":"REQUEST_ID","action":"continue"}`, CodeProtocol, "unsupported version a string"},
		{"no version", builtins.KindBefore, `{"request_id":"REQUEST_ID","action":"continue"}`, CodeProtocol, "missing field: version"},
		{"invalid UTF-8", builtins.KindBefore, "b64:" + base64.StdEncoding.EncodeToString([]byte(`{"version":1,"request_id":"REQUEST_ID","action":"reject","reason":"`+"\xc3\x28"+`"}`)), CodeProtocol, "not valid UTF-8"},
		{"trailing text", builtins.KindBefore, ok + "\nok", CodeProtocol, "trailing data"},
		{"two objects", builtins.KindBefore, ok + ok, CodeProtocol, "trailing data"},
		{"empty output", builtins.KindBefore, ``, CodeProtocol, "empty response"},
		{"truncated", builtins.KindBefore, ok[:len(ok)-1], CodeProtocol, "ends early"},
		{"an action of another kind", builtins.KindAfter, `{"version":1,"request_id":"REQUEST_ID","action":"respond","status":{"exited":0},"stdout":"","stderr":""}`, CodeAction, `action "respond" is not one a after_interceptor may answer`},
		{"empty rewrite", builtins.KindReviewer, `{"version":1,"request_id":"REQUEST_ID","decision":"rewrite","program":"","arguments":[]}`, CodeRewrite, "empty program"},
		{"scope once", builtins.KindReviewer, `{"version":1,"request_id":"REQUEST_ID","decision":"approve_scope","scope":"once"}`, CodeScope, `scope "once"`},
		{"status change", builtins.KindAfter, `{"version":1,"request_id":"REQUEST_ID","action":"replace_result","status":{"exited":0},"stdout":"all good","stderr":""}`, CodeAction, "may not change the status"},
		{"signaled respond", builtins.KindBefore, `{"version":1,"request_id":"REQUEST_ID","action":"respond","status":{"signaled":9},"stdout":"","stderr":""}`, CodeAction, "cannot claim a signal"},
	} {
		t.Run(c.what, func(t *testing.T) {
			t.Parallel()
			p := map[string]any{"mode": "raw", "raw": c.raw, "status": map[string]any{"exited": 1}}
			if b, ok := strings.CutPrefix(c.raw, "b64:"); ok {
				p = map[string]any{"mode": "raw", "raw_b64": b, "status": map[string]any{"exited": 1}}
			}
			wantHookFailure(t, c.what, runHook(hookexe(t, c.kind), p), FailMalformed, c.code, c.want)
		})
	}
}

// The request the hook reads is exactly the encoded request.
func TestExecutableRequestBytes(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindBefore)
	payload := map[string]any{"mode": "echo", "command": map[string]any{"program": "python3", "arguments": []any{"-V"}}, "session_id": nil, "stdin_bytes": int64(0)}
	res := runHook(x, payload)
	if res.Action == nil {
		t.Fatalf("%v", res.Err)
	}
	want, _ := encodeRequest(x.ID, x.Kind, rid, payload)
	if res.Action.Stdout != string(want) {
		t.Errorf("the hook read\n\t%s\nwant\n\t%s", res.Action.Stdout, want)
	}
}

func TestExecutableNonzeroExit(t *testing.T) {
	t.Parallel()
	res := runHook(hookexe(t, builtins.KindBefore), map[string]any{"mode": "exit", "code": 3, "stderr": "no config found\n"})
	wantHookFailure(t, "exit 3", res, FailExit, CodeNonzeroExit, "exit status 3", "stderr: no config found")
	if res.Output != "no config found\n" {
		t.Errorf("Output %q, want the stderr", res.Output)
	}

	// stderr is kept up to its limit, read to the end, and cut in the message.
	res = runHook(hookexe(t, builtins.KindBefore), map[string]any{"mode": "exit", "code": 1, "stderr": "0123456789abcdef", "repeat": 10000})
	wantHookFailure(t, "long stderr", res, FailExit, CodeNonzeroExit, "exit status 1", "stderr: 0123456789abcdef")
	if !strings.HasSuffix(res.Output, "\n[stderr truncated]\n") || len(res.Output) != MaxHookStderr+len("\n[stderr truncated]\n") {
		t.Errorf("Output of %d bytes ending %q", len(res.Output), res.Output[max(0, len(res.Output)-30):])
	}
	if n := len(res.Err.Error()); n > 5<<10 {
		t.Errorf("error message of %d bytes", n)
	}

	// Exit 0 with a valid reply on stdout and noise on stderr is fine.
	x := pinned(t, builtins.KindBefore, "#!/bin/sh\necho warming up >&2\necho '{\"version\":1,\"request_id\":\""+rid+"\",\"action\":\"continue\"}'\n")
	res = runHook(x, nil)
	wantAction(t, "stderr noise", res.Result, "Intercept.proceed()")
	if res.Output != "warming up\n" {
		t.Errorf("Output %q", res.Output)
	}
}

func TestExecutableOutputLimit(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res := runHook(hookexe(t, builtins.KindBefore), map[string]any{"mode": "flood"})
	wantHookFailure(t, "flood", res, FailMalformed, CodeOutputLimit, "stdout is over 262144 bytes")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v: the flood was not stopped at the limit", d)
	}
	// Just over the limit: a reply padded with whitespace.
	reply := strings.Repeat(" ", MaxHookResponse-10) + `{"version":1,"request_id":"REQUEST_ID","action":"continue"}`
	res = runHook(hookexe(t, builtins.KindBefore), map[string]any{"mode": "raw", "raw": reply})
	wantHookFailure(t, "padded", res, FailMalformed, CodeOutputLimit)
	// At the limit it is accepted.
	reply = `{"version":1,"request_id":"REQUEST_ID","action":"continue"}`
	reply += strings.Repeat("\n", MaxHookResponse-len(reply)-len(rid)+len("REQUEST_ID"))
	res = runHook(hookexe(t, builtins.KindBefore), map[string]any{"mode": "raw", "raw": reply})
	wantAction(t, "exactly at the limit", res.Result, "Intercept.proceed()")
}

// readPids reads the hook's and its child's pid from hook.pid.
func readPids(t *testing.T, dir string) (hook, child int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "hook.pid"))
	if err != nil {
		t.Fatalf("the hook wrote no pids: %v", err)
	}
	if _, err := fmt.Sscan(string(b), &hook, &child); err != nil {
		t.Fatalf("hook.pid %q: %v", b, err)
	}
	return hook, child
}

// wantGone waits a little for pid to be gone (or a zombie waiting for its
// new parent to reap it: it runs no more code).
func wantGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		// pid (comm) S ...: the state follows the last ')'.
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && strings.HasPrefix(s[i+1:], " Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s %d still runs: %s", what, pid, stat)
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestExecutableTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindBefore)
	x.Timeout = 500 * time.Millisecond
	start := time.Now()
	res := runHook(x, map[string]any{"mode": "fork"})
	wantHookFailure(t, "fork", res, FailTimeout, CodeExecution, "timed out after 500ms", "process group was killed")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	hook, child := readPids(t, x.Dir)
	if err := syscall.Kill(hook, 0); err != syscall.ESRCH {
		t.Errorf("the hook %d was not reaped: kill 0 = %v", hook, err)
	}
	wantGone(t, "its child", child)

	// A reply that comes after the timeout is not read.
	x = hookexe(t, builtins.KindBefore)
	x.Timeout = 300 * time.Millisecond
	res = runHook(x, map[string]any{"mode": "sleep", "ms": 2000})
	wantHookFailure(t, "late reply", res, FailTimeout, CodeExecution, "timed out after 300ms")
}

// A child left behind by a hook that answered is killed with its group,
// and does not hold the run open.
func TestExecutableLingeringChild(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindBefore)
	start := time.Now()
	res := runHook(x, map[string]any{"mode": "linger"})
	wantAction(t, "linger", res.Result, "Intercept.proceed()")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v: the run waited for the child", d)
	}
	_, child := readPids(t, x.Dir)
	wantGone(t, "the lingering child", child)
}

// Not covered: a child that leaves the group (a new session) survives it.
// If it holds the reply open, the run fails when the time is up.
func TestExecutableEscapedChild(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindBefore)
	x.Timeout = 500 * time.Millisecond
	res := runHook(x, map[string]any{"mode": "escape"})
	_, child := readPids(t, x.Dir)
	_ = syscall.Kill(child, syscall.SIGKILL)
	wantHookFailure(t, "escape", res, FailError, CodeExecution, "a process left its process group")
}

func TestExecutableCancel(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindBefore)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res := x.Run(ctx, rid, rawPayload{"mode": "fork"})
	wantHookFailure(t, "cancel", res, FailTimeout, CodeExecution, "cancelled: context canceled")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	hook, child := readPids(t, x.Dir)
	if err := syscall.Kill(hook, 0); err != syscall.ESRCH {
		t.Errorf("the hook %d was not reaped: kill 0 = %v", hook, err)
	}
	wantGone(t, "its child", child)

	// Cancelled before it starts.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	res = x.Run(ctx, rid, rawPayload{"mode": "sleep", "ms": 5000})
	wantHookFailure(t, "cancelled", res, FailTimeout, CodeExecution, "cancelled")
}

type envReport struct {
	Env    []string `json:"env"`
	Args   []string `json:"args"`
	Cwd    string   `json:"cwd"`
	Limits string   `json:"limits"`
}

func runEnv(t *testing.T, x *Executable) envReport {
	t.Helper()
	res := runHook(x, map[string]any{"mode": "env"})
	if res.Action == nil {
		t.Fatalf("env: %v", res.Err)
	}
	var r envReport
	if err := json.Unmarshal([]byte(res.Action.Stdout), &r); err != nil {
		t.Fatalf("env report %q: %v", res.Action.Stdout, err)
	}
	return r
}

// limit returns the soft and hard value of one line of /proc/self/limits.
func limit(t *testing.T, limits, name string) (string, string) {
	t.Helper()
	for _, line := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				return f[0], f[1]
			}
		}
	}
	t.Fatalf("no %q in\n%s", name, limits)
	return "", ""
}

func TestExecutableEnvironment(t *testing.T) {
	t.Setenv("AGENT_SHELL_SECRET", "hunter2") // not parallel: it sets the environment
	x := hookexe(t, builtins.KindBefore)
	r := runEnv(t, x)
	if got, want := strings.Join(r.Env, " "), "HOME=/nonexistent PATH=/usr/bin:/bin"; got != want && !(strings.Contains(got, "SHLVL") && strings.Contains(got, want)) {
		t.Errorf("environment %q, want %q", got, want)
	}
	if len(r.Args) != 1 {
		t.Errorf("args %q, want none", r.Args)
	}
	if r.Cwd != x.Dir {
		t.Errorf("cwd %q, want %q", r.Cwd, x.Dir)
	}

	// With no Dir, it runs in the folder of its file (the manifest's).
	x.Dir = ""
	if r := runEnv(t, x); r.Cwd != filepath.Dir(x.Path) {
		t.Errorf("cwd %q, want %q", r.Cwd, filepath.Dir(x.Path))
	}
}

func TestExecutableRlimits(t *testing.T) {
	t.Parallel()
	r := runEnv(t, hookexe(t, builtins.KindBefore))
	for _, c := range []struct{ name, want string }{
		{"Max cpu time", "5"},
		{"Max data size", strconv.Itoa(DefaultHookMemory)},
		{"Max core file size", "0"},
	} {
		if soft, hard := limit(t, r.Limits, c.name); soft != c.want || hard != c.want {
			t.Errorf("%s: %s/%s, want %s (soft and hard)", c.name, soft, hard, c.want)
		}
	}

	x := hookexe(t, builtins.KindBefore)
	x.CPUSeconds, x.MemoryBytes = 2, 300<<20
	r = runEnv(t, x)
	if soft, hard := limit(t, r.Limits, "Max cpu time"); soft != "2" || hard != "2" {
		t.Errorf("cpu %s/%s, want 2", soft, hard)
	}
	if soft, hard := limit(t, r.Limits, "Max data size"); soft != strconv.Itoa(300<<20) || hard != soft {
		t.Errorf("data %s/%s, want %d", soft, hard, 300<<20)
	}

	// Memory: 64 MiB is fine under 300 MiB, 1 GiB is not.
	res := runHook(x, map[string]any{"mode": "alloc", "mib": 64})
	wantAction(t, "alloc 64 MiB", res.Result, "Intercept.proceed()")
	res = runHook(x, map[string]any{"mode": "alloc", "mib": 1024})
	// The Go runtime dies of it, saying "cannot allocate memory" or, when
	// the failure hits the collector, with a SIGSEGV: exit status 2 either way.
	wantHookFailure(t, "alloc 1 GiB", res, FailExit, CodeNonzeroExit, "exit status 2")

	// CPU: killed at the limit, before the wall time.
	x = hookexe(t, builtins.KindBefore)
	x.CPUSeconds, x.Timeout = 1, 8*time.Second
	start := time.Now()
	res = runHook(x, map[string]any{"mode": "spin"})
	wantHookFailure(t, "spin", res, FailExit, CodeNonzeroExit, "killed by signal SIGKILL", "the limit is 1s")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("spin ran %v", d)
	}
}

func TestExecutablePin(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindBefore)
	ok := map[string]any{"mode": "reply", "reply": map[string]any{"action": "continue"}}

	upper := *x
	upper.SHA256 = strings.ToUpper(x.SHA256)
	wantAction(t, "upper-case pin", runHook(&upper, ok).Result, "Intercept.proceed()")
	if err := upper.Verify(); err != nil {
		t.Errorf("Verify: %v", err)
	}

	wrong := *x
	wrong.SHA256 = strings.Repeat("0", 64)
	res := runHook(&wrong, ok)
	wantHookFailure(t, "wrong pin", res, FailPin, CodeExecution, "pin mismatch", "its sha256 is "+x.SHA256, "not run")
	err := wrong.Verify()
	wantErrContains(t, "Verify", err, "shell.hook_execution: ", "pin mismatch")
	if HookCode(err) != CodeExecution {
		t.Errorf("Verify: code %q", HookCode(err))
	}

	// Replaced after pinning: the new file does not run.
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	y := pinned(t, builtins.KindBefore, "#!/bin/sh\necho '{}'\n")
	if err := os.WriteFile(y.Path, []byte("#!/bin/sh\ntouch "+marker+"\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantHookFailure(t, "replaced", runHook(y, nil), FailPin, CodeExecution, "pin mismatch")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the replaced file ran")
	}

	for _, c := range []struct {
		what  string
		setup func(x *Executable)
		want  string
	}{
		{"missing", func(x *Executable) { x.Path = filepath.Join(dir, "nothing") }, "no such file"},
		{"directory", func(x *Executable) { x.Path = dir }, "not a regular file"},
		{"fifo", func(x *Executable) {
			x.Path = filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(x.Path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"not executable", func(x *Executable) {
			if err := os.Chmod(x.Path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not executable"},
	} {
		y := pinned(t, builtins.KindBefore, "#!/bin/sh\n")
		c.setup(y)
		wantHookFailure(t, c.what, runHook(y, nil), FailPin, CodeExecution, c.want)
	}
	// Neither ELF nor #!: a shell would run it as a script; it is refused.
	y = pinned(t, builtins.KindBefore, "echo '{}'\n")
	wantHookFailure(t, "plain text", runHook(y, nil), FailPin, CodeExecution, "neither an ELF binary nor a #! script")

	for _, c := range []struct {
		what  string
		setup func(x *Executable)
		want  string
	}{
		{"matcher", func(x *Executable) { x.Kind = builtins.KindMatcher }, "has no executable form"},
		{"relative path", func(x *Executable) { x.Path = "hooks/x" }, "is not absolute"},
		{"short pin", func(x *Executable) { x.SHA256 = "abc" }, "not 64 hex digits"},
	} {
		y := *x
		c.setup(&y)
		wantHookFailure(t, c.what, runHook(&y, ok), FailError, CodeExecution, c.want)
		wantErrContains(t, c.what, y.Verify(), c.want)
	}
}

// What runs is the sealed copy: the hook cannot change it.
func TestExecutableSealed(t *testing.T) {
	t.Parallel()
	res := runHook(hookexe(t, builtins.KindBefore), map[string]any{"mode": "tamper"})
	if res.Action == nil {
		t.Fatalf("%v", res.Err)
	}
	for _, line := range strings.Split(res.Action.Stdout, "\n") {
		if strings.HasSuffix(line, "<nil>") {
			t.Errorf("the hook changed its own bytes: %s", res.Action.Stdout)
		}
	}
}

// A pinned #! script runs from the memfd too; it need not read its stdin.
func TestExecutableShebang(t *testing.T) {
	t.Parallel()
	x := pinned(t, builtins.KindReviewer, `#!/bin/sh
# the request id is the 4th field of the sorted request
id=$(sed 's/.*"request_id":"\([^"]*\)".*/\1/')
printf '{"version":1,"request_id":"%s","decision":"approve_scope","scope":"exact_session"}\n' "$id"
`)
	res := runHook(x, map[string]any{"cwd": "/w"})
	wantAction(t, "sh hook", res.Result, `Review.approve_for("exact_session")`)

	y := pinned(t, builtins.KindBefore, "#!/bin/sh\necho '{\"version\":1,\"request_id\":\""+rid+"\",\"action\":\"continue\"}'\n")
	res = runHook(y, map[string]any{"pad": strings.Repeat("x", 900<<10)})
	wantAction(t, "a hook that does not read a large request", res.Result, "Intercept.proceed()")
}

func TestExecutableInputLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	x := pinned(t, builtins.KindAfter, "#!/bin/sh\ntouch "+marker+"\n")
	for _, c := range []struct {
		what      string
		requestID string
		payload   map[string]any
		want      string
	}{
		{"over 1 MiB", rid, map[string]any{"status": map[string]any{"exited": 0}, "stdout": strings.Repeat("x", MaxHookRequest)}, "request is over 1048576 bytes"},
		{"not data", rid, map[string]any{"status": map[string]any{"exited": 0}, "f": func() {}}, "is not data"},
		{"no status", rid, map[string]any{"stdout": ""}, "payload status must be"},
		{"no request id", "", map[string]any{"status": map[string]any{"exited": 0}}, "empty request id"},
	} {
		res := x.Run(context.Background(), c.requestID, rawPayload(c.payload))
		wantHookFailure(t, c.what, res, FailInput, CodeInputLimit, c.want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the hook ran")
	}
}

// Runs, failed or not, leave no goroutine behind.
func TestExecutableNoLeaks(t *testing.T) {
	// Not parallel: it counts the process's goroutines.
	before := goruntime.NumGoroutine()
	x := hookexe(t, builtins.KindBefore)
	x.Timeout = 300 * time.Millisecond
	for _, p := range []map[string]any{
		{"mode": "reply", "reply": map[string]any{"action": "continue"}},
		{"mode": "fork"},
		{"mode": "linger"},
		{"mode": "flood"},
		{"mode": "exit", "code": 1},
		{"mode": "raw", "raw": "{"},
	} {
		_ = runHook(x, p)
	}
	deadline := time.Now().Add(2 * time.Second)
	for goruntime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := goruntime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines, %d before:\n%s", n, before, buf[:goruntime.Stack(buf, true)])
	}
}

// Runs of one hook may overlap: each has its own memfd, pipes and group.
func TestExecutableConcurrent(t *testing.T) {
	t.Parallel()
	x := hookexe(t, builtins.KindAudit)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			id := fmt.Sprintf("r-%d", i)
			res := x.Run(context.Background(), id, rawPayload{"mode": "reply", "reply": map[string]any{"action": "drop_field", "field": id}})
			wantAction(t, id, res.Result, `Audit.drop_field("`+id+`")`)
		})
	}
	wg.Wait()
}
