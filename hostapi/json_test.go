package hostapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonString reads a JSON string exactly as json.Unmarshal does (after
// bytes.TrimSpace), through its one-pass path or the full decoder.
func FuzzJSONString(f *testing.F) {
	for _, seed := range []string{`"git status -s"`, `"a\"b"`, `"tab\there"`, `"é"`, "\"\xff\"", `"x"y"`, `""`, `"`, `null`, ` "pad" `, "\"a\nb\"", `"\u00e9"`, `"a\\"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := jsonString(raw)
		var want string
		trimmed := bytes.TrimSpace(raw)
		wantOK := len(trimmed) > 0 && trimmed[0] == '"' && json.Unmarshal(trimmed, &want) == nil
		if ok != wantOK || got != want {
			t.Fatalf("jsonString(%q) = %q, %v; json.Unmarshal gives %q, %v", raw, got, ok, want, wantOK)
		}
	})
}

func TestJSONStringReadsLongPlainCommands(t *testing.T) {
	cmd := strings.Repeat("git status -s && ", 3000) + "true"
	raw := []byte(`"` + cmd + `"`) // as hosts send it: & is not escaped
	if got, ok := jsonString(raw); !ok || got != cmd {
		t.Fatalf("a long plain command was not read back whole")
	}
	if _, ok := plainJSONString(raw); !ok {
		t.Errorf("a command with nothing to unescape took the full decoder")
	}
	if s, ok := plainJSONString([]byte(`"a\"b"`)); ok {
		t.Errorf("an escaped quote was read plainly: %q", s)
	}
}
