package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpencodeParse(t *testing.T) {
	tests := []struct {
		name, payload string
		kind          Kind
		tool          string
		command       string
		cmdErr        error
	}{
		{"bash", `{"v":1,"event":"tool.execute.before","tool":"bash","args":{"command":"ls"}}`, KindPreTool, ToolBash, "ls", nil},
		{"event from the caller", `{"v":1,"tool":"bash","args":{"command":"ls"}}`, KindPreTool, ToolBash, "ls", nil},
		{"no command", `{"v":1,"event":"tool.execute.before","tool":"bash","args":{"description":"x"}}`, KindPreTool, ToolBash, "", errOpencodeCommand},
		{"command not a string", `{"v":1,"event":"tool.execute.before","tool":"bash","args":{"command":["ls"]}}`, KindPreTool, ToolBash, "", errOpencodeCommandStr},
		{"no args", `{"v":1,"event":"tool.execute.before","tool":"bash"}`, KindPreTool, ToolBash, "", errOpencodeArgs},
		{"args null", `{"v":1,"event":"tool.execute.before","tool":"bash","args":null}`, KindPreTool, ToolBash, "", errOpencodeArgs},
		{"edit", `{"v":1,"event":"tool.execute.before","tool":"edit","args":{"filePath":"a"}}`, KindPreTool, ToolEdit, "", nil},
		{"multiedit", `{"v":1,"event":"tool.execute.before","tool":"multiedit","args":{}}`, KindPreTool, ToolEdit, "", nil},
		{"patch", `{"v":1,"event":"tool.execute.before","tool":"patch","args":{}}`, KindPreTool, ToolEdit, "", nil},
		{"write", `{"v":1,"event":"tool.execute.before","tool":"write","args":{}}`, KindPreTool, ToolWrite, "", nil},
		{"read", `{"v":1,"event":"tool.execute.before","tool":"read","args":{}}`, KindPreTool, ToolRead, "", nil},
		{"webfetch", `{"v":1,"event":"tool.execute.before","tool":"webfetch","args":{}}`, KindPreTool, ToolWebFetch, "", nil},
		{"other", `{"v":1,"event":"tool.execute.before","tool":"grep","args":{}}`, KindPreTool, "grep", "", nil},
		{"mcp", `{"v":1,"event":"tool.execute.before","tool":"github_create_issue","args":{}}`, KindPreTool, "github_create_issue", "", nil},
		{"after", `{"v":1,"event":"tool.execute.after","tool":"bash","args":{"command":"ls"},"result":{"output":"a"}}`, KindPostTool, ToolBash, "ls", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Opencode{}.Parse([]byte(tt.payload), "tool.execute.before")
			if err != nil {
				t.Fatal(err)
			}
			if e.Agent != "opencode" || e.Kind != tt.kind || e.Tool != tt.tool || e.Command != tt.command || !errors.Is(e.CommandErr, tt.cmdErr) {
				t.Errorf("kind %q tool %q command %q err %v", e.Kind, e.Tool, e.Command, e.CommandErr)
			}
			if _, ok := e.Meta["v"]; ok {
				t.Error("the protocol version is not the host's data")
			}
		})
	}
}

func TestOpencodeRejectsBadRequests(t *testing.T) {
	tests := []struct {
		name, payload string
		want          string
	}{
		{"not json", `{"v":1,`, ErrInvalidJSON.Error()},
		{"array", `[]`, ErrInvalidJSON.Error()},
		{"no version", `{"event":"tool.execute.before","tool":"bash","args":{"command":"ls"}}`, `no protocol version`},
		{"another version", `{"v":2,"event":"tool.execute.before","tool":"bash","args":{"command":"ls"}}`, `speaks protocol 2, this agent-shell speaks 1: run`},
		{"version a string", `{"v":"1","event":"tool.execute.before","tool":"bash","args":{"command":"ls"}}`, `speaks protocol "1"`},
		{"no tool", `{"v":1,"event":"tool.execute.before","args":{"command":"ls"}}`, ErrInvalidToolName.Error()},
		{"tool not a string", `{"v":1,"event":"tool.execute.after","tool":7}`, ErrInvalidToolName.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Opencode{}.Parse([]byte(tt.payload), "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one saying %q", err, tt.want)
			}
			var out map[string]string
			r := Opencode{}.Failure(nil, err)
			if json.Unmarshal(r.Stdout, &out) != nil || out["decision"] != "deny" || out["reason"] != err.Error() || r.Exit != 0 {
				t.Errorf("failure renders %q", r.Stdout)
			}
		})
	}
}

// Drift: unknown fields, top-level and nested, and an unknown event name
// parse, and every unknown field is kept in Meta or Input.
func TestOpencodeDrift(t *testing.T) {
	p := `{"v":1,"event":"tool.execute.before","tool":"bash","sessionID":"ses_1","callID":"c1","agent":"build",` +
		`"model":{"providerID":"anthropic","modelID":"claude"},"args":{"command":"ls","workdir":"/w/sub","sandbox":{"net":false}},"cwd":"/w"}`
	e, err := Opencode{}.Parse([]byte(p), "")
	if err != nil {
		t.Fatal(err)
	}
	// The bash tool's workdir is where the command runs: the event's cwd.
	if e.Kind != KindPreTool || e.Command != "ls" || e.SessionID != "ses_1" || e.Cwd != "/w/sub" {
		t.Errorf("parsed %+v", e)
	}
	if string(e.Meta["agent"]) != `"build"` || string(e.Meta["callID"]) != `"c1"` || !strings.Contains(string(e.Meta["model"]), "anthropic") {
		t.Errorf("meta %v", e.Meta)
	}
	if !strings.Contains(string(e.Input), `"sandbox":{"net":false}`) || !strings.Contains(string(e.Input), `"workdir"`) {
		t.Errorf("input %s", e.Input)
	}

	e, err = Opencode{}.Parse([]byte(`{"v":1,"event":"session.idle","sessionID":"ses_1","properties":{"info":{"id":"x"}},"cwd":"/w"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindUnknown || e.NativeEvent != "session.idle" || e.SessionID != "ses_1" || !strings.Contains(string(e.Meta["properties"]), `"info"`) {
		t.Errorf("unknown event %+v", e)
	}
	if r := (Opencode{}).Render(e, Verdict{Decision: Deny, Reason: "x"}); len(r.Stdout)+len(r.Stderr) != 0 || r.Exit != 0 {
		t.Errorf("unknown event answered %+v", r)
	}
}

func TestOpencodeRender(t *testing.T) {
	e := &Event{Kind: KindPreTool, NativeEvent: "tool.execute.before", Tool: ToolBash}
	tests := []struct {
		name string
		v    Verdict
		want string
	}{
		{"allow", Verdict{Decision: Allow}, `{"decision":"allow"}`},
		{"rewrite", Verdict{Decision: Allow, UpdatedInput: json.RawMessage(` {"command":"ls -a"}`)}, `{"args":{"command":"ls -a"},"decision":"allow"}`},
		{"rewrite not an object", Verdict{Decision: Allow, UpdatedInput: json.RawMessage(`"ls -a"`)}, `{"decision":"deny","reason":"agent-shell suggests running instead: \"ls -a\""}`},
		{"deny keeps <>&", Verdict{Decision: Deny, Reason: "no <redirects> & pipes"}, `{"decision":"deny","reason":"no <redirects> & pipes"}`},
		{"ask", Verdict{Decision: Ask, Reason: "network"}, `{"decision":"deny","reason":"needs approval, and opencode cannot ask: network"}`},
		{"unknown decision", Verdict{Decision: "maybe", Reason: "?"}, `{"decision":"deny","reason":"?"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Opencode{}.Render(e, tt.v)
			if got := strings.TrimSpace(string(r.Stdout)); got != tt.want || r.Exit != 0 || len(r.Stderr) != 0 {
				t.Errorf("got %s (exit %d, stderr %q), want %s", got, r.Exit, r.Stderr, tt.want)
			}
		})
	}
	big := strings.Repeat("r", 300000)
	var out map[string]string
	if r := (Opencode{}).Render(e, Verdict{Decision: Deny, Reason: big}); json.Unmarshal(r.Stdout, &out) != nil || out["reason"] != big {
		t.Error("a large deny is cut")
	}
}

func TestOpencodeInstall(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, OpencodePluginFile)
	// Other plugins and the project's opencode.json are not touched.
	other := filepath.Join(root, ".opencode/plugins/notify.js")
	ampWriteFile(t, other, "export const Notify = async () => ({})\n")
	config := filepath.Join(root, "opencode.json")
	ampWriteFile(t, config, `{"$schema":"https://opencode.ai/config.json","plugin":["opencode-wakatime"]}`)

	changed, err := Opencode{}.Install(root)
	if err != nil || len(changed) != 1 || changed[0] != path {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	got := ampReadFile(t, path)
	if !bytes.HasSuffix(got, opencodePlugin) || !opencodeUnedited(got) {
		t.Errorf("installed plugin:\n%.400s", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v %v", fi, err)
	}
	if changed, err := (Opencode{}).Install(root); err != nil || len(changed) != 0 {
		t.Errorf("second install changed %v, err %v", changed, err)
	}
	if string(ampReadFile(t, other)) != "export const Notify = async () => ({})\n" ||
		string(ampReadFile(t, config)) != `{"$schema":"https://opencode.ai/config.json","plugin":["opencode-wakatime"]}` {
		t.Error("install touched other files")
	}

	// An unedited plugin from another agent-shell version is replaced.
	oldBody := []byte("export const AgentShell = async () => ({}) // an older version\n")
	old := opencodeWithHeader(oldBody)
	ampWriteFile(t, path, string(old))
	if changed, err := (Opencode{}).Install(root); err != nil || len(changed) != 1 {
		t.Errorf("upgrade: changed %v, err %v", changed, err)
	}
	if !bytes.Equal(ampReadFile(t, path), opencodePluginFile()) {
		t.Error("older plugin not replaced")
	}

	// An edited plugin, or the user's own file, is left alone, loudly.
	for name, content := range map[string][]byte{
		"edited":         bytes.Replace(opencodePluginFile(), []byte("10000"), []byte("60000"), 1),
		"edited header":  bytes.Replace(opencodePluginFile(), []byte("Install replaces"), []byte("Install overwrites"), 1),
		"the user's own": []byte("export const AgentShell = async () => ({ /* mine */ })\n"),
		"empty":          {},
	} {
		t.Run(name, func(t *testing.T) {
			if bytes.Equal(content, opencodePluginFile()) {
				t.Fatal("the edit changed nothing")
			}
			ampWriteFile(t, path, string(content))
			if _, err := (Opencode{}).Install(root); err == nil || !strings.Contains(err.Error(), "left unchanged") {
				t.Errorf("err %v", err)
			}
			if !bytes.Equal(ampReadFile(t, path), content) {
				t.Error("the file was overwritten")
			}
		})
	}
}

// The plugin itself, run by node against a fake agent-shell on PATH: it
// sends the request the adapter parses, and it throws on a deny, a non-zero
// exit, an unreadable answer, a missing binary and a timeout. opencode runs
// plugins under Bun; node runs the same ES module.
func TestOpencodePluginUnderNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to test the opencode plugin (it is on the development and CI image): %v", err)
	}
	root := t.TempDir()
	if _, err := (Opencode{}).Install(root); err != nil {
		t.Fatal(err)
	}
	// Node reads .js as an ES module under a package.json saying so; opencode
	// (Bun) needs no such file.
	ampWriteFile(t, filepath.Join(root, "package.json"), `{"type":"module"}`)
	ampWriteFile(t, filepath.Join(root, "driver.js"), opencodeDriver)
	bin := ampFakeAgentShell(t, `cat > "$FAKE_REQUEST"
case "$FAKE_MODE" in
deny) echo '{"decision":"deny","reason":"Command '"'"'rm -rf /'"'"' denied by policy rule: rm -rf *"}' ;;
allow) echo '{"decision":"allow"}' ;;
rewrite) echo '{"decision":"allow","args":{"command":"ls -a"}}' ;;
args-not-object) echo '{"decision":"allow","args":"ls -a"}' ;;
ask) echo '{"decision":"ask","reason":"r"}' ;;
deny-no-reason) echo '{"decision":"deny"}' ;;
fail) echo 'policy load error: boom' >&2; exit 3 ;;
garbage) echo 'permissionDecision: allow' ;;
empty) ;;
hang) exec sleep 5 ;;
record-fails)
	if grep -q tool.execute.after "$FAKE_REQUEST"; then exit 3; fi
	echo '{"decision":"allow"}' ;;
esac
`)

	type result struct {
		Threw   bool           `json:"threw"`
		Message string         `json:"message"`
		Args    map[string]any `json:"args"`
	}
	run := func(t *testing.T, mode, hook string, extraEnv ...string) (result, []byte) {
		t.Helper()
		reqFile := filepath.Join(t.TempDir(), "request.json")
		cmd := exec.Command(node, "driver.js", hook)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"FAKE_MODE="+mode, "FAKE_REQUEST="+reqFile)
		cmd.Env = append(cmd.Env, extraEnv...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, stderr.Bytes())
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("driver printed %q: %v", out, err)
		}
		req, _ := os.ReadFile(reqFile)
		return r, req
	}

	tests := []struct {
		mode    string
		threw   bool
		message string
		command string // output.args.command afterwards
	}{
		{"deny", true, "Command 'rm -rf /' denied by policy rule: rm -rf *", "rm -rf /"},
		{"deny-no-reason", true, "denied by agent-shell", "rm -rf /"},
		{"allow", false, "", "rm -rf /"},
		{"rewrite", false, "", "ls -a"},
		{"args-not-object", true, "rewritten args are not an object", "rm -rf /"},
		{"ask", true, `unknown decision "ask"`, "rm -rf /"},
		{"fail", true, "exit status 3: policy load error: boom", "rm -rf /"},
		{"garbage", true, "unreadable answer", "rm -rf /"},
		{"empty", true, "unreadable answer", "rm -rf /"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			r, req := run(t, tt.mode, "before")
			if r.Threw != tt.threw || !strings.Contains(r.Message, tt.message) || r.Args["command"] != tt.command {
				t.Errorf("got %+v", r)
			}
			if r.Args["description"] != "Delete everything" {
				t.Errorf("args lost a field: %v", r.Args)
			}
			// What the plugin sends is what the adapter reads.
			e, err := Opencode{}.Parse(req, "")
			if err != nil {
				t.Fatalf("request %s: %v", req, err)
			}
			if e.Kind != KindPreTool || e.NativeEvent != "tool.execute.before" || e.Tool != ToolBash || e.Command != "rm -rf /" ||
				e.SessionID != "ses_test" || e.Cwd != root || string(e.Meta["callID"]) != `"call_1"` {
				t.Errorf("request %s parsed to %+v", req, e)
			}
		})
	}

	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		r, _ := run(t, "hang", "before", "AGENT_SHELL_HOOK_TIMEOUT_MS=300")
		if !r.Threw || !strings.Contains(r.Message, "no answer within 300 ms") {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("no agent-shell", func(t *testing.T) {
		t.Parallel()
		r, _ := run(t, "allow", "before", "PATH=/nonexistent")
		if !r.Threw || !strings.Contains(r.Message, "cannot run agent-shell") {
			t.Errorf("got %+v", r)
		}
	})
	// After the call, a failure to record fails nothing; the request has
	// the call's arguments (remembered from before when opencode's after
	// input lacks them) and its result.
	t.Run("after", func(t *testing.T) {
		t.Parallel()
		r, req := run(t, "record-fails", "before-after")
		if r.Threw {
			t.Errorf("got %+v", r)
		}
		e, err := Opencode{}.Parse(req, "")
		if err != nil {
			t.Fatalf("request %s: %v", req, err)
		}
		if e.Kind != KindPostTool || e.Command != "rm -rf /" || !strings.Contains(string(e.Result), `"output":"removed"`) {
			t.Errorf("request %s parsed to %+v", req, e)
		}
	})
	t.Run("after with a huge output", func(t *testing.T) {
		t.Parallel()
		r, req := run(t, "allow", "after-huge")
		if r.Threw || len(req) > 1<<20 {
			t.Fatalf("got %+v, request of %d bytes", r, len(req))
		}
		e, err := Opencode{}.Parse(req, "")
		if err != nil || !strings.Contains(string(e.Result), `"truncated":true`) {
			t.Errorf("request %.300s parsed to %+v, %v", req, e, err)
		}
	})
}

// opencodeDriver loads the installed plugin as opencode would and calls one
// hook, printing whether it threw and the args afterwards.
const opencodeDriver = `import { AgentShell } from "./.opencode/plugins/agent-shell.js"

const hooks = await AgentShell({ directory: process.cwd() })
const input = { tool: "bash", sessionID: "ses_test", callID: "call_1" }
const output = { args: { command: "rm -rf /", description: "Delete everything" } }
let threw = false, message = ""
try {
  switch (process.argv[2]) {
  case "before":
    await hooks["tool.execute.before"](input, output)
    break
  case "before-after":
    await hooks["tool.execute.before"](input, output).catch(() => {})
    await hooks["tool.execute.after"](input, { title: "rm", output: "removed", metadata: { exit: 0 } })
    break
  case "after-huge":
    await hooks["tool.execute.after"]({ ...input, args: output.args }, { title: "cat", output: "x".repeat(1 << 20), metadata: { output: "x".repeat(1 << 20) } })
    break
  }
} catch (err) {
  threw = true
  message = err.message
}
process.stdout.write(JSON.stringify({ threw, message, args: output.args }))
process.exit(0)
`
