package discover

import (
	"path/filepath"
	"strings"
	"testing"
)

// Merge keeps the existing text byte for byte, adds the safety pack and the
// rules it lacks after it, keeps the user's [policy] (with a note), and
// refuses a manifest that does not load.
func TestMerge(t *testing.T) {
	p, err := Scan(filepath.Join("testdata", "go-module"))
	if err != nil {
		t.Fatal(err)
	}
	prop := Propose(p)
	path := filepath.Join(t.TempDir(), "agent-shell.toml")
	mine := "# mine\nversion = 1\n\n[policy]\ndefault = \"allow\"\n\n[[rule]]\nid = \"project-test\"\naction = \"deny\"\nmatch = { basename = \"go\" }\n"
	merged, notes, err := Merge(path, []byte(mine), prop)
	if err != nil {
		t.Fatal(err)
	}
	got := string(merged)
	if !strings.HasPrefix(got, mine) {
		t.Errorf("the existing text changed:\n%s", got)
	}
	if strings.Count(got, `id = "project-test"`) != 1 || !strings.Contains(got, `name = "safety"`) || !strings.Contains(got, `id = "git-read-only"`) {
		t.Errorf("merged:\n%s", got)
	}
	if !strings.Contains(strings.Join(notes, "\n"), `rule project-test is yours and differs from the proposal's`) ||
		!strings.Contains(strings.Join(notes, "\n"), `[policy] default = "allow" is yours and was kept`) {
		t.Errorf("notes: %q", notes)
	}
	again, _, err := Merge(path, merged, prop)
	if err != nil || string(again) != got {
		t.Errorf("a second merge changed it (err %v)", err)
	}
	if _, _, err := Merge(path, []byte("version = 1\n[[rule]]\nid = 3\n"), prop); err == nil || !strings.Contains(err.Error(), "does not load") {
		t.Errorf("a broken manifest: err %v", err)
	}
}
