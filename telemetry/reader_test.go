package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestScanGoodLines(t *testing.T) {
	tests := []struct {
		name string
		line string
		want LineFields
	}{
		{
			name: "script_end as written",
			line: `{"v":1,"session_id":"s1","event":"script_end","command":"npm test","actor":"claude-code","exit_code":1,"signal":null,"duration_ms":12,"timestamp":"2026-01-02T03:04:05.678Z","env":{"CI":"true"},"tags":{},"script":"test","seq":3,"prev_sha256":"ab"}`,
			want: LineFields{
				Timestamp: []byte("2026-01-02T03:04:05.678Z"), Actor: []byte("claude-code"), Event: []byte("script_end"),
				Script: []byte("test"), SessionID: []byte("s1"), PrevSHA256: []byte("ab"),
				ExitCode: 1, HasExitCode: true, Seq: 3, HasSeq: true, SeqInt: true,
			},
		},
		{
			name: "policy_decision",
			line: `{"v":1,"event":"policy_decision","decision":"deny","matched_rule":null,"actor":"a"}`,
			want: LineFields{Event: []byte("policy_decision"), Decision: []byte("deny"), Actor: []byte("a")},
		},
		{
			name: "empty object",
			line: `{}`,
		},
		{
			name: "whitespace everywhere",
			line: " \t{ \"actor\" : \"x\" , \"n\" : [ 1 , { \"a\" : [ ] } ] }\r ",
			want: LineFields{Actor: []byte("x")},
		},
		{
			name: "escapes are decoded",
			line: `{"actor":"a\u0062\"c\\","script":"\/x"}`,
			want: LineFields{Actor: []byte(`ab"c\`), Script: []byte("/x")},
		},
		{
			name: "escaped key still matches",
			line: `{"act\u006fr":"x"}`,
			want: LineFields{Actor: []byte("x")},
		},
		{
			name: "duplicate key keeps the last",
			line: `{"actor":"x","actor":"y"}`,
			want: LineFields{Actor: []byte("y")},
		},
		{
			name: "wrong kinds read as absent",
			line: `{"actor":5,"event":null,"seq":"1","exit_code":true,"timestamp":{"a":1}}`,
		},
		{
			name: "legacy float duration and unknown fields",
			line: `{"v":1,"event":"script_end","exit_code":0,"duration_ms":9.232238000000024,"timestamp":"2025-01-01T00:00:00.000Z","new_field":{"deep":[true,false,null,-1.5e+3]}}`,
			want: LineFields{Event: []byte("script_end"), HasExitCode: true, Timestamp: []byte("2025-01-01T00:00:00.000Z")},
		},
		{
			name: "non-integer seq",
			line: `{"seq":1.5}`,
			want: LineFields{HasSeq: true},
		},
		{
			name: "huge exit code",
			line: `{"exit_code":1e999}`,
			want: LineFields{HasExitCode: true, ExitCode: 0}, // compared below by IsFailure
		},
		{
			name: "unicode passes through",
			line: `{"actor":"ünï☃","command":"echo 😀"}`,
			want: LineFields{Actor: []byte("ünï☃")},
		},
	}
	var sc Scanner
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !json.Valid([]byte(tt.line)) {
				t.Fatalf("test line is not valid JSON")
			}
			var got LineFields
			if err := sc.Scan([]byte(tt.line), &got); err != nil {
				t.Fatalf("Scan: %v", err)
			}
			if tt.name == "huge exit code" {
				got.ExitCode = 0
			}
			if !fieldsEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", dump(got), dump(tt.want))
			}
		})
	}
}

func fieldsEqual(a, b LineFields) bool {
	eq := func(x, y []byte) bool { return (x == nil) == (y == nil) && bytes.Equal(x, y) }
	return eq(a.Timestamp, b.Timestamp) && eq(a.Actor, b.Actor) && eq(a.Event, b.Event) &&
		eq(a.Script, b.Script) && eq(a.SessionID, b.SessionID) && eq(a.Decision, b.Decision) &&
		eq(a.Signal, b.Signal) && eq(a.PrevSHA256, b.PrevSHA256) &&
		a.ExitCode == b.ExitCode && a.HasExitCode == b.HasExitCode &&
		a.Seq == b.Seq && a.HasSeq == b.HasSeq && a.SeqInt == b.SeqInt
}

func dump(f LineFields) map[string]any {
	s := func(b []byte) any {
		if b == nil {
			return nil
		}
		return string(b)
	}
	return map[string]any{
		"timestamp": s(f.Timestamp), "actor": s(f.Actor), "event": s(f.Event), "script": s(f.Script),
		"session_id": s(f.SessionID), "decision": s(f.Decision), "signal": s(f.Signal), "prev": s(f.PrevSHA256),
		"exit": f.ExitCode, "hasExit": f.HasExitCode, "seq": f.Seq, "hasSeq": f.HasSeq, "seqInt": f.SeqInt,
	}
}

func TestScanDamagedLines(t *testing.T) {
	tests := []struct {
		name, line, want string
		notObject        bool
	}{
		{"empty", ``, "empty line", true},
		{"blank", "  \t", "empty line", true},
		{"array", `[1,2]`, "not a JSON object", true},
		{"string", `"x"`, "not a JSON object", true},
		{"number", `12`, "not a JSON object", true},
		{"garbage", `xyz`, "not a JSON object (starts with 'x')", true},
		{"binary", "\x00\x01", "not a JSON object (starts with byte 0x00)", true},
		{"cut off", `{"v":1,"actor":"cla`, "unterminated string", false},
		{"cut after key", `{"v":1,"actor"`, "line ends inside the object", false},
		{"cut after colon", `{"v":1,"actor":`, "line ends inside the object", false},
		{"cut after value", `{"v":1`, "line ends inside the object", false},
		{"unbalanced nested", `{"env":{"a":"b"}`, "line ends inside the object", false},
		{"unbalanced array", `{"e":[1,[2]}`, "invalid character '}'", false},
		{"trailing garbage", `{"v":1}x`, "trailing data after the object", false},
		{"two objects", `{"v":1}{"v":2}`, "trailing data after the object", false},
		{"missing comma", `{"a":1 "b":2}`, "invalid character '\"'", false},
		{"trailing comma", `{"a":1,}`, "invalid character '}' where object key", false},
		{"unquoted key", `{a:1}`, "invalid character 'a' where object key", false},
		{"missing colon", `{"a" 1}`, "':' after object key", false},
		{"bad literal", `{"a":nul}`, "invalid literal", false},
		{"bad literal nested", `{"a":[tru]}`, "invalid literal", false},
		{"bad number", `{"a":01}`, "',' or '}' after object value", false},
		{"bad fraction", `{"a":1.}`, "invalid number", false},
		{"bad exponent", `{"a":1e}`, "invalid number", false},
		{"lone minus", `{"a":-}`, "invalid number", false},
		{"bad escape", `{"a":"\x"}`, "invalid escape", false},
		{"bad unicode escape", `{"a":"\u12g4"}`, "invalid \\u escape", false},
		{"short unicode escape", `{"a":"\u12"}`, "invalid \\u escape", false},
		{"raw control char", "{\"a\":\"x\x01y\"}", "control character 0x01", false},
		{"raw tab in string", "{\"a\":\"x\ty\"}", "control character 0x09", false},
		{"backslash at end", `{"a":"x\`, "unterminated string", false},
		{"bad nested key", `{"a":{1:2}}`, "object key", false},
		{"single quotes", `{'a':1}`, "object key", false},
	}
	var sc Scanner
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if json.Valid([]byte(tt.line)) && tt.name != "array" && tt.name != "string" && tt.name != "number" {
				t.Fatalf("test line is valid JSON")
			}
			var f LineFields
			err := sc.Scan([]byte(tt.line), &f)
			if err == nil {
				t.Fatalf("Scan(%q) = nil, want an error", tt.line)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Scan(%q) = %q, want it to contain %q", tt.line, err, tt.want)
			}
			var le *LineError
			if !errors.As(err, &le) || le.NotObject != tt.notObject {
				t.Errorf("NotObject = %v, want %v", le != nil && le.NotObject, tt.notObject)
			}
		})
	}
}

func TestScanNestingLimitMatchesEncodingJSON(t *testing.T) {
	var sc Scanner
	var f LineFields
	for _, depth := range []int{maxNestingDepth - 1, maxNestingDepth, maxNestingDepth + 1} {
		// depth counts the outer object.
		line := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		got := sc.Scan([]byte(line), &f) == nil
		if want := json.Valid([]byte(line)); got != want {
			t.Errorf("depth %d: Scan ok = %v, json.Valid = %v", depth, got, want)
		}
	}
}

func TestIsFailure(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`{"event":"script_end","exit_code":0,"signal":null}`, false},
		{`{"event":"script_end","exit_code":2,"signal":null}`, true},
		{`{"event":"script_end","exit_code":-1}`, true},
		{`{"event":"script_end","exit_code":0,"signal":"SIGTERM"}`, true},
		{`{"event":"script_end","exit_code":1e999}`, true},
		{`{"event":"policy_decision","decision":"deny"}`, true},
		{`{"event":"policy_decision","decision":"allow"}`, false},
		{`{"event":"policy_decision","decision":"ask"}`, false},
		{`{"event":"shim_error"}`, true},
		{`{"event":"guard","decision":"deny"}`, true},
		{`{"event":"config_unauthorized","decision":"allow"}`, true},
		{`{"event":"repair","torn":[]}`, true},
		{`{"event":"tool_use","exit_code":1}`, false},
		{`{"exit_code":1}`, false},
	}
	var sc Scanner
	for _, tt := range tests {
		var f LineFields
		if err := sc.Scan([]byte(tt.line), &f); err != nil {
			t.Fatal(err)
		}
		if got := f.IsFailure(); got != tt.want {
			t.Errorf("IsFailure(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestLineFieldsTime(t *testing.T) {
	tests := []struct {
		ts   string
		want time.Time
		ok   bool
	}{
		{"2026-01-02T03:04:05.678Z", time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC), true},
		{"2026-01-02T03:04:05Z", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), true},
		{"2026-01-02T05:04:05.5+02:00", time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC), true},
		{"2026-02-31T00:00:00.000Z", time.Time{}, false},
		{"2026-13-01T00:00:00.000Z", time.Time{}, false},
		{"yesterday", time.Time{}, false},
	}
	for _, tt := range tests {
		f := LineFields{Timestamp: []byte(tt.ts)}
		got, ok := f.Time()
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("Time(%q) = %v, %v; want %v, %v", tt.ts, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := (&LineFields{}).Time(); ok {
		t.Error("Time() of a line without timestamp is ok")
	}
}

func TestLineReader(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", readBufferSize*3) + `"}`
	tooLong := `{"a":"` + strings.Repeat("y", MaxLineBytes) + `"}`
	input := "{\"n\":1}\n" + long + "\n\n" + tooLong + "\n{\"n\":5}\r\n{\"n\":6}"
	lr := NewLineReader(strings.NewReader(input))
	type got struct {
		line    string
		num     int
		tooLong bool
	}
	var lines []got
	for {
		line, num, tl, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, got{string(line), num, tl})
	}
	want := []got{
		{`{"n":1}`, 1, false},
		{long, 2, false},
		{"", 3, false},
		{"", 4, true},
		{"{\"n\":5}\r", 5, false},
		{`{"n":6}`, 6, false},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d", len(lines), len(want))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: got (%.20q, %d, %v), want (%.20q, %d, %v)", i+1,
				lines[i].line, lines[i].num, lines[i].tooLong, want[i].line, want[i].num, want[i].tooLong)
		}
	}
	// A line of exactly MaxLineBytes is accepted; one byte more is not.
	for _, n := range []int{MaxLineBytes, MaxLineBytes + 1} {
		lr := NewLineReader(strings.NewReader(strings.Repeat("z", n) + "\n"))
		line, _, tl, err := lr.Next()
		if err != nil || tl != (n > MaxLineBytes) || (!tl && len(line) != n) {
			t.Errorf("line of %d bytes: len %d, tooLong %v, err %v", n, len(line), tl, err)
		}
	}
}

// FuzzScanLine holds the scanner to encoding/json: a line it accepts is
// valid JSON and an object (so it always decodes), and a valid object is
// never reported as damaged. The fields it extracts agree with a full decode.
func FuzzScanLine(f *testing.F) {
	seeds := []string{
		`{"v":1,"session_id":"s1","event":"script_end","command":"npm test","actor":"claude-code","exit_code":1,"signal":null,"duration_ms":12,"timestamp":"2026-01-02T03:04:05.678Z","env":{"CI":"true"},"tags":{},"script":"test","seq":3,"prev_sha256":"ab"}`,
		`{"actor":"a\u0062\"c\\","script":"\/x"}`,
		`{"a":[1,{"b":[true,false,null]}],"c":-0.5e-3}`,
		`{"a":"\ud800"}`,
		`{}`, ``, `[]`, `{"a":1}x`, `{"a":"x`, `{"a":{"b":}}`, "{\"a\":\"\x7f\xff\"}",
		`{"seq":99999999999999999999,"exit_code":-0}`,
		`{"seq":9999999999999999999}`, `{"seq":-9223372036854775808}`, `{"seq":922337203685477580}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var sc Scanner
		var lf LineFields
		err := sc.Scan(line, &lf)
		var obj map[string]json.RawMessage
		isObj := json.Valid(line) && json.Unmarshal(line, &obj) == nil && obj != nil
		if (err == nil) != isObj {
			t.Fatalf("Scan(%q) = %v, but json.Valid/decodes as object = %v", line, err, isObj)
		}
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %T is not a *LineError", err)
			}
			return
		}
		// Cross-check the extracted string fields with a full decode.
		check := func(key string, got []byte) {
			raw, ok := obj[key]
			var s string
			if ok && json.Unmarshal(raw, &s) == nil && raw[0] == '"' {
				if got == nil || string(got) != s {
					t.Fatalf("%s: scanned %q, decoded %q", key, got, s)
				}
			} else if got != nil {
				t.Fatalf("%s: scanned %q, but the line has no such string", key, got)
			}
		}
		check("actor", lf.Actor)
		check("event", lf.Event)
		check("timestamp", lf.Timestamp)
		check("script", lf.Script)
		check("decision", lf.Decision)
		if raw, ok := obj["seq"]; ok && lf.HasSeq && lf.SeqInt {
			var n int64
			if json.Unmarshal(raw, &n) != nil || n != lf.Seq {
				t.Fatalf("seq: scanned %d, raw %s", lf.Seq, raw)
			}
		}
	})
}

// FuzzDecodeEvent: a line that `log` shows as a table is decoded into an
// Event without panicking, whatever it holds, and an event decoded from a
// line is written back as a line the scanner accepts.
func FuzzDecodeEvent(f *testing.F) {
	f.Add(sampleLine())
	f.Add([]byte(`{"event":"repair","torn":[{"offset":3,"length":10,"sha256":"ab\u0000"}],"seq":2,"prev_sha256":"x"}`))
	f.Add([]byte(`{"duration_ms":1e400,"exit_code":1.5,"timestamp":"0000-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"torn":[{"offset":-1,"length":1e3}],"extensions":[{"steps":1}],"tool_result":{"exit_code":null}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // not one line
		}
		var e Event
		if json.Unmarshal(line, &e) != nil {
			return
		}
		out := e.AppendJSON(nil)
		var sc Scanner
		var lf LineFields
		if err := sc.Scan(out, &lf); err != nil || bytes.IndexByte(out, '\n') >= 0 {
			t.Fatalf("%q decoded and written back as %q: %v", line, out, err)
		}
	})
}

func BenchmarkScan(b *testing.B) {
	line := sampleLine()
	var sc Scanner
	var f LineFields
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if err := sc.Scan(line, &f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJSONValid(b *testing.B) {
	line := sampleLine()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !json.Valid(line) {
			b.Fatal("invalid")
		}
	}
}

func sampleLine() []byte {
	e := &Event{
		SessionID: "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d", Event: EventScriptEnd,
		Command: "npm run test -- --coverage --reporter=dot src/components/Button.test.tsx",
		Actor:   "claude-code", Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Env:  map[string]string{"CI": "true", "NODE_ENV": "test", "npm_lifecycle_event": "test", "PWD": "/home/dev/project", "SHELL": "/bin/bash"},
		Tags: map[string]string{"branch": "feature/x"}, ExitCode: 1, DurationMS: 1234, Script: "test",
		Package: "web-app", PackageVersion: "1.2.3", Seq: 42,
		PrevSHA256: "9b0e8d6c2f4a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c",
	}
	return e.AppendJSON(nil)
}

// FuzzLineReader: with a tiny buffer (so most lines take the long-line
// path), the lines read back are exactly the input split at newlines.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\n", "a\nb", "\n\n", strings.Repeat("x", 40) + "\n" + strings.Repeat("y", 17), "{\"a\":1}\r\n{}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := newLineReaderSize(bytes.NewReader(data), 15) // bufio's minimum, 16
		var lines [][]byte
		for {
			line, num, tooLong, err := lr.Next()
			if err == io.EOF {
				break
			}
			if err != nil || tooLong {
				t.Fatalf("Next: %v, tooLong %v", err, tooLong)
			}
			if num != len(lines)+1 {
				t.Fatalf("line number %d, want %d", num, len(lines)+1)
			}
			lines = append(lines, bytes.Clone(line))
		}
		want := bytes.Split(data, []byte("\n"))
		if len(data) == 0 || data[len(data)-1] == '\n' {
			want = want[:len(want)-1]
		}
		if len(lines) != len(want) {
			t.Fatalf("%d lines, want %d", len(lines), len(want))
		}
		for i := range want {
			if !bytes.Equal(lines[i], want[i]) {
				t.Fatalf("line %d = %q, want %q", i+1, lines[i], want[i])
			}
		}
	})
}
