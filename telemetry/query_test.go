package telemetry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// chainLines renders events as a valid seq/prev_sha256 chain, the way the
// Writer does, one line per event (with trailing newlines).
func chainLines(events ...*Event) []byte {
	var out []byte
	prev := ""
	for i, e := range events {
		e.Seq = int64(i + 1)
		e.PrevSHA256 = prev
		start := len(out)
		out = e.AppendJSON(out)
		sum := sha256.Sum256(out[start:])
		prev = hex.EncodeToString(sum[:])
		out = append(out, '\n')
	}
	return out
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func ev(kind, actor string, sec int, mod ...func(*Event)) *Event {
	e := &Event{SessionID: "s", Event: kind, Actor: actor, Command: "cmd " + actor, Timestamp: at(sec)}
	for _, m := range mod {
		m(e)
	}
	return e
}

func exit(code int) func(*Event)     { return func(e *Event) { e.ExitCode = code } }
func script(s string) func(*Event)   { return func(e *Event) { e.Script = s } }
func decision(d string) func(*Event) { return func(e *Event) { e.Decision = d } }
func signal(s string) func(*Event)   { return func(e *Event) { e.Signal = s } }
func command(c string) func(*Event)  { return func(e *Event) { e.Command = c } }
func ptr[T any](v T) *T              { return &v }
func collect(t testing.TB, q *Query) ([]string, []Damage) {
	t.Helper()
	var got []string
	dmg, err := q.Run(func(r *Record) error {
		got = append(got, fmt.Sprintf("%s:%d", SessionIDOf(r.File), r.Line))
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return got, dmg
}

// filterFixture has three sessions whose events interleave in time.
func filterFixture(t *testing.T) []string {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", chainLines(
		ev(EventScriptEnd, "claude-code", 10, script("test"), exit(1)),              // a:1
		ev(EventToolUse, "claude-code", 30),                                         // a:2
		ev(EventPolicyDecision, "claude-code", 50, decision("deny")),                // a:3
		ev(EventScriptEnd, "human", 70, script("build")),                            // a:4
		ev(EventScriptEnd, "human", 90, script("test"), exit(0), signal("SIGKILL")), // a:5
	))
	b := writeFile(t, dir, "b.jsonl", chainLines(
		ev(EventPolicyDecision, "copilot", 20, decision("allow")), // b:1
		ev(EventShimError, "copilot", 40),                         // b:2
		ev(EventScriptEnd, "copilot", 60, script("test")),         // b:3
		ev(EventToolUse, "human", 80),                             // b:4
	))
	c := writeFile(t, dir, "c.jsonl", chainLines(
		ev(EventScriptEnd, "codex", 5, script("lint"), exit(2)), // c:1
		ev(EventToolUse, "codex", 50),                           // c:2, ties with a:3
	))
	return []string{c, b, a} // the order given must not matter
}

func TestQueryFilters(t *testing.T) {
	files := filterFixture(t)
	tests := []struct {
		name   string
		filter Filter
		want   string
	}{
		{"all, in time order, ties by file name", Filter{}, "c:1 a:1 b:1 a:2 b:2 a:3 c:2 b:3 a:4 b:4 a:5"},
		{"actor", Filter{Actor: ptr("human")}, "a:4 b:4 a:5"},
		{"actor no match", Filter{Actor: ptr("Human")}, ""},
		{"failures", Filter{Failures: true}, "c:1 a:1 b:2 a:3 a:5"},
		{"script", Filter{Script: ptr("test")}, "a:1 b:3 a:5"},
		{"event", Filter{Event: ptr(EventToolUse)}, "a:2 c:2 b:4"},
		{"since", Filter{Since: at(60)}, "b:3 a:4 b:4 a:5"},
		{"since is inclusive to the millisecond", Filter{Since: at(60).Add(time.Millisecond)}, "a:4 b:4 a:5"},
		{"and", Filter{Actor: ptr("claude-code"), Failures: true, Since: at(20)}, "a:3"},
		{"script and failures", Filter{Script: ptr("test"), Failures: true}, "a:1 a:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dmg := collect(t, &Query{Files: files, Filter: tt.filter})
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got  %s\nwant %s", s, tt.want)
			}
			if len(dmg) != 0 {
				t.Errorf("damage: %+v", dmg)
			}
		})
	}
}

func TestQueryDecodeAndValidate(t *testing.T) {
	files := filterFixture(t)
	var n int
	_, err := (&Query{Files: files, Decode: true, Validate: true, Filter: Filter{Actor: ptr("copilot")}}).Run(func(r *Record) error {
		n++
		if r.Event == nil || r.Event.Actor != "copilot" {
			t.Errorf("record %s:%d not decoded: %+v", r.File, r.Line, r.Event)
		}
		var e Event
		if err := json.Unmarshal(r.Raw, &e); err != nil || e.Seq != int64(r.Line) {
			t.Errorf("raw line %s:%d: %v (seq %d)", r.File, r.Line, err, e.Seq)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("Run: %d records, err %v", n, err)
	}
}

func TestQueryDamagedLines(t *testing.T) {
	dir := t.TempDir()
	good := chainLines(ev(EventToolUse, "x", 1), ev(EventToolUse, "x", 2), ev(EventToolUse, "x", 3))
	lines := bytes.SplitAfter(good, []byte("\n"))
	var data []byte
	data = append(data, lines[0]...)
	data = append(data, "not json\n"...)  // line 2
	data = append(data, lines[1][:40]...) // line 3, cut off
	data = append(data, '\n')
	data = append(data, `{"event":"tool_use","actor":"x","timestamp":"2026-03-01T12:00:02.500Z","brand_new":[1,2]}`+"\n"...)                                 // line 4: unknown field, fine
	data = append(data, "\n"...)                                                                                                                             // line 5, empty
	data = append(data, `{"actor":"x","timestamp":"2026-03-01T12:00:02.600Z","v":1}{}`+"\n"...)                                                              // line 6, trailing garbage
	data = append(data, `{"event":"tool_use","actor":"x","timestamp":"2026-03-01T12:00:02.700Z","exit_code":"1"}`+"\n"...)                                   // line 7: valid JSON, wrong type
	data = append(data, `{"event":"tool_use","actor":"x","timestamp":"2026-03-01T12:00:02.800Z","command":"`+strings.Repeat("a", MaxLineBytes)+`"}`+"\n"...) // line 8: too long
	data = append(data, lines[2]...)                                                                                                                         // line 9
	p := writeFile(t, dir, "d.jsonl", data)

	got, dmg := collect(t, &Query{Files: []string{p}})
	if s := strings.Join(got, " "); s != "d:1 d:4 d:7 d:9" {
		t.Errorf("lines: %s", s)
	}
	if len(dmg) != 1 || dmg[0].Count != 5 || dmg[0].FirstLine != 2 || dmg[0].File != p {
		t.Errorf("damage: %+v", dmg)
	}
	// The table view decodes shown lines; a wrong type is damage there too.
	got, dmg = collect(t, &Query{Files: []string{p}, Decode: true})
	if s := strings.Join(got, " "); s != "d:1 d:4 d:9" {
		t.Errorf("decoded lines: %s", s)
	}
	if len(dmg) != 1 || dmg[0].Count != 6 || !strings.Contains(dmg[0].FirstErr, "not a JSON object") {
		t.Errorf("decode damage: %+v", dmg)
	}
}

func TestQueryLegacyAndNonCanonicalTimestamps(t *testing.T) {
	dir := t.TempDir()
	// Lines as the TypeScript tool wrote them (no seq, float duration) and
	// with timestamps in other RFC 3339 spellings.
	legacy := `{"v":1,"session_id":"old","event":"script_end","command":"npm test","actor":"human","exit_code":0,"signal":null,"duration_ms":9.232238000000024,"timestamp":"2026-03-01T12:00:10.000Z","env":{},"tags":{},"script":"test"}
{"v":1,"session_id":"old","event":"tool_use","tool_name":"bash","command":"ls","actor":"human","timestamp":"2026-03-01T14:00:30+02:00","env":{},"tags":{}}
{"v":1,"session_id":"old","event":"tool_use","tool_name":"bash","command":"ls","actor":"human","env":{},"tags":{}}
{"v":1,"session_id":"old","event":"tool_use","tool_name":"bash","command":"ls","actor":"human","timestamp":"2026-03-01T12:00:50.123456789Z","env":{},"tags":{}}
`
	p1 := writeFile(t, dir, "old.jsonl", []byte(legacy))
	p2 := writeFile(t, dir, "new.jsonl", chainLines(ev(EventToolUse, "x", 20), ev(EventToolUse, "x", 40), ev(EventToolUse, "x", 60)))
	var got []string
	_, err := (&Query{Files: []string{p1, p2}, Decode: true}).Run(func(r *Record) error {
		got = append(got, fmt.Sprintf("%s:%d", SessionIDOf(r.File), r.Line))
		if SessionIDOf(r.File) == "old" && r.Line == 1 && r.Event.DurationMS != 9 {
			t.Errorf("legacy duration: %v", r.Event.DurationMS)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// old:3 has no timestamp and keeps its place after old:2.
	if s := strings.Join(got, " "); s != "old:1 new:1 old:2 old:3 new:2 old:4 new:3" {
		t.Errorf("order: %s", s)
	}
	since, _ := collect(t, &Query{Files: []string{p1, p2}, Filter: Filter{Since: at(30)}})
	if s := strings.Join(since, " "); s != "old:2 new:2 old:4 new:3" {
		t.Errorf("since: %s", s)
	}
}

func TestQueryStopsOnEmitError(t *testing.T) {
	files := filterFixture(t)
	stop := errors.New("stop")
	n := 0
	_, err := (&Query{Files: files}).Run(func(*Record) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("Run = %v after %d records", err, n)
	}
}

func TestQueryMissingFile(t *testing.T) {
	_, err := (&Query{Files: []string{filepath.Join(t.TempDir(), "nope.jsonl")}}).Run(func(*Record) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Run = %v, want not exist", err)
	}
}

// TestQueryMergeMatchesSort checks the streaming merge against the obvious
// implementation (decode everything, filter, sort) on random sessions: many
// files, overlapping and not, equal timestamps, more events than batches
// hold, and every filter.
func TestQueryMergeMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	dir := t.TempDir()
	actors := []string{"a", "b", "c"}
	var files []string
	for f := 0; f < 40; f++ {
		n := rng.IntN(300)
		if f%10 == 0 {
			n = 2000 // several batches
		}
		sec := rng.IntN(5000)
		if f >= 20 {
			sec = f * 10000 // sequential sessions, exercise the lazy start
		}
		var evs []*Event
		for i := 0; i < n; i++ {
			sec += rng.IntN(3) // equal timestamps happen
			kinds := []string{EventScriptEnd, EventToolUse, EventPolicyDecision, EventShimError}
			e := ev(kinds[rng.IntN(4)], actors[rng.IntN(3)], sec, script([]string{"test", "build"}[rng.IntN(2)]),
				exit(rng.IntN(3)/2), decision([]string{"allow", "deny"}[rng.IntN(2)]), command(strings.Repeat("x", rng.IntN(400))))
			evs = append(evs, e)
		}
		files = append(files, writeFile(t, dir, fmt.Sprintf("f%02d.jsonl", f), chainLines(evs...)))
	}
	filters := []Filter{
		{}, {Actor: ptr("a")}, {Failures: true}, {Script: ptr("test"), Actor: ptr("b")},
		{Event: ptr(EventShimError)}, {Since: at(200000)}, {Actor: ptr("nobody")},
	}
	for i, f := range filters {
		got, _ := collect(t, &Query{Files: files, Filter: f})
		want := bruteForce(t, files, f)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("filter %d: merge differs from sort (%d vs %d records)", i, len(got), len(want))
		}
	}
}

func bruteForce(t *testing.T, files []string, f Filter) []string {
	type rec struct {
		ts   time.Time
		name string
		line int
	}
	var all []rec
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			var e Event
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatal(err)
			}
			failed := (e.Event == EventScriptEnd && (e.ExitCode != 0 || e.Signal != "")) ||
				(e.Event == EventPolicyDecision && e.Decision == "deny") || e.Event == EventShimError
			switch {
			case f.Actor != nil && e.Actor != *f.Actor,
				f.Event != nil && e.Event != *f.Event,
				f.Script != nil && (e.Event != EventScriptEnd || e.Script != *f.Script),
				f.Failures && !failed,
				!f.Since.IsZero() && e.Timestamp.Before(f.Since):
				continue
			}
			all = append(all, rec{e.Timestamp, filepath.Base(p), i + 1})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].ts.Equal(all[j].ts) {
			return all[i].ts.Before(all[j].ts)
		}
		if all[i].name != all[j].name {
			return all[i].name < all[j].name
		}
		return all[i].line < all[j].line
	})
	out := make([]string, len(all))
	for i, r := range all {
		out[i] = fmt.Sprintf("%s:%d", strings.TrimSuffix(r.name, ".jsonl"), r.line)
	}
	return out
}

func TestListFilesAndNewest(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", nil)
	b := writeFile(t, dir, "b.jsonl", nil)
	writeFile(t, dir, "notes.txt", nil)
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(b, old, old); err != nil {
		t.Fatal(err)
	}
	files, skipped, err := ListFiles(dir)
	if err != nil || strings.Join(files, ",") != a+","+b || len(skipped) != 1 || skipped[0].Kind() != "a directory" {
		t.Fatalf("ListFiles = %v, %v, %v", files, skipped, err)
	}
	if n, err := NewestFile(files); err != nil || n != a {
		t.Errorf("NewestFile = %s, %v; want %s", n, err, a)
	}
	if _, _, err := ListFiles(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ListFiles(missing) = %v", err)
	}
}

func TestSessionFile(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s1.jsonl", nil)
	if got, err := SessionFile(dir, "s1"); err != nil || got != p {
		t.Errorf("SessionFile(s1) = %s, %v", got, err)
	}
	if _, err := SessionFile(dir, "s2"); !errors.Is(err, ErrNoSession) {
		t.Errorf("SessionFile(s2) = %v", err)
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`} {
		if _, err := SessionFile(dir, bad); err == nil || errors.Is(err, ErrNoSession) {
			t.Errorf("SessionFile(%q) = %v, want invalid", bad, err)
		}
	}
}

func TestListSessions(t *testing.T) {
	files := filterFixture(t)
	sessions, dmg, err := ListSessions(files, Filter{})
	if err != nil || len(dmg) != 0 {
		t.Fatal(err, dmg)
	}
	var got []string
	for _, s := range sessions {
		got = append(got, fmt.Sprintf("%s %s %s %d %s", s.ID, s.First.Format("15:04:05"), s.Last.Format("15:04:05"), s.Events, strings.Join(s.Actors, ",")))
	}
	want := []string{
		"a 12:00:10 12:01:30 5 claude-code,human",
		"b 12:00:20 12:01:20 4 copilot,human",
		"c 12:00:05 12:00:50 2 codex",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sessions, _, _ = ListSessions(files, Filter{Actor: ptr("human")})
	if len(sessions) != 2 || sessions[0].Events != 2 || sessions[1].Events != 1 {
		t.Errorf("filtered sessions: %+v", sessions)
	}
}

// BenchmarkQueryActor is `log --actor X --json` without the process: N
// events across 20 files, one actor in five selected.
func BenchmarkQueryActor(b *testing.B) {
	const files, perFile = 20, 5000
	dir := b.TempDir()
	var paths []string
	var total int64
	rng := rand.New(rand.NewPCG(1, 2))
	for f := 0; f < files; f++ {
		evs := make([]*Event, perFile)
		sec := rng.IntN(1000)
		for i := range evs {
			sec += 1 + rng.IntN(5)
			evs[i] = &Event{
				SessionID: fmt.Sprintf("session-%02d", f), Event: EventToolUse, ToolName: "bash",
				Command: "npm run test -- --coverage --reporter=dot", Actor: fmt.Sprintf("actor-%d", rng.IntN(5)),
				Timestamp: at(sec),
				Env:       map[string]string{"CI": "true", "NODE_ENV": "test", "SHELL": "/bin/bash", "PWD": "/home/dev/src/project"},
				Tags:      map[string]string{"branch": "main"},
			}
		}
		data := chainLines(evs...)
		total += int64(len(data))
		paths = append(paths, writeFile(b, dir, fmt.Sprintf("session-%02d.jsonl", f), data))
	}
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		_, err := (&Query{Files: paths, Filter: Filter{Actor: ptr("actor-3")}, Validate: true}).Run(func(r *Record) error {
			n += len(r.Raw)
			return nil
		})
		if err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
}
