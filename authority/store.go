// Package authority keeps what a human authorized: for each repository, the
// digest of the agent-shell configuration they last approved with
// `agent-shell authorize`, in the user's own configuration directory
// (outside every repository, where an agent editing the repository cannot
// reach it by accident), and the copy of that configuration kept inside the
// repository so that decisions can fall back to it.
//
// It imports nothing of agent-shell's: it stores digests and files, and
// knows nothing of what they mean.
package authority

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/agent-shell/agent-shell/internal/atomicfile"
	"github.com/agent-shell/agent-shell/internal/plainfile"
)

// FileName is the store's file in the configuration directory.
const FileName = "authorized.json"

// Version is the store's "version"; a file with another one is an error.
const Version = 1

// maxStoreBytes bounds authorized.json: about 20,000 repositories.
const maxStoreBytes = 8 << 20

// lockTimeout bounds the wait for another authorize to finish.
var lockTimeout = 10 * time.Second

// ErrNoConfigDir is returned when neither XDG_CONFIG_HOME nor HOME says
// where the user's configuration lives.
var ErrNoConfigDir = errors.New("no configuration directory: set XDG_CONFIG_HOME or HOME")

// ErrBadRoot is returned for a repository root that cannot be a key: empty,
// relative, or holding a NUL byte.
var ErrBadRoot = errors.New("not an absolute repository root")

// ConfigDir is agent-shell's folder in the user's configuration directory:
// $XDG_CONFIG_HOME/agent-shell, else $HOME/.config/agent-shell. As the XDG
// specification says, a relative XDG_CONFIG_HOME is ignored.
func ConfigDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "agent-shell"), nil
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "agent-shell"), nil
	}
	return "", ErrNoConfigDir
}

// Record is what was authorized for one repository.
type Record struct {
	// Digest is the configuration digest that was authorized (hex SHA-256).
	Digest string `json:"digest"`
	// AuthorizedAt is when, in UTC.
	AuthorizedAt time.Time `json:"authorized_at"`
	// Hosts are the agents whose hook registration ran agent-shell then.
	Hosts []string `json:"hosts"`
	// By says who confirmed the authorization, and from where; nil in a
	// record written before agent-shell kept it.
	By *Provenance `json:"by,omitempty"`
	// Programs pins the compiled programs of the configuration's scripts:
	// each compile-cache key (hex SHA-256) maps to the SHA-256 of the
	// program compiled from the authorized source, so that a cache entry,
	// which lives in the repository, is used only when it is that program.
	Programs map[string]string `json:"programs,omitempty"`
}

// Provenance is who authorized, and from where, as the authorizing process
// saw it. It is a record for people (status shows it), not a proof: the
// process reads it from its own environment and from /proc.
type Provenance struct {
	User     string   `json:"user"`              // $USER (or $LOGNAME), as set
	UID      int      `json:"uid"`               // the real user id
	Actor    string   `json:"actor"`             // the actor the flight recorder would name ("human")
	Host     string   `json:"host"`              // the machine's host name
	Terminal string   `json:"terminal"`          // the controlling terminal the confirmation was typed on
	Via      []string `json:"via,omitempty"`     // the names of the processes above, nearest first
	Claimed  string   `json:"claimed,omitempty"` // AGENTSHELL_ACTOR, when it named someone else
}

// Bounds on a record's free text and pins.
const (
	maxFieldBytes = 256
	maxVia        = 16
	maxPrograms   = 4096
)

func (r Record) validate() error {
	if !isHexSHA256(r.Digest) {
		return fmt.Errorf("digest %q is not a hex SHA-256", r.Digest)
	}
	for _, h := range r.Hosts {
		if h == "" || len(h) > 64 || strings.ContainsAny(h, "\x00\n") {
			return fmt.Errorf("host %q is not a host name", h)
		}
	}
	if len(r.Programs) > maxPrograms {
		return fmt.Errorf("%d programs pinned, more than %d", len(r.Programs), maxPrograms)
	}
	for k, v := range r.Programs {
		if !isHexSHA256(k) || !isHexSHA256(v) {
			return fmt.Errorf("program pin %q: %q is not a pair of hex SHA-256s", k, v)
		}
	}
	if r.By != nil {
		return r.By.validate()
	}
	return nil
}

func (p *Provenance) validate() error {
	if len(p.Via) > maxVia {
		return fmt.Errorf("by: %d processes, more than %d", len(p.Via), maxVia)
	}
	for _, f := range append([]string{p.User, p.Actor, p.Host, p.Terminal, p.Claimed}, p.Via...) {
		if len(f) > maxFieldBytes || strings.ContainsAny(f, "\x00\n") {
			return fmt.Errorf("by: %q is not a name", f)
		}
	}
	return nil
}

func isHexSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

type storeFile struct {
	Version int               `json:"version"`
	Repos   map[string]Record `json:"repos"`
}

// Key is the store's key for a repository root: the absolute path with
// symbolic links resolved, so that one repository reached by two paths is
// one entry. A root that does not exist (any more) keys by its cleaned path.
func Key(root string) (string, error) {
	if root == "" || !filepath.IsAbs(root) || strings.IndexByte(root, 0) >= 0 {
		return "", fmt.Errorf("%w: %q", ErrBadRoot, root)
	}
	root = filepath.Clean(root)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return root, nil
}

// Lookup returns the record of the repository at root, and whether there is
// one. A missing store is no record; a store that cannot be read or is not
// one agent-shell wrote is an error (the caller decides how to fail).
func Lookup(cfgDir, root string) (Record, bool, error) {
	key, err := Key(root)
	if err != nil {
		return Record{}, false, err
	}
	sf, err := readStore(filepath.Join(cfgDir, FileName))
	if err != nil {
		return Record{}, false, err
	}
	rec, ok := sf.Repos[key]
	return rec, ok, nil
}

// Save records rec for the repository at root, replacing its earlier record
// and keeping every other repository's. The store is rewritten whole, to a
// temporary file that is synced and renamed over it, under an exclusive lock
// so that two authorizations never lose one another's update.
func Save(cfgDir, root string, rec Record) error {
	return Transact(cfgDir, root, rec, nil, nil)
}

// Transact is Save with work done under the same lock: before runs first,
// and when it fails nothing is recorded; after runs once rec is recorded.
// An authorization puts its copy of the configuration in place in before
// and removes older copies in after, so that two authorizations of one
// repository cannot leave the record naming a copy the other removed.
func Transact(cfgDir, root string, rec Record, before func() error, after func()) error {
	key, err := Key(root)
	if err != nil {
		return err
	}
	if err := rec.validate(); err != nil {
		return fmt.Errorf("authorization record: %w", err)
	}
	rec.AuthorizedAt = rec.AuthorizedAt.UTC().Truncate(time.Second)
	rec.Hosts = append([]string{}, rec.Hosts...)
	sort.Strings(rec.Hosts)
	if err := mkdirPrivate(cfgDir); err != nil {
		return fmt.Errorf("authorization store: %w", err)
	}
	unlock, err := lock(filepath.Join(cfgDir, FileName+".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(cfgDir, FileName)
	sf, err := readStore(path)
	if err != nil {
		return err
	}
	if before != nil {
		if err := before(); err != nil {
			return err
		}
	}
	sf.Repos[key] = rec
	data, err := json.MarshalIndent(sf, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	if after != nil {
		after()
	}
	return nil
}

// readStore reads the store at path; a missing file is an empty store.
func readStore(path string) (*storeFile, error) {
	sf := &storeFile{Version: Version, Repos: map[string]Record{}}
	data, err := readFileNoFollow(path, maxStoreBytes)
	if errors.Is(err, os.ErrNotExist) {
		return sf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("authorization store: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("authorization store %s: %s; fix or remove it, then run agent-shell authorize", path, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in storeFile
	if err := dec.Decode(&in); err != nil {
		return nil, bad("not a store agent-shell wrote: %v", err)
	}
	if dec.More() {
		return nil, bad("data after the object")
	}
	if in.Version != Version {
		return nil, bad("version %d, want %d", in.Version, Version)
	}
	for k, r := range in.Repos {
		if err := r.validate(); err != nil {
			return nil, bad("repository %q: %v", k, err)
		}
		sf.Repos[k] = r
	}
	return sf, nil
}

// readFileNoFollow reads a regular file that is not a symbolic link, up to
// max bytes.
func readFileNoFollow(path string, max int64) ([]byte, error) {
	f, err := plainfile.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link", path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}

// mkdirPrivate creates dir and its missing parents, the new ones 0700.
func mkdirPrivate(dir string) error {
	return os.MkdirAll(dir, 0o700)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ErrLocked is returned when another process holds the store's lock for
// longer than lockTimeout.
var ErrLocked = errors.New("the authorization store is locked by another process")

// lock takes an exclusive flock on the lock file at path (created 0600 and
// never removed, so every process locks the same inode), polling until it
// is free or lockTimeout passes.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(lockTimeout)
	wait := time.Millisecond
	for {
		err := flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s)", ErrLocked, path)
		}
		time.Sleep(wait)
		if wait < 50*time.Millisecond {
			wait *= 2
		}
	}
	return func() {
		_ = flock(fd, syscall.LOCK_UN)
		f.Close()
	}, nil
}

// flock retries on EINTR.
func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
