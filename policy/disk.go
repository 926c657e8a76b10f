package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agent-shell/agent-shell/internal/plainfile"
	"github.com/agent-shell/agent-shell/policy/shellcmd"
)

// maxDiskFile bounds a file read for what a program runs from it (a
// package.json as onboarding bounds it, a makefile).
const maxDiskFile = 512 << 10

// lineDisk is what a line run in cwd reads from disk for the parse
// (shellcmd.Disk): the package.json a package manager finds, the nearest
// one up from the folder it runs in, the makefile make reads, a git
// repository's configuration and hooks. home resolves "~"; each file is
// read once per line.
func lineDisk(cwd, home string) shellcmd.Disk {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return shellcmd.Disk{}
	}
	// folder is where a program runs with the directory changes dirs in
	// force; when they are not known, where the line starts is the best
	// guess.
	folder := func(dirs []string, unknown bool) (string, bool) {
		start := cwd
		if unknown {
			return start, true
		}
		for _, d := range dirs {
			switch {
			case d == "~" || strings.HasPrefix(d, "~/"):
				if home == "" {
					return "", false
				}
				start = filepath.Join(home, d[1:])
			case filepath.IsAbs(d):
				start = filepath.Clean(d)
			default:
				start = filepath.Join(start, d)
			}
		}
		return start, true
	}
	type found struct {
		text, why string
		there     bool
	}
	read := map[string]found{} // by path: each file is read once per line
	readOnce := func(p string) found {
		f, ok := read[p]
		if !ok {
			var data []byte
			data, f.there, f.why = readDiskFile(p)
			f.text = string(data)
			read[p] = f
		}
		return f
	}
	findUp := func(dirs []string, unknown bool, name string) (string, string, string) {
		start, ok := folder(dirs, unknown)
		if !ok {
			return "", "", ""
		}
		for dir := start; ; dir = filepath.Dir(dir) {
			if f := readOnce(filepath.Join(dir, name)); f.there {
				return f.text, dir, f.why
			}
			if dir == filepath.Dir(dir) {
				return "", "", ""
			}
		}
	}
	file := func(dirs []string, unknown bool, names []string) (string, string, string) {
		dir, ok := folder(dirs, unknown)
		if !ok {
			return "", "", ""
		}
		for _, n := range names {
			p := n
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, n)
			}
			if f := readOnce(p); f.there {
				return f.text, dir, f.why
			}
		}
		return "", "", ""
	}
	type repo struct{ gitDir, workTree string }
	repos := map[string]repo{} // by folder: a line of many git commands looks once
	gitDir := func(dirs []string, unknown bool) (string, string) {
		start, ok := folder(dirs, unknown)
		if !ok {
			return "", ""
		}
		r, ok := repos[start]
		if !ok {
			r.gitDir, r.workTree = findRepo(start)
			repos[start] = r
		}
		return r.gitDir, r.workTree
	}
	return shellcmd.Disk{FindUp: findUp, File: file, GitDir: gitDir}
}

// findRepo returns the git folder and the work tree of the repository
// that holds the folder start, "" when none does.
func findRepo(start string) (string, string) {
	for dir := start; ; dir = filepath.Dir(dir) {
		dotGit := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			if fi.IsDir() {
				return dotGit, dir
			}
			// A worktree's or a submodule's .git file names its folder.
			data, there, why := readDiskFile(dotGit)
			if !there || why != "" {
				return "", ""
			}
			d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return "", ""
			}
			if d = strings.TrimSpace(d); !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			return filepath.Clean(d), dir
		}
		if dir == filepath.Dir(dir) {
			return "", ""
		}
	}
}

// readDiskFile reads a file a program runs from. there reports one in its
// place; why is set when it is there but too large or not a file.
func readDiskFile(name string) (data []byte, there bool, why string) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, false, ""
	}
	if !fi.Mode().IsRegular() {
		return nil, true, fmt.Sprintf("%s is not a regular file", name)
	}
	data, err = readBounded(name)
	switch {
	case errors.Is(err, errNoFile):
		return nil, false, ""
	case err != nil:
		return nil, true, fmt.Sprintf("%s: %v", name, err)
	}
	return data, true, ""
}

// errNoFile: no file in the place.
var errNoFile = errors.New("no such file")

// readBounded reads a regular file of at most maxDiskFile bytes. It does
// not wait on a FIFO put in the file's place since the Stat.
func readBounded(name string) ([]byte, error) {
	f, err := plainfile.Open(name, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoFile
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := readSized(f, fi.Size(), maxDiskFile)
	if err != nil {
		return nil, err
	}
	if len(data) > maxDiskFile {
		return nil, fmt.Errorf("larger than %d KiB, more than is read for what it runs", maxDiskFile>>10)
	}
	return data, nil
}
