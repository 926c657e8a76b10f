package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// With [enforce] mode = "sandbox", each host that takes a rewrite gets its
// allowed shell command back wrapped in agent-shell exec; run as that host
// runs commands, the wrapped command keeps the output, the exit status and
// (for Claude Code, whose shell keeps its working directory) the folder the
// command ended in, while a protected file stays read-only.
func TestSandboxedHostCommands(t *testing.T) {
	if l := sandboxLevel(); !l.Sandbox() {
		t.Skip("no sandbox here: " + l.String())
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// agent-shell on PATH, as hooks need it: this test binary by that name.
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "agent-shell")); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	for path, data := range map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		".github/hooks/agent-shell/agent-shell.toml": "version = 1\n\n[enforce]\nmode = \"sandbox\"\n",
		".npmrc":       "script-shell=agent-shell\n",
		"sub/file.txt": "x\n",
	} {
		p := filepath.Join(repo, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The wrapped command runs agent-shell by its path: this test binary,
	// which is agent-shell with runAsMainEnv.
	env := append(os.Environ(), runAsMainEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CONFIG_HOME="+filepath.Join(repo, ".config"), "AGENTSHELL_SESSION_ID=")

	// wrapped is the command the host gets back for command.
	wrapped := func(t *testing.T, agent, payload string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "agent-shell"), "hook", "--agent", agent)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, strings.NewReader(payload)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		var answer struct {
			HookSpecificOutput struct {
				PermissionDecision string `json:"permissionDecision"`
				UpdatedInput       struct {
					Command string `json:"command"`
				} `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &answer); err != nil {
			t.Fatalf("answer %q: %v", out, err)
		}
		h := answer.HookSpecificOutput
		if h.PermissionDecision != "allow" || !strings.Contains(h.UpdatedInput.Command, " exec --request ") {
			t.Fatalf("answer %s: want an allow whose command runs agent-shell exec", out)
		}
		return h.UpdatedInput.Command
	}
	// run runs a host's shell line in the repository: stdout, stderr, status.
	run := func(t *testing.T, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bash, args...)
		cmd.Dir, cmd.Env = repo, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	claudePayload := func(command string) string {
		in, _ := json.Marshal(map[string]any{"session_id": "sess-1", "cwd": repo, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "x"}, "tool_use_id": "toolu_42"})
		return string(in)
	}

	t.Run("claude", func(t *testing.T) {
		cwdFile := filepath.Join(t.TempDir(), "cwd")
		// Claude Code's Bash tool: eval the command, then keep pwd -P.
		claude := func(command string) (string, string, int) {
			line := "eval " + shellcmd.Quote(command) + " < /dev/null && pwd -P >| " + shellcmd.Quote(cwdFile)
			return run(t, "-c", line)
		}
		out, _, status := claude(wrapped(t, "claude", claudePayload("cd sub && cat file.txt && echo done")))
		if out != "x\ndone\n" || status != 0 {
			t.Errorf("cd sub && cat: stdout %q status %d", out, status)
		}
		if cwd, _ := os.ReadFile(cwdFile); strings.TrimSpace(string(cwd)) != filepath.Join(repo, "sub") {
			t.Errorf("the host's shell ended in %q, want %s/sub", cwd, repo)
		}
		out, errOut, status := claude(wrapped(t, "claude", claudePayload("echo out; echo err >&2; exit 3")))
		if out != "out\n" || errOut != "err\n" || status != 3 {
			t.Errorf("exit 3: stdout %q stderr %q status %d", out, errOut, status)
		}
		// A write the text guard lets through (the file's name is built at
		// run time): the kernel stops it.
		_, errOut, status = claude(wrapped(t, "claude", claudePayload(`f=$(printf .npm); cp /dev/null "${f}rc"`)))
		if status == 0 || !strings.Contains(errOut, "Read-only file system") {
			t.Errorf("a write to .npmrc: status %d, stderr %q", status, errOut)
		}
	})

	t.Run("codex", func(t *testing.T) {
		// Codex runs each command with bash -lc in the folder the call names.
		payload, _ := json.Marshal(map[string]any{"session_id": "sess-2", "cwd": repo, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "cd sub && pwd && exit 4"}, "tool_use_id": "exec-7"})
		out, _, status := run(t, "-lc", wrapped(t, "codex", string(payload)))
		if out != filepath.Join(repo, "sub")+"\n" || status != 4 {
			t.Errorf("stdout %q status %d", out, status)
		}
	})

	if b, _ := os.ReadFile(filepath.Join(repo, ".npmrc")); string(b) != "script-shell=agent-shell\n" {
		t.Errorf(".npmrc changed: %q", b)
	}
	// Each run is recorded in the host's session, linked to its request.
	events, err := os.ReadFile(filepath.Join(repo, ".agent-shell", "events", "sess-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(events), `"event":"command_end"`); n != 3 || !strings.Contains(string(events), `"exit_code":3,`) ||
		strings.Count(string(events), `"request_id":"toolu_42"`) != 6 {
		t.Errorf("want 3 command_end events, each with its decision's request id:\n%s", events)
	}
}
