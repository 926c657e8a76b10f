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

// maxPackageJSON bounds the package.json read for its scripts, as
// onboarding bounds it.
const maxPackageJSON = 512 << 10

// packageDisk is what a line run in cwd reads from disk for the parse
// (shellcmd.Disk): the scripts of the package.json a package manager
// finds, the nearest one up from the folder it runs in, as npm finds it.
// home resolves "~"; each folder is read once per line.
func packageDisk(cwd, home string) shellcmd.Disk {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return shellcmd.Disk{}
	}
	type found struct {
		scripts  map[string]string
		dir, why string
		there    bool
	}
	read := map[string]found{}
	return shellcmd.Disk{PackageScripts: func(dirs []string, unknown bool) (map[string]string, string, string) {
		start := cwd
		if !unknown { // otherwise where the line starts is the best guess
			for _, d := range dirs {
				switch {
				case d == "~" || strings.HasPrefix(d, "~/"):
					if home == "" {
						return nil, "", ""
					}
					start = filepath.Join(home, d[1:])
				case filepath.IsAbs(d):
					start = filepath.Clean(d)
				default:
					start = filepath.Join(start, d)
				}
			}
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
	}}
}

// errNoPackage: no package.json that a package manager would read here.
var errNoPackage = errors.New("no package.json")

// readPackageScripts reads the string-valued scripts of a package.json.
// there reports one in its place, the one a package manager uses even when
// it does not read as JSON (npm then runs nothing). why is set when it is
// there but too large or not a file: what it would run cannot be known.
func readPackageScripts(name string) (scripts map[string]string, there bool, why string) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, false, ""
	}
	if !fi.Mode().IsRegular() {
		return nil, true, fmt.Sprintf("%s is not a regular file", name)
	}
	data, err := readBounded(name)
	switch {
	case errors.Is(err, errNoPackage):
		return nil, false, ""
	case err != nil:
		return nil, true, fmt.Sprintf("%s: %v", name, err)
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

// readBounded reads a regular file of at most maxPackageJSON bytes. It
// does not wait on a FIFO put in the file's place since the Stat.
func readBounded(name string) ([]byte, error) {
	f, err := plainfile.Open(name, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoPackage
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPackageJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPackageJSON {
		return nil, fmt.Errorf("larger than %d KiB, more than is read for its scripts", maxPackageJSON>>10)
	}
	return data, nil
}
