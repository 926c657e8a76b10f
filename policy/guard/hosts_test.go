package guard

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/hostapi"
)

// concrete is a file a registration pattern names (* and ? as x).
func concrete(pattern string) string {
	return strings.NewReplacer("/**", "/x/hooks.json", "*", "x", "?", "x").Replace(pattern)
}

// covered reports whether file is one of the protected paths or under one,
// a path that exists with no pattern in it.
func covered(protected []string, file string) bool {
	return slices.ContainsFunc(protected, func(p string) bool {
		return !strings.ContainsAny(p, "*?[") && (p == file || strings.HasPrefix(file, p+string(filepath.Separator)))
	})
}

// Every registered host's registrations, in the repository and in the
// home, and every file its Install writes, are protected, and the kernel
// is given their folders.
func TestGuardProtectsEveryHostsRegistrations(t *testing.T) {
	root, home := guardRoot(t)
	protected := ProtectedPaths(root, nil)
	for _, p := range protected {
		if strings.ContainsAny(p, "*?[") {
			t.Errorf("%s: a pattern among the protected paths: the kernel is given paths", p)
		}
	}
	for _, d := range hostapi.Descriptors() {
		if len(d.Registrations) == 0 {
			t.Errorf("%s: no registration file", d.Name)
		}
		for _, r := range d.Registrations {
			rel := concrete(r.Path)
			cmd := "echo '{}' > " + rel
			// The way out: agent-shell's install for a file it writes, an
			// authorized allow_agent_edits for the host's own.
			fix := "allow_agent_edits"
			if slices.ContainsFunc(d.Installs, func(f string) bool { ok, _ := path.Match(r.Path, f); return ok }) {
				fix = "--agent " + d.Name
			}
			if g := Command(root, root, cmd, nil, nil); g == nil || g.Guard != HookRegistration || !strings.Contains(g.Reason, fix) {
				t.Errorf("%s: %q: %+v, want a hook-registration deny saying %q", d.Name, cmd, g, fix)
			}
			if !covered(protected, filepath.Join(root, filepath.FromSlash(rel))) {
				t.Errorf("%s: %s is under none of the protected paths %v", d.Name, rel, protected)
			}
		}
		for _, r := range d.HomeRegistrations {
			cmd := "rm ~/" + concrete(r.Path)
			if g := Command(root, root, cmd, nil, nil); g == nil || g.Guard != HookRegistration {
				t.Errorf("%s: %q: %+v, want a hook-registration deny", d.Name, cmd, g)
			}
			if !covered(protected, filepath.Join(home, filepath.FromSlash(concrete(r.Path)))) {
				t.Errorf("%s: ~/%s is under none of the protected paths", d.Name, r.Path)
			}
		}
		if slices.Contains(protected, root) || slices.Contains(protected, home) {
			t.Errorf("%s: the whole root or home is among the protected paths", d.Name)
		}
		for _, f := range d.Installs {
			if g := Command(root, root, "rm -f "+f, nil, nil); g == nil {
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
	if g := Command(root, root, "echo '{}' > $SOME_DIR"+rel, nil, nil); g != nil {
		t.Fatalf("an unknown variable resolved: %+v", g)
	}
	for _, d := range hostapi.Descriptors() {
		if d.ProjectDirEnv == "" {
			continue
		}
		for _, w := range []string{"$" + d.ProjectDirEnv, "${" + d.ProjectDirEnv + "}"} {
			if g := Command(root, root, "echo '{}' > "+w+rel, nil, nil); g == nil || g.Guard != HookRegistration {
				t.Errorf("%s: a write through %s: %+v", d.Name, w, g)
			}
		}
	}
}

// A registration whose pattern is in a middle component (a skill's
// .claude/skills/*/SKILL.md) holds for what removes, moves or copies over a
// folder above it, whatever the case of the file's name.
func TestGuardPatternInAMiddleComponent(t *testing.T) {
	root, _ := guardRoot(t)
	writeGuardFile(t, root, ".claude/skills/review/SKILL.md", "---\nhooks: {}\n---\n")
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "evil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "evil", "SKILL.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"rm -rf .claude/skills",
		"rm -rf .claude/skills/review",
		"mv .claude/skills/review /tmp/x",
		"cp -r " + src + "/evil .claude/skills/new",
		"cp -r " + src + "/. .claude/skills/",
		"rsync -a " + src + "/ .claude/skills/",
	} {
		if g := Command(root, root, cmd, nil, nil); g == nil || g.Guard != HookRegistration {
			t.Errorf("%q: %+v, want a hook-registration deny", cmd, g)
		}
	}
	for _, cmd := range []string{"rm -rf .claude/skills/other", "cp -r " + src + "/evil/SKILL.md /tmp/x", "ls .claude/skills"} {
		if g := Command(root, root, cmd, nil, nil); g != nil {
			t.Errorf("%q: %+v, want no deny", cmd, g)
		}
	}
}
