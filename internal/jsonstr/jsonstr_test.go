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
