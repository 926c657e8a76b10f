// Package project says where a project's files are: the repository root
// around a directory, and agent-shell's folders under it. Every package
// asks it instead of walking to .git or joining ".agent-shell" itself. It
// imports nothing of ours.
package project

import (
	"os"
	"path/filepath"
)

// The project's paths, relative to its root, slash-separated.
const (
	// Dir is agent-shell's own folder: the flight recorder and local state.
	Dir = ".agent-shell"
	// EventsDir holds the session files of events.
	EventsDir = Dir + "/events"
	// StateDir holds the compile cache and the authorized copies.
	StateDir = Dir + "/state"
	// CacheDir holds compiled programs and parsed manifests.
	CacheDir = StateDir + "/cache"
	// BinDir holds the helpers hosts run (Amp's delegate).
	BinDir = Dir + "/bin"
	// ConfigDir is the folder of the configuration's files.
	ConfigDir = ".github/hooks/agent-shell"
)

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

// FindRoot returns the project root for dir: the repository root when dir
// is inside one (see RepoRoot), else dir itself.
func FindRoot(dir string) string {
	root, _ := RepoRoot(dir)
	return root
}

// Here is the current directory and the project around it.
type Here struct {
	Cwd    string // the current directory
	Root   string // the repository root around it, else Cwd
	InRepo bool   // Cwd is inside a git repository
}

// Current is Here for the process's current directory.
func Current() (Here, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return Here{}, err
	}
	root, ok := RepoRoot(cwd)
	return Here{Cwd: cwd, Root: root, InRepo: ok}, nil
}
