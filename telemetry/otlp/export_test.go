package otlp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-shell/agent-shell/telemetry"
)

// fakeSender decodes what it is sent; fail makes the call with that
// 1-based number fail.
type fakeSender struct {
	calls int
	fail  map[int]bool
	recs  []LogRecord
}

func (s *fakeSender) Send(_ context.Context, body []byte) (Response, error) {
	s.calls++
	if s.fail[s.calls] {
		return Response{}, errors.New("refused")
	}
	var req ExportLogsRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Response{}, err
	}
	for _, rl := range req.ResourceLogs {
		for _, sl := range rl.ScopeLogs {
			s.recs = append(s.recs, sl.LogRecords...)
		}
	}
	return Response{}, nil
}

func attr(r LogRecord, k string) string {
	for _, a := range r.Attributes {
		if a.Key == k {
			switch {
			case a.Value.StringValue != nil:
				return *a.Value.StringValue
			case a.Value.IntValue != nil:
				return *a.Value.IntValue
			case a.Value.BoolValue != nil:
				return strconv.FormatBool(*a.Value.BoolValue)
			}
		}
	}
	return ""
}

// keys lists the records as session/seq (or session@offset for a damaged
// line), in the order received.
func keys(recs []LogRecord) []string {
	var out []string
	for _, r := range recs {
		if attr(r, "agent_shell.damaged") == "true" {
			out = append(out, attr(r, "agent_shell.session_id")+"@"+attr(r, "agent_shell.offset"))
			continue
		}
		out = append(out, attr(r, "agent_shell.session_id")+"/"+attr(r, "agent_shell.seq"))
	}
	return out
}

func record(t *testing.T, dir, session string, n int) {
	t.Helper()
	w, err := telemetry.OpenWriter(dir, session)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	for i := 0; i < n; i++ {
		if err := w.Append(&telemetry.Event{SessionID: session, Event: telemetry.EventPolicyDecision, Command: fmt.Sprintf("echo %d", i), Actor: "claude-code", Agent: "claude", Decision: "allow"}); err != nil {
			t.Fatal(err)
		}
	}
}

func newExporter(t *testing.T, s Sender) (*Exporter, string) {
	dir := t.TempDir()
	return &Exporter{Dir: dir, CursorPath: filepath.Join(t.TempDir(), "cursor.json"), Sender: s, BatchSize: 3}, dir
}

func seqs(session string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s/%d", session, i))
	}
	return out
}

func same(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}

func TestResumeInOrder(t *testing.T) {
	s := &fakeSender{}
	x, dir := newExporter(t, s)
	record(t, dir, "a", 5)
	record(t, dir, "b", 2)
	if n, files, err := Backlog(dir, x.CursorPath); err != nil || n != 7 || files != 2 {
		t.Fatalf("backlog before = %d in %d, %v", n, files, err)
	}
	res, err := x.Run(context.Background())
	if err != nil || res.Sent != 7 || res.Requests != 3 {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	record(t, dir, "a", 3)
	if n, _, _ := Backlog(dir, x.CursorPath); n != 3 {
		t.Fatalf("backlog after appending 3 = %d", n)
	}
	if _, err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	same(t, keys(s.recs), append(append(seqs("a", 1, 5), seqs("b", 1, 2)...), seqs("a", 6, 8)...))
	if n, _, _ := Backlog(dir, x.CursorPath); n != 0 {
		t.Fatalf("backlog at the end = %d", n)
	}
}

func TestFailureKeepsCursor(t *testing.T) {
	s := &fakeSender{fail: map[int]bool{2: true}}
	x, dir := newExporter(t, s)
	record(t, dir, "a", 8)
	res, err := x.Run(context.Background())
	if err == nil || res.Sent != 3 {
		t.Fatalf("run with the second request failing: %+v, %v", res, err)
	}
	if n, _, _ := Backlog(dir, x.CursorPath); n != 5 {
		t.Fatalf("backlog after the failure = %d, want 5", n)
	}
	if _, err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	same(t, keys(s.recs), seqs("a", 1, 8))
}

func TestTruncatedFileRestarts(t *testing.T) {
	s := &fakeSender{}
	x, dir := newExporter(t, s)
	record(t, dir, "a", 4)
	if _, err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Truncated, then a new session of the same name written.
	p := filepath.Join(dir, "a.jsonl")
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	record(t, dir, "a", 2)
	res, err := x.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restarts) != 1 || !strings.Contains(res.Restarts[0].Why, "shorter") {
		t.Fatalf("restarts = %+v", res.Restarts)
	}
	same(t, keys(s.recs), append(seqs("a", 1, 4), seqs("a", 1, 2)...))
}

func TestRotatedFileRestarts(t *testing.T) {
	s := &fakeSender{}
	x, dir := newExporter(t, s)
	record(t, dir, "a", 2)
	if _, err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Replaced by another file at least as long (rotated away, a new one
	// grown past the old offset).
	p := filepath.Join(dir, "a.jsonl")
	if err := os.Rename(p, filepath.Join(t.TempDir(), "old.jsonl")); err != nil {
		t.Fatal(err)
	}
	w, err := telemetry.OpenWriter(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	w.Now = func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	for i := 0; i < 3; i++ {
		w.Append(&telemetry.Event{SessionID: "a", Event: telemetry.EventPrompt, Command: "other", Actor: "human"})
	}
	w.Close()
	res, err := x.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restarts) != 1 || !strings.Contains(res.Restarts[0].Why, "rotated") {
		t.Fatalf("restarts = %+v", res.Restarts)
	}
	same(t, keys(s.recs), append(seqs("a", 1, 2), seqs("a", 1, 3)...))
}

func TestDamagedLinesExported(t *testing.T) {
	s := &fakeSender{}
	x, dir := newExporter(t, s)
	record(t, dir, "a", 2)
	p := filepath.Join(dir, "a.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	off := fi.Size()
	f.WriteString("{\"v\":1,\"event\":tru\n[1,2]\n")
	f.WriteString("{\"torn") // no newline yet: the writer may still end it
	f.Close()
	res, err := x.Run(context.Background())
	if err != nil || res.Sent != 4 || res.Damaged != 2 {
		t.Fatalf("run: %+v, %v", res, err)
	}
	same(t, keys(s.recs), []string{"a/1", "a/2", fmt.Sprintf("a@%d", off), fmt.Sprintf("a@%d", off+19)})
	d := s.recs[2]
	if *d.Body.StringValue != `{"v":1,"event":tru` || d.SeverityText != "ERROR" || attr(d, "agent_shell.damage") == "" {
		t.Fatalf("damaged record = %+v", d)
	}
	// The next append ends the torn line (a repair event names it): it is
	// exported then, damaged, followed by the repair and the new event.
	record(t, dir, "a", 1)
	if _, err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := keys(s.recs[4:])
	if len(got) != 3 || !strings.HasPrefix(got[0], "a@") || got[1] != "a/3" || got[2] != "a/4" {
		t.Fatalf("after the torn line was ended: %v", got)
	}
	if attr(s.recs[5], "agent_shell.event") != telemetry.EventRepair {
		t.Fatalf("want a repair event, got %v", attr(s.recs[5], "agent_shell.event"))
	}
}

func TestCursorIsSavedAndReloaded(t *testing.T) {
	s := &fakeSender{}
	x, dir := newExporter(t, s)
	record(t, dir, "a", 4)
	if _, err := x.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCursor(x.CursorPath)
	if err != nil {
		t.Fatal(err)
	}
	fc := c.Files["a.jsonl"]
	fi, _ := os.Stat(filepath.Join(dir, "a.jsonl"))
	if fc.Offset != fi.Size() || fc.Seq != 4 || len(fc.LineSHA256) != 64 {
		t.Fatalf("cursor = %+v (file is %d bytes)", fc, fi.Size())
	}
	os.WriteFile(x.CursorPath, []byte("{"), 0o600)
	if _, err := x.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a damaged cursor: %v", err)
	}
}

func TestLockIsExclusive(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.json")
	unlock, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(p); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	u2, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	u2()
}

// readFileFromString reads raw as a session file from its start.
func readFileFromString(t *testing.T, raw string) ([]Line, *Restart, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	return readFile(dir, "s.jsonl", FileCursor{})
}
