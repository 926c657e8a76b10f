package policy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// TestPostToolResultEveryHost reads every registered host's shell
// post-tool fixture (the hosts' own payloads, in hostapi's testdata) with
// PostToolResult: the output, the exit status and the error must be read
// in that host's shape. A host added to the registry must be added here,
// with its fixture or the reason it has none.
func TestPostToolResultEveryHost(t *testing.T) {
	type want struct {
		fixture, stdout, stderr string
		status                  int
	}
	hosts := map[string][]want{
		// Amp's delegate is called before a tool runs, never after.
		"amp": nil,
		"claude": {
			{fixture: "claude/PostToolUse-2.json", stdout: "All tests passed", stderr: "npm warn config production Use `--omit=dev` instead."},
			// The failure's error is what the model sees; its first line
			// is the exit code.
			{fixture: "claude/PostToolUseFailure-1.json", stdout: "Exit code 1\nError: Cannot find module 'express'", status: 1},
		},
		"codex":    {{fixture: "codex/PostToolUse-1.json", stdout: "hello\n"}},
		"copilot":  {{fixture: "copilot/postToolUse-1.json", stdout: "All tests passed (15/15)"}},
		"cursor":   {{fixture: "cursor/postToolUse-2.json", stdout: "All tests passed"}},
		"gemini":   {{fixture: "gemini/AfterTool-1.json", stdout: "Command: echo hello\nOutput: hello\nExit Code: 0"}},
		"opencode": {{fixture: "opencode/tool.execute.after-1.json", stdout: "> test\n> node --test\n\n# pass 12\n"}},
	}
	for _, name := range hostapi.Names() {
		cases, ok := hosts[name]
		if !ok {
			t.Errorf("host %s has no post-tool case here: add its shell post-tool fixture", name)
			continue
		}
		ad, _ := hostapi.ByName(name, noEnv)
		if len(cases) == 0 {
			for _, native := range ad.Events() {
				ev, err := ad.Parse([]byte(`{}`), native)
				if err == nil && ev.Kind == hostapi.KindPostTool {
					t.Errorf("host %s has a post-tool event %s but no case here", name, native)
				}
			}
		}
		for _, w := range cases {
			t.Run(w.fixture, func(t *testing.T) {
				payload, err := os.ReadFile(filepath.Join("..", "hostapi", "testdata", filepath.FromSlash(w.fixture)))
				if err != nil {
					t.Fatal(err)
				}
				ev, err := ad.Parse(payload, "")
				if err != nil {
					t.Fatal(err)
				}
				r, ok := PostToolResult(ev)
				if !ok {
					t.Fatalf("no result read from %s", w.fixture)
				}
				if r.Stdout != w.stdout || r.Stderr != w.stderr || r.Status != w.status || r.Signaled {
					t.Errorf("read stdout %q stderr %q status %d, want %q %q %d", r.Stdout, r.Stderr, r.Status, w.stdout, w.stderr, w.status)
				}
				if len(r.Argv) == 0 || !slices.Contains(r.Argv, "test") && !slices.Contains(r.Argv, "hello") {
					t.Errorf("argv %q: not the fixture's command", r.Argv)
				}
			})
		}
	}
	// A post-tool event of another tool is no command result.
	ad, _ := hostapi.ByName("claude", noEnv)
	payload, err := os.ReadFile(filepath.Join("..", "hostapi", "testdata", "claude", "PostToolUse-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := ad.Parse(payload, ""); err != nil {
		t.Fatal(err)
	} else if _, ok := PostToolResult(ev); ok {
		t.Error("Write's post-tool event read as a command result")
	}
}
