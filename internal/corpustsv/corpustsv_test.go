package corpustsv

import "testing"

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `a\b`, "tab\there", "line\nbreak\r", `\git reset --hard`, `\\n`} {
		if got := Unescape(Escape(s)); got != s {
			t.Errorf("Unescape(Escape(%q)) = %q", s, got)
		}
	}
	if got := Unescape(`cat <<EOF\nrm -rf /\nEOF`); got != "cat <<EOF\nrm -rf /\nEOF" {
		t.Errorf("got %q", got)
	}
}

func FuzzEscapeRoundTrip(f *testing.F) {
	f.Add("a\tb\\n")
	f.Fuzz(func(t *testing.T, s string) {
		if got := Unescape(Escape(s)); got != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, got)
		}
	})
}
