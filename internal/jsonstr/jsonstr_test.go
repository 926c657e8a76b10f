package jsonstr

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzAppend: what Append writes is one JSON string, on one line, that
// decodes to s (to s with U+FFFD for its invalid bytes); AppendExact takes
// only valid UTF-8.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" back \\ slash", "nl\nr\rt\t\x00\x1f", "\u2028\u2029", "\xff\xfe", "héllo €"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := Append(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %s does not decode: %v", s, b, err)
		}
		for _, c := range b {
			if c == '\n' || c == '\r' {
				t.Fatalf("%q: %s holds a line break", s, b)
			}
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("%q decodes to %q", s, got)
		}
		if _, err := AppendExact(nil, s); (err == nil) != utf8.ValidString(s) {
			t.Fatalf("%q: AppendExact error %v", s, err)
		}
	})
}

// FuzzAppendMarshal: AppendMarshal writes what json.Marshal writes, byte
// for byte, and Append what it always wrote (the event lines' hash chain
// depends on it: \b and \f stay \u escapes, <, > and & stay as they are).
func FuzzAppendMarshal(f *testing.F) {
	for _, s := range []string{"", "<script>&amp;</script>", "\b\f\n\r\t\x00\x7f", "\u2028\u2029", "\xff\xed\xa0\x80", "rm -rf *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendMarshal(nil, s); string(got) != string(want) {
			t.Fatalf("AppendMarshal(%q) = %s, json.Marshal %s", s, got, want)
		}
	})
}

func TestAppendKeepsItsEscaping(t *testing.T) {
	if got := string(Append(nil, "a<b>&\b\f")); got != `"a<b>&\u0008\u000c"` {
		t.Errorf("Append changed: %s", got)
	}
}
