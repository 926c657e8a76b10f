package telemetry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The concurrency test runs this test binary as its writer processes.
const childAppendEnv = "TELEMETRY_TEST_CHILD_APPEND"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childAppendEnv); spec != "" {
		os.Exit(childAppend(spec))
	}
	os.Exit(m.Run())
}

// childAppend appends N events to dir/session: spec is "dir|session|worker|N".
func childAppend(spec string) int {
	parts := strings.Split(spec, "|")
	n, _ := strconv.Atoi(parts[3])
	w, err := OpenWriter(parts[0], parts[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer w.Close()
	for i := 0; i < n; i++ {
		e := &Event{SessionID: parts[1], Event: EventToolUse, ToolName: "bash",
			Command: fmt.Sprintf("worker %s event %d", parts[2], i), Actor: "test"}
		if err := w.Append(e); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// readChain reads every line of a session file and checks, independently of
// the package's own verifier, that seq is contiguous from 1 and that each
// prev_sha256 is the hash of the line before.
func readChain(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("%s does not end with a newline", path)
	}
	var events []map[string]any
	prev := ""
	for i, line := range bytes.Split(data[:len(data)-1], []byte{'\n'}) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d does not parse: %v: %q", i+1, err, line)
		}
		if got := m["seq"]; got != float64(i+1) {
			t.Fatalf("line %d: seq %v, want %d", i+1, got, i+1)
		}
		gotPrev, _ := m["prev_sha256"].(string)
		if gotPrev != prev {
			t.Fatalf("line %d: prev_sha256 %q, want %q", i+1, gotPrev, prev)
		}
		sum := sha256.Sum256(line)
		prev = hex.EncodeToString(sum[:])
		events = append(events, m)
	}
	return events
}

func TestWriterChainsAcrossWriters(t *testing.T) {
	dir := t.TempDir()
	// Two writers on one file stand for two processes taking turns.
	w1, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Close()
	w2, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	for i := 0; i < 10; i++ {
		w := w1
		if i%3 == 0 {
			w = w2
		}
		if err := w.Append(&Event{SessionID: "s1", Event: EventShimError, Command: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	events := readChain(t, filepath.Join(dir, "s1.jsonl"))
	if len(events) != 10 {
		t.Fatalf("got %d events, want 10", len(events))
	}
	for i, e := range events {
		if e["command"] != strconv.Itoa(i) {
			t.Errorf("line %d: command %v, want %d", i+1, e["command"], i)
		}
	}
}

func TestWriterTimestampsAreTakenInOrder(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	at := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	w.Now = func() time.Time { return at }
	if err := w.Append(&Event{SessionID: "s1", Event: EventShimError}); err != nil {
		t.Fatal(err)
	}
	events := readChain(t, w.Path())
	if got := events[0]["timestamp"]; got != "2026-11-29T12:00:00.123Z" {
		t.Errorf("timestamp %v", got)
	}
}

func TestWriterContinuesAfterDamagedAndForeignLines(t *testing.T) {
	tests := []struct {
		name     string
		existing string
		wantSeq  float64
		wantPrev string // the line whose hash the new line must carry
	}{
		{
			name:     "torn last line",
			existing: `{"v":1,"seq":1}` + "\n" + `{"v":1,"se`,
			wantSeq:  3,
			wantPrev: `{"v":1,"se`,
		},
		{
			name:     "lines from the reference tool, without seq",
			existing: `{"v":1,"event":"script_end"}` + "\n" + `{"v":1,"event":"script_end"}` + "\n",
			wantSeq:  3,
			wantPrev: `{"v":1,"event":"script_end"}`,
		},
		{
			name:     "damaged line after good ones",
			existing: `{"v":1,"seq":7}` + "\n" + "garbage\n",
			wantSeq:  9,
			wantPrev: "garbage",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s1.jsonl")
			if err := os.WriteFile(path, []byte(tt.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := OpenWriter(dir, "s1")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Append(&Event{SessionID: "s1", Event: EventShimError}); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if !bytes.HasPrefix(data, []byte(strings.TrimSuffix(tt.existing, "\n"))) {
				t.Fatalf("existing content changed: %q", data)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			var last map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatalf("new line %q: %v", lines[len(lines)-1], err)
			}
			sum := sha256.Sum256([]byte(tt.wantPrev))
			if last["seq"] != tt.wantSeq || last["prev_sha256"] != hex.EncodeToString(sum[:]) {
				t.Errorf("seq %v prev %v, want seq %v and the hash of %q", last["seq"], last["prev_sha256"], tt.wantSeq, tt.wantPrev)
			}
		})
	}
}

func TestWriterRedactsAndCapsCommand(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	token := "ghp_" + strings.Repeat("a1B2", 9)
	long := strings.Repeat("é", MaxCommandBytes) // two bytes each: cut mid-rune unless careful
	for _, c := range []string{"curl -H 'Authorization: Bearer " + token + "' x", long} {
		if err := w.Append(&Event{SessionID: "s1", Event: EventToolUse, Command: c, Reason: token}); err != nil {
			t.Fatal(err)
		}
	}
	events := readChain(t, w.Path())
	first, _ := json.Marshal(events[0])
	if strings.Contains(string(first), token) {
		t.Errorf("token written: %s", first)
	}
	cmd := events[1]["command"].(string)
	if len(cmd) > MaxCommandBytes+len(truncatedMarker) || !strings.HasSuffix(cmd, truncatedMarker) {
		t.Errorf("long command kept %d bytes, suffix %q", len(cmd), cmd[len(cmd)-20:])
	}
	if strings.ContainsRune(cmd, '\uFFFD') {
		t.Errorf("long command cut inside a rune")
	}
}

func TestWriterRejectsBadSessionID(t *testing.T) {
	if _, err := OpenWriter(t.TempDir(), "../escape"); err == nil {
		t.Fatal("OpenWriter accepted ../escape")
	}
}

// TestConcurrentProcessesNeverTearOrLose runs 8 processes appending 500 events
// each to one session file.
func TestConcurrentProcessesNeverTearOrLose(t *testing.T) {
	const procs, perProc = 8, 500
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|s1|%d|%d", childAppendEnv, dir, p, perProc))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("worker %d: %v: %s", p, err, out)
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	events := readChain(t, filepath.Join(dir, "s1.jsonl"))
	if len(events) != procs*perProc {
		t.Fatalf("got %d events, want %d", len(events), procs*perProc)
	}
	// Every worker's events are all there, each once, in its own order.
	next := make(map[string]int)
	for _, e := range events {
		var worker string
		var i int
		if _, err := fmt.Sscanf(e["command"].(string), "worker %s event %d", &worker, &i); err != nil {
			t.Fatalf("command %q: %v", e["command"], err)
		}
		if i != next[worker] {
			t.Fatalf("worker %s: event %d after %d", worker, i, next[worker]-1)
		}
		next[worker]++
	}
	for w, n := range next {
		if n != perProc {
			t.Errorf("worker %s: %d events", w, n)
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	dir := b.TempDir()
	w, err := OpenWriter(dir, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	env := benchEnv()
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Append(benchEvent(env)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendNewWriter is what one hook call pays: open the session
// file, read its tail, append one event, close.
func BenchmarkAppendNewWriter(b *testing.B) {
	dir := b.TempDir()
	env := benchEnv()
	b.ReportAllocs()
	for b.Loop() {
		w, err := OpenWriter(dir, "bench")
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Prepare(); err != nil {
			b.Fatal(err)
		}
		if err := w.Append(benchEvent(env)); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

func benchEnv() map[string]string {
	return map[string]string{"npm_lifecycle_event": "test", "npm_package_name": "demo", "CI": "true"}
}

func benchEvent(env map[string]string) *Event {
	return &Event{SessionID: "bench", Event: EventScriptEnd, Command: "npm test -- --coverage",
		Actor: "claude-code", DurationMS: 1234, Env: env, Tags: map[string]string{}, Script: "test"}
}
