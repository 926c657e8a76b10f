package telemetry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agent-shell/agent-shell/internal/plainfile"
	"github.com/agent-shell/agent-shell/internal/project"
)

// DefaultEventsSubdir is where events live under the project root.
const DefaultEventsSubdir = project.EventsDir

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

// NotRegularError is a session file that is a symbolic link, a named pipe,
// a device or anything else but a regular file. Events written there could
// vanish (a pipe nobody reads, /dev/null) or land outside the project, and
// reading a pipe could wait forever, so such a file is neither written nor
// read.
type NotRegularError struct {
	Path string
	Mode fs.FileMode // its type bits
}

func (e *NotRegularError) Error() string {
	return e.Path + " is " + e.Kind() + ", not a regular file"
}

// Kind names what the file is instead.
func (e *NotRegularError) Kind() string {
	switch m := e.Mode; {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// OpenSessionRead opens a session file for reading, as the recorder's own
// readers do: only a regular file, never through a symbolic link, never
// waiting on a named pipe.
func OpenSessionRead(path string) (*os.File, error) {
	return openSessionFile(path, syscall.O_RDONLY)
}

// openSessionFile opens a session file with flags and returns it only when
// it is a regular file, never following a symbolic link. It opens without
// blocking, so a named pipe cannot make it wait for a peer, then makes the
// descriptor blocking again: wrapped by os.NewFile, a blocking descriptor
// stays out of Go's poller, whose setup (epoll, eventfd) a one-event
// process would pay for nothing.
func openSessionFile(path string, flags int) (*os.File, error) {
	f, err := plainfile.Open(path, flags|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if errors.Is(err, syscall.ELOOP) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
		}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode().Type()}
	}
	return f, nil
}
