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
	garbage17 := strings.Repeat("garbage\n", maxTornLines+1)
	tests := []struct {
		name     string
		existing string
		// torn are the damaged lines at the end that a repair must name,
		// in order; from is the line the chain continues from ("" for none).
		torn     []string
		from     string
		wantSeq  float64 // the new event's
		verifies bool    // the file verifies after the append
	}{
		{
			name:     "torn last line",
			existing: `{"v":1,"seq":1}` + "\n" + `{"v":1,"se`,
			torn:     []string{`{"v":1,"se`},
			from:     `{"v":1,"seq":1}`,
			wantSeq:  3,
			verifies: true,
		},
		{
			name:     "torn line already ended",
			existing: `{"v":1,"seq":1}` + "\n" + `{"v":1,"se` + "\n",
			torn:     []string{`{"v":1,"se`},
			from:     `{"v":1,"seq":1}`,
			wantSeq:  3,
			verifies: true,
		},
		{
			name:     "a torn repair after a torn line",
			existing: `{"v":1,"seq":1}` + "\n" + `{"v":1,"se` + "\n" + `{"v":1,"event":"rep`,
			torn:     []string{`{"v":1,"se`, `{"v":1,"event":"rep`},
			from:     `{"v":1,"seq":1}`,
			wantSeq:  3,
			verifies: true,
		},
		{
			name:     "long lines, read back in several chunks",
			existing: `{"v":1,"seq":1,"x":"` + strings.Repeat("x", 3*firstTailChunk) + `"}` + "\n" + `{"v":1,"x":"` + strings.Repeat("y", 5*firstTailChunk),
			torn:     []string{`{"v":1,"x":"` + strings.Repeat("y", 5*firstTailChunk)},
			from:     `{"v":1,"seq":1,"x":"` + strings.Repeat("x", 3*firstTailChunk) + `"}`,
			wantSeq:  3,
			verifies: true,
		},
		{
			name:     "the only line torn",
			existing: `{"v":1,"se`,
			torn:     []string{`{"v":1,"se`},
			wantSeq:  2,
			verifies: true,
		},
		{
			name:     "a whole last line without its newline",
			existing: `{"v":1,"seq":1}`,
			from:     `{"v":1,"seq":1}`,
			wantSeq:  2,
			verifies: true,
		},
		{
			name:     "damaged line after good ones",
			existing: `{"v":1,"seq":7}` + "\n" + "garbage\n",
			torn:     []string{"garbage"},
			from:     `{"v":1,"seq":7}`,
			wantSeq:  9,
		},
		{
			name:     "more damaged lines than a repair names: chained as they are",
			existing: `{"v":1,"seq":7}` + "\n" + garbage17,
			from:     "garbage",
			wantSeq:  7 + maxTornLines + 1 + 1,
		},
		{
			name:     "lines from the reference tool, without seq",
			existing: `{"v":1,"event":"script_end"}` + "\n" + `{"v":1,"event":"script_end"}` + "\n",
			from:     `{"v":1,"event":"script_end"}`,
			wantSeq:  3,
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
			if !bytes.HasPrefix(data, []byte(tt.existing)) {
				t.Fatalf("existing content changed: %q", data)
			}
			lines := strings.Split(strings.TrimSuffix(string(data[len(tt.existing):]), "\n"), "\n")
			if lines[0] == "" { // the newline that ended the last line
				lines = lines[1:]
			}
			wantPrev := tt.from
			if len(tt.torn) > 0 {
				if len(lines) != 2 {
					t.Fatalf("appended %q, want a repair and the event", lines)
				}
				checkRepair(t, tt.existing, lines[0], tt.torn, tt.from, tt.wantSeq-1)
				wantPrev = lines[0]
			} else if len(lines) != 1 {
				t.Fatalf("appended %q, want the event alone", lines)
			}
			last := decodeLine(t, lines[len(lines)-1])
			if last["seq"] != tt.wantSeq || last["prev_sha256"] != hashHex([]byte(wantPrev)) {
				t.Errorf("seq %v prev %v, want seq %v and the hash of %q", last["seq"], last["prev_sha256"], tt.wantSeq, wantPrev)
			}
			res, err := VerifyFile(path)
			if err != nil || res.OK() != tt.verifies {
				t.Errorf("VerifyFile = %+v, %v; want OK %v", res, err, tt.verifies)
			}
		})
	}
}

// checkRepair checks that line is a repair event with seq, chaining from
// the line from, that names the torn lines of existing in order.
func checkRepair(t *testing.T, existing, line string, torn []string, from string, seq float64) {
	t.Helper()
	r := decodeLine(t, line)
	wantPrev := any(nil)
	if from != "" {
		wantPrev = hashHex([]byte(from))
	}
	if r["event"] != EventRepair || r["seq"] != seq || r["prev_sha256"] != wantPrev {
		t.Errorf("repair %s: want seq %v chained from %q", line, seq, from)
	}
	names, _ := r["torn"].([]any)
	if len(names) != len(torn) {
		t.Fatalf("repair names %d lines, want %d: %s", len(names), len(torn), line)
	}
	// The torn lines are the last ones of existing.
	offset := len(strings.TrimSuffix(existing, "\n")) + 1
	for i := len(torn) - 1; i >= 0; i-- {
		want := torn[i]
		offset -= len(want) + 1
		got := names[i].(map[string]any)
		if existing[offset:offset+len(want)] != want || got["offset"] != float64(offset) ||
			got["length"] != float64(len(want)) || got["sha256"] != hashHex([]byte(want)) {
			t.Errorf("torn line %d named %v, want offset %d length %d and the hash of %q", i, got, offset, len(want), want)
		}
	}
}

func decodeLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	return m
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

// The cwd of a decision or a script run is optional: written after the
// request id when set, left out when not, and read back.
func TestWriterKeepsCwd(t *testing.T) {
	dir := t.TempDir()
	w, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, e := range []*Event{
		{SessionID: "s1", Event: EventPolicyDecision, Command: "ls", Decision: "allow", RequestID: "r1", Cwd: "/work/app"},
		{SessionID: "s1", Event: EventPolicyDecision, Command: "ls", Decision: "allow"},
	} {
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if !strings.Contains(lines[0], `"request_id":"r1","cwd":"/work/app"`) {
		t.Errorf("first line lacks its cwd after the request id: %s", lines[0])
	}
	if strings.Contains(lines[1], `"cwd"`) {
		t.Errorf("second line has a cwd it was not given: %s", lines[1])
	}
	var e Event
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Cwd != "/work/app" {
		t.Errorf("decoded cwd %q, %v", e.Cwd, err)
	}
}
