package telemetry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultEventsSubdir is where events live under the project root.
const DefaultEventsSubdir = ".agent-shell/events"

// FindRoot returns the project root for dir: the repository root when dir
// is inside one (see RepoRoot), else dir itself.
func FindRoot(dir string) string {
	root, _ := RepoRoot(dir)
	return root
}

// RepoRoot returns the nearest ancestor of dir holding a .git entry (a
// directory, or a file for worktrees and submodules) and true, or dir and
// false outside a repository. It walks the file system instead of running
// git, which would cost a process start on every call.
func RepoRoot(dir string) (string, bool) {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir, false
		}
		d = parent
	}
}

// ErrLogDirOutsideRoot is returned when AGENTSHELL_LOG_DIR points outside the
// project root, literally or through a symbolic link.
var ErrLogDirOutsideRoot = errors.New("AGENTSHELL_LOG_DIR is outside the project root")

// EventsDir returns the directory events are written to under root. An
// AGENTSHELL_LOG_DIR override (relative to root) is used only when it stays
// inside root; otherwise the default is used and warn says why.
func EventsDir(root string, getenv func(string) string) (dir string, warn error) {
	def := filepath.Join(root, DefaultEventsSubdir)
	override := getenv("AGENTSHELL_LOG_DIR")
	if override == "" {
		return def, nil
	}
	d, err := containedDir(root, override)
	if err != nil {
		return def, fmt.Errorf("ignoring AGENTSHELL_LOG_DIR=%q: %w; using %s", override, err, def)
	}
	return d, nil
}

// EventsDirForRead is EventsDir for readers, which must not silently read
// somewhere else: an override outside root or a missing override directory
// is an error.
func EventsDirForRead(root string, getenv func(string) string) (string, error) {
	override := getenv("AGENTSHELL_LOG_DIR")
	if override == "" {
		return filepath.Join(root, DefaultEventsSubdir), nil
	}
	d, err := containedDir(root, override)
	if err != nil {
		return "", fmt.Errorf("AGENTSHELL_LOG_DIR=%q: %w", override, err)
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("AGENTSHELL_LOG_DIR=%q: no such directory", override)
	}
	return d, nil
}

// containedDir resolves p against root and checks that it stays inside root
// both as written and after resolving symbolic links in the deepest part of
// it that exists.
func containedDir(root, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !within(root, p) {
		return "", ErrLogDirOutsideRoot
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolve project root: %w", err)
	}
	existing := p
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	realExisting, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", existing, err)
	}
	if !within(realRoot, realExisting) {
		return "", ErrLogDirOutsideRoot
	}
	return p, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
