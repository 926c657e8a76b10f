package telemetry

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRepair holds the writer and the verifier to each other: after a
// chain written by the Writer, whatever bytes a cut-short write (or
// anything else) left, the next Append never fails or panics, leaves those
// bytes as they were and ends the file with a newline; and when they are a
// few damaged lines, which is what torn writes leave, the file verifies
// with one repair naming them.
func FuzzRepair(f *testing.F) {
	f.Add(uint8(2), []byte(`{"v":1,"session_id":"s","event":"scr`))
	f.Add(uint8(1), []byte("{\"v\":1,\n{\"v\":1,\"event\":\"repair\",\"ses"))
	f.Add(uint8(0), []byte(`{"v":1,"se`))
	f.Add(uint8(3), []byte("garbage\n"))
	f.Add(uint8(1), []byte("\n\n"))
	f.Add(uint8(2), []byte(`{"v":1,"seq":3}`))
	f.Add(uint8(1), []byte(`{"v":1,"seq":3}`+"\nx"))
	f.Fuzz(func(t *testing.T, events uint8, junk []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		if events%4 > 0 {
			writeChain(t, dir, "s", int(events%4))
		}
		chain, _ := os.ReadFile(path)
		before := append(chain, junk...)
		if err := os.WriteFile(path, before, 0o644); err != nil {
			t.Fatal(err)
		}
		w, err := OpenWriter(dir, "s")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Append(&Event{SessionID: "s", Event: EventToolUse, Command: "after"}); err != nil {
			t.Fatalf("Append after %q: %v", junk, err)
		}
		after, _ := os.ReadFile(path)
		if !bytes.HasPrefix(after, before) || after[len(after)-1] != '\n' {
			t.Fatalf("after %q the file is %q", junk, after)
		}
		res, err := VerifyFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := tornJunkLines(junk); n > 0 && (!res.OK() || len(res.Repairs) != 1 || res.Repairs[0].Line-res.Repairs[0].FirstTorn != n) {
			t.Fatalf("after %q: %+v, want OK with one repair of %d lines", junk, res, n)
		}
		if len(junk) == 0 && (!res.OK() || len(res.Repairs) != 0) {
			t.Fatalf("no junk: %+v", res)
		}
	})
}

// tornJunkLines is the number of lines of junk (appended after whole lines)
// when they are what a repair names: 1 to maxTornLines lines, none of them
// a JSON object or too long to hash; else 0.
func tornJunkLines(junk []byte) int {
	if len(junk) == 0 {
		return 0
	}
	lines := bytes.Split(bytes.TrimSuffix(junk, []byte("\n")), []byte("\n"))
	if len(lines) > maxTornLines {
		return 0
	}
	var sc Scanner
	var lf LineFields
	for _, l := range lines {
		if len(l) > MaxLineBytes || sc.Scan(l, &lf) == nil {
			return 0
		}
	}
	return len(lines)
}
