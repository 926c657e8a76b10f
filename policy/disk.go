package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// (shellcmd.Disk): the scripts of the package.json a package manager
// finds, the nearest one up from the folder it runs in, as npm finds it,
// and the makefile make reads. home resolves "~"; each package.json is
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
		scripts  map[string]string
		dir, why string
		there    bool
	}
	read := map[string]found{}
	scripts := func(dirs []string, unknown bool) (map[string]string, string, string) {
		start, ok := folder(dirs, unknown)
		if !ok {
			return nil, "", ""
		}
		for dir := start; ; dir = filepath.Dir(dir) {
			f, ok := read[dir]
			if !ok {
				f.scripts, f.there, f.why = readPackageScripts(filepath.Join(dir, "package.json"))
				f.dir = dir
				read[dir] = f
			}
			if f.there {
				return f.scripts, f.dir, f.why
			}
			if dir == filepath.Dir(dir) {
				return nil, "", ""
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
			data, there, why := readDiskFile(p)
			if there {
				return string(data), dir, why
			}
		}
		return "", "", ""
	}
	gitDir := func(dirs []string, unknown bool) (string, string) {
		start, ok := folder(dirs, unknown)
		if !ok {
			return "", ""
		}
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
	return shellcmd.Disk{PackageScripts: scripts, File: file, GitDir: gitDir}
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

// readPackageScripts reads the string-valued scripts of a package.json.
// there reports one in its place, the one a package manager uses even when
// it does not read as JSON (npm then runs nothing). why is set when it is
// there but too large or not a file: what it would run cannot be known.
func readPackageScripts(name string) (scripts map[string]string, there bool, why string) {
	data, there, why := readDiskFile(name)
	if !there || why != "" {
		return nil, there, why
	}
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return nil, true, ""
	}
	scripts = map[string]string{}
	for k, v := range pkg.Scripts {
		if s, ok := v.(string); ok {
			scripts[k] = s
		}
	}
	return scripts, true, ""
}

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
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDiskFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDiskFile {
		return nil, fmt.Errorf("larger than %d KiB, more than is read for what it runs", maxDiskFile>>10)
	}
	return data, nil
}
