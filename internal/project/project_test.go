package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := RepoRoot(deep); ok || got != deep {
		t.Errorf("outside a repository: %q %v, want %q false", got, ok, deep)
	}
	// A worktree's .git is a file.
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := RepoRoot(deep + "/"); !ok || got != root {
		t.Errorf("inside: %q %v, want %q true", got, ok, root)
	}
	if FindRoot(deep) != root {
		t.Errorf("FindRoot(%q) = %q", deep, FindRoot(deep))
	}
	t.Chdir(deep)
	h, err := Current()
	if err != nil || h.Root != root || !h.InRepo || h.Cwd != deep {
		t.Errorf("Current() = %+v, %v", h, err)
	}
}

func TestPaths(t *testing.T) {
	for _, p := range []string{EventsDir, StateDir, CacheDir, BinDir} {
		if filepath.Dir(p) != Dir && filepath.Dir(filepath.Dir(p)) != Dir {
			t.Errorf("%s is not under %s", p, Dir)
		}
	}
}

func TestFindRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "packages", "web", "src")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindRoot(deep); got != root {
		t.Errorf("FindRoot(%s) = %s, want %s", deep, got, root)
	}
	// A worktree or submodule has a .git file, which counts too.
	sub := filepath.Join(root, "vendor", "lib")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FindRoot(sub); got != sub {
		t.Errorf("FindRoot(%s) = %s, want the submodule itself", sub, got)
	}
}
