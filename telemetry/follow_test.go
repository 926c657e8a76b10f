package telemetry

import (
	"os"
	"path/filepath"
	"testing"
)

// A follower reads only what is appended, only whole lines (a line being
// written waits for its end), a new session from its start, and skips
// damaged lines, counting them.
func TestFollowerReadsWholeAppendedLines(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	line := func(cmd, ts string) string {
		return `{"v":1,"session_id":"a","event":"script_end","command":"` + cmd + `","timestamp":"` + ts + `","seq":1}` + "\n"
	}
	if err := os.WriteFile(a, []byte(line("old", "2026-01-01T00:00:00.000Z")), 0o644); err != nil {
		t.Fatal(err)
	}
	fl := NewFollower(Filter{}, []string{a})
	var got []string
	poll := func(files ...string) []Damage {
		t.Helper()
		d, err := fl.Poll(files, func(r *Record) error {
			got = append(got, r.Event.Command)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	poll(a)
	if len(got) != 0 {
		t.Fatalf("read what was there before: %v", got)
	}
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	whole := line("new", "2026-01-01T00:00:02.000Z")
	f.WriteString(whole[:20])
	poll(a)
	if len(got) != 0 {
		t.Fatalf("read a line being written: %v", got)
	}
	f.WriteString(whole[20:] + "not json\n")
	b := filepath.Join(dir, "b.jsonl")
	os.WriteFile(b, []byte(line("other", "2026-01-01T00:00:01.000Z")), 0o644)
	d := poll(a, b)
	if len(got) != 2 || got[0] != "other" || got[1] != "new" {
		t.Errorf("got %v, want [other new] (in time order)", got)
	}
	if len(d) != 1 || d[0].Count != 1 || d[0].File != a {
		t.Errorf("damage %+v, want one line in a", d)
	}
}
