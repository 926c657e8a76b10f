package hostapi

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every host's registrations that status looks at are found when a file
// there registers hooks, and not when it does not; agent-shell's own
// files never are.
func TestHooksBesideEveryHost(t *testing.T) {
	concrete := strings.NewReplacer("*", "x", "?", "x")
	write := func(t *testing.T, base, rel, text string) {
		t.Helper()
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	looked := 0
	for _, d := range Descriptors() {
		root, home := t.TempDir(), t.TempDir()
		for _, f := range d.Installs {
			write(t, root, f, "agent-shell hook hooks: \"hooks\" \"plugin\" [hooks")
		}
		if got := d.HooksBeside(root, home); len(got) != 0 {
			t.Errorf("%s: agent-shell's own files reported: %q", d.Name, got)
		}
		var want []string
		for _, area := range []struct {
			base, show string
			regs       []Registration
		}{{root, "", d.Registrations}, {home, "~/", d.HomeRegistrations}} {
			for _, r := range area.regs {
				if r.Beside == "" || strings.HasSuffix(r.Path, "/**") || slices.Contains(d.Installs, r.Path) {
					continue
				}
				looked++
				rel := concrete.Replace(r.Path)
				if r.Beside == HooksAlways {
					write(t, area.base, rel, "anything")
					want = append(want, area.show+rel)
					continue
				}
				write(t, area.base, rel, "no marker here")
				if got := d.HooksBeside(root, home); slices.Contains(got, area.show+rel) {
					t.Errorf("%s: %s reported without %q", d.Name, rel, r.Beside)
				}
				write(t, area.base, rel, "x\n"+r.Beside+" y\n")
				want = append(want, area.show+rel)
			}
		}
		if got := d.HooksBeside(root, home); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", d.Name, got, want)
		}
	}
	if looked < 10 {
		t.Fatalf("looked at %d registrations: the descriptors say too little", looked)
	}
}
