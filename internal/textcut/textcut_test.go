package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s    string
		max  int
		want string
		cut  bool
	}{
		{"abc", 5, "abc", false},
		{"abc", 3, "abc", false},
		{"abcdef", 3, "abc", true},
		{"aé", 2, "a", true},  // é is two bytes: not split
		{"a€b", 3, "a", true}, // € is three
		{"𝄞𝄞", 5, "𝄞", true},  // four-byte runes
		{"abc", 0, "", true},
		{"abc", -1, "", true},
		{strings.Repeat("\x80", 10), 6, strings.Repeat("\x80", 6), true}, // invalid: the byte cut stands
	} {
		got, cut := Cut(tt.s, tt.max)
		if got != tt.want || cut != tt.cut {
			t.Errorf("Cut(%q, %d) = %q, %v; want %q, %v", tt.s, tt.max, got, cut, tt.want, tt.cut)
		}
	}
}

// FuzzCut: never longer than max, always a prefix, and valid UTF-8 stays
// valid.
func FuzzCut(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Add("\xff\xfe", 1)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		got, cut := Cut(s, limit)
		if len(got) > max(limit, 0) && cut || !strings.HasPrefix(s, got) || cut != (len(got) < len(s)) {
			t.Fatalf("Cut(%q, %d) = %q, %v", s, limit, got, cut)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q: split a rune", s, limit, got)
		}
	})
}
