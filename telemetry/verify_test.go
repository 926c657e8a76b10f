package telemetry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeChain writes n events to session id in dir with the real Writer and
// returns the file's path.
func writeChain(t testing.TB, dir, id string, n int) string {
	t.Helper()
	w, err := OpenWriter(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	clock := t0
	w.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	for i := 0; i < n; i++ {
		e := &Event{Event: EventScriptEnd, Command: "npm test " + strings.Repeat("x", i), Actor: "human", ExitCode: i % 2}
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	return w.Path()
}

// editLines rewrites the file's lines with fn.
func editLines(t *testing.T, path string, fn func(lines [][]byte) [][]byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	lines = fn(lines)
	out := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyFile(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(lines [][]byte) [][]byte
		wantLine int
		want     string
		events   int
	}{
		{"intact", nil, 0, "", 5},
		{"changed line", func(l [][]byte) [][]byte {
			l[2] = bytes.Replace(l[2], []byte(`"actor":"human"`), []byte(`"actor":"robot"`), 1)
			return l
		}, 4, "prev_sha256 does not match line 3 (line 3 was changed)", 3},
		{"deleted line", func(l [][]byte) [][]byte { return append(l[:3:3], l[4:]...) }, 4, "seq 5, want 4 (a line was deleted or moved)", 3},
		{"deleted first line", func(l [][]byte) [][]byte { return l[1:] }, 1, "seq 2, want 1 (a line was deleted or moved)", 0},
		{"swapped lines", func(l [][]byte) [][]byte { l[1], l[2] = l[2], l[1]; return l }, 2, "seq 3, want 2 (a line was deleted or moved)", 1},
		{"repeated line", func(l [][]byte) [][]byte { return append(l[:3:3], l[2:]...) }, 4, "seq 3, want 4 (a line was repeated or moved)", 3},
		{"damaged line", func(l [][]byte) [][]byte { l[1] = l[1][:30]; return l }, 2, "not a well-formed JSON object: ", 1},
		{"not an object", func(l [][]byte) [][]byte { l[0] = []byte(`[1]`); return l }, 1, "not a JSON object", 0},
		{"empty line", func(l [][]byte) [][]byte { return append(l, nil) }, 6, "empty line, not a JSON object", 5},
		{"missing seq", func(l [][]byte) [][]byte {
			l[0] = bytes.Replace(l[0], []byte(`,"seq":1`), nil, 1)
			return l
		}, 1, "no seq", 0},
		{"float seq", func(l [][]byte) [][]byte {
			l[0] = bytes.Replace(l[0], []byte(`"seq":1`), []byte(`"seq":1.0`), 1)
			return l
		}, 1, "seq is not an integer", 0},
		{"missing prev", func(l [][]byte) [][]byte {
			i := bytes.Index(l[1], []byte(`,"prev_sha256"`))
			l[1] = append(l[1][:i:i], '}')
			return l
		}, 2, "no prev_sha256", 1},
		{"first line with prev", func(l [][]byte) [][]byte {
			l[0] = append(bytes.TrimSuffix(l[0], []byte("}")), `,"prev_sha256":"00"}`...)
			return l
		}, 1, "first line has a prev_sha256", 0},
		{"changed hash", func(l [][]byte) [][]byte {
			l[4] = bytes.Replace(l[4], []byte(`"prev_sha256":"`), []byte(`"prev_sha256":"0`), 1)
			return l
		}, 5, "prev_sha256 does not match line 4", 4},
		{"uppercase hash", func(l [][]byte) [][]byte {
			i := bytes.Index(l[4], []byte(`"prev_sha256":"`)) + len(`"prev_sha256":"`)
			copy(l[4][i:], bytes.ToUpper(l[4][i:i+64]))
			return l
		}, 5, "prev_sha256 does not match line 4", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeChain(t, t.TempDir(), "s", 5)
			if tt.edit != nil {
				editLines(t, p, tt.edit)
			}
			res, err := VerifyFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if res.Line != tt.wantLine || !strings.Contains(res.Problem, tt.want) || res.Events != tt.events {
				t.Errorf("VerifyFile = line %d %q (%d events); want line %d %q (%d events)", res.Line, res.Problem, res.Events, tt.wantLine, tt.want, tt.events)
			}
			if res.OK() != (tt.wantLine == 0) || res.File != p {
				t.Errorf("OK = %v, File = %s", res.OK(), res.File)
			}
		})
	}
}

func TestVerifyFileEdgeCases(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, dir, "empty.jsonl", nil)
	if res, err := VerifyFile(empty); err != nil || !res.OK() || res.Events != 0 {
		t.Errorf("empty file: %+v, %v", res, err)
	}
	if _, err := VerifyFile(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("missing file: no error")
	}
	// The test helper's chains are what the Writer writes.
	p := writeFile(t, dir, "helper.jsonl", chainLines(ev(EventToolUse, "a", 1), ev(EventToolUse, "b", 2)))
	if res, err := VerifyFile(p); err != nil || !res.OK() || res.Events != 2 {
		t.Errorf("helper chain: %+v, %v", res, err)
	}
	// A line over the limit is a break, not a crash or a silent skip.
	long := writeFile(t, dir, "long.jsonl", append(chainLines(ev(EventToolUse, "a", 1)), strings.Repeat("x", MaxLineBytes+1)+"\n"...))
	if res, _ := VerifyFile(long); res.Line != 2 || !strings.Contains(res.Problem, "longer than") {
		t.Errorf("long line: %+v", res)
	}
	// A last line without its newline (a torn write) is still checked.
	torn := writeChain(t, dir, "torn", 2)
	appendBytes(t, torn, `{"v":1,"sess`)
	if res, _ := VerifyFile(torn); res.Line != 3 || !strings.Contains(res.Problem, "not a well-formed JSON object") {
		t.Errorf("torn line: %+v", res)
	}
}

func appendBytes(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// tornChain writes two events, a torn line, and two events after it with
// the real Writer (which repairs the torn line first): lines 1-2 events,
// 3 torn, 4 the repair, 5-6 events.
func tornChain(t *testing.T, dir string) string {
	t.Helper()
	p := writeChain(t, dir, "s", 2)
	appendBytes(t, p, `{"v":1,"session_id":"s","event":"script_end","comm`)
	writeChain(t, dir, "s", 2)
	return p
}

func TestVerifyFileRepairs(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(lines [][]byte) [][]byte
		wantLine int
		want     string
		events   int
		repairs  []Repair
	}{
		{"repaired", nil, 0, "", 5, []Repair{{Line: 4, FirstTorn: 3, Bytes: 50}}},
		{"torn line changed", func(l [][]byte) [][]byte { l[2][10] = 'X'; return l }, 3,
			"not a well-formed JSON object: unterminated string at byte 46 (the repair at line 4 names other lines)", 2, nil},
		{"torn line longer", func(l [][]byte) [][]byte { l[2] = append(l[2], 'x'); return l }, 3,
			"(the repair at line 4 names other lines)", 2, nil},
		{"first line changed", func(l [][]byte) [][]byte { l[0] = append(l[0], ' '); return l }, 2,
			"prev_sha256 does not match line 1", 1, nil},
		{"line before the torn one changed", func(l [][]byte) [][]byte {
			l[1] = bytes.Replace(l[1], []byte(`"actor":"human"`), []byte(`"actor":"robot"`), 1)
			return l
		}, 4, "prev_sha256 does not match line 2 (line 2 was changed)", 2, nil},
		{"repair changed", func(l [][]byte) [][]byte {
			l[3] = bytes.Replace(l[3], []byte(`"actor":"human"`), []byte(`"actor":"robot"`), 1)
			return l
		}, 5, "prev_sha256 does not match line 4 (line 4 was changed)", 3, []Repair{{Line: 4, FirstTorn: 3, Bytes: 50}}},
		{"torn line deleted", func(l [][]byte) [][]byte { return append(l[:2:2], l[3:]...) }, 3,
			"a repair, but the line before it is not torn", 2, nil},
		{"repair deleted", func(l [][]byte) [][]byte { return append(l[:3:3], l[4:]...) }, 3,
			"not a well-formed JSON object", 2, nil},
		{"another damaged line after the repair", func(l [][]byte) [][]byte {
			return append(l[:5:5], []byte("garbage"), l[5])
		}, 6, "not a JSON object (starts with 'g')", 4, []Repair{{Line: 4, FirstTorn: 3, Bytes: 50}}},
		{"more damaged lines than a repair names", func(l [][]byte) [][]byte {
			var out [][]byte
			out = append(out, l[:2]...)
			for range maxTornLines + 1 {
				out = append(out, l[2])
			}
			return append(out, l[3:]...)
		}, 3, "not a well-formed JSON object", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tornChain(t, t.TempDir())
			if tt.edit != nil {
				editLines(t, p, tt.edit)
			}
			res, err := VerifyFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if res.Line != tt.wantLine || !strings.Contains(res.Problem, tt.want) || res.Events != tt.events {
				t.Errorf("VerifyFile = line %d %q (%d events); want line %d %q (%d events)", res.Line, res.Problem, res.Events, tt.wantLine, tt.want, tt.events)
			}
			if fmt.Sprint(res.Repairs) != fmt.Sprint(tt.repairs) {
				t.Errorf("Repairs = %v, want %v", res.Repairs, tt.repairs)
			}
		})
	}
}

// TestVerifyFileRepairedTwice: a repair torn in turn is named, with the
// line it was repairing, by the next one, and every repair is reported.
func TestVerifyFileRepairedTwice(t *testing.T) {
	dir := t.TempDir()
	p := tornChain(t, dir)
	appendBytes(t, p, `{"v":1,"seq":7,"cut`+"\n"+`{"v":1,"event":"repair","ses`)
	writeChain(t, dir, "s", 1)
	res, err := VerifyFile(p)
	want := []Repair{{Line: 4, FirstTorn: 3, Bytes: 50}, {Line: 9, FirstTorn: 7, Bytes: 47}}
	if err != nil || !res.OK() || res.Events != 7 || fmt.Sprint(res.Repairs) != fmt.Sprint(want) {
		t.Errorf("VerifyFile = %+v, %v; want OK, 7 events, repairs %v", res, err, want)
	}
	if got := want[1].String(); got != "2 torn lines (47 bytes, a write cut short) ended and named by the repair at line 9" {
		t.Errorf("Repair.String() = %q", got)
	}
}

// FuzzVerifyChain: any file content is verified without panicking, the
// break is on a line of the file, and a file that passes has every line
// either chained or named by a repair.
func FuzzVerifyChain(f *testing.F) {
	seed, _ := os.ReadFile(writeChain(f, f.TempDir(), "seed", 3))
	f.Add(seed)
	f.Add(append(bytes.Clone(seed), `{"v":1,"cut`...))
	tornDir := f.TempDir()
	torn := writeChain(f, tornDir, "s", 1)
	appendBytes(f, torn, `{"v":1,"se`)
	writeChain(f, tornDir, "s", 1)
	repaired, _ := os.ReadFile(torn)
	f.Add(repaired)
	f.Add([]byte(`{"v":1,"event":"repair","torn":[{"offset":0,"length":0,"sha256":""}],"seq":1}` + "\n"))
	f.Add([]byte("\n{\"event\":\"repair\",\"torn\":[{\"offset\":0,\"length\":0,\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}],\"seq\":1}\n"))
	f.Add([]byte(`{"event":"repair","torn":{"offset":"x"},"seq":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := verifyChain(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			lines++
		}
		if res.Line < 0 || res.Line > lines || (res.Line > 0) == (res.Problem == "") {
			t.Fatalf("%d lines: break at line %d: %q", lines, res.Line, res.Problem)
		}
		if !res.OK() {
			return
		}
		accounted := res.Events
		for _, r := range res.Repairs {
			accounted += r.Line - r.FirstTorn
		}
		if accounted != lines {
			t.Fatalf("%d lines pass, but %d events and repairs %v account for them", lines, res.Events, res.Repairs)
		}
	})
}
