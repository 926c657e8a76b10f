package mcpserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMCPClient drives agent-shell-net mcp with the official TypeScript MCP SDK
// (@modelcontextprotocol/sdk, installed from npm into a temporary folder):
// it lists the tools and calls each, and the results are checked here.
func TestMCPClient(t *testing.T) {
	if testing.Short() {
		t.Skip("installs an npm package")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP client test needs node and npm")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the MCP client test needs node and npm")
	}

	tmp := t.TempDir()
	// The client: the official SDK from npm.
	clientDir := filepath.Join(tmp, "client")
	must(t, os.MkdirAll(clientDir, 0o755))
	must(t, os.WriteFile(filepath.Join(clientDir, "package.json"), []byte(`{"name":"mcp-client-test","private":true,"type":"module"}`), 0o644))
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "@modelcontextprotocol/sdk@^1")
	install.Dir = clientDir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install @modelcontextprotocol/sdk: %v\n%s", err, out)
	}
	src, err := os.ReadFile("testdata/client.mjs")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(clientDir, "client.mjs"), src, 0o644))

	// The server.
	server := filepath.Join(tmp, "agent-shell-net")
	build := exec.Command("go", "build", "-o", server, "github.com/agent-shell/agent-shell/cmd/agent-shell-net")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// The project: a Go module and an npm package with CI, a policy, and
	// two recorded sessions.
	repo := filepath.Join(tmp, "repo")
	files := map[string]string{
		".git/HEAD":                             "ref: refs/heads/main\n",
		"go.mod":                                "module example.com/x\n\ngo 1.22\n",
		"package.json":                          `{"name":"web","scripts":{"test":"vitest run","lint":"eslint .","deploy":"./deploy.sh"}}`,
		"package-lock.json":                     `{"lockfileVersion":3}`,
		".github/workflows/ci.yml":              "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: go test ./...\n      - run: npm ci\n",
		".github/hooks/agent-shell/policy.json": `{"allow":["go test*","npm test"],"deny":["git push --force*"]}`,
		".agent-shell/events/alpha.jsonl": `{"v":1,"session_id":"alpha","event":"script_end","command":"npm test","actor":"claude-code","exit_code":1,"signal":null,"duration_ms":1234,"timestamp":"2020-05-01T10:00:00.000Z","env":{},"tags":{},"script":"test","seq":1}
{"v":1,"session_id":"alpha","event":"policy_decision","command":"git push --force origin main","decision":"deny","matched_rule":"no-force-push","actor":"claude-code","timestamp":"2020-05-01T10:00:02.000Z","env":{},"tags":{},"seq":2}
`,
		".agent-shell/events/gamma.jsonl": `{"v":1,"session_id":"gamma","event":"tool_use","tool_name":"edit","command":"","actor":"codex","timestamp":"2020-05-01T11:00:00Z","env":{},"tags":{}}
`,
	}
	for name, body := range files {
		p := filepath.Join(repo, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}

	calls := []map[string]any{
		{"label": "explain-deny", "tool": "explain_policy", "arguments": map[string]any{"command": "git push --force origin main"}},
		{"label": "explain-allow", "tool": "explain_policy", "arguments": map[string]any{"command": "go test ./...", "agent": "claude"}},
		{"label": "explain-empty", "tool": "explain_policy", "arguments": map[string]any{"command": ""}},
		{"label": "log-all", "tool": "query_log", "arguments": map[string]any{}},
		{"label": "log-failures", "tool": "query_log", "arguments": map[string]any{"failures": true, "actor": "claude"}},
		{"label": "log-limit", "tool": "query_log", "arguments": map[string]any{"limit": 1}},
		{"label": "log-bad-limit", "tool": "query_log", "arguments": map[string]any{"limit": 100000}},
		{"label": "loops", "tool": "discover_feedback_loops", "arguments": map[string]any{}},
		{"label": "env", "tool": "discover_environment", "arguments": map[string]any{}},
	}
	callsFile := filepath.Join(tmp, "calls.json")
	b, err := json.Marshal(calls)
	must(t, err)
	must(t, os.WriteFile(callsFile, b, 0o644))

	cmd := exec.Command(node, filepath.Join(clientDir, "client.mjs"), server, callsFile, repo, "mcp", "--version", "test")
	cmd.Dir = clientDir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"), "AGENTSHELL_LOG_DIR=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\nstderr: %s", err, stderr.String())
	}
	var got struct {
		Server struct{ Name, Version string }
		Tools  []struct {
			Name     string
			ReadOnly bool
			Input    []string
		}
		Results map[string]struct {
			IsError           bool
			Content           []struct{ Type, Text string }
			StructuredContent json.RawMessage
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if got.Server.Name != "agent-shell" || got.Server.Version != "test" {
		t.Errorf("server = %+v", got.Server)
	}

	var names []string
	for _, tl := range got.Tools {
		names = append(names, tl.Name)
		if !tl.ReadOnly {
			t.Errorf("tool %s is not annotated read-only", tl.Name)
		}
		if tl.Name == "explain_policy" && !slices.Equal(sorted(tl.Input), []string{"agent", "command", "cwd"}) {
			t.Errorf("explain_policy input = %v", tl.Input)
		}
	}
	if want := []string{"discover_environment", "discover_feedback_loops", "explain_policy", "query_log"}; !slices.Equal(sorted(names), want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}

	result := func(label string, v any) {
		t.Helper()
		r, ok := got.Results[label]
		if !ok {
			t.Fatalf("no result for %s", label)
		}
		if r.IsError {
			t.Fatalf("%s: error: %+v", label, r.Content)
		}
		if err := json.Unmarshal(r.StructuredContent, v); err != nil {
			t.Fatalf("%s: %v: %s", label, err, r.StructuredContent)
		}
	}
	type explanation struct {
		Command, Decision, Rule, Reason string
		Commands                        []struct {
			Argv    []string
			Effects []string
			Matches []struct{ Action, Source, Rule string }
			Action  string
		}
	}
	var deny explanation
	result("explain-deny", &deny)
	if deny.Decision != "deny" || deny.Command != "git push --force origin main" || len(deny.Commands) != 1 ||
		!slices.Equal(deny.Commands[0].Argv, []string{"git", "push", "--force", "origin", "main"}) || len(deny.Commands[0].Matches) == 0 {
		t.Errorf("explain deny = %+v", deny)
	}
	var allow explanation
	result("explain-allow", &allow)
	if allow.Decision != "allow" || len(allow.Commands) != 1 || allow.Commands[0].Action != "allow" {
		t.Errorf("explain allow = %+v", allow)
	}
	if r := got.Results["explain-empty"]; !r.IsError || len(r.Content) == 0 || !strings.Contains(r.Content[0].Text, "command is empty") {
		t.Errorf("explain with no command = %+v, want an error", r)
	}

	type logResult struct {
		Events    []map[string]any
		Matched   int
		Truncated bool
	}
	var all logResult
	result("log-all", &all)
	if all.Matched != 3 || all.Truncated || len(all.Events) != 3 || all.Events[0]["session_id"] != "alpha" || all.Events[2]["session_id"] != "gamma" {
		t.Errorf("query_log {} = %+v", all)
	}
	var failures logResult
	result("log-failures", &failures)
	if failures.Matched != 2 || len(failures.Events) != 2 || failures.Events[1]["decision"] != "deny" {
		t.Errorf("query_log failures = %+v", failures)
	}
	var limited logResult
	result("log-limit", &limited)
	if limited.Matched != 3 || !limited.Truncated || len(limited.Events) != 1 || limited.Events[0]["session_id"] != "gamma" {
		t.Errorf("query_log limit 1 = %+v", limited)
	}
	if r := got.Results["log-bad-limit"]; !r.IsError || !strings.Contains(r.Content[0].Text, "limit: want 1 to 500") {
		t.Errorf("query_log limit 100000 = %+v, want an error", r)
	}

	var loops struct {
		Commands []struct {
			Command, Category string
			Proposed          bool
			Sources           []string
		}
	}
	result("loops", &loops)
	found := map[string]string{}
	for _, c := range loops.Commands {
		if c.Proposed {
			found[c.Command] = c.Category + " from " + strings.Join(c.Sources, ",")
		}
	}
	for cmd, want := range map[string]string{"go test ./...": "test from ", "npm test": "test from package.json", "npm run lint": "lint from package.json"} {
		if !strings.HasPrefix(found[cmd], want) {
			t.Errorf("feedback loop %q = %q, want %q...; all: %v", cmd, found[cmd], want, found)
		}
	}

	var env struct {
		Toolchains     []struct{ Name, Evidence string }
		PackageManager struct{ Name, From, Lockfile string } `json:"package_manager"`
		Workspaces     []struct {
			Dir     string
			Scripts []string
		}
		CI []struct {
			File     string
			Commands int
		}
	}
	result("env", &env)
	var langs []string
	for _, l := range env.Toolchains {
		langs = append(langs, l.Name)
	}
	if !slices.Contains(langs, "go") || !slices.Contains(langs, "node") {
		t.Errorf("toolchains = %v", langs)
	}
	if env.PackageManager.Name != "npm" || env.PackageManager.Lockfile != "package-lock.json" {
		t.Errorf("package manager = %+v", env.PackageManager)
	}
	if len(env.Workspaces) != 1 || env.Workspaces[0].Dir != "." || len(env.Workspaces[0].Scripts) != 3 {
		t.Errorf("workspaces = %+v", env.Workspaces)
	}
	if len(env.CI) != 1 || env.CI[0].File != ".github/workflows/ci.yml" || env.CI[0].Commands != 2 {
		t.Errorf("ci = %+v", env.CI)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
