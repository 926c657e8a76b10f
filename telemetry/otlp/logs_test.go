package otlp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func lineOf(t *testing.T, raw string) *Line {
	t.Helper()
	lines, _, err := readFileFromString(t, raw+"\n")
	if err != nil || len(lines) != 1 {
		t.Fatalf("read: %v, %d lines", err, len(lines))
	}
	return &lines[0]
}

// TestRecordGolden holds the mapping of one event to a log record.
func TestRecordGolden(t *testing.T) {
	l := lineOf(t, `{"v":1,"session_id":"s1","event":"script_end","command":"vitest run","actor":"claude-code","exit_code":1,"signal":null,"duration_ms":2311,"timestamp":"2026-11-29T12:00:00.000Z","env":{"USER":"ada"},"tags":{},"agent":"claude","request_id":"toolu_1","rule":"tests","seq":4,"prev_sha256":"9b0e"}`)
	r := Record(l, time.Unix(1800000000, 5))
	got, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"timeUnixNano":"1795953600000000000","observedTimeUnixNano":"1800000000000000005","severityNumber":13,"severityText":"WARN",` +
		`"body":{"stringValue":"{\"v\":1,\"session_id\":\"s1\",\"event\":\"script_end\",\"command\":\"vitest run\",\"actor\":\"claude-code\",\"exit_code\":1,\"signal\":null,\"duration_ms\":2311,\"timestamp\":\"2026-11-29T12:00:00.000Z\",\"env\":{\"USER\":\"ada\"},\"tags\":{},\"agent\":\"claude\",\"request_id\":\"toolu_1\",\"rule\":\"tests\",\"seq\":4,\"prev_sha256\":\"9b0e\"}"},` +
		`"attributes":[` +
		`{"key":"agent_shell.event","value":{"stringValue":"script_end"}},` +
		`{"key":"agent_shell.session_id","value":{"stringValue":"s1"}},` +
		`{"key":"agent_shell.seq","value":{"intValue":"4"}},` +
		`{"key":"agent_shell.prev_sha256","value":{"stringValue":"9b0e"}},` +
		`{"key":"agent_shell.actor","value":{"stringValue":"claude-code"}},` +
		`{"key":"agent_shell.agent","value":{"stringValue":"claude"}},` +
		`{"key":"agent_shell.command","value":{"stringValue":"vitest run"}},` +
		`{"key":"agent_shell.rule","value":{"stringValue":"tests"}},` +
		`{"key":"agent_shell.request_id","value":{"stringValue":"toolu_1"}},` +
		`{"key":"process.exit.code","value":{"intValue":"1"}},` +
		`{"key":"agent_shell.duration_ms","value":{"intValue":"2311"}},` +
		`{"key":"user.name","value":{"stringValue":"ada"}}]}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSeverity(t *testing.T) {
	for raw, want := range map[string]string{
		`{"v":1,"session_id":"s","event":"policy_decision","command":"ls","decision":"allow","matched_rule":null,"actor":"a","timestamp":"2026-11-29T12:00:00.000Z","env":{},"tags":{}}`:   "INFO",
		`{"v":1,"session_id":"s","event":"policy_decision","command":"rm","decision":"deny","matched_rule":"no-rm","actor":"a","timestamp":"2026-11-29T12:00:00.000Z","env":{},"tags":{}}`: "WARN",
		`{"v":1,"session_id":"s","event":"shim_error","command":"x","actor":"a","timestamp":"2026-11-29T12:00:00.000Z","env":{},"tags":{}}`:                                                "ERROR",
	} {
		r := Record(lineOf(t, raw), time.Now())
		if r.SeverityText != want {
			t.Errorf("%s: severity %s, want %s", raw, r.SeverityText, want)
		}
		if strings.Contains(raw, "no-rm") && attr(r, "agent_shell.rule") != "no-rm" {
			t.Errorf("matched_rule not mapped to agent_shell.rule")
		}
	}
}

func TestResourceAttributes(t *testing.T) {
	b, _ := json.Marshal(ResourceInfo{ServiceVersion: "v1", HostName: "h", RepositoryURL: stripCredentials("https://bot:s3cret@github.com/o/r.git"), Branch: "main"}.Attributes())
	want := `[{"key":"service.name","value":{"stringValue":"agent-shell"}},{"key":"service.version","value":{"stringValue":"v1"}},{"key":"host.name","value":{"stringValue":"h"}},{"key":"vcs.repository.url.full","value":{"stringValue":"https://github.com/o/r.git"}},{"key":"vcs.ref.head.name","value":{"stringValue":"main"}}]`
	if string(b) != want {
		t.Fatalf("got %s", b)
	}
	if got := stripCredentials("git@github.com:o/r.git"); got != "git@github.com:o/r.git" {
		t.Fatalf("scp-like remote: %s", got)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		env  func(string) string
		want string
	}{
		{env("AGENTSHELL_OTLP_ENDPOINT", "http://a:4318/", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://b:4318"), "http://a:4318/v1/logs"},
		{env("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "https://c/custom", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://b:4318"), "https://c/custom"},
		{env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://b:4318"), "http://b:4318/v1/logs"},
	} {
		cfg, ok, err := ConfigFromEnv(c.env)
		if err != nil || !ok || cfg.URL != c.want {
			t.Errorf("got %q %v %v, want %q", cfg.URL, ok, err, c.want)
		}
	}
	if _, ok, err := ConfigFromEnv(env()); ok || err != nil {
		t.Errorf("no endpoint: %v %v", ok, err)
	}
	if _, _, err := ConfigFromEnv(env("AGENTSHELL_OTLP_ENDPOINT", "localhost:4318")); err == nil {
		t.Errorf("an endpoint without a scheme was accepted")
	}
	cfg, _, err := ConfigFromEnv(env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://b", "OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b%2Cc , x-tenant=t1", "OTEL_EXPORTER_OTLP_TIMEOUT", "2500"))
	if err != nil || cfg.Headers["api-key"] != "a b,c" || cfg.Headers["x-tenant"] != "t1" || cfg.Timeout != 2500*time.Millisecond {
		t.Fatalf("headers %v timeout %v: %v", cfg.Headers, cfg.Timeout, err)
	}
	if _, _, err := ConfigFromEnv(env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://b", "OTEL_EXPORTER_OTLP_HEADERS", "novalue")); err == nil {
		t.Fatal("a header without = was accepted")
	}
}
