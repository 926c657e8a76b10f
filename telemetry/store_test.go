package telemetry

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

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

func TestEventsDir(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	def := filepath.Join(root, DefaultEventsSubdir)
	tests := []struct {
		name     string
		override string
		want     string
		wantWarn bool
	}{
		{"default", "", def, false},
		{"relative inside", "logs/events", filepath.Join(root, "logs/events"), false},
		{"absolute inside", filepath.Join(root, "x"), filepath.Join(root, "x"), false},
		{"dot-dot out", "../elsewhere", def, true},
		{"absolute outside", outside, def, true},
		{"through a symlink out", "escape/events", def, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "AGENTSHELL_LOG_DIR" {
					return tt.override
				}
				return ""
			}
			got, warn := EventsDir(root, getenv)
			if got != tt.want || (warn != nil) != tt.wantWarn {
				t.Errorf("EventsDir = %s, %v; want %s, warning %v", got, warn, tt.want, tt.wantWarn)
			}
			if tt.wantWarn && !errors.Is(warn, ErrLogDirOutsideRoot) {
				t.Errorf("warning %v does not wrap ErrLogDirOutsideRoot", warn)
			}
			_, err := EventsDirForRead(root, getenv)
			if tt.wantWarn && err == nil {
				t.Errorf("EventsDirForRead accepted %q", tt.override)
			}
		})
	}
	// For reading, a missing override directory is an error, not an empty log.
	missing := func(k string) string {
		if k == "AGENTSHELL_LOG_DIR" {
			return "nowhere"
		}
		return ""
	}
	if _, err := EventsDirForRead(root, missing); err == nil {
		t.Error("EventsDirForRead accepted a missing directory")
	}
}
