package udiff

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n"
	b := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n15\n16\n"
	want := `--- a
+++ b
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -11,5 +11,5 @@
 11
 12
 13
-14
 15
+16
`
	if got := Unified("a", "b", []byte(a), []byte(b)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Unified("a", "b", []byte("x\n"), []byte("x\n")); got != "" {
		t.Errorf("equal inputs: %q", got)
	}
	if got := Unified("a", "b", nil, []byte("x\n")); got != "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("from empty: %q", got)
	}
}

// What a human reviews is what the text holds: controls, carriage returns
// and bidirectional overrides are escaped, a missing last newline said.
func TestUnifiedEscapes(t *testing.T) {
	got := Unified("a", "b", []byte("ok\n"), []byte("ok = 1 \x1b[2K\r# harmless\ns = \"\u202eevil\u202c\""))
	for _, want := range []string{`+ok = 1 \x1b[2K\x0d# harmless`, `+s = "\u{202e}evil\u{202c}"`, `\ No newline at end of file`} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
}

// The edit script always turns the old lines into the new ones, whether it
// is matched line by line or, for a middle too large, replaced whole.
func TestDiffOpsReconstruct(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+r.IntN(4))) + "\n"
		}
		return out
	}
	check := func(a, b []string) {
		t.Helper()
		var gotA, gotB []string
		for _, o := range diffOps(a, b) {
			switch o.kind {
			case ' ':
				if a[o.a] != b[o.b] {
					t.Fatalf("kept line differs: %q %q", a[o.a], b[o.b])
				}
				gotA, gotB = append(gotA, a[o.a]), append(gotB, b[o.b])
			case '-':
				gotA = append(gotA, a[o.a])
			case '+':
				gotB = append(gotB, b[o.b])
			}
		}
		if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
			t.Fatalf("ops do not rebuild:\na=%q\nb=%q", a, b)
		}
	}
	for i := 0; i < 300; i++ {
		check(gen(r.IntN(30)), gen(r.IntN(30)))
	}
	// Too large to match: replaced whole, still correct.
	check(gen(3000), gen(3000))
}
