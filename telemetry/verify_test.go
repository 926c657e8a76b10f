package telemetry

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeChain writes n events to session id in dir with the real Writer and
// returns the file's path.
func writeChain(t *testing.T, dir, id string, n int) string {
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
	// A last line without its newline (a torn write) is still checked, and
	// the Writer appending after it keeps the chain verifiable up to it.
	torn := writeChain(t, dir, "torn", 2)
	f, err := os.OpenFile(torn, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"sess`)
	f.Close()
	writeChain(t, dir, "torn", 1)
	if res, _ := VerifyFile(torn); res.Line != 3 || !strings.Contains(res.Problem, "not a well-formed JSON object") {
		t.Errorf("torn line: %+v", res)
	}
}
