package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
)

// Lifecycle says how long a script's state lives.
type Lifecycle string

const (
	Invocation Lifecycle = "invocation" // fresh each call, never stored
	Session    Lifecycle = "session"    // per agent session
	Runtime    Lifecycle = "runtime"    // per manifest digest, across sessions
)

// Valid reports whether l is one of the three lifecycles.
func (l Lifecycle) Valid() bool {
	switch l {
	case Invocation, Session, Runtime:
		return true
	}
	return false
}

// Identity is what a snapshot must match to be used: otherwise the script starts from empty state (a changed script or manifest never sees state written by another version).
type Identity struct {
	ScriptID, Kind, SourceSHA256, ManifestSHA256 string
}

// ErrLocked is wrapped by the error Transact returns when its context ends
// while another transaction holds the state's lock.
var ErrLocked = errors.New("state is locked")

// ErrCorrupt is wrapped by the error Transact returns when a snapshot on
// disk cannot be used: not valid JSON, a wrong version, a state that is not
// JSON-like data or over the limits. The error names the file.
var ErrCorrupt = errors.New("corrupt state snapshot")

// Store is the state folder of one repository, normally <root>/.agent-shell/state; created on first write with mode 0700.
type Store struct {
	dir string
}

// Open returns the Store for the folder dir. It touches nothing on disk.
func Open(dir string) *Store { return &Store{dir: filepath.Clean(dir)} }

// Dir is the Store's folder.
func (s *Store) Dir() string { return s.dir }

// SessionDir is the folder of one session, <dir>/sessions/<session>: the
// session id itself when it is a safe path element, else its stable hashed
// form (see SessionKey). Other per-session files (approval grants) belong
// there too.
func (s *Store) SessionDir(sessionID string) (string, error) {
	key, err := SessionKey(sessionID)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.dir, "sessions", key), nil
}

// Path is the snapshot file of one script instance: for Session
// <dir>/sessions/<session>/scripts/<script id>.json, for Runtime
// <dir>/runtime/<manifest sha256>/<script id>.json. Invocation state has no
// file, so it is an error, as are an invalid identity or, for Session, an
// empty session id.
func (s *Store) Path(lc Lifecycle, sessionID string, id Identity) (string, error) {
	if err := id.check(); err != nil {
		return "", err
	}
	var folder string
	switch lc {
	case Session:
		d, err := s.SessionDir(sessionID)
		if err != nil {
			return "", err
		}
		folder = filepath.Join(d, "scripts")
	case Runtime:
		folder = filepath.Join(s.dir, "runtime", id.ManifestSHA256)
	case Invocation:
		return "", fmt.Errorf("script %q: invocation state is never stored", id.ScriptID)
	default:
		return "", fmt.Errorf("script %q: invalid lifecycle %q", id.ScriptID, string(lc))
	}
	return filepath.Join(folder, id.ScriptID+snapshotExt), nil
}

const (
	snapshotExt = ".json"
	lockExt     = ".lock"
	tempExt     = ".json.tmp"
)

// Transact runs fn on the committed state of one script instance and commits what fn returns when commit is true.
//
// For Invocation, fn gets an empty map and nothing is read, locked or
// written. For Session (sessionID required) and Runtime, the snapshot's
// lock file is locked exclusively (flock) for the whole read, fn and write,
// so transactions on one snapshot serialize across processes and
// goroutines alike. The folders (mode 0700) and the lock file are created
// on the first call, since fn may commit. Waiting for the lock ends when
// ctx is done, with an error wrapping ErrLocked and ctx.Err().
//
// fn receives a fresh decode of the committed state (empty when there is
// none or when it was written under another Identity), which it may keep or
// mutate. When fn returns an error, Transact returns that error unchanged
// and writes nothing; so it does when commit is false. Otherwise next (nil
// meaning empty) must be JSON-like data (see Validate) that encodes to at
// most MaxFileBytes; it replaces the snapshot as a whole file, durably,
// before the lock is released. A next state whose snapshot is byte for byte
// the one on disk is not rewritten.
func (s *Store) Transact(ctx context.Context, lc Lifecycle, sessionID string, id Identity, fn func(cur map[string]any) (next map[string]any, commit bool, err error)) error {
	return s.transact(ctx, lc, sessionID, id, true, fn)
}

// transact is Transact; without create, a snapshot folder that does not
// exist means empty state, and fn must not commit.
func (s *Store) transact(ctx context.Context, lc Lifecycle, sessionID string, id Identity, create bool, fn func(cur map[string]any) (next map[string]any, commit bool, err error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if lc == Invocation {
		_, _, err := fn(map[string]any{})
		return err
	}
	path, err := s.Path(lc, sessionID, id)
	if err != nil {
		return err
	}
	lockPath := path[:len(path)-len(snapshotExt)] + lockExt

	lock, err := openLockFile(lockPath, create)
	if err != nil {
		return err
	}
	if lock == nil { // no folder, so no state, and nothing to create
		_, _, err := fn(map[string]any{})
		return err
	}
	defer lock.Close() // releases the lock
	if err := waitLock(ctx, lock, path); err != nil {
		return err
	}

	old, err := readSnapshotFile(path)
	if err != nil {
		return err
	}
	cur := map[string]any{}
	if old != nil {
		if cur, err = parseSnapshot(old, id); err != nil {
			return fmt.Errorf("%w %s: %v", ErrCorrupt, path, err)
		}
	}

	next, commit, err := fn(cur)
	if err != nil || !commit {
		return err
	}
	data, err := encodeSnapshot(id, next)
	if err != nil {
		return fmt.Errorf("script %q: state not committed: %w", id.ScriptID, err)
	}
	if string(data) == string(old) {
		return nil // already committed, durably, by whoever wrote it
	}
	if err := atomicfile.WriteLocked(path, path[:len(path)-len(snapshotExt)]+tempExt, data, 0o600); err != nil {
		return fmt.Errorf("script %q: state not committed: %w", id.ScriptID, err)
	}
	return nil
}

// Load returns the committed state of one script instance (empty when there
// is none, or for another Identity), taking the lock like Transact so that
// it never sees a commit half done. It creates no folder: showing the state
// of a session that has none leaves no trace.
func (s *Store) Load(ctx context.Context, lc Lifecycle, sessionID string, id Identity) (map[string]any, error) {
	var st map[string]any
	err := s.transact(ctx, lc, sessionID, id, false, func(cur map[string]any) (map[string]any, bool, error) {
		st = cur
		return nil, false, nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// parseSnapshot decodes a snapshot file's bytes into the state they hold
// for id: empty when the snapshot was written under another identity.
func parseSnapshot(data []byte, id Identity) (map[string]any, error) {
	snap, err := decodeEnvelope(data)
	if err != nil {
		return nil, err
	}
	if snap.Identity != id {
		return map[string]any{}, nil
	}
	return decodeState(snap.State)
}

// readSnapshotFile returns the snapshot's bytes, or nil when there is none.
func readSnapshotFile(path string) ([]byte, error) {
	fd, err := openNoPoll(path, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return nil, nil
		}
		return nil, fmt.Errorf("read state: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w %s: not a regular file", ErrCorrupt, path)
	}
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%w %s: %d bytes, over the %d-byte limit", ErrCorrupt, path, fi.Size(), MaxFileBytes)
	}
	// Read one byte past the size seen, so that a file grown meanwhile
	// (written by hand: commits hold the lock) is caught by the cap.
	buf := make([]byte, fi.Size()+1)
	n := 0
	for n < len(buf) {
		m, err := f.Read(buf[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	if n > MaxFileBytes {
		return nil, fmt.Errorf("%w %s: over the %d-byte limit", ErrCorrupt, path, MaxFileBytes)
	}
	if n == 0 {
		// A snapshot is never empty: commits rename a complete file.
		return nil, fmt.Errorf("%w %s: empty file", ErrCorrupt, path)
	}
	return buf[:n], nil
}

// syncDir makes the folder's entries (a rename, a new file) durable.
func syncDir(dir string) error {
	fd, err := openNoPoll(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	if err := fsync(fd); err != nil {
		return &os.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}

// openNoPoll opens a blocking, close-on-exec descriptor. Wrapped by
// os.NewFile it stays out of Go's poller, whose setup (epoll, eventfd) a
// process started once per tool call would pay for nothing.
func openNoPoll(path string, mode int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, mode|syscall.O_CLOEXEC, perm)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

func fsync(fd int) error {
	for {
		err := syscall.Fsync(fd)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
