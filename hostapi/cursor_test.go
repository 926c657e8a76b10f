package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Cursor adds fields and events every few weeks: none of
// them may fail a parse or get lost on the way to the recorder.
func TestCursorDrift(t *testing.T) {
	t.Run("unknown event", func(t *testing.T) {
		p := `{"conversation_id":"c1","hook_event_name":"afterAgentThought","workspace_roots":["/w"],"cwd":"",
			"thought":"hmm","brand_new":{"nested":[1,2]}}`
		e, err := Cursor{}.Parse([]byte(p), "")
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != KindUnknown || e.NativeEvent != "afterAgentThought" || e.SessionID != "c1" || e.Cwd != "/w" {
			t.Errorf("parsed %+v", e)
		}
		for _, k := range []string{"thought", "brand_new", "workspace_roots"} {
			if _, ok := e.Meta[k]; !ok {
				t.Errorf("Meta lacks %q: %v", k, e.Meta)
			}
		}
		if got := string(e.Meta["brand_new"]); got != `{"nested":[1,2]}` {
			t.Errorf("brand_new = %s", got)
		}
		if r := (Cursor{}).Render(e, Verdict{Decision: Deny, Reason: "x"}); string(r.Stdout) != "{}\n" || r.Exit != 0 {
			t.Errorf("an unknown event is observe-only, got %+v", r)
		}
	})
	t.Run("unknown fields on a known event", func(t *testing.T) {
		p := `{"conversation_id":"c1","hook_event_name":"preToolUse","workspace_roots":["/w"],"cwd":"","tool_name":"Shell",
			"tool_input":{"command":"ls","working_directory":"/w","future_arg":{"deep":"kept"}},"sandbox_policy":"strict"}`
		e, err := Cursor{}.Parse([]byte(p), "")
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != KindPreTool || e.Tool != ToolBash || e.Command != "ls" || e.CommandErr != nil {
			t.Errorf("parsed %+v", e)
		}
		if string(e.Meta["sandbox_policy"]) != `"strict"` {
			t.Errorf("Meta %v lacks sandbox_policy", e.Meta)
		}
		var in map[string]any
		if err := json.Unmarshal(e.Input, &in); err != nil {
			t.Fatal(err)
		}
		if deep, _ := in["future_arg"].(map[string]any); deep["deep"] != "kept" || in["working_directory"] != "/w" {
			t.Errorf("Input lost nested fields: %s", e.Input)
		}
	})
	t.Run("unknown fields on a gate without a tool name", func(t *testing.T) {
		p := `{"conversation_id":"c1","hook_event_name":"beforeShellExecution","command":"ls","cwd":"/w","sandbox":true,"shell":"zsh"}`
		e, err := Cursor{}.Parse([]byte(p), "")
		if err != nil {
			t.Fatal(err)
		}
		if e.Command != "ls" || string(e.Input) != `{"command":"ls"}` || string(e.Meta["shell"]) != `"zsh"` || string(e.Meta["sandbox"]) != "true" {
			t.Errorf("parsed %+v", e)
		}
		if _, ok := e.Meta["command"]; ok {
			t.Error("the command is both Input and Meta")
		}
	})
}

// Cursor's cwd is "" in real captures: the first workspace root
// stands in for it.
func TestCursorEmptyCwdFallsBackToWorkspaceRoot(t *testing.T) {
	tests := []struct {
		name, fields, want string
	}{
		{"empty cwd", `"cwd":"","workspace_roots":["/a","/b"]`, "/a"},
		{"no cwd", `"workspace_roots":["/a"]`, "/a"},
		{"cwd kept", `"cwd":"/c","workspace_roots":["/a"]`, "/c"},
		{"no roots", `"cwd":"","workspace_roots":[]`, ""},
		{"roots not a list", `"cwd":"","workspace_roots":"/a"`, ""},
		{"root not a string", `"cwd":"","workspace_roots":[7,"/a"]`, ""},
	}
	for _, tt := range tests {
		for _, event := range []string{"preToolUse", "beforeShellExecution", "beforeReadFile", "postToolUse", "stop"} {
			t.Run(tt.name+"/"+event, func(t *testing.T) {
				p := `{"hook_event_name":"` + event + `","tool_name":"Read","tool_input":{},"command":"ls","file_path":"/f",` + tt.fields + `}`
				e, err := Cursor{}.Parse([]byte(p), "")
				if err != nil {
					t.Fatal(err)
				}
				if e.Cwd != tt.want {
					t.Errorf("cwd %q, want %q", e.Cwd, tt.want)
				}
				if _, ok := e.Meta["workspace_roots"]; !ok {
					t.Error("workspace_roots not kept in Meta")
				}
			})
		}
	}
}

func TestCursorSession(t *testing.T) {
	tests := []struct{ payload, want string }{
		{`{"hook_event_name":"stop","conversation_id":"conv","session_id":"conv"}`, "conv"},
		{`{"hook_event_name":"stop","session_id":"sess"}`, "sess"},
		{`{"hook_event_name":"stop"}`, ""},
	}
	for _, tt := range tests {
		e, err := Cursor{}.Parse([]byte(tt.payload), "")
		if err != nil || e.SessionID != tt.want {
			t.Errorf("%s: session %q, %v; want %q", tt.payload, e.SessionID, err, tt.want)
		}
	}
}

func TestCursorParseErrors(t *testing.T) {
	tests := []struct {
		name, payload, event string
		want                 error
	}{
		{"not json", `nope`, "", ErrInvalidJSON},
		{"array", `[1]`, "", ErrInvalidJSON},
		{"no event name", `{"tool_name":"Shell","tool_input":{"command":"ls"}}`, "", errNoEvent},
		{"event name not a string", `{"hook_event_name":null}`, "", errNoEvent},
		{"preToolUse without a tool", `{"hook_event_name":"preToolUse","tool_input":{}}`, "", ErrInvalidToolName},
		{"MCP gate without a tool", `{"hook_event_name":"beforeMCPExecution","tool_input":"{}"}`, "", ErrInvalidToolName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := (Cursor{}).Parse([]byte(tt.payload), tt.event); !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCursorShellCommand(t *testing.T) {
	tests := []struct {
		name, payload string
		command       string
		err           error
	}{
		{"preToolUse", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}`, "ls", nil},
		{"preToolUse lower-case shell", `{"hook_event_name":"preToolUse","tool_name":"shell","tool_input":{"command":"ls"}}`, "ls", nil},
		{"preToolUse string input", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":"{\"command\":\"ls\"}"}`, "ls", nil},
		{"preToolUse no input", `{"hook_event_name":"preToolUse","tool_name":"Shell"}`, "", errShellInputMissing},
		{"preToolUse input a list", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":["ls"]}`, "", errShellInputNotObject},
		{"preToolUse no command", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{}}`, "", errShellCommandMissing},
		{"preToolUse command a list", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":["ls"]}}`, "", errShellCommandType},
		{"shell gate", `{"hook_event_name":"beforeShellExecution","command":"rm -rf dist"}`, "rm -rf dist", nil},
		{"shell gate no command", `{"hook_event_name":"beforeShellExecution","cwd":"/w"}`, "", errCursorShellNoCommand},
		{"shell gate command a list", `{"hook_event_name":"beforeShellExecution","command":["rm"]}`, "", errCursorShellBadCommand},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Cursor{}.Parse([]byte(tt.payload), "")
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != KindPreTool || e.Tool != ToolBash {
				t.Errorf("kind %s tool %s", e.Kind, e.Tool)
			}
			if e.Command != tt.command || !errors.Is(e.CommandErr, tt.err) {
				t.Errorf("command %q err %v, want %q %v", e.Command, e.CommandErr, tt.command, tt.err)
			}
		})
	}
	// An MCP gate's top-level command is the MCP server's, not a shell command.
	e, err := Cursor{}.Parse([]byte(`{"hook_event_name":"beforeMCPExecution","tool_name":"q","tool_input":"{}","command":"rm -rf /"}`), "")
	if err != nil || e.IsShell() || e.Command != "" {
		t.Errorf("MCP gate parsed as %+v, %v", e, err)
	}
}

// Every answer is a JSON object on exit 0: some Cursor versions read
// anything else on a permission hook as a block.
func TestCursorAlwaysAnswersAnObject(t *testing.T) {
	events := append(Cursor{}.Events(), "stop", "")
	verdicts := []Verdict{
		{Decision: Allow}, {Decision: Allow, SoleGate: true}, {Decision: Deny}, {Decision: Ask, Reason: "r"},
		{Decision: Allow, UpdatedInput: json.RawMessage(`{"command":"x"}`)}, {Decision: Allow, Context: "c"}, {Decision: "bogus"},
	}
	for _, ev := range events {
		e := &Event{Kind: cursorKinds.Get()[ev], NativeEvent: ev}
		if e.Kind == "" {
			e.Kind = KindUnknown
		}
		for _, v := range verdicts {
			for _, r := range []Response{Cursor{}.Render(e, v), Cursor{}.Failure(e, errors.New("boom"))} {
				var obj map[string]any
				if json.Unmarshal(r.Stdout, &obj) != nil || obj == nil || r.Exit != 0 || len(r.Stderr) != 0 {
					t.Errorf("%s %+v: %+v", ev, v, r)
				}
			}
		}
	}
	// A decision the adapter does not know is a deny, never an allow.
	r := Cursor{}.Render(&Event{Kind: KindPreTool, NativeEvent: "preToolUse"}, Verdict{Decision: "bogus"})
	if !strings.Contains(string(r.Stdout), `"permission":"deny"`) {
		t.Errorf("unknown decision rendered %s", r.Stdout)
	}
}

func TestCursorFailure(t *testing.T) {
	err := errors.New("policy load error")
	want := `{"agent_message":"policy load error","permission":"deny","user_message":"policy load error"}` + "\n"
	if r := (Cursor{}).Failure(nil, err); string(r.Stdout) != want || r.Exit != 0 {
		t.Errorf("unreadable call: %+v", r)
	}
	if r := (Cursor{}).Failure(&Event{Kind: KindPreTool}, err); string(r.Stdout) != want {
		t.Errorf("pre-tool call of an unknown gate: %s", r.Stdout)
	}
	if r := (Cursor{}).Failure(&Event{Kind: KindPostTool}, err); string(r.Stdout) != "{}\n" {
		t.Errorf("post-tool: %s", r.Stdout)
	}
}

// Our postToolUse context is the vendor's additional_context field.
func TestCursorContextMatchesVendor(t *testing.T) {
	var vendor map[string]any
	if err := json.Unmarshal(readFixture(t, "cursor/output/postToolUse-1.json"), &vendor); err != nil {
		t.Fatal(err)
	}
	e, err := Cursor{}.Parse(readFixture(t, "cursor/postToolUse-2.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	r := Cursor{}.Render(e, Verdict{Decision: Allow, Context: vendor["additional_context"].(string)})
	var got map[string]any
	if err := json.Unmarshal(r.Stdout, &got); err != nil {
		t.Fatal(err)
	}
	if got["additional_context"] != vendor["additional_context"] || len(got) != 1 {
		t.Errorf("got %s, vendor %v", r.Stdout, vendor)
	}
}

func cursorReadHooks(t *testing.T, path string) map[string]any {
	t.Helper()
	var doc map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func TestCursorInstall(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, CursorHooksFile)
	// The vendor's hooks.json: many hooks, one on preToolUse already.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	vendor := readFixture(t, "cursor/config/hooks-1.json")
	if err := os.WriteFile(path, vendor, 0o644); err != nil {
		t.Fatal(err)
	}
	var before map[string]any
	_ = json.Unmarshal(vendor, &before)

	files, err := Cursor{}.Install(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != path {
		t.Fatalf("changed %v", files)
	}
	doc := cursorReadHooks(t, path)
	if doc["version"] != float64(1) {
		t.Errorf("version %v", doc["version"])
	}
	hooks := doc["hooks"].(map[string]any)
	// Every vendor entry is still there, first, unchanged.
	for ev, list := range before["hooks"].(map[string]any) {
		old := list.([]any)
		got, _ := hooks[ev].([]any)
		if len(got) < len(old) {
			t.Errorf("%s lost entries: %v", ev, got)
			continue
		}
		oj, _ := json.Marshal(old)
		gj, _ := json.Marshal(got[:len(old)])
		if !bytes.Equal(oj, gj) {
			t.Errorf("%s: %s, was %s", ev, gj, oj)
		}
	}
	for _, ev := range (Cursor{}).Events() {
		ours := 0
		for _, entry := range hooks[ev].([]any) {
			if cursorRunsAgentShell(entry) {
				ours++
				m := entry.(map[string]any)
				if m["command"] != "agent-shell hook --agent=cursor" || m["timeout"] != float64(10) {
					t.Errorf("%s: entry %v", ev, m)
				}
			}
		}
		if ours != 1 {
			t.Errorf("%s: %d agent-shell entries, want 1", ev, ours)
		}
	}
	if n := len(hooks["preToolUse"].([]any)); n != 2 {
		t.Errorf("preToolUse has %d entries, want the vendor's and ours", n)
	}

	first, _ := os.ReadFile(path)
	files, err = Cursor{}.Install(root)
	if err != nil || len(files) != 0 {
		t.Fatalf("second run: %v, %v", files, err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(first, again) {
		t.Error("second run rewrote the file")
	}
}

func TestCursorInstallNewFile(t *testing.T) {
	root := t.TempDir()
	files, err := Cursor{}.Install(root)
	if err != nil || len(files) != 1 {
		t.Fatalf("%v, %v", files, err)
	}
	doc := cursorReadHooks(t, files[0])
	if doc["version"] != float64(1) || len(doc["hooks"].(map[string]any)) != len(Cursor{}.Events()) {
		t.Errorf("wrote %v", doc)
	}
}

func TestCursorInstallKeepsAnotherVersion(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, CursorHooksFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version": 2, "hooks": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (Cursor{}).Install(root); err != nil {
		t.Fatal(err)
	}
	if v := cursorReadHooks(t, path)["version"]; v != float64(2) {
		t.Errorf("version %v, want the file's own 2", v)
	}
}

func TestCursorInstallRefusesToClobber(t *testing.T) {
	tests := []struct{ name, content, err string }{
		{"not json", "version: 1\n", "not a JSON object"},
		{"truncated", `{"version": 1, "hooks": {`, "not a JSON object"},
		{"hooks not an object", `{"version":1,"hooks":[]}`, `"hooks" is not an object`},
		{"event not a list", `{"version":1,"hooks":{"postToolUse":{"command":"x"}}}`, "hooks.postToolUse is not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, CursorHooksFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := Cursor{}.Install(root)
			if err == nil || !strings.Contains(err.Error(), tt.err) || len(files) != 0 {
				t.Errorf("files %v, err %v; want an error mentioning %q", files, err, tt.err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("file changed to %s", got)
			}
		})
	}
}
