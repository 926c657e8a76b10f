package hostapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func codexParse(t *testing.T, payload, native string) *Event {
	t.Helper()
	e, err := Codex{}.Parse([]byte(payload), native)
	if err != nil {
		t.Fatalf("Parse(%s): %v", payload, err)
	}
	return e
}

// TestCodexDrift: Codex changes its hooks every few weeks; new fields and
// events parse, and what the contract does not model is kept.
func TestCodexDrift(t *testing.T) {
	t.Run("unknown event", func(t *testing.T) {
		e := codexParse(t, `{"session_id":"s-1","turn_id":"t-1","cwd":"/w","hook_event_name":"PostCompact","model":"gpt-6","trigger":"auto","summary":{"tokens":12}}`, "")
		if e.Kind != KindUnknown || e.NativeEvent != "PostCompact" || e.SessionID != "s-1" || e.Cwd != "/w" {
			t.Fatalf("parsed %+v", e)
		}
		for _, k := range []string{"turn_id", "model", "trigger", "summary"} {
			if _, ok := e.Meta[k]; !ok {
				t.Errorf("Meta lacks %q: %v", k, e.Meta)
			}
		}
		if r := (Codex{}).Render(e, Verdict{Decision: Deny, Reason: "x"}); len(r.Stdout) != 0 || r.Exit != 0 {
			t.Errorf("an unknown event is observe-only, rendered %+v", r)
		}
	})
	t.Run("unknown fields on a known event", func(t *testing.T) {
		p := `{"session_id":"s-1","hook_event_name":"PreToolUse","tool_name":"Bash","sandbox_policy":{"mode":"workspace-write"},
			"tool_input":{"command":["git","status"],"workdir":"/w","justification":{"why":"check"}},"tool_use_id":"exec-1"}`
		e := codexParse(t, p, "")
		if e.Kind != KindPreTool || e.Command != "git status" || e.CommandErr != nil {
			t.Fatalf("parsed %+v", e)
		}
		if got := string(e.Meta["sandbox_policy"]); got != `{"mode":"workspace-write"}` {
			t.Errorf("Meta[sandbox_policy] = %s", got)
		}
		var in map[string]json.RawMessage
		if err := json.Unmarshal(e.Input, &in); err != nil {
			t.Fatal(err)
		}
		if string(in["workdir"]) != `"/w"` || string(in["justification"]) != `{"why":"check"}` || string(in["command"]) != `["git","status"]` {
			t.Errorf("Input lost fields: %s", e.Input)
		}
	})
	t.Run("a subagent's call", func(t *testing.T) {
		e := codexParse(t, `{"hook_event_name":"PostToolUse","tool_name":"mcp__fs__read","tool_input":{},"tool_response":{"ok":true},"agent_id":"a1","agent_type":"worker"}`, "")
		if e.Tool != "mcp__fs__read" || e.Result == nil || e.Meta["agent_id"] == nil {
			t.Errorf("parsed %+v", e)
		}
	})
}

// TestCodexCommand: tool_input.command is a command line or an argv array;
// an argv array reads as the shell-quoted line that runs the same words.
func TestCodexCommand(t *testing.T) {
	tests := []struct {
		name, input, command, err string
	}{
		{"string", `{"command":"echo hello"}`, "echo hello", ""},
		{"argv", `{"command":["ls","-la","src"]}`, "ls -la src", ""},
		{"argv with a script", `{"command":["bash","-lc","rm -rf /"]}`, "bash -lc 'rm -rf /'", ""},
		{"argv with quotes", `{"command":["echo","it's"]}`, `echo 'it'\''s'`, ""},
		{"argv with an empty word", `{"command":["printf","%s",""]}`, "printf %s ''", ""},
		{"argv with expansions", `{"command":["echo","$HOME","~","*.go","a;b"]}`, `echo '$HOME' '~' '*.go' 'a;b'`, ""},
		{"argv with a newline", `{"command":["sh","-c","cd x\nrm -rf y"]}`, "sh -c 'cd x\nrm -rf y'", ""},
		{"argv with non-ASCII", `{"command":["echo","héllo"]}`, "echo 'héllo'", ""},
		{"argv path words", `{"command":["/usr/bin/env","FOO=bar","git","commit","-m","a,b@c:d+e%f"]}`, "/usr/bin/env FOO=bar git commit -m a,b@c:d+e%f", ""},
		{"empty string", `{"command":""}`, "", ""},
		{"empty argv", `{"command":[]}`, "", "empty argv"},
		{"argv of numbers", `{"command":["rm",1]}`, "", "array of strings"},
		{"argv with null", `{"command":["rm",null]}`, "", "array of strings"},
		{"null", `{"command":null}`, "", "array of strings"},
		{"object", `{"command":{"argv":["ls"]}}`, "", "array of strings"},
		{"number", `{"command":5}`, "", "array of strings"},
		{"no command", `{"cmd":"ls"}`, "", "missing command"},
		{"input an array", `["ls"]`, "", "JSON object"},
		{"input null", `null`, "", "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := codexParse(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":`+tt.input+`}`, "")
			if e.Tool != ToolBash || e.Command != tt.command {
				t.Errorf("tool %q command %q, want %q", e.Tool, e.Command, tt.command)
			}
			switch {
			case tt.err == "" && e.CommandErr != nil:
				t.Errorf("unexpected CommandErr %v", e.CommandErr)
			case tt.err != "" && (e.CommandErr == nil || !strings.Contains(e.CommandErr.Error(), tt.err)):
				t.Errorf("CommandErr %v, want one mentioning %q", e.CommandErr, tt.err)
			}
		})
	}
	e := codexParse(t, `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, "")
	if e.CommandErr == nil {
		t.Error("a Bash call without tool_input has no CommandErr")
	}
}

// codexUnquote is a minimal POSIX word splitter for the quoting
// codexShellJoin produces (bare words and single quotes), to check that the
// joined line splits back into the same words.
func codexUnquote(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func TestCodexShellJoinRoundTrips(t *testing.T) {
	for _, argv := range [][]string{
		{"bash", "-lc", "rm -rf / && echo 'done'"},
		{"a b", "", "'", "''", `\`, `"x"`, "$(id)", "`id`", "tab\there"},
		{"plain", "--flag=value", "./path/to.file"},
	} {
		line := codexShellJoin(argv)
		if got := codexUnquote(line); !reflect.DeepEqual(got, argv) {
			t.Errorf("%q splits back into %q, want %q", line, got, argv)
		}
	}
}

func TestCodexApplyPatchIsAnEdit(t *testing.T) {
	e, err := Codex{}.Parse(claudeFixture(t, "codex/PreToolUse-3.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if e.Tool != ToolEdit || e.IsShell() || e.Command != "" || e.CommandErr != nil {
		t.Errorf("apply_patch parsed as tool %q command %q err %v", e.Tool, e.Command, e.CommandErr)
	}
	if !bytes.Contains(e.Input, []byte("*** Begin Patch")) {
		t.Errorf("the patch is not kept in Input: %s", e.Input)
	}
}

func TestCodexRejectsBadPayloads(t *testing.T) {
	tests := []struct {
		name, payload, native string
		want                  error
	}{
		{"not json", `hello`, "", ErrInvalidJSON},
		{"array", `[]`, "", ErrInvalidJSON},
		{"event not named", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, "", errNoEvent},
		{"event name not a string", `{"hook_event_name":["PreToolUse"],"tool_name":"Bash"}`, "", errNoEvent},
		{"tool event without tool_name", `{"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}`, "", ErrInvalidToolName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := (Codex{}).Parse([]byte(tt.payload), tt.native); !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

// TestCodexAnswers holds Codex's rules for a PreToolUse answer (docs/host-protocols.md, "Codex CLI"):
// nothing but a deny with a non-empty reason is ever written, in the shape
// of the vendor's accepted deny; never an ask, a bare allow, an
// updatedInput, or universal fields, all of which Codex rejects and then
// runs the tool.
func TestCodexAnswers(t *testing.T) {
	c := Codex{}
	e, err := c.Parse(claudeFixture(t, "codex/PreToolUse-1.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	verdicts := []Verdict{
		{Decision: Deny, Reason: "do not run that"},
		{Decision: Deny},
		{Decision: Deny, Reason: "\n\t "},
		{Decision: Ask},
		{Decision: Ask, Reason: "network"},
		{Decision: Allow, UpdatedInput: json.RawMessage(`{"command":"echo hi"}`), SoleGate: true},
		{Decision: Allow, UpdatedInput: json.RawMessage(`{"not_a_command":1}`)},
		{Decision: Deny, Reason: "no", Context: "extra"},
	}
	for _, v := range verdicts {
		r := c.Render(e, v)
		if r.Exit != 0 || len(r.Stderr) != 0 {
			t.Errorf("%+v: exit %d stderr %q", v, r.Exit, r.Stderr)
		}
		var out struct {
			HookSpecificOutput map[string]string `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(r.Stdout, &out); err != nil {
			t.Fatalf("%+v: %q: %v", v, r.Stdout, err)
		}
		h := out.HookSpecificOutput
		if strings.TrimSpace(h["permissionDecisionReason"]) == "" || strings.HasSuffix(h["permissionDecisionReason"], ": ") {
			t.Errorf("%+v: reason %q", v, h["permissionDecisionReason"])
		}
		// Apart from its reason, the answer is the vendor's accepted deny.
		h["permissionDecisionReason"] = "do not run that"
		same, _ := json.Marshal(out)
		claudeSubsetOf(t, same, "codex/output/PreToolUse-deny-1.json")
		if len(h) != 3 {
			t.Errorf("%+v: answered %s", v, r.Stdout)
		}
	}
	for _, v := range []Verdict{{Decision: Allow}, {Decision: Allow, SoleGate: true, Reason: "ok"}, {Decision: Allow, Context: "c"}} {
		if r := c.Render(e, v); len(r.Stdout) != 0 || len(r.Stderr) != 0 || r.Exit != 0 {
			t.Errorf("%+v: an allow must abstain, answered %+v", v, r)
		}
	}
	if cov := c.Coverage(KindPreTool); cov.NativeAsk || cov.UpdatedInput || cov.Context || !cov.Deny {
		t.Errorf("pre-tool coverage %+v", cov)
	}
}

func TestCodexFailure(t *testing.T) {
	c := Codex{}
	r := c.Failure(nil, errors.New(""))
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked by agent-shell policy"}}` + "\n"
	if string(r.Stdout) != want || r.Exit != 0 {
		t.Errorf("Failure(nil) = %q exit %d, want %q", r.Stdout, r.Exit, want)
	}
	e := codexParse(t, string(claudeFixture(t, "codex/PostToolUse-1.json")), "")
	if r := c.Failure(e, errors.New("boom")); len(r.Stdout) != 0 || r.Exit != 0 {
		t.Errorf("Failure(PostToolUse) = %+v, want no answer", r)
	}
	big := strings.Repeat("x", 1<<20)
	if r := c.Failure(nil, errors.New(big)); !bytes.Contains(r.Stdout, []byte(big)) {
		t.Error("a large deny reason was truncated")
	}
}

const codexHooks = `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "^Bash$", "hooks": [{"type": "command", "command": "python3 ~/.codex/hooks/guard.py", "timeout": 5}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "cat AGENTS.local.md"}]}
    ]
  },
  "x-team": {"owner": "platform"}
}
`

func TestCodexInstall(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".codex", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(codexHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := Codex{}.Install(root)
	if err != nil || len(changed) != 1 || changed[0] != path {
		t.Fatalf("changed %v, %v", changed, err)
	}
	doc := claudeReadJSON(t, path)
	var before map[string]any
	_ = json.Unmarshal([]byte(codexHooks), &before)
	if !reflect.DeepEqual(doc["x-team"], before["x-team"]) {
		t.Errorf("x-team changed: %v", doc["x-team"])
	}
	hooks := doc["hooks"].(map[string]any)
	old := before["hooks"].(map[string]any)
	for _, ev := range []string{"PreToolUse", "SessionStart"} {
		list := hooks[ev].([]any)
		if len(list) != 2 || !reflect.DeepEqual(list[0], old[ev].([]any)[0]) {
			t.Errorf("%s: the existing group was not kept first: %v", ev, list)
		}
	}
	cmd := HookCommand + "codex"
	for _, ev := range (Codex{}).Events() {
		n, group := claudeCountOurs(t, doc, ev, cmd)
		if n != 1 {
			t.Errorf("%s: %d agent-shell groups, want 1", ev, n)
			continue
		}
		tool := ev == "PreToolUse" || ev == "PostToolUse"
		if m, ok := group["matcher"]; tool != ok || (tool && m != "*") {
			t.Errorf("%s: matcher %v (present %v)", ev, m, ok)
		}
		// Codex's default timeout is 600 s; every registration sets one.
		if h := group["hooks"].([]any)[0].(map[string]any); h["type"] != "command" || h["timeout"] != float64(10) {
			t.Errorf("%s: handler %v", ev, h)
		}
	}

	data, _ := os.ReadFile(path)
	changed, err = Codex{}.Install(root)
	if err != nil || len(changed) != 0 {
		t.Fatalf("second run: changed %v, %v", changed, err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
		t.Error("second run rewrote the file")
	}
}

func TestCodexInstallLeavesBadFilesAlone(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, CodexHooksFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	content := "{\"hooks\": {\"PreToolUse\": [\n" // cut short
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := Codex{}.Install(root)
	if err == nil || len(changed) != 0 || !strings.Contains(err.Error(), path) {
		t.Fatalf("changed %v, err %v: want an error naming the file", changed, err)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("file changed to %q", got)
	}
}
