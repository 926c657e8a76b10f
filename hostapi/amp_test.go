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

func ampEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// The payload Amp's docs imply (the Bash parameters alone), with the tool
// and the thread in the environment, as Amp runs the delegate.
func TestAmpParsesDelegateStdin(t *testing.T) {
	payload := readFixture(t, "amp/env/delegate-stdin-Bash-INFERRED-1.json")
	ad, ok := ByName("amp", ampEnv(map[string]string{"AGENT_TOOL_NAME": "Bash", "AMP_THREAD_ID": "T-42", "AGENT": "amp"}))
	if !ok {
		t.Fatal("amp is not registered")
	}
	e, err := ad.Parse(payload, "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Agent != "amp" || e.Kind != KindPreTool || e.NativeEvent != AmpEvent || e.Tool != ToolBash || e.NativeTool != "Bash" ||
		e.Command != "git commit -m 'test'" || e.CommandErr != nil || e.SessionID != "T-42" {
		t.Errorf("parsed %+v", e)
	}
	if !bytes.Equal(e.Input, bytes.TrimSpace(payload)) {
		t.Errorf("input %s, want the parameters as sent", e.Input)
	}
	if len(e.Meta) != 0 {
		t.Errorf("meta %v: the parameters are the input", e.Meta)
	}
}

func TestAmpTools(t *testing.T) {
	tests := []struct {
		tool, params string
		want         string
		command      string
		cmdErr       error
	}{
		{"Bash", `{"cmd":"ls -la"}`, ToolBash, "ls -la", nil},
		{"bash", `{"cmd":"ls"}`, ToolBash, "ls", nil},
		{"Bash", `{"command":"ls"}`, ToolBash, "ls", nil},
		{"Bash", `{"cmd":"a","command":"b"}`, ToolBash, "a", nil},
		{"Bash", `{}`, ToolBash, "", errAmpCmdMissing},
		{"Bash", `{"cmd":["rm","-rf","/"]}`, ToolBash, "", errAmpCmdNotString},
		{"edit_file", `{"path":"a.go","old_str":"x","new_str":"y"}`, ToolEdit, "", nil},
		{"create_file", `{"path":"a.go","content":"x"}`, ToolWrite, "", nil},
		{"Read", `{"path":"a.go"}`, ToolRead, "", nil},
		{"read_file", `{"path":"a.go"}`, ToolRead, "", nil},
		{"read_web_page", `{"url":"https://example.com"}`, ToolWebFetch, "", nil},
		{"Grep", `{"pattern":"x"}`, "Grep", "", nil},
		{"mcp__playwright__click", `{"selector":"#go"}`, "mcp__playwright__click", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.params, func(t *testing.T) {
			e, err := Amp{ToolName: tt.tool}.Parse([]byte(tt.params), "")
			if err != nil {
				t.Fatal(err)
			}
			if e.Tool != tt.want || e.NativeTool != tt.tool || e.Command != tt.command || !errors.Is(e.CommandErr, tt.cmdErr) {
				t.Errorf("tool %q native %q command %q err %v", e.Tool, e.NativeTool, e.Command, e.CommandErr)
			}
		})
	}
}

// Both shapes are accepted; the environment's tool name decides which one a
// payload is.
func TestAmpEnvelope(t *testing.T) {
	env := `{"tool":"Bash","input":{"cmd":"rm -rf /"},"session_id":"s-1","cwd":"/w"}`
	e, err := Amp{}.Parse([]byte(env), AmpEvent)
	if err != nil {
		t.Fatal(err)
	}
	if e.Command != "rm -rf /" || e.SessionID != "s-1" || e.Cwd != "/w" || string(e.Input) != `{"cmd":"rm -rf /"}` {
		t.Errorf("envelope parsed %+v", e)
	}
	// With the same tool in the environment it is still an envelope.
	e, err = Amp{ToolName: "Bash", ThreadID: "T-9"}.Parse([]byte(env), "")
	if err != nil || e.Command != "rm -rf /" || e.SessionID != "s-1" {
		t.Errorf("envelope with AGENT_TOOL_NAME: %+v, %v", e, err)
	}
	// An envelope without session_id takes the thread from the environment.
	e, err = Amp{ThreadID: "T-9"}.Parse([]byte(`{"tool":"Bash","input":{"cmd":"ls"}}`), "")
	if err != nil || e.SessionID != "T-9" {
		t.Errorf("envelope session: %+v, %v", e, err)
	}
	// A tool whose parameters happen to be called tool and input, named
	// otherwise in the environment: parameters.
	params := `{"tool":"hammer","input":{"x":1}}`
	e, err = Amp{ToolName: "mcp__toolbox__use"}.Parse([]byte(params), "")
	if err != nil || e.NativeTool != "mcp__toolbox__use" || string(e.Input) != params || len(e.Meta) != 0 {
		t.Errorf("parameters shaped like an envelope: %+v, %v", e, err)
	}
}

func TestAmpRejectsBadPayloads(t *testing.T) {
	tests := []struct {
		name    string
		amp     Amp
		payload string
		want    string
	}{
		{"not json", Amp{ToolName: "Bash"}, `{"cmd":`, ErrInvalidJSON.Error()},
		{"array", Amp{ToolName: "Bash"}, `["ls"]`, ErrInvalidJSON.Error()},
		{"null", Amp{ToolName: "Bash"}, `null`, ErrInvalidJSON.Error()},
		// Amp always sets AGENT_TOOL_NAME: parameters without it did not
		// come from Amp's delegate rule.
		{"no tool name anywhere", Amp{}, `{"cmd":"ls"}`, errAmpNoToolName.Error()},
		{"envelope without input", Amp{}, `{"tool":"Bash","cmd":"ls"}`, errAmpNoToolName.Error()},
		{"huge tool name", Amp{ToolName: strings.Repeat("B", 1025)}, `{"cmd":"ls"}`, "AGENT_TOOL_NAME is longer than 1024 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.amp.Parse([]byte(tt.payload), "")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err %v, want %s", err, tt.want)
			}
			r := tt.amp.Failure(nil, err)
			if r.Exit != ampExitReject || len(r.Stdout) != 0 || !strings.Contains(string(r.Stderr), err.Error()) {
				t.Errorf("failure renders %+v", r)
			}
		})
	}
}

// Drift: unknown fields, top-level and nested, and an unknown event name
// parse, and every unknown field is kept in Meta or Input.
func TestAmpDrift(t *testing.T) {
	envelope := `{"tool":"Bash","input":{"cmd":"ls","sandbox":{"net":false}},"session_id":"s","cwd":"/w","thread_mode":"smart","agent_meta":{"depth":2}}`
	e, err := Amp{}.Parse([]byte(envelope), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindPreTool || e.Command != "ls" || !strings.Contains(string(e.Input), `"sandbox":{"net":false}`) {
		t.Errorf("envelope: %+v", e)
	}
	if string(e.Meta["thread_mode"]) != `"smart"` || string(e.Meta["agent_meta"]) != `{"depth":2}` {
		t.Errorf("meta %v", e.Meta)
	}

	params := `{"cmd":"ls","future_flag":true,"limits":{"timeout_ms":5000}}`
	e, err = Amp{ToolName: "Bash", ThreadID: "T-1"}.Parse([]byte(params), "")
	if err != nil || e.Command != "ls" || string(e.Input) != params {
		t.Errorf("parameters: %+v, %v", e, err)
	}

	for _, a := range []Amp{{}, {ToolName: "Bash"}} {
		for _, p := range []string{envelope, params} {
			e, err = a.Parse([]byte(p), "tool:post-execute")
			if err != nil {
				t.Fatalf("%+v %s: %v", a, p, err)
			}
			if e.Kind != KindUnknown || e.NativeEvent != "tool:post-execute" {
				t.Errorf("unknown event: kind %q native %q", e.Kind, e.NativeEvent)
			}
			kept := string(e.Input)
			for k, v := range e.Meta {
				kept += k + string(v)
			}
			if !strings.Contains(kept, "sandbox") && !strings.Contains(kept, "future_flag") {
				t.Errorf("unknown event lost its fields: input %s meta %v", e.Input, e.Meta)
			}
			// Observe-only: the answer leaves the call to Amp.
			if r := a.Render(e, Verdict{Decision: Allow, SoleGate: true}); r.Exit != ampExitAsk || len(r.Stdout)+len(r.Stderr) != 0 {
				t.Errorf("unknown event renders %+v", r)
			}
			// Amp only ever runs the delegate as a gate: a failure rejects.
			if r := a.Failure(e, errors.New("boom")); r.Exit != ampExitReject || string(r.Stderr) != "boom\n" {
				t.Errorf("unknown event failure renders %+v", r)
			}
		}
	}
}

func TestAmpRender(t *testing.T) {
	e := &Event{Kind: KindPreTool, NativeEvent: AmpEvent, Tool: ToolBash, Command: "ls"}
	tests := []struct {
		name   string
		v      Verdict
		exit   int
		stderr string
	}{
		{"allow defers to Amp", Verdict{Decision: Allow, Reason: "ok"}, 1, ""},
		{"sole-gate allow grants", Verdict{Decision: Allow, SoleGate: true}, 0, ""},
		{"ask", Verdict{Decision: Ask, Reason: "network"}, 1, "agent-shell: needs approval: network\n"},
		{"ask without reason", Verdict{Decision: Ask}, 1, ""},
		{"deny", Verdict{Decision: Deny, Reason: "no"}, 2, "no\n"},
		{"deny sole gate", Verdict{Decision: Deny, Reason: "no", SoleGate: true}, 2, "no\n"},
		{"rewrite is a deny", Verdict{Decision: Allow, UpdatedInput: json.RawMessage(`{"command":"ls -a"}`), SoleGate: true}, 2,
			"agent-shell suggests running instead: ls -a\n"},
		{"a large deny is whole", Verdict{Decision: Deny, Reason: strings.Repeat("r", 200000)}, 2, strings.Repeat("r", 200000) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Amp{}.Render(e, tt.v)
			if r.Exit != tt.exit || string(r.Stderr) != tt.stderr || len(r.Stdout) != 0 {
				t.Errorf("got exit %d stderr %.80q stdout %q", r.Exit, r.Stderr, r.Stdout)
			}
		})
	}
}

// ampFakeAgentShell puts an agent-shell on a fresh PATH directory that
// runs script, and returns the directory.
func ampFakeAgentShell(t *testing.T, script string) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "agent-shell"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestAmpInstallFresh(t *testing.T) {
	root := t.TempDir()
	changed, err := Amp{}.Install(root)
	if err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(root, AmpDelegate)
	settings := filepath.Join(root, AmpSettingsFile)
	if len(changed) != 2 || changed[0] != wrapper || changed[1] != settings {
		t.Errorf("changed %v", changed)
	}
	fi, err := os.Stat(wrapper)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("wrapper %v %v", fi, err)
	}
	var doc map[string][]map[string]string
	if err := json.Unmarshal(ampReadFile(t, settings), &doc); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{{"tool": "Bash", "action": "delegate", "to": wrapper}}
	if got, _ := json.Marshal(doc["amp.permissions"]); string(got) != string(ampMustJSON(t, want)) {
		t.Errorf("rules %s", got)
	}

	// Amp runs the wrapper without arguments; it runs the hook for Amp,
	// passing stdin and the environment through.
	bin := ampFakeAgentShell(t, `printf '%s|' "$@" "$AGENT_TOOL_NAME" > "$OUT"; cat >> "$OUT"; exit 2`+"\n")
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(wrapper)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "OUT="+out, "AGENT_TOOL_NAME=Bash")
	cmd.Stdin = strings.NewReader(`{"cmd":"ls"}`)
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("wrapper: %v, want exit status 2 passed through", err)
	}
	if got := string(ampReadFile(t, out)); got != `hook|--agent=amp|Bash|{"cmd":"ls"}` {
		t.Errorf("the wrapper ran %q", got)
	}
}

func TestAmpInstallMergesAndIsIdempotent(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, AmpSettingsFile)
	userRule := readFixture(t, "amp/config-permissions-delegate-1.json")
	existing := `{
  "amp.notifications.enabled": false,
  "amp.permissions": [` + string(userRule) + `, {"tool": "Bash", "matches": {"cmd": "git status"}, "action": "allow"}],
  "amp.mcpServers": {"playwright": {"command": "npx", "args": ["-y", "@playwright/mcp@latest"]}},
  "amp.tools.stopTimeout": 600
}`
	ampWriteFile(t, settings, existing)

	changed, err := Amp{}.Install(root)
	if err != nil || len(changed) != 2 {
		t.Fatalf("changed %v, err %v", changed, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(ampReadFile(t, settings), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["amp.notifications.enabled"] != false || doc["amp.tools.stopTimeout"] != float64(600) || doc["amp.mcpServers"] == nil {
		t.Errorf("other keys changed: %v", doc)
	}
	rules, _ := doc["amp.permissions"].([]any)
	if len(rules) != 3 {
		t.Fatalf("rules %v", rules)
	}
	// The user's rules come first and keep winning.
	if first, _ := rules[0].(map[string]any); first["to"] != "my-gh-permission-helper" {
		t.Errorf("first rule %v", rules[0])
	}
	if last, _ := rules[2].(map[string]any); last["to"] != filepath.Join(root, AmpDelegate) || last["action"] != "delegate" {
		t.Errorf("added rule %v", rules[2])
	}

	before := ampReadFile(t, settings)
	changed, err = Amp{}.Install(root)
	if err != nil || len(changed) != 0 {
		t.Errorf("second install changed %v, err %v", changed, err)
	}
	if !bytes.Equal(before, ampReadFile(t, settings)) {
		t.Error("second install rewrote the settings")
	}
}

func TestAmpInstallExistingDelegate(t *testing.T) {
	root := t.TempDir()
	settings := filepath.Join(root, AmpSettingsFile)
	wrapper := filepath.Join(root, AmpDelegate)

	// The user's own agent-shell-amp on $PATH counts.
	ampWriteFile(t, settings, `{"amp.permissions":[{"tool":"*","action":"delegate","to":"agent-shell-amp"}]}`)
	if changed, err := (Amp{}).Install(root); err != nil || len(changed) != 1 || changed[0] != wrapper {
		t.Errorf("changed %v, err %v", changed, err)
	}
	if got := string(ampReadFile(t, settings)); got != `{"amp.permissions":[{"tool":"*","action":"delegate","to":"agent-shell-amp"}]}` {
		t.Errorf("settings rewritten: %s", got)
	}

	// A rule left from a checkout that moved points at this one.
	ampWriteFile(t, settings, `{"amp.permissions":[{"tool":"Bash","action":"delegate","to":"/gone/.agent-shell/bin/agent-shell-amp"}]}`)
	if changed, err := (Amp{}).Install(root); err != nil || len(changed) != 1 || changed[0] != settings {
		t.Errorf("changed %v, err %v", changed, err)
	}
	if got := string(ampReadFile(t, settings)); !strings.Contains(got, `"to": "`+wrapper+`"`) || strings.Count(got, "delegate") != 1 {
		t.Errorf("stale rule not updated: %s", got)
	}
}

func TestAmpInstallLeavesBadSettingsAlone(t *testing.T) {
	for name, content := range map[string]string{
		"not json":               "// my settings\n{\"amp.permissions\": []",
		"a list":                 `[{"tool":"Bash"}]`,
		"permissions not a list": `{"amp.permissions": {"tool": "Bash", "action": "ask"}}`,
		"permissions a string":   `{"amp.permissions": "ask"}`,
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			settings := filepath.Join(root, AmpSettingsFile)
			ampWriteFile(t, settings, content)
			if _, err := (Amp{}).Install(root); err == nil || !strings.Contains(err.Error(), "unchanged") {
				t.Errorf("err %v", err)
			}
			if got := string(ampReadFile(t, settings)); got != content {
				t.Errorf("settings changed to %s", got)
			}
		})
	}
}

func ampReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ampWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ampMustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
