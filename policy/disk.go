package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
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
	type up struct{ text, dir, why string }
	ups := map[string]up{} // by folder and name: a line of many npm commands looks up once
	findUp := func(dirs []string, unknown bool, name string) (string, string, string) {
		start, ok := folder(dirs, unknown)
		if !ok {
			return "", "", ""
		}
		key := start + "\x00" + name
		if u, ok := ups[key]; ok {
			return u.text, u.dir, u.why
		}
		var u up
		for dir := start; ; dir = filepath.Dir(dir) {
			if f := readOnce(filepath.Join(dir, name)); f.there {
				u = up{f.text, dir, f.why}
				break
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
		ups[key] = u
		return u.text, u.dir, u.why
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
	type globbed struct {
		folders []string
		why     string
	}
	globs := map[string]globbed{} // by folder and patterns: a script that runs pnpm -r again looks once
	members := func(dir string, patterns []string, file string) ([]string, string) {
		key := dir + "\x00" + file + "\x00" + strings.Join(patterns, "\x00")
		g, ok := globs[key]
		if !ok {
			g.folders, g.why = workspaces(dir, patterns, file)
			globs[key] = g
		}
		return g.folders, g.why
	}
	return shellcmd.Disk{FindUp: findUp, File: file, GitDir: gitDir, Workspaces: members}
}

// maxWorkspaceDirs bounds the folders listed to find a project's
// workspaces; past it they are not known.
const maxWorkspaceDirs = 4096

// workspaces finds the workspaces of the package in dir (Disk.Workspaces):
// the folders the patterns match that hold file. Like the package
// managers, it does not look in node_modules or hidden folders (unless a
// pattern names one), and ** is up to three folders here.
func workspaces(dir string, patterns []string, file string) ([]string, string) {
	g := workspaceGlob{found: map[string]bool{}, budget: maxWorkspaceDirs}
	for _, p := range patterns {
		p = path.Clean("/" + filepath.ToSlash(p))
		if strings.HasPrefix(p, "/..") {
			continue // outside the project: no package manager takes it
		}
		g.match(dir, strings.Split(strings.Trim(p, "/"), "/"), 0)
	}
	if g.budget < 0 {
		return nil, fmt.Sprintf("its workspace patterns reach more than %d folders", maxWorkspaceDirs)
	}
	var out []string
	for d := range g.found {
		if fi, err := os.Lstat(filepath.Join(d, file)); err == nil && fi.Mode().IsRegular() {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out, ""
}

// workspaceGlob matches workspace patterns against folders.
type workspaceGlob struct {
	found  map[string]bool
	budget int // folders still to list
}

// match adds the folders under dir that segs match; deep counts the
// folders ** has gone down.
func (g *workspaceGlob) match(dir string, segs []string, deep int) {
	if g.budget < 0 {
		return
	}
	if len(segs) == 0 || len(segs) == 1 && segs[0] == "" {
		g.found[dir] = true
		return
	}
	seg := segs[0]
	if seg == "**" {
		g.match(dir, segs[1:], 0)
		if deep < 3 {
			for _, sub := range g.subdirs(dir, "*") {
				g.match(sub, segs, deep+1)
			}
		}
		return
	}
	if !strings.ContainsAny(seg, "*?[") {
		g.match(filepath.Join(dir, seg), segs[1:], 0)
		return
	}
	for _, sub := range g.subdirs(dir, seg) {
		g.match(sub, segs[1:], 0)
	}
}

// subdirs lists the folders in dir whose names match pattern.
func (g *workspaceGlob) subdirs(dir, pattern string) []string {
	if g.budget--; g.budget < 0 {
		return nil
	}
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		name := e.Name()
		if name == "node_modules" || name[0] == '.' && pattern[0] != '.' {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(filepath.Join(dir, name))
			isDir = err == nil && fi.IsDir()
		}
		if ok, err := path.Match(pattern, name); isDir && ok && err == nil {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
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
