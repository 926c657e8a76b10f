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

// Gemini adds fields and events often: none of them may
// fail a parse or get lost on the way to the recorder.
func TestGeminiDrift(t *testing.T) {
	t.Run("unknown event", func(t *testing.T) {
		p := `{"session_id":"s1","cwd":"/w","hook_event_name":"BeforeToolSelection","timestamp":"2026-07-25T15:07:15Z",
			"llm_request":{"model":"gemini-3","messages":[]},"brand_new":{"nested":[1,2]}}`
		e, err := Gemini{}.Parse([]byte(p), "")
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != KindUnknown || e.NativeEvent != "BeforeToolSelection" || e.SessionID != "s1" || e.Cwd != "/w" {
			t.Errorf("parsed %+v", e)
		}
		for _, k := range []string{"llm_request", "brand_new", "timestamp"} {
			if _, ok := e.Meta[k]; !ok {
				t.Errorf("Meta lacks %q: %v", k, e.Meta)
			}
		}
		if got := string(e.Meta["brand_new"]); got != `{"nested":[1,2]}` {
			t.Errorf("brand_new = %s", got)
		}
		if r := (Gemini{}).Render(e, Verdict{Decision: Deny, Reason: "x"}); string(r.Stdout) != "{}\n" || r.Exit != 0 {
			t.Errorf("an unknown event is observe-only, got %+v", r)
		}
	})
	t.Run("unknown fields on a known event", func(t *testing.T) {
		p := `{"session_id":"s1","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"t","tool_name":"run_shell_command",
			"tool_input":{"command":"ls","is_background":false,"future_arg":{"deep":"kept"}},"sandbox_profile":"strict"}`
		e, err := Gemini{}.Parse([]byte(p), "")
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind != KindPreTool || e.Tool != ToolBash || e.Command != "ls" || e.CommandErr != nil {
			t.Errorf("parsed %+v", e)
		}
		if string(e.Meta["sandbox_profile"]) != `"strict"` {
			t.Errorf("Meta %v lacks sandbox_profile", e.Meta)
		}
		var in map[string]any
		if err := json.Unmarshal(e.Input, &in); err != nil {
			t.Fatal(err)
		}
		if deep, _ := in["future_arg"].(map[string]any); deep["deep"] != "kept" || in["is_background"] != false {
			t.Errorf("Input lost nested fields: %s", e.Input)
		}
	})
}

func TestGeminiParseErrors(t *testing.T) {
	tests := []struct {
		name, payload, event string
		want                 error
	}{
		{"not json", `nope`, "", ErrInvalidJSON},
		{"array", `[1]`, "", ErrInvalidJSON},
		{"null", `null`, "", ErrInvalidJSON},
		{"no event name", `{"tool_name":"run_shell_command","tool_input":{"command":"ls"}}`, "", errNoEvent},
		{"event name not a string", `{"hook_event_name":7}`, "", errNoEvent},
		{"empty event name", `{"hook_event_name":""}`, "BeforeTool", errNoEvent},
		{"tool event without a tool", `{"hook_event_name":"BeforeTool","tool_input":{}}`, "", ErrInvalidToolName},
		{"tool name not a string", `{"hook_event_name":"AfterTool","tool_name":["x"]}`, "", ErrInvalidToolName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := (Gemini{}).Parse([]byte(tt.payload), tt.event); !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
	// The event named by the registration stands in for a missing field.
	e, err := Gemini{}.Parse([]byte(`{"tool_name":"read_file","tool_input":{"absolute_path":"/a"}}`), "BeforeTool")
	if err != nil || e.Kind != KindPreTool || e.Tool != ToolRead {
		t.Errorf("parsed %+v, %v", e, err)
	}
}

func TestGeminiShellCommand(t *testing.T) {
	tests := []struct {
		name, input string
		command     string
		err         error
	}{
		{"object", `"tool_input":{"command":"git status","description":"d"}`, "git status", nil},
		{"no input", ``, "", errShellInputMissing},
		{"input a list", `"tool_input":["ls"]`, "", errShellInputNotObject},
		{"input null", `"tool_input":null`, "", errShellInputNotObject},
		{"no command", `"tool_input":{"dir_path":"/"}`, "", errShellCommandMissing},
		{"command not a string", `"tool_input":{"command":["rm","-rf","/"]}`, "", errShellCommandType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command"`
			if tt.input != "" {
				p += "," + tt.input
			}
			e, err := Gemini{}.Parse([]byte(p+"}"), "")
			if err != nil {
				t.Fatal(err)
			}
			if e.Command != tt.command || !errors.Is(e.CommandErr, tt.err) {
				t.Errorf("command %q err %v, want %q %v", e.Command, e.CommandErr, tt.command, tt.err)
			}
		})
	}
}

// Our deny is the vendor's deny body, on stdout with exit 0.
func TestGeminiDenyMatchesVendor(t *testing.T) {
	var vendor map[string]any
	if err := json.Unmarshal(readFixture(t, "gemini/output/deny-1.json"), &vendor); err != nil {
		t.Fatal(err)
	}
	e, err := Gemini{}.Parse(readFixture(t, "gemini/BeforeTool-2.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	r := Gemini{}.Render(e, Verdict{Decision: Deny, Reason: vendor["reason"].(string)})
	var got map[string]any
	if err := json.Unmarshal(r.Stdout, &got); err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	vj, _ := json.Marshal(vendor)
	if !bytes.Equal(gj, vj) || r.Exit != 0 || len(r.Stderr) != 0 {
		t.Errorf("deny %s exit %d, vendor %s", gj, r.Exit, vj)
	}
}

func TestGeminiFailure(t *testing.T) {
	err := errors.New("policy load error")
	if r := (Gemini{}).Failure(nil, err); string(r.Stdout) != `{"decision":"deny","reason":"policy load error"}`+"\n" || r.Exit != 0 {
		t.Errorf("unreadable call: %+v", r)
	}
	// Only a tool call is denied: a broken agent-shell must not discard prompts.
	for _, k := range []Kind{KindPostTool, KindPrompt, KindSessionStart, KindUnknown} {
		if r := (Gemini{}).Failure(&Event{Kind: k}, err); string(r.Stdout) != "{}\n" || r.Exit != 0 {
			t.Errorf("%s: %+v", k, r)
		}
	}
}

// A rewrite is applied only when Gemini's merge yields it exactly.
func TestGeminiMergeable(t *testing.T) {
	tests := []struct {
		original, updated string
		want              bool
	}{
		{`{"command":"a","description":"d"}`, `{"command":"b","description":"d"}`, true},
		{`{"command":"a"}`, `{"command":"b","dir_path":"/w"}`, true},
		{``, `{"command":"b"}`, true},
		{`{"command":"a","description":"d"}`, `{"command":"b"}`, false},
		{`{"command":"a"}`, `["b"]`, false},
		{`{"command":"a"}`, `null`, false},
		{`"not an object"`, `{"command":"b"}`, false},
	}
	for _, tt := range tests {
		if got := geminiMergeable(json.RawMessage(tt.original), json.RawMessage(tt.updated)); got != tt.want {
			t.Errorf("geminiMergeable(%s, %s) = %v", tt.original, tt.updated, got)
		}
	}
}

func geminiReadSettings(t *testing.T, path string) map[string]any {
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

func TestGeminiInstall(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, GeminiSettingsFile)
	// The vendor's settings with another BeforeTool hook, plus unrelated
	// settings and the reserved keys inside "hooks".
	var existing map[string]any
	if err := json.Unmarshal(readFixture(t, "gemini/config-settings-BeforeTool-1.json"), &existing); err != nil {
		t.Fatal(err)
	}
	existing["theme"] = "GitHub"
	existing["general"] = map[string]any{"vimMode": true}
	existing["hooks"].(map[string]any)["disabled"] = []any{"security-check"}
	data, _ := json.MarshalIndent(existing, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	files, err := Gemini{}.Install(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0] != path {
		t.Fatalf("changed %v", files)
	}
	doc := geminiReadSettings(t, path)
	if doc["theme"] != "GitHub" || doc["general"].(map[string]any)["vimMode"] != true {
		t.Errorf("other settings lost: %v", doc)
	}
	hooks := doc["hooks"].(map[string]any)
	if d, _ := hooks["disabled"].([]any); len(d) != 1 || d[0] != "security-check" {
		t.Errorf("hooks.disabled lost: %v", hooks["disabled"])
	}
	before := hooks["BeforeTool"].([]any)
	if len(before) != 2 || before[0].(map[string]any)["matcher"] != "write_file|replace" {
		t.Fatalf("BeforeTool = %v", before)
	}
	for _, ev := range (Gemini{}).Events() {
		groups, _ := hooks[ev].([]any)
		ours := 0
		for _, g := range groups {
			if !geminiRunsAgentShell(g) {
				continue
			}
			ours++
			h := g.(map[string]any)["hooks"].([]any)[0].(map[string]any)
			if h["command"] != "agent-shell hook --agent=gemini" || h["type"] != "command" || h["timeout"] != float64(10000) {
				t.Errorf("%s: hook %v", ev, h)
			}
		}
		if ours != 1 {
			t.Errorf("%s: %d agent-shell hooks, want 1", ev, ours)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode changed: %v %v", fi.Mode(), err)
	}

	// A second run finds everything registered and changes nothing.
	first, _ := os.ReadFile(path)
	files, err = Gemini{}.Install(root)
	if err != nil || len(files) != 0 {
		t.Fatalf("second run: %v, %v", files, err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(first, again) {
		t.Error("second run rewrote the file")
	}
}

func TestGeminiInstallNewFile(t *testing.T) {
	root := t.TempDir()
	files, err := Gemini{}.Install(root)
	if err != nil || len(files) != 1 {
		t.Fatalf("%v, %v", files, err)
	}
	hooks := geminiReadSettings(t, files[0])["hooks"].(map[string]any)
	if len(hooks) != 4 {
		t.Errorf("hooks %v", hooks)
	}
	// Tool events match every tool; lifecycle events take no matcher.
	if m := hooks["BeforeTool"].([]any)[0].(map[string]any)["matcher"]; m != "*" {
		t.Errorf("BeforeTool matcher %v", m)
	}
	if _, ok := hooks["SessionStart"].([]any)[0].(map[string]any)["matcher"]; ok {
		t.Error("SessionStart has a matcher")
	}
}

func TestGeminiInstallRefusesToClobber(t *testing.T) {
	tests := []struct{ name, content, err string }{
		{"not json", "{\n  // comments are not JSON\n  \"theme\": \"x\"\n}\n", "not a JSON object"},
		{"a list", `[1,2]`, "not a JSON object"},
		{"hooks not an object", `{"hooks":["x"]}`, `"hooks" is not an object`},
		{"event not a list", `{"hooks":{"BeforeTool":{"command":"x"}}}`, "hooks.BeforeTool is not a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, GeminiSettingsFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := Gemini{}.Install(root)
			if err == nil || !strings.Contains(err.Error(), tt.err) || len(files) != 0 {
				t.Errorf("files %v, err %v; want an error mentioning %q", files, err, tt.err)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("file changed to %s", got)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp")); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// Gemini's shell tool runs in tool_input.directory (dir_path in later
// versions), relative to the project: the event's cwd is that directory,
// so that a command is judged where it runs.
func TestGeminiShellDirectory(t *testing.T) {
	parse := func(input string) *Event {
		t.Helper()
		e, err := Gemini{}.Parse([]byte(`{"session_id":"s","hook_event_name":"BeforeTool","cwd":"/w","timestamp":"2026-01-01T00:00:00Z",`+
			`"tool_name":"run_shell_command","tool_input":`+input+`}`), "")
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	for input, want := range map[string]string{
		`{"command":"rm -rf agent-shell","directory":".github/hooks"}`: "/w/.github/hooks",
		`{"command":"ls","dir_path":"sub/dir"}`:                        "/w/sub/dir",
		`{"command":"ls","directory":"/abs"}`:                          "/abs",
		`{"command":"ls"}`:                                             "/w",
		`{"command":"ls","directory":""}`:                              "/w",
	} {
		if e := parse(input); e.CommandErr != nil || e.Cwd != want {
			t.Errorf("%s: cwd %q (%v), want %q", input, e.Cwd, e.CommandErr, want)
		}
	}
	if e := parse(`{"command":"ls","directory":7}`); e.CommandErr == nil {
		t.Error("a directory that is not a string was accepted")
	}
}
