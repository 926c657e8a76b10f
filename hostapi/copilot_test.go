package hostapi

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCopilotParsesFixtures(t *testing.T) {
	tests := []struct {
		file      string
		kind      Kind
		native    string
		tool      string
		command   string
		prompt    string
		hasResult bool
		metaKeys  []string
	}{
		{file: "copilot/preToolUse-1.json", kind: KindPreTool, native: "preToolUse", tool: ToolBash, command: "rm -rf dist", metaKeys: []string{"timestamp"}},
		{file: "copilot/preToolUse-2.json", kind: KindPreTool, native: "preToolUse", tool: ToolBash, command: "ls"},
		{file: "copilot/postToolUse-1.json", kind: KindPostTool, native: "postToolUse", tool: ToolBash, command: "npm test", hasResult: true},
		{file: "copilot/userPromptSubmitted-1.json", kind: KindPrompt, native: "userPromptSubmitted", prompt: "Fix the authentication bug"},
		{file: "copilot/sessionStart-1.json", kind: KindSessionStart, native: "sessionStart", metaKeys: []string{"source", "initialPrompt"}},
		{file: "copilot/sessionEnd-1.json", kind: KindSessionEnd, native: "sessionEnd", metaKeys: []string{"reason"}},
		{file: "copilot/errorOccurred-1.json", kind: KindUnknown, native: "errorOccurred", metaKeys: []string{"error"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			e, err := Copilot{}.Parse(readFixture(t, tt.file), "")
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != tt.kind || e.NativeEvent != tt.native || e.Tool != tt.tool || e.Command != tt.command || e.Prompt != tt.prompt {
				t.Errorf("got kind %q native %q tool %q command %q prompt %q", e.Kind, e.NativeEvent, e.Tool, e.Command, e.Prompt)
			}
			if e.CommandErr != nil {
				t.Errorf("CommandErr: %v", e.CommandErr)
			}
			if e.Cwd == "" {
				t.Error("cwd not read")
			}
			if (e.Result != nil) != tt.hasResult {
				t.Errorf("result %s", e.Result)
			}
			for _, k := range tt.metaKeys {
				if _, ok := e.Meta[k]; !ok {
					t.Errorf("Meta lacks %q: %v", k, e.Meta)
				}
			}
		})
	}
}

func TestCopilotToolArgs(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		tool    string
		command string
		err     string // CommandErr, or "" for none
	}{
		{"string args", `{"toolName":"bash","toolArgs":"{\"command\":\"ls -la\"}"}`, ToolBash, "ls -la", ""},
		{"object args", `{"toolName":"bash","toolArgs":{"command":"echo test"}}`, ToolBash, "echo test", ""},
		{"capital Bash is a shell", `{"toolName":"Bash","toolArgs":{"command":"rm -rf /"}}`, ToolBash, "rm -rf /", ""},
		{"zsh", `{"toolName":"zsh","toolArgs":"{\"command\":\"x\"}"}`, ToolBash, "x", ""},
		{"POWERSHELL", `{"toolName":"POWERSHELL","toolArgs":"{\"command\":\"x\"}"}`, ToolBash, "x", ""},
		{"no args", `{"toolName":"bash"}`, ToolBash, "", "toolArgs"},
		{"numeric args", `{"toolName":"bash","toolArgs":5}`, ToolBash, "", "toolArgs"},
		{"args not json", `{"toolName":"bash","toolArgs":"{nope"}`, ToolBash, "", "Invalid JSON in toolArgs"},
		{"args null", `{"toolName":"bash","toolArgs":"null"}`, ToolBash, "", "non-null"},
		{"args array", `{"toolName":"bash","toolArgs":"[\"command\",\"echo\"]"}`, ToolBash, "", "non-null"},
		{"args a string", `{"toolName":"bash","toolArgs":"\"ls\""}`, ToolBash, "", "non-null"},
		{"no command", `{"toolName":"bash","toolArgs":"{\"path\":\"/file\"}"}`, ToolBash, "", "Missing command"},
		{"command not a string", `{"toolName":"bash","toolArgs":"{\"command\":123}"}`, ToolBash, "", "must be a string"},
		{"edit tool", `{"toolName":"edit","toolArgs":{"path":"a.go"}}`, ToolEdit, "", ""},
		{"create tool", `{"toolName":"create","toolArgs":{"path":"a.go"}}`, ToolWrite, "", ""},
		{"other tool", `{"toolName":"grep","toolArgs":{"pattern":"x"}}`, "grep", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Copilot{}.Parse([]byte(tt.payload), "preToolUse")
			if err != nil {
				t.Fatal(err)
			}
			if e.Tool != tt.tool || e.Command != tt.command {
				t.Errorf("tool %q command %q", e.Tool, e.Command)
			}
			switch {
			case tt.err == "" && e.CommandErr != nil:
				t.Errorf("unexpected CommandErr %v", e.CommandErr)
			case tt.err != "" && (e.CommandErr == nil || !strings.Contains(e.CommandErr.Error(), tt.err)):
				t.Errorf("CommandErr %v, want one mentioning %q", e.CommandErr, tt.err)
			}
		})
	}
}

func TestCopilotRejectsBadPayloads(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    error
	}{
		{"not json", `not valid json {{`, ErrInvalidJSON},
		{"json array", `[1,2]`, ErrInvalidJSON},
		{"json null", `null`, ErrInvalidJSON},
		{"empty", ``, ErrInvalidJSON},
		{"no toolName", `{"toolArgs":"{}"}`, ErrInvalidToolName},
		{"numeric toolName", `{"toolName":42}`, ErrInvalidToolName},
		{"empty toolName", `{"toolName":""}`, ErrInvalidToolName},
		{"huge toolName", `{"toolName":"` + strings.Repeat("a", 1025) + `"}`, ErrInvalidToolName},
		{"claude shape without tool_name", `{"hook_event_name":"PreToolUse","tool_input":{}}`, ErrInvalidToolName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Copilot{}.Parse([]byte(tt.payload), "preToolUse")
			if !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCopilotPascalCasePayload(t *testing.T) {
	p := `{"hook_event_name":"PreToolUse","session_id":"s-1","cwd":"/w","tool_name":"bash","tool_input":{"command":"npm publish"},"timestamp":"2026-01-01T00:00:00Z"}`
	e, err := Copilot{}.Parse([]byte(p), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindPreTool || e.Command != "npm publish" || e.SessionID != "s-1" || e.Cwd != "/w" {
		t.Fatalf("parsed %+v", e)
	}
	r := Copilot{}.Render(e, Verdict{Decision: Deny, Reason: "no publishing"})
	var out struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision, PermissionDecisionReason string
		}
	}
	if err := json.Unmarshal(r.Stdout, &out); err != nil {
		t.Fatalf("%s: %v", r.Stdout, err)
	}
	if out.HookSpecificOutput.PermissionDecision != "deny" || out.HookSpecificOutput.HookEventName != "PreToolUse" || out.HookSpecificOutput.PermissionDecisionReason != "no publishing" {
		t.Errorf("rendered %s", r.Stdout)
	}
}

func TestCopilotRender(t *testing.T) {
	pre := &Event{Kind: KindPreTool, NativeEvent: "preToolUse"}
	post := &Event{Kind: KindPostTool, NativeEvent: "postToolUse"}
	tests := []struct {
		name    string
		adapter Copilot
		event   *Event
		verdict Verdict
		want    string
	}{
		{"allow is explicit", Copilot{}, pre, Verdict{Decision: Allow}, `{"permissionDecision":"allow"}`},
		{"deny carries the reason", Copilot{}, pre, Verdict{Decision: Deny, Reason: "Command 'rm -rf /' denied by policy rule: rm -rf *"},
			`{"permissionDecision":"deny","permissionDecisionReason":"Command 'rm -rf /' denied by policy rule: rm -rf *"}`},
		{"ask on the CLI", Copilot{}, pre, Verdict{Decision: Ask, Reason: "network"}, `{"permissionDecision":"ask","permissionDecisionReason":"network"}`},
		{"ask in the cloud agent is a deny", Copilot{CloudAgent: true}, pre, Verdict{Decision: Ask, Reason: "network"},
			`{"permissionDecision":"deny","permissionDecisionReason":"needs approval, and Copilot's cloud agent cannot ask: network"}`},
		{"post-tool answers nothing", Copilot{}, post, Verdict{Decision: Deny, Reason: "x"}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.adapter.Render(tt.event, tt.verdict)
			if got := strings.TrimSpace(string(r.Stdout)); got != tt.want || r.Exit != 0 {
				t.Errorf("got %s (exit %d), want %s", got, r.Exit, tt.want)
			}
		})
	}
	// The deny fixture from Copilot's docs has the same shape.
	var want, got map[string]any
	_ = json.Unmarshal(readFixture(t, "copilot/output/preToolUse-deny-1.json"), &want)
	r := Copilot{}.Render(pre, Verdict{Decision: Deny, Reason: "Destructive operations require approval"})
	_ = json.Unmarshal(r.Stdout, &got)
	if len(got) != len(want) || got["permissionDecision"] != want["permissionDecision"] || got["permissionDecisionReason"] != want["permissionDecisionReason"] {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestCopilotFailureIsADeny(t *testing.T) {
	r := Copilot{}.Failure(nil, ErrInvalidJSON)
	if got := strings.TrimSpace(string(r.Stdout)); got != `{"permissionDecision":"deny","permissionDecisionReason":"Invalid JSON input"}` {
		t.Errorf("got %s", got)
	}
}

func TestReadPayloadCap(t *testing.T) {
	if _, err := ReadPayload(strings.NewReader(strings.Repeat("x", 11)), 10); !errors.Is(err, ErrPayloadTooLarge) {
		t.Errorf("11 bytes under a cap of 10: %v", err)
	}
	if b, err := ReadPayload(strings.NewReader("0123456789"), 10); err != nil || len(b) != 10 {
		t.Errorf("10 bytes under a cap of 10: %v", err)
	}
}

// FuzzCopilotParse: never panics; a pre-tool shell call always has either a
// command or a reason it has none; a parsed event renders to valid JSON.
func FuzzCopilotParse(f *testing.F) {
	for _, s := range []string{
		`{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`,
		`{"toolName":"bash","toolArgs":{"command":"ls"}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"x"}}`,
		`{"toolName":"bash","toolArgs":"null"}`, `{}`, `[]`, `"x"`, `{"toolName":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		e, err := Copilot{}.Parse(payload, "preToolUse")
		if err != nil {
			r := Copilot{}.Failure(nil, err)
			if !json.Valid(r.Stdout) || !strings.Contains(string(r.Stdout), `"deny"`) {
				t.Fatalf("failure renders %s", r.Stdout)
			}
			return
		}
		if e.IsShell() && e.Kind == KindPreTool && e.CommandErr == nil && !json.Valid(e.Input) {
			t.Fatalf("shell call with a command but input %q", e.Input)
		}
		r := Copilot{}.Render(e, Verdict{Decision: Deny, Reason: string(payload)})
		if e.Kind == KindPreTool && !json.Valid(r.Stdout) {
			t.Fatalf("render gives invalid JSON %q", r.Stdout)
		}
	})
}

// Install never replaces what the user wrote: a hooks value or an event
// entry of the wrong type is an error, and a symbolic link is not replaced
// by a file.
func TestCopilotInstallLeavesUnexpectedFilesAlone(t *testing.T) {
	for _, content := range []string{
		`{"version":1,"hooks":{"preToolUse":{"type":"command","bash":"./my-guard.sh"}}}`,
		`{"hooks":"x"}`,
	} {
		root := t.TempDir()
		path := filepath.Join(root, CopilotHooksFile)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := (Copilot{}).Install(root); err == nil || !strings.Contains(err.Error(), "left unchanged") {
			t.Errorf("%s: err %v", content, err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("%s: file changed to %s", content, got)
		}
	}

	root := t.TempDir()
	target := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(target, []byte(`{"version":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, CopilotHooksFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if _, err := (Copilot{}).Install(root); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlink: err %v", err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
}
