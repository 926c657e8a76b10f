package termtext

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for r, want := range map[rune]Class{
		'a': Plain, ' ': Plain, '~': Plain, 'é': Plain, '☃': Plain, 0xfffd: Plain, 0x200d: Plain, // the emoji joiner
		'\t': Tab, '\n': Newline, '\r': Newline,
		0x00: Control, 0x07: Control, 0x1b: Control, 0x7f: Control, 0x85: Control, 0x9b: Control,
		0x2028: Separator, 0x2029: Separator,
		0x202e: Invisible, 0x202c: Invisible, 0x2066: Invisible, 0x200e: Invisible, 0x061c: Invisible,
		0x200b: Invisible, 0xfeff: Invisible, 0x00ad: Invisible,
	} {
		if got := Classify(r); got != want {
			t.Errorf("Classify(%U) = %d, want %d", r, got, want)
		}
	}
}

// The three renderings of the same hostile text.
func TestRenderings(t *testing.T) {
	for _, tc := range []struct{ in, strip, escape, line string }{
		{"plain", "plain", "plain", "plain"},
		{"a\tb\nc\rd", "a\tb\nc\rd", `a` + "\t" + `b\x0ac\x0dd`, `a\tb\nc\rd`},
		{"\x1b[1;31mred\x1b[0m", "red", `\x1b[1;31mred\x1b[0m`, `\x1b[1;31mred\x1b[0m`},
		{"bell\x07 del\x7f c1\u009b", "bell del c1", `bell\x07 del\x7f c1\u{009b}`, `bell\x07 del\x7f c1\x9b`},
		{"rtl \u202eevil\u202c sep\u2028x", "rtl evil sep\u2028x", `rtl \u{202e}evil\u{202c} sep\u{2028}x`, `rtl \u202eevil\u202c sep\u2028x`},
		{"zw\u200bsp \ufeffbom", "zwsp bom", `zw\u{200b}sp \u{feff}bom`, `zw\u200bsp \ufeffbom`},
		{"bad \xff utf8 \ufffd", "bad \ufffd utf8 \ufffd", `bad \xff utf8 \u{fffd}`, "bad \ufffd utf8 \ufffd"},
		{"ünïcode ☃ 👩\u200d💻", "ünïcode ☃ 👩\u200d💻", "ünïcode ☃ 👩\u200d💻", "ünïcode ☃ 👩\u200d💻"},
		{"unterminated \x1b[31", "unterminated ", `unterminated \x1b[31`, `unterminated \x1b[31`},
	} {
		if got := Strip(tc.in); got != tc.strip {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.strip)
		}
		if got := Escape(tc.in); got != tc.escape {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.escape)
		}
		if got := Line(tc.in, 0); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{strings.Repeat("a", 70), 60, strings.Repeat("a", 59) + "…"},
		{strings.Repeat("é", 70), 60, strings.Repeat("é", 59) + "…"},
		{strings.Repeat("a", 60), 60, strings.Repeat("a", 60)},
		{strings.Repeat("\n", 100), 10, `\n\n\n\n\` + "…"},
	} {
		if got := Line(tc.in, tc.max); got != tc.want {
			t.Errorf("Line(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// Nothing any rendering lets through moves the cursor or hides text.
func FuzzRenderingsAreSafe(f *testing.F) {
	f.Add("\x1b[2J\u202e\u2028\x9b\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Strip": Strip(s), "Escape": Escape(s), "Line": Line(s, 0)} {
			for _, r := range out {
				c := Classify(r)
				if c == Control || c == Invisible || name != "Strip" && c == Separator ||
					name == "Line" && c != Plain || name == "Escape" && c == Newline {
					t.Fatalf("%s(%q) lets %U through: %q", name, s, r, out)
				}
			}
		}
	})
}
