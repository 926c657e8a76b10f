package authority

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadTree(t *testing.T) {
	root := t.TempDir()
	write(t, root+"/cfg/a.toml", "a")
	write(t, root+"/cfg/scripts/b.star", "b")
	write(t, root+"/cfg/hooks.json", "skip me")
	write(t, root+"/outside.txt", "no")
	if err := os.Symlink(root+"/outside.txt", root+"/cfg/link.star"); err != nil {
		t.Fatal(err)
	}
	tr, skipped, err := ReadTree(root, "cfg", func(rel string) bool { return rel == "cfg/hooks.json" })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tr.Paths(), " "); got != "cfg/a.toml cfg/scripts/b.star" {
		t.Errorf("paths: %s", got)
	}
	if string(tr["cfg/scripts/b.star"]) != "b" {
		t.Errorf("contents: %q", tr["cfg/scripts/b.star"])
	}
	if strings.Join(skipped, " ") != "cfg/link.star" {
		t.Errorf("skipped: %v", skipped)
	}
	// A missing folder is an empty tree; a file is not a folder.
	if tr, _, err := ReadTree(root, "missing", nil); err != nil || len(tr) != 0 {
		t.Errorf("missing: %v %v", tr, err)
	}
	if _, _, err := ReadTree(root, "outside.txt", nil); err == nil {
		t.Error("a file as the folder: no error")
	}
	// Too big a file is an error, not a silent cut.
	big := strings.Repeat("x", MaxFileBytes+1)
	write(t, root+"/big/x", big)
	if _, _, err := ReadTree(root, "big", nil); err == nil {
		t.Error("an oversized file: no error")
	}
}

func TestStageCommitPrune(t *testing.T) {
	root := t.TempDir()
	parent := filepath.Join(root, "state", "authorized")
	tr := Tree{"cfg/a.toml": []byte("a\n"), "cfg/scripts/deep/b.star": []byte("b\n")}
	staged, err := Stage(parent, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(staged), ".staging-") {
		t.Errorf("staged as %s", staged)
	}
	final := filepath.Join(parent, digest('a'))
	if err := Commit(staged, final); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadTree(final, "cfg", nil)
	if err != nil || !Equal(got, tr) {
		t.Fatalf("committed tree: %v %v", got, err)
	}
	if fi, _ := os.Stat(filepath.Join(final, "cfg/a.toml")); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode())
	}
	// Committing over an existing copy replaces it whole.
	tr2 := Tree{"cfg/a.toml": []byte("a2\n")}
	staged, err = Stage(parent, tr2)
	if err != nil {
		t.Fatal(err)
	}
	if err := Commit(staged, final); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := ReadTree(final, "cfg", nil); !Equal(got, tr2) {
		t.Errorf("replaced tree: %v", got)
	}
	// Prune keeps the named copy and a fresh staging folder (another
	// authorization underway), and removes the rest.
	other := filepath.Join(parent, digest('b'))
	os.MkdirAll(other, 0o700)
	fresh, _ := Stage(parent, tr)
	stale, _ := Stage(parent, tr)
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	if err := Prune(parent, digest('a')); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{filepath.Base(fresh), digest('a')}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("after Prune: %v, want %v", names, want)
	}
}

// A tree cannot write outside the folder it is staged in.
func TestStageRejectsEscapingPaths(t *testing.T) {
	parent := t.TempDir()
	for _, p := range []string{"../x", "/abs", "a/../../b", "a/./b", "", ".", `a\b`, "a//b"} {
		if _, err := Stage(parent, Tree{p: []byte("x")}); err == nil {
			t.Errorf("Stage(%q): no error", p)
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestDiff(t *testing.T) {
	prev := Tree{
		"cfg/agent-shell.toml": []byte("version = 1\n\n[policy]\ndefault = \"allow\"\n\n[[rule]]\nid = \"a\"\naction = \"deny\"\nmatch = { basename = \"rm\" }\n"),
		"cfg/gone.star":        []byte("def f():\n    pass\n"),
		"cfg/same.json":        []byte("{}\n"),
	}
	next := Tree{
		"cfg/agent-shell.toml": []byte("version = 1\n\n[policy]\ndefault = \"allow\"\n\n[[rule]]\nid = \"a\"\naction = \"allow\"\nmatch = { basename = \"rm\" }\n"),
		"cfg/new.star":         []byte("x = 1"),
		"cfg/same.json":        []byte("{}\n"),
	}
	want := `changed file: cfg/agent-shell.toml
@@ -5,5 +5,5 @@
 
 [[rule]]
 id = "a"
-action = "deny"
+action = "allow"
 match = { basename = "rm" }
deleted file: cfg/gone.star
@@ -1,2 +0,0 @@
-def f():
-    pass
new file: cfg/new.star
@@ -0,0 +1 @@
+x = 1
\ No newline at end of file
`
	if got := Diff(prev, next); got != want {
		t.Errorf("Diff:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff(prev, prev); got != "" {
		t.Errorf("Diff of equal trees: %q", got)
	}
}

// What a human reviews cannot be hidden from them: escape sequences,
// carriage returns and bidirectional overrides are shown escaped, in file
// names too; binary files are summarized.
func TestDiffEscapes(t *testing.T) {
	got := Diff(nil, Tree{
		"cfg/\x1b[8mx.star": []byte("ok = 1 \x1b[2K\r# harmless\n"),
		"cfg/b.star":        []byte("s = \"\u202eevil\u202c\"\n"),
		"cfg/bin":           []byte("\x00\x01\x02"),
	})
	for _, want := range []string{
		`new file: cfg/\x1b[8mx.star`,
		`+ok = 1 \x1b[2K\x0d# harmless`,
		`+s = "\u{202e}evil\u{202c}"`,
		"binary file: 0 bytes before, 3 bytes now",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diff lacks %q:\n%s", want, got)
		}
	}
	if strings.ContainsAny(got, "\x1b\r\u202e") {
		t.Errorf("diff holds raw control characters: %q", got)
	}
}

// A long diff is cut, per file and in all, and says so.
func TestDiffBounds(t *testing.T) {
	var big strings.Builder
	for i := 0; i < 5000; i++ {
		big.WriteString("line\n")
	}
	tr := Tree{}
	for i := 0; i < 10; i++ {
		tr[filepath.Join("cfg", string(rune('a'+i)))] = []byte(big.String())
	}
	got := Diff(nil, tr)
	if n := strings.Count(got, "\n"); n > maxDiffLines+1 {
		t.Errorf("%d lines", n)
	}
	if !strings.Contains(got, "this file's diff is cut at 400 lines") || !strings.HasSuffix(got, "too long to show)\n") {
		t.Errorf("no cut notice:\n%s", got[len(got)-300:])
	}
}

// Hunks match diff -U3: changes far apart get their own hunk, near ones
// share one (the expected texts are GNU diff's).
func TestDiffHunksLikeGNUDiff(t *testing.T) {
	lines := func(edit func([]string) []string) []byte {
		var l []string
		for i := 1; i <= 20; i++ {
			l = append(l, "l"+strconv.Itoa(i))
		}
		return []byte(strings.Join(edit(l), "\n") + "\n")
	}
	a := lines(func(l []string) []string { return l })
	b := lines(func(l []string) []string { l[1], l[17] = "X2", "X18"; return l })
	c := lines(func(l []string) []string {
		l[4], l[9] = "X5", "X10"
		l = append(l[:14], l[15:]...)
		return append([]string{"new0"}, l...)
	})
	for _, tc := range []struct {
		next []byte
		want string
	}{
		{b, "@@ -1,5 +1,5 @@\n l1\n-l2\n+X2\n l3\n l4\n l5\n@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+X18\n l19\n l20\n"},
		{c, "@@ -1,18 +1,18 @@\n+new0\n l1\n l2\n l3\n l4\n-l5\n+X5\n l6\n l7\n l8\n l9\n-l10\n+X10\n l11\n l12\n l13\n l14\n-l15\n l16\n l17\n l18\n"},
	} {
		got := Diff(Tree{"f": a}, Tree{"f": tc.next})
		if want := "changed file: f\n" + tc.want; got != want {
			t.Errorf("Diff:\n%s\nwant:\n%s", got, want)
		}
	}
}
