package otlphttp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// collectorSrc is a minimal OpenTelemetry Collector (the OTLP receiver and
// the contrib file exporter, one pinned release), a Go module of its own so
// that agent-shell's module never depends on it.
const collectorSrc = "../../../testdata/otelcol"

// buildCollector builds the Collector once per source and Go version and
// keeps it in the user's cache folder: the first build takes minutes.
func buildCollector(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the Collector: %v", err)
	}
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(collectorSrc, f))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "agent-shell-test", "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	t.Logf("building the Collector in %s (minutes, once)", collectorSrc)
	tmp := bin + fmt.Sprintf(".%d.tmp", os.Getpid())
	cmd := exec.Command(goBin, "build", "-o", tmp, ".")
	cmd.Dir = collectorSrc
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		t.Fatalf("building the Collector: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// collector is one run of the Collector, its output in a file.
type collector struct {
	cmd *exec.Cmd
	out string
	log bytes.Buffer
}

func startCollector(t *testing.T, bin, addr, out string) *collector {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  file:
    path: %s
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
`, addr, out)), 0o644)
	c := &collector{out: out}
	c.cmd = exec.Command(bin, "--config", cfg)
	c.cmd.Stdout, c.cmd.Stderr = &c.log, &c.log
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stop() })
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return c
		}
	}
	c.stop()
	t.Fatalf("the Collector did not listen on %s:\n%s", addr, c.log.String())
	return nil
}

// stop ends the Collector gracefully (the file exporter writes out what it
// holds).
func (c *collector) stop() {
	if c.cmd.ProcessState != nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// TestCollectorEndToEnd exports a few hundred events across sessions and
// agents to a real OpenTelemetry Collector, stops it, fails to export,
// restarts it, exports again, and checks the Collector's output files hold
// every event exactly once, in order within its session, with the expected
// attributes.
func TestCollectorEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an OpenTelemetry Collector")
	}
	bin := buildCollector(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	work := t.TempDir()
	dir := filepath.Join(work, "events")
	cursor := filepath.Join(work, "state", "cursor.json")
	agents := []string{"claude", "codex", "gemini"}
	const sessions, perSession = 6, 50
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	record := func(from, to int) {
		for s := 0; s < sessions; s++ {
			w, err := telemetry.OpenWriter(dir, fmt.Sprintf("sess-%d", s))
			if err != nil {
				t.Fatal(err)
			}
			w.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
			for i := from; i < to; i++ {
				ev := &telemetry.Event{SessionID: fmt.Sprintf("sess-%d", s), Event: telemetry.EventPolicyDecision, Command: fmt.Sprintf("go test ./... # %d", i),
					Actor: agents[s%3], Agent: agents[s%3], Decision: []string{"allow", "deny", "ask"}[i%3], MatchedRule: "r1", RequestID: fmt.Sprintf("req-%d", i)}
				if i%5 == 4 {
					ev = &telemetry.Event{SessionID: ev.SessionID, Event: telemetry.EventScriptEnd, Command: "npm test", Actor: ev.Actor, Agent: ev.Agent, ExitCode: i % 2}
				}
				if err := w.Append(ev); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
		}
	}
	env := map[string]string{"AGENTSHELL_OTLP_ENDPOINT": "http://" + addr}
	export := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := Main(append([]string{"--events", dir, "--cursor", cursor}, args...), &out, &out, func(k string) string { return env[k] })
		return code, out.String()
	}

	record(0, perSession/2)
	c1 := startCollector(t, bin, addr, filepath.Join(work, "out-1.json"))
	if code, out := export(); code != 0 {
		t.Fatalf("first export: %d %s\n%s", code, out, c1.log.String())
	}
	c1.stop()

	// The Collector is down: the export fails, and says so.
	record(perSession/2, perSession)
	if code, out := export("--attempts", "2"); code != 1 || !strings.Contains(out, "export failed") {
		t.Fatalf("export to a stopped Collector: %d %s", code, out)
	}

	c2 := startCollector(t, bin, addr, filepath.Join(work, "out-2.json"))
	if code, out := export(); code != 0 || !strings.Contains(out, fmt.Sprintf("exported %d events", sessions*perSession/2)) {
		t.Fatalf("export after the restart: %d %s\n%s", code, out, c2.log.String())
	}
	c2.stop()

	// The Collector's files: one ExportLogsServiceRequest (JSON) a line.
	last := map[string]int{}
	total := 0
	for _, f := range []string{c1.out, c2.out} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var req map[string]any
			if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, rl := range req["resourceLogs"].([]any) {
				rl := rl.(map[string]any)
				res := flatten(rl["resource"].(map[string]any)["attributes"].([]any))
				if res["service.name"] != "agent-shell" || res["host.name"] == "" {
					t.Fatalf("resource attributes %v", res)
				}
				for _, sl := range rl["scopeLogs"].([]any) {
					for _, lr := range sl.(map[string]any)["logRecords"].([]any) {
						lr := lr.(map[string]any)
						a := flatten(lr["attributes"].([]any))
						sess := a["agent_shell.session_id"]
						seq, err := strconv.Atoi(a["agent_shell.seq"])
						if err != nil || seq != last[sess]+1 {
							t.Fatalf("%s: seq %q after %d (duplicate, lost or out of order)", sess, a["agent_shell.seq"], last[sess])
						}
						last[sess] = seq
						total++
						if a["agent_shell.agent"] == "" || a["agent_shell.command"] == "" || lr["timeUnixNano"] == nil {
							t.Fatalf("record without its attributes: %v", lr)
						}
						switch a["agent_shell.event"] {
						case telemetry.EventPolicyDecision:
							if a["agent_shell.decision"] == "" || a["agent_shell.rule"] != "r1" || a["agent_shell.request_id"] == "" {
								t.Fatalf("decision record: %v", a)
							}
							if a["agent_shell.decision"] == "deny" && lr["severityText"] != "WARN" {
								t.Fatalf("a denial's severity: %v", lr["severityText"])
							}
						case telemetry.EventScriptEnd:
							if a["process.exit.code"] == "" {
								t.Fatalf("script_end without process.exit.code: %v", a)
							}
						default:
							t.Fatalf("unexpected event %q", a["agent_shell.event"])
						}
					}
				}
			}
		}
	}
	if total != sessions*perSession || len(last) != sessions {
		t.Fatalf("the Collector wrote %d records in %d sessions, want %d in %d", total, len(last), sessions*perSession, sessions)
	}
}
