package telemetry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

var filterNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// filterEvent is a policy decision with most fields set.
func filterEvent() *Event {
	return &Event{
		SessionID: "s1", Event: EventPolicyDecision, Command: "terraform destroy -auto-approve",
		Decision: "deny", MatchedRule: "no-tf-destroy", Actor: "claude-code",
		Env: map[string]string{"CI": "true", "TERM": "xterm"}, Tags: map[string]string{"team": "infra"},
		Agent: "claude", Rule: "no-tf-destroy", Reason: "terraform destroy", Effects: []string{"network"},
		Extensions: []ExtensionRun{{Script: "tf", Kind: "shell_matcher", Outcome: "yes", Reason: "terraform destroy", Steps: 42}},
	}
}

// appendWith appends events to a fresh session file through a writer with
// the given filter and returns the lines written (without newlines).
func appendWith(t *testing.T, f AuditFilter, events ...*Event) []string {
	t.Helper()
	dir := t.TempDir()
	w, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Now = func() time.Time { return filterNow }
	w.Filter = f
	for _, e := range events {
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	res, err := VerifyFile(w.Path())
	if err != nil || !res.OK() || res.Events != len(events) {
		t.Errorf("verify after filtered appends: %+v %v", res, err)
	}
	readChain(t, w.Path())
	return strings.Split(strings.TrimSuffix(string(mustRead(t, w.Path())), "\n"), "\n")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// keysOf lists a JSON object's top-level keys in order.
func keysOf(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", line)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func valuesOf(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return m
}

func TestFilterDropField(t *testing.T) {
	plain := appendWith(t, nil, filterEvent(), filterEvent())
	filtered := appendWith(t, func(*Event, map[string]any) (FilterEdit, error) {
		return FilterEdit{Drop: []string{"env", "extensions", "no_such_field"}}, nil
	}, filterEvent(), filterEvent())
	for i := range plain {
		want := slices.DeleteFunc(keysOf(t, plain[i]), func(k string) bool { return k == "env" || k == "extensions" })
		if got := keysOf(t, filtered[i]); !slices.Equal(got, want) {
			t.Errorf("line %d keys %q, want %q", i+1, got, want)
		}
		p, f := valuesOf(t, plain[i]), valuesOf(t, filtered[i])
		for k, v := range f {
			if k == "prev_sha256" {
				continue // the line before differs
			}
			if !reflect.DeepEqual(v, p[k]) {
				t.Errorf("line %d: %s = %v, unfiltered %v", i+1, k, v, p[k])
			}
		}
	}
}

func TestFilterReplace(t *testing.T) {
	ghp := "ghp_" + strings.Repeat("aB3x", 9)
	filtered := appendWith(t, func(*Event, map[string]any) (FilterEdit, error) {
		return FilterEdit{Set: map[string]string{
			"command":    "terraform destroy [args]", // existing string
			"tags":       "none",                     // existing object
			"note":       "reviewed",                 // new
			"a_token":    "token " + ghp,             // new, secret
			"auth":       "Authorization: Bearer abc.def.ghi",
			"long_value": strings.Repeat("x", MaxCommandBytes+100),
		}}, nil
	}, filterEvent(), filterEvent())
	plain := appendWith(t, nil, filterEvent())
	for i, line := range filtered {
		if strings.Contains(line, ghp) || strings.Contains(line, "abc.def.ghi") {
			t.Errorf("line %d keeps a secret the filter put in: %s", i+1, line)
		}
		v := valuesOf(t, line)
		if v["command"] != "terraform destroy [args]" || v["tags"] != "none" || v["note"] != "reviewed" {
			t.Errorf("line %d: %s", i+1, line)
		}
		if v["a_token"] != "token [REDACTED]" {
			t.Errorf("line %d: a_token %q, want it redacted", i+1, v["a_token"])
		}
		if auth, _ := v["auth"].(string); !strings.Contains(auth, "[REDACTED]") {
			t.Errorf("line %d: auth %q, want it redacted", i+1, auth)
		}
		if lv, _ := v["long_value"].(string); len(lv) > MaxCommandBytes+len(truncatedMarker) || !strings.HasSuffix(lv, truncatedMarker) {
			t.Errorf("line %d: a long value is %d bytes, want it truncated to %d", i+1, len(lv), MaxCommandBytes)
		}
		// Existing members keep their place; new ones go before the chain
		// fields, sorted.
		keys := keysOf(t, line)
		want := keysOf(t, plain[0])
		chain := slices.Index(want, "seq")
		want = slices.Concat(want[:chain], []string{"a_token", "auth", "long_value", "note"}, want[chain:])
		if i == 1 {
			want = append(want, "prev_sha256")
		}
		if !slices.Equal(keys, want) {
			t.Errorf("line %d keys\n%q\nwant\n%q", i+1, keys, want)
		}
	}
}

// A filter that fails, or touches the envelope, leaves the event as the
// core redaction wrote it, plus filter_error; it is never lost.
func TestFilterFailureWritesUnfiltered(t *testing.T) {
	plain := appendWith(t, nil, filterEvent())
	tests := []struct {
		name string
		edit FilterEdit
		err  error
		want string
	}{
		{"error", FilterEdit{Drop: []string{"env"}}, errors.New("script failed: ghp_" + strings.Repeat("Z9", 18)), "script failed: [REDACTED]"},
	}
	for _, f := range ProtectedFields {
		tests = append(tests,
			struct {
				name string
				edit FilterEdit
				err  error
				want string
			}{"drop " + f, FilterEdit{Drop: []string{"env", f}}, nil, `the audit filter may not drop "` + f + `"`},
			struct {
				name string
				edit FilterEdit
				err  error
				want string
			}{"set " + f, FilterEdit{Set: map[string]string{"note": "x", f: "forged"}}, nil, `the audit filter may not set "` + f + `"`})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := appendWith(t, func(*Event, map[string]any) (FilterEdit, error) { return tt.edit, tt.err }, filterEvent())
			got := valuesOf(t, lines[0])
			if got["filter_error"] != tt.want {
				t.Errorf("filter_error %q, want %q", got["filter_error"], tt.want)
			}
			delete(got, "filter_error")
			if want := valuesOf(t, plain[0]); !reflect.DeepEqual(got, want) {
				t.Errorf("with a failed filter:\n%s\nwant the unfiltered event\n%s", lines[0], plain[0])
			}
			want := keysOf(t, plain[0])
			want = slices.Insert(want, slices.Index(want, "seq"), "filter_error")
			if keys := keysOf(t, lines[0]); !slices.Equal(keys, want) {
				t.Errorf("keys %q, want %q", keys, want)
			}
		})
	}
}

// The filter runs under the lock with the chain fields set: it sees the
// event's seq and prev_sha256, and the fields as the core redaction left
// them, with JSON numbers as int64.
func TestFilterSeesTheChainAndRedactedFields(t *testing.T) {
	var seqs []int64
	var fieldSeqs []any
	var prevs []any
	filter := func(e *Event, fields map[string]any) (FilterEdit, error) {
		seqs = append(seqs, e.Seq)
		fieldSeqs = append(fieldSeqs, fields["seq"])
		prevs = append(prevs, fields["prev_sha256"])
		if cmd := fields["command"].(string); strings.Contains(cmd, "hunter2") || !strings.Contains(cmd, "[REDACTED]") {
			t.Errorf("the filter saw command %q before redaction", cmd)
		}
		ext := fields["extensions"].([]any)[0].(map[string]any)
		if ext["steps"] != int64(42) || ext["outcome"] != "yes" {
			t.Errorf("extensions as the filter sees them: %#v", ext)
		}
		return FilterEdit{Set: map[string]string{"seen_seq": strings.Repeat("I", int(e.Seq))}}, nil
	}
	dir := t.TempDir()
	var lines []string
	for i := range 2 { // two writers, as two hook processes
		w, err := OpenWriter(dir, "s1")
		if err != nil {
			t.Fatal(err)
		}
		w.Filter = filter
		for range 2 {
			e := filterEvent()
			e.Command = "mysql -u root --password=hunter2 db" + strings.Repeat(" ", i)
			if err := w.Append(e); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		lines = strings.Split(strings.TrimSuffix(string(mustRead(t, w.Path())), "\n"), "\n")
	}
	if want := []int64{1, 2, 3, 4}; !slices.Equal(seqs, want) {
		t.Errorf("the filter saw seqs %v, want %v", seqs, want)
	}
	if want := []any{int64(1), int64(2), int64(3), int64(4)}; !reflect.DeepEqual(fieldSeqs, want) {
		t.Errorf("fields[seq] %#v, want %#v", fieldSeqs, want)
	}
	if prevs[0] != nil {
		t.Errorf("first line: the filter saw prev_sha256 %v", prevs[0])
	}
	for i, line := range lines {
		v := valuesOf(t, line)
		if v["seen_seq"] != strings.Repeat("I", i+1) {
			t.Errorf("line %d: seen_seq %v", i+1, v["seen_seq"])
		}
		if i > 0 && prevs[i] != v["prev_sha256"] {
			t.Errorf("line %d: the filter saw prev_sha256 %v, the line has %v", i+1, prevs[i], v["prev_sha256"])
		}
	}
	res, err := VerifyFile(lines0Path(dir))
	if err != nil || !res.OK() || res.Events != 4 {
		t.Errorf("verify: %+v %v", res, err)
	}
}

func lines0Path(dir string) string { return filepath.Join(dir, "s1.jsonl") }

// Filtered and unfiltered writers, a failing filter and a torn line in
// between: the chain still verifies up to the damage and continues after.
func TestFilterChainVerifies(t *testing.T) {
	dir := t.TempDir()
	n := 0
	filters := []AuditFilter{
		nil,
		func(*Event, map[string]any) (FilterEdit, error) {
			return FilterEdit{Drop: []string{"env"}, Set: map[string]string{"note": "filtered"}}, nil
		},
		func(*Event, map[string]any) (FilterEdit, error) { return FilterEdit{}, errors.New("broken") },
		func(*Event, map[string]any) (FilterEdit, error) {
			return FilterEdit{Drop: []string{"prev_sha256"}}, nil
		},
		func(*Event, map[string]any) (FilterEdit, error) { return FilterEdit{}, nil },
	}
	for range 3 {
		for _, f := range filters {
			w, err := OpenWriter(dir, "s1")
			if err != nil {
				t.Fatal(err)
			}
			w.Filter = f
			if err := w.Append(filterEvent()); err != nil {
				t.Fatal(err)
			}
			n++
			w.Close()
		}
	}
	res, err := VerifyFile(lines0Path(dir))
	if err != nil || !res.OK() || res.Events != n {
		t.Errorf("verify: %+v %v", res, err)
	}
	events := readChain(t, lines0Path(dir))
	if len(events) != n {
		t.Fatalf("%d events, want %d", len(events), n)
	}
	if events[1]["note"] != "filtered" || events[2]["filter_error"] != "broken" || events[3]["filter_error"] == nil {
		t.Errorf("events: %v", events[:4])
	}
}

// The extensions a decision ran are recorded, their free text redacted.
func TestExtensionsEncoding(t *testing.T) {
	e := filterEvent()
	e.Extensions = []ExtensionRun{
		{Script: "tf", Kind: "shell_matcher", Outcome: "yes", Reason: "terraform destroy", Steps: 42, DurationMS: 3},
		{Script: "fx", Kind: "shell_effect_analyzer", Outcome: "error", Error: "fail: token ghp_" + strings.Repeat("Q1", 18), Output: "debug Bearer abc.def.ghi\n"},
	}
	lines := appendWith(t, nil, e)
	want := `"extensions":[{"script":"tf","kind":"shell_matcher","outcome":"yes","reason":"terraform destroy","steps":42,"duration_ms":3},` +
		`{"script":"fx","kind":"shell_effect_analyzer","outcome":"error","error":"fail: token [REDACTED]","output":"debug Bearer [REDACTED]\n","steps":0,"duration_ms":0}],"seq":1}`
	if !strings.HasSuffix(lines[0], want) {
		t.Errorf("line\n%s\nwant it to end with\n%s", lines[0], want)
	}
	var back Event
	if err := json.Unmarshal([]byte(lines[0]), &back); err != nil || len(back.Extensions) != 2 || back.Extensions[0].Steps != 42 {
		t.Errorf("decode: %v %+v", err, back.Extensions)
	}
}

// However much a filter adds, the line stays one the reader and verifier
// accept (at most MaxLineBytes): a filter must not make events unreadable
// or break the chain. An audit filter script may return up to 256 fields
// of up to 16 KiB each.
func TestFilterCannotMakeLinesUnreadable(t *testing.T) {
	big := func(*Event, map[string]any) (FilterEdit, error) {
		set := map[string]string{}
		for i := range 256 {
			set[fmt.Sprintf("f%03d", i)] = strings.Repeat("v", 16<<10)
		}
		return FilterEdit{Set: set}, nil
	}
	dir := t.TempDir()
	w, err := OpenWriter(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Filter = big
	for i := range 2 {
		if err := w.Append(filterEvent()); err != nil {
			t.Fatalf("append %d: %v", i+1, err)
		}
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(mustRead(t, w.Path())), "\n"), "\n") {
		if len(line) > MaxLineBytes {
			t.Errorf("line %d is %d bytes, over the reader's limit of %d", i+1, len(line), MaxLineBytes)
		}
	}
	res, err := VerifyFile(w.Path())
	if err != nil || !res.OK() || res.Events != 2 {
		t.Errorf("verify: %+v %v", res, err)
	}
}

// The envelope is protected however a filter spells a field's name: `log`
// decodes lines with encoding/json, whose key matching ignores case, so a
// filter that adds "Event" or "Timestamp" must not change what `log` shows
// as the event's type, session or time (or make it unreadable).
func TestFilterCannotShadowProtectedFields(t *testing.T) {
	plain := appendWith(t, nil, filterEvent(), filterEvent())
	var want Event
	if err := json.Unmarshal([]byte(plain[1]), &want); err != nil {
		t.Fatal(err)
	}
	for _, set := range []map[string]string{
		{"Event": "tool_use"},
		{"SESSION_ID": "someone-else"},
		{"Timestamp": "2001-01-01T00:00:00.000Z"},
		{"Timestamp": "not a time"},
	} {
		lines := appendWith(t, func(*Event, map[string]any) (FilterEdit, error) { return FilterEdit{Set: set}, nil }, filterEvent(), filterEvent())
		var got Event
		if err := json.Unmarshal([]byte(lines[1]), &got); err != nil {
			t.Errorf("filter setting %v: `log` cannot decode the line: %v\n%s", set, err, lines[1])
			continue
		}
		if got.Event != want.Event || got.SessionID != want.SessionID || !got.Timestamp.Equal(want.Timestamp) || got.Seq != want.Seq {
			t.Errorf("filter setting %v: decoded as event %q session %q time %s seq %d; want %q %q %s %d",
				set, got.Event, got.SessionID, got.Timestamp, got.Seq, want.Event, want.SessionID, want.Timestamp, want.Seq)
		}
	}
}
