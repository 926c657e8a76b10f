package guard

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// concrete is a file a registration pattern names (* and ? as x).
func concrete(pattern string) string { return strings.NewReplacer("*", "x", "?", "x").Replace(pattern) }

// Every registered host's registrations, in the repository and in the
// home, and every file its Install writes, are protected, and the kernel
// is given their folders.
func TestGuardProtectsEveryHostsRegistrations(t *testing.T) {
	root, home := guardRoot(t)
	protected := ProtectedPaths(root, nil)
	for _, d := range hostapi.Descriptors() {
		if len(d.Registrations) == 0 {
			t.Errorf("%s: no registration file", d.Name)
		}
		for _, r := range d.Registrations {
			rel := concrete(r.Path)
			cmd := "echo '{}' > " + rel
			if g := Command(root, root, cmd, nil); g == nil || g.Guard != HookRegistration || !strings.Contains(g.Reason, "--agent "+d.Name) {
				t.Errorf("%s: %q: %+v, want a hook-registration deny naming the host", d.Name, cmd, g)
			}
			want := filepath.Join(root, filepath.FromSlash(path.Dir(rel)))
			if path.Dir(rel) == "." {
				want = filepath.Join(root, rel) // at the top, the file itself: never the whole root
			}
			if !slices.Contains(protected, want) {
				t.Errorf("%s: %s is not among the protected paths %v", d.Name, want, protected)
			}
		}
		for _, r := range d.HomeRegistrations {
			cmd := "rm ~/" + concrete(r.Path)
			if g := Command(root, root, cmd, nil); g == nil || g.Guard != HookRegistration {
				t.Errorf("%s: %q: %+v, want a hook-registration deny", d.Name, cmd, g)
			}
			if dir := filepath.Join(home, filepath.FromSlash(path.Dir(r.Path))); !slices.Contains(protected, dir) {
				t.Errorf("%s: %s is not among the protected paths", d.Name, dir)
			}
		}
		if slices.Contains(protected, root) || slices.Contains(protected, home) {
			t.Errorf("%s: the whole root or home is among the protected paths", d.Name)
		}
		for _, f := range d.Installs {
			if g := Command(root, root, "rm -f "+f, nil); g == nil {
				t.Errorf("%s: rm -f %s is not guarded", d.Name, f)
			}
		}
	}
}

// The variable a host sets to its project folder is the root: a write
// through it reaches the protected files (another variable is not known).
func TestGuardResolvesEveryHostsProjectDir(t *testing.T) {
	root, _ := guardRoot(t)
	const rel = "/.gemini/settings.json"
	if g := Command(root, root, "echo '{}' > $SOME_DIR"+rel, nil); g != nil {
		t.Fatalf("an unknown variable resolved: %+v", g)
	}
	for _, d := range hostapi.Descriptors() {
		if d.ProjectDirEnv == "" {
			continue
		}
		for _, w := range []string{"$" + d.ProjectDirEnv, "${" + d.ProjectDirEnv + "}"} {
			if g := Command(root, root, "echo '{}' > "+w+rel, nil); g == nil || g.Guard != HookRegistration {
				t.Errorf("%s: a write through %s: %+v", d.Name, w, g)
			}
		}
	}
}
