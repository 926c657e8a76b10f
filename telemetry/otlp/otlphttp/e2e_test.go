package otlphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
	"github.com/agent-shell/agent-shell/telemetry/otlp"
)

// receiver is an OTLP/HTTP JSON logs endpoint: it decodes every request
// generically (not with the exporter's own types) and keeps the records.
// While down is set it answers 503, then drops connections.
type receiver struct {
	mu       sync.Mutex
	okLeft   int // requests to accept before the failures start (-1: no limit)
	down     int // failures left to serve: odd 503, even a hang-up
	failed   int
	records  []map[string]string // each record's attributes, plus "body"
	resource map[string]string
}

// state returns what was received so far and how many failures were served.
func (rc *receiver) state() ([]map[string]string, int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]map[string]string(nil), rc.records...), rc.failed
}

func flatten(attrs []any) map[string]string {
	out := map[string]string{}
	for _, a := range attrs {
		kv := a.(map[string]any)
		v := kv["value"].(map[string]any)
		for _, typ := range []string{"stringValue", "intValue", "boolValue"} {
			if x, ok := v[typ]; ok {
				out[kv["key"].(string)] = fmt.Sprint(x)
			}
		}
	}
	return out
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r.URL.Path != "/v1/logs" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "wrong path or type", 404)
		return
	}
	if rc.okLeft == 0 && rc.down > 0 {
		rc.down--
		rc.failed++
		if rc.failed%2 == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "unavailable", 503)
			return
		}
		hangUp(w)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	for _, rl := range req["resourceLogs"].([]any) {
		rl := rl.(map[string]any)
		res := flatten(rl["resource"].(map[string]any)["attributes"].([]any))
		if rc.resource == nil { // the first request's: the Exporter's, not Main's
			rc.resource = res
		}
		for _, sl := range rl["scopeLogs"].([]any) {
			for _, lr := range sl.(map[string]any)["logRecords"].([]any) {
				lr := lr.(map[string]any)
				rec := flatten(lr["attributes"].([]any))
				rec["body"] = lr["body"].(map[string]any)["stringValue"].(string)
				rec["timeUnixNano"], _ = lr["timeUnixNano"].(string)
				rc.records = append(rc.records, rec)
			}
		}
	}
	if rc.okLeft > 0 {
		rc.okLeft--
	}
	w.Write([]byte(`{}`))
}

// TestEndToEnd records a few hundred events across sessions and agents,
// exports them to a receiver that fails in the middle (503, then a dropped
// connection), exports again, and checks that every event arrived exactly
// once, in order within its session, with its attributes.
func TestEndToEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "events")
	agents := []string{"claude", "codex", "gemini"}
	const sessions, perSession = 6, 60
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var writers []*telemetry.Writer
	for s := 0; s < sessions; s++ {
		w, err := telemetry.OpenWriter(dir, fmt.Sprintf("sess-%d", s))
		if err != nil {
			t.Fatal(err)
		}
		w.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
		defer w.Close()
		writers = append(writers, w)
	}
	record := func(from, to int) {
		for i := from; i < to; i++ { // interleaved, as concurrent sessions are
			for s, w := range writers {
				ev := &telemetry.Event{SessionID: fmt.Sprintf("sess-%d", s), Event: telemetry.EventPolicyDecision, Command: fmt.Sprintf("npm test -- %d", i),
					Actor: agents[s%3], Agent: agents[s%3], Decision: "allow", RequestID: fmt.Sprintf("req-%d-%d", s, i)}
				if i%10 == 9 {
					ev = &telemetry.Event{SessionID: ev.SessionID, Event: telemetry.EventScriptEnd, Command: "npm test", Actor: ev.Actor, Agent: ev.Agent, ExitCode: i % 3}
				}
				if err := w.Append(ev); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	record(0, perSession/2)

	rc := &receiver{okLeft: -1}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	cursor := filepath.Join(t.TempDir(), "state", "cursor.json")
	s, _ := sender(srv, 2)
	x := &otlp.Exporter{Dir: dir, CursorPath: cursor, Endpoint: s.URL, Sender: s, BatchSize: 40,
		Resource: otlp.ResourceInfo{HostName: "ci-1", RepositoryURL: "https://example.com/r.git", Branch: "main"}}

	// A first pass sends the backlog.
	res, err := x.Run(context.Background())
	if err != nil || res.Sent != sessions*perSession/2 {
		t.Fatalf("first pass: %+v %v", res, err)
	}
	record(perSession/2, perSession)
	// The second pass: two batches go through, then the Collector fails
	// (503, then a dropped connection) and the pass gives up.
	rc.mu.Lock()
	before := len(rc.records)
	rc.okLeft, rc.down = 2, 2
	rc.mu.Unlock()
	x.BatchSize = 50
	res, err = x.Run(context.Background())
	got, failed := rc.state()
	if err == nil || failed != 2 || res.Sent != 100 {
		t.Fatalf("pass against a failing Collector: %+v, %v (%d failures served)", res, err, failed)
	}
	n, _, err := otlp.Backlog(dir, cursor)
	if err != nil || n != sessions*perSession/2-100 {
		t.Fatalf("backlog after the failure = %d, %v (want %d)", n, err, sessions*perSession/2-100)
	}
	if len(got) != before+100 {
		t.Fatalf("%d records arrived from the failed pass, want 100", len(got)-before)
	}

	// Again through the helper's command line, once the Collector is back.
	var out, errb bytes.Buffer
	env := map[string]string{"AGENTSHELL_OTLP_ENDPOINT": srv.URL}
	code := Main([]string{"--events", dir, "--cursor", cursor, "--json"}, &out, &errb, func(k string) string { return env[k] })
	if code != 0 {
		t.Fatalf("Main = %d: %s %s", code, out.String(), errb.String())
	}
	var summary struct{ Sent int }
	if err := json.Unmarshal(out.Bytes(), &summary); err != nil || summary.Sent != sessions*perSession/2-100 {
		t.Fatalf("Main printed %s (%v)", out.String(), err)
	}

	// Every event exactly once, in order within its session.
	got, _ = rc.state()
	if len(got) != sessions*perSession {
		t.Fatalf("%d records, want %d", len(got), sessions*perSession)
	}
	last := map[string]int{}
	for _, r := range got {
		sess := r["agent_shell.session_id"]
		seq, err := strconv.Atoi(r["agent_shell.seq"])
		if err != nil || seq != last[sess]+1 {
			t.Fatalf("%s: seq %q after %d", sess, r["agent_shell.seq"], last[sess])
		}
		last[sess] = seq
		if r["agent_shell.agent"] == "" || r["agent_shell.actor"] == "" || r["agent_shell.command"] == "" || r["timeUnixNano"] == "" {
			t.Fatalf("record without its attributes: %v", r)
		}
		switch r["agent_shell.event"] {
		case telemetry.EventPolicyDecision:
			if r["agent_shell.decision"] != "allow" || r["agent_shell.request_id"] == "" {
				t.Fatalf("decision record: %v", r)
			}
		case telemetry.EventScriptEnd:
			if r["process.exit.code"] == "" {
				t.Fatalf("script_end without process.exit.code: %v", r)
			}
		}
		var ev telemetry.Event
		if err := json.Unmarshal([]byte(r["body"]), &ev); err != nil || ev.Seq != int64(seq) {
			t.Fatalf("body is not the event line: %v", err)
		}
	}
	if len(last) != sessions {
		t.Fatalf("sessions seen: %v", last)
	}
	rc.mu.Lock()
	resource := rc.resource
	rc.mu.Unlock()
	if resource["service.name"] != "agent-shell" || resource["host.name"] != "ci-1" ||
		resource["vcs.repository.url.full"] != "https://example.com/r.git" || resource["vcs.ref.head.name"] != "main" {
		t.Fatalf("resource %v", resource)
	}
	n, _, _ = otlp.Backlog(dir, cursor)
	if n != 0 {
		t.Fatalf("backlog at the end = %d", n)
	}
}

// TestFollow runs the helper as a sidecar: what is recorded while it runs
// is sent, and it stops with status 0 when told to.
func TestFollow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "events")
	cursor := filepath.Join(t.TempDir(), "cursor.json")
	rc := &receiver{okLeft: -1}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	w, err := telemetry.OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Now = time.Now
	add := func(n int) {
		for i := 0; i < n; i++ {
			if err := w.Append(&telemetry.Event{SessionID: "s1", Event: telemetry.EventPrompt, Actor: "human", Prompt: "hi"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if got, _ := rc.state(); len(got) == n {
				return
			}
		}
		got, _ := rc.state()
		t.Fatalf("%d records received, want %d", len(got), n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var out, errb bytes.Buffer
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
	add(3)
	go func() {
		done <- run(ctx, []string{"--events", dir, "--cursor", cursor, "--follow", "--interval", "10ms"}, &out, &errb, func(k string) string { return env[k] })
	}()
	waitFor(3)
	add(2)
	waitFor(5)
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("run --follow ended with %d: %s", code, errb.String())
	}
	got, _ := rc.state()
	for i, r := range got {
		if r["agent_shell.seq"] != strconv.Itoa(i+1) {
			t.Fatalf("record %d has seq %s", i, r["agent_shell.seq"])
		}
	}
}
